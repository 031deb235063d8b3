// Why a flow suffered, in an operator's words, from what the run recorded at the moments it
// suffered (moments.ts): the limit its level had then, the seats in use and the queues, and the
// mechanism: a cold start, one APF flow shared with a heavier sender, borrowing that lags a burst,
// a lender's own demand coming back, the seat cost of wide requests (and why they cost that), a
// hand collision (shuffle sharding put it in a heavier flow's queues while others were idle), the
// queue length limit, the server's concurrency limit; and, apart from APF, CPUs oversubscribed at
// those moments (the capacity model). Each explanation names the remedies that
// address its cause; suggest.ts turns those into manifests and simulates them.

import { BORROWING_ADJUSTMENT_PERIOD_MS } from '../../engine/flowcontrol/seat-demand.ts';
import { groupResourceKey } from '../../engine/flowcontrol/work-estimate.ts';
import type { FlowcontrolConfig } from '../../engine/flowcontrol/controller.ts';
import type { FlowSchema, PriorityLevelConfiguration } from '../../engine/resources/types.ts';
import type { FlowReport, SimulationReport } from '../report.ts';
import type { FlowSpec, Scenario } from '../scenario.ts';
import { fmtInt, fmtNumber, fmtRange, fmtSeconds } from '../report/format.ts';
import { effectiveMaxSeats, MAXIMUM_SEATS_LIMIT, maxSeatsBounds, PRIORITY_LEVEL_MAX_SEATS_FRACTION } from '../../engine/flowcontrol/max-seats.ts';
import { DEFAULT_WORK_ESTIMATOR_CONFIG } from '../../engine/flowcontrol/work-estimator-config.ts';
import type { LevelReport } from '../report.ts';
import { heldSeatSharesAt, momentsOf, offeredSeatsAt, seconds, spanText, type LevelState, type Moments } from './moments.ts';
import type { Remedy } from '../remedy.ts';
import { COLD_START_MS } from '../cold-start.ts';
import type { HandCollisionRecords } from '../hand-collisions.ts';
import { handCollisionAt } from './hand-collision.ts';
import { cpuClause } from './cpu-oversubscription.ts';

export interface Explanation {
  flow: string;
  level: string;
  /** One or two sentences a newcomer can follow. */
  text: string;
  remedies: Remedy[];
}

/** A flow suffers when it loses 1% of its requests or waits 100 ms at p99. */
export const SUFFERING_REJECTED_FRACTION = 0.01;
export const SUFFERING_WAIT_P99_SECONDS = 0.1;
const PAGE_LIMIT = 500;

export function isSuffering(f: FlowReport): boolean {
  return (f.arrived > 0 && f.rejectedTotal >= SUFFERING_REJECTED_FRACTION * f.arrived) || (f.waitSeconds.p99 ?? 0) >= SUFFERING_WAIT_P99_SECONDS;
}

/** What every flow's explanation reads: the run, the scenario's flows and the configuration by name. */
interface Run {
  report: SimulationReport;
  scenario: Scenario;
  hands: HandCollisionRecords | undefined;
  specs: Map<string, FlowSpec>;
  schemas: Map<string, FlowSchema>;
  plcs: Map<string, PriorityLevelConfiguration>;
}

/** One suffering flow, its level, and what the run recorded at the moments it suffered. */
interface Victim {
  name: string;
  f: FlowReport;
  levelName: string;
  level: LevelReport;
  /** "lost 12 of 300 requests and waited 1.2 s at p99". */
  symptom: string;
  m: Moments | undefined;
  /** The limit in force while the flow suffered; the run's mean only when no interval shows the suffering. */
  cl: string;
  /** " from 20 s to 30 s, while x suffered: …", or " on average". */
  whenText: string;
  /** The server's concurrency limit and its CPUs at those moments, when either was the bound. */
  serverClause: string;
  plc: PriorityLevelConfiguration | undefined;
  /** The other flows of the level. */
  neighbours: [string, FlowReport][];
}

/** What a wide request costs and why: its objects, whether it pages, and the maxSeats that caps it. */
interface Cost {
  spec: FlowSpec | undefined;
  objects: number | undefined;
  paged: boolean;
  text: string;
  why: string;
}

/** `hands`: the run's hand-collision records (SimulationResult.handCollisions); without them none is named. */
export function explain(report: SimulationReport, scenario: Scenario, config: FlowcontrolConfig, hands?: HandCollisionRecords): Explanation[] {
  const run: Run = {
    report,
    scenario,
    hands,
    specs: new Map(scenario.flows.map((f) => [f.name, f])),
    schemas: new Map(config.flowSchemas.map((fs) => [fs.metadata?.name ?? '', fs])),
    plcs: new Map(config.priorityLevels.map((p) => [p.metadata?.name ?? '', p])),
  };
  const suffering = Object.entries(report.flows)
    .filter(([, f]) => isSuffering(f) && !f.priorityLevel.includes(','))
    .sort(
      (a, b) =>
        b[1].rejectedTotal / Math.max(1, b[1].arrived) - a[1].rejectedTotal / Math.max(1, a[1].arrived) ||
        (b[1].waitSeconds.p99 ?? 0) - (a[1].waitSeconds.p99 ?? 0),
    );
  const out: Explanation[] = [];
  for (const [name, f] of suffering) {
    const level = report.levels[f.priorityLevel];
    if (level === undefined) continue;
    out.push(explainFlow(run, name, f, level));
  }
  return out;
}

/**
 * The first mechanism the run's records show, in the order a cause excludes the later ones. A flow
 * that is one APF flow with a heavier sender suffers with it whatever else happens (fair queuing
 * cannot tell them apart), so that comes before the level's own limits.
 */
function explainFlow(run: Run, name: string, f: FlowReport, level: LevelReport): Explanation {
  const symptom = symptomOf(f);
  const cold = coldStart(run, name, f, level, symptom);
  if (cold !== undefined) return cold;
  const v = victimOf(run, name, f, level, symptom);
  return sharedFlow(run, v) ?? borrowingLag(run, v) ?? wideRequests(run, v) ?? handCollision(run, v) ?? overAsked(run, v);
}

function symptomOf(f: FlowReport): string {
  const slow = (f.waitSeconds.p99 ?? 0) >= SUFFERING_WAIT_P99_SECONDS;
  return f.rejectedTotal > 0
    ? `lost ${fmtInt(f.rejectedTotal)} of ${fmtInt(f.arrived)} requests${slow ? ` and waited ${fmtSeconds(f.waitSeconds.p99!)} at p99` : ''}`
    : `waited ${fmtSeconds(f.waitSeconds.p99!)} at p99`;
}

/**
 * Trouble only while the levels still had their start-up limits is not a configuration problem:
 * no rejection after the cold start, and the level's queues (almost) empty from then on.
 */
function coldStart({ report }: Run, name: string, f: FlowReport, level: LevelReport, symptom: string): Explanation | undefined {
  const levelName = f.priorityLevel;
  const times = report.series.timesSeconds;
  const rejectedSeries = report.series.flows[name]?.rejected ?? [];
  const lateRejections = rejectedSeries.reduce((sum, n, i) => sum + (times[i]! * 1000 > COLD_START_MS ? n : 0), 0);
  const waitingLater = (report.series.levels[levelName]?.waitingMean ?? []).reduce((m, w, i) => (times[i]! * 1000 > COLD_START_MS ? Math.max(m, w) : m), 0);
  if (lateRejections !== 0 || waitingLater >= 1 || durationMs(report) <= COLD_START_MS) return undefined;
  const cl = report.series.levels[levelName]?.currentCL ?? [];
  const at = (s: number) =>
    cl[
      Math.max(
        0,
        times.findIndex((t) => t >= s),
      )
    ] ?? level.currentCL.final;
  return {
    flow: name,
    level: levelName,
    text:
      `${name} ${symptom}, all in the first ${COLD_START_MS / 1000} s: ${levelName} started at CurrentCL ${at(0)} (NominalCL ${level.nominalCL}) ` +
      `before the 10 s borrowing adjustments had seen any demand, and had ${at(COLD_START_MS / 1000 + 1)} by ${COLD_START_MS / 1000} s. A server ` +
      'that has been running does not start cold; nothing to change.',
    remedies: [],
  };
}

function victimOf(run: Run, name: string, f: FlowReport, level: LevelReport, symptom: string): Victim {
  const { report } = run;
  const levelName = f.priorityLevel;
  const m = momentsOf(report, name, levelName, SUFFERING_WAIT_P99_SECONDS);
  const serverFull = m !== undefined && m.serverSeatsInUseMax >= report.scenario.server.serverConcurrencyLimit;
  const serverClause =
    (serverFull
      ? ` The server's ${report.scenario.server.serverConcurrencyLimit} seats were all in use then (its concurrency limit), so no level had any to lend.`
      : '') + (m === undefined ? '' : cpuClause(report, m.buckets));
  return {
    name,
    f,
    levelName,
    level,
    symptom,
    m,
    cl: m === undefined ? fmtNumber(level.currentCL.mean) : clText(m),
    whenText: m === undefined ? ' on average' : ` ${spanText(m)}, while ${name} suffered: ${stateText(m)}`,
    serverClause,
    plc: run.plcs.get(levelName),
    neighbours: Object.entries(report.flows).filter(([n, g]) => n !== name && g.priorityLevel === levelName),
  };
}

/** What `offender`'s wide requests cost in `victim`'s level, and why. */
function costOf(run: Run, victim: Victim, offender: string, o: FlowReport): Cost {
  const { scenario } = run;
  const spec = run.specs.get(offender);
  const objects = spec === undefined ? undefined : (spec.objects ?? scenario.objectCounts[groupResourceKey(spec.apiGroup, spec.resource)]);
  const paged = spec?.query.limit !== undefined;
  const text =
    `The ${spec?.verb === 'watch' ? 'WATCHes' : 'LISTs'} of ${offender} cost ${fmtNumber(o.seatsPerRequest!)} seats each` +
    `${objects === undefined ? '' : ` (${fmtInt(objects)} objects${paged ? `, limit ${spec!.query.limit}` : ', no limit'})`}`;
  const handSize = victim.plc?.spec?.limited?.limitResponse?.queuing?.handSize;
  const why = objects === undefined ? '' : seatsWhy(objects, o.seatsPerRequest!, victim.levelName, victim.level, handSize, scenario);
  return { spec, objects, paged, text, why };
}

/** An unpaginated LIST of more objects than a page: paginating it is a remedy. */
const pageable = (cost: Pick<Cost, 'spec' | 'paged' | 'objects'>) =>
  cost.spec?.verb === 'list' && !cost.paged && cost.objects !== undefined && cost.objects > PAGE_LIMIT;

/**
 * Borrowing lags a burst: the level was full at the limit it had, and the next adjustment raised
 * it and ended the suffering. A level below its NominalCL had lent its seats and got them back only then.
 */
function borrowingLag(run: Run, v: Victim): Explanation | undefined {
  const { m, level, levelName, name, symptom } = v;
  const rise = m?.rise;
  if (
    m === undefined ||
    rise === undefined ||
    rise.stoppedBySeconds === null ||
    rise.before.seatsInUseMax < rise.before.currentCLAtStart - Math.max(0, effectiveMaxSeats(level.maxSeats) - 1)
  )
    return undefined;
  const b = rise.before;
  const lent = level.nominalCL - b.currentCLAtStart;
  const until = { fromSeconds: m.fromSeconds, toSeconds: rise.atSeconds };
  const wideFlow = [[name, v.f] as [string, FlowReport], ...v.neighbours].find(([, g]) => (g.seatsPerRequest ?? 1) >= 2);
  const cost = wideFlow === undefined ? undefined : costOf(run, v, wideFlow[0], wideFlow[1]);
  const remedies: Remedy[] = wideFlow !== undefined && wideFlow[0] !== name ? [{ kind: 'dedicated-level', flow: wideFlow[0] }] : [];
  remedies.push({ kind: 'more-shares', level: levelName });
  if (cost !== undefined && pageable(cost)) remedies.push({ kind: 'paginate', flow: wideFlow![0], limit: PAGE_LIMIT });
  const head =
    lent > 0
      ? `${levelName} had lent ${lent} of its ${level.nominalCL} nominal seats while idle, and its own demand came back ${spanText(until)}: ` +
        `its CurrentCL was ${b.currentCLAtStart}, all in use (${stateText(b)}), and ${name} ${symptom}. The lent seats came back only at the ` +
        `next borrowing adjustment, at ${seconds(rise.atSeconds)}, when CurrentCL rose to ${rise.to}`
      : `Borrowing lag: ${spanText(until)} the CurrentCL of ${levelName} was ${b.currentCLAtStart}, all in use (${stateText(b)}), and ${name} ` +
        `${symptom}. At the next borrowing adjustment, at ${seconds(rise.atSeconds)}, it rose to ${rise.to}`;
  return {
    flow: name,
    level: levelName,
    text:
      `${head}, and the queueing stopped by ${seconds(rise.stoppedBySeconds)}. Borrowing follows demand once every ` +
      `${BORROWING_ADJUSTMENT_PERIOD_MS / 1000} s, so a burst waits up to one period for seats; a larger NominalCL covers it without waiting.` +
      (cost === undefined ? '' : ` ${cost.text}.${cost.why}`) +
      v.serverClause,
    remedies,
  };
}

/** Wide requests: a LIST wider than one seat at the head of a queue holds the level until it fits. */
function wideRequests(run: Run, v: Victim): Explanation | undefined {
  const { report } = run;
  const { f, level, levelName, name, symptom, m, cl, whenText } = v;
  const wide = [
    ...(f.seatsPerRequest !== null && f.seatsPerRequest >= 2 ? [[name, f] as [string, FlowReport]] : []),
    ...v.neighbours.filter(([, g]) => (g.seatsPerRequest ?? 1) >= 2),
  ].sort((a, b) => seatShare(report, levelName, b[0]) - seatShare(report, levelName, a[0]) || (a[0] < b[0] ? -1 : 1));
  if (wide.length === 0 || (level.noAccommodation <= 0 && wide[0]![0] !== name)) return undefined;
  const [offender, o] = wide[0]!;
  const cost = costOf(run, v, offender, o);
  const fill = Math.max(1, Math.ceil((m === undefined ? level.currentCL.mean : m.currentCL.min) / o.seatsPerRequest!));
  const remedies: Remedy[] = [{ kind: 'dedicated-level', flow: offender }];
  if (pageable(cost)) remedies.push({ kind: 'paginate', flow: offender, limit: PAGE_LIMIT });
  remedies.push({ kind: 'more-shares', level: levelName });
  return {
    flow: name,
    level: levelName,
    text:
      (offender === name
        ? `${cost.text}; ${fill} of them fill the CurrentCL of ${levelName} (${cl}${whenText}), so the rest queue: ${name} ${symptom}.`
        : `${cost.text}; ${fill} of them fill the CurrentCL of ${levelName} (${cl}${whenText}), and a LIST at the head of a ` +
          `queue holds the level until that many seats are free (${fmtInt(level.noAccommodation)} times), so ${name} waits behind them: it ` +
          `${symptom}.`) +
      cost.why +
      v.serverClause,
    remedies,
  };
}

/** One APF flow shared with a heavier sender: the same queues, whatever shuffle sharding does. */
function sharedFlow(run: Run, v: Victim): Explanation | undefined {
  const { f, levelName, name, symptom, m, cl } = v;
  const spec = run.specs.get(name);
  const method = run.schemas.get(f.flowSchema)?.spec?.distinguisherMethod?.type;
  if (spec === undefined || method === undefined) return undefined;
  const key = (s: { user: string; namespace: string }) => (method === 'ByUser' ? s.user : s.namespace);
  const sharing = v.neighbours
    .filter(([n, g]) => g.flowSchema === f.flowSchema && run.specs.get(n) !== undefined && key(run.specs.get(n)!) === key(spec))
    .sort((a, b) => b[1].arrived - a[1].arrived);
  if (sharing.length === 0 || sharing[0]![1].arrived <= f.arrived) return undefined;
  const [heavy, h] = sharing[0]!;
  return {
    flow: name,
    level: levelName,
    text:
      `${name} and ${heavy} are one APF flow: FlowSchema ${f.flowSchema} tells flows apart ` +
      `${method === 'ByUser' ? `by user, and both are ${spec.user}` : `by namespace, and both send to namespace "${spec.namespace}"`}. They ` +
      `share one hand of the queues of ${levelName}, so the ${fmtInt(h.arrived)} requests of ${heavy} fill the queues ` +
      `the requests of ${name} wait in: ${name} ` +
      `${symptom}` +
      (m === undefined ? '.' : ` (${spanText(m)}: the CurrentCL of ${levelName} was ${cl}, ${stateText(m)}).`) +
      (m?.rise === undefined || m.rise.stoppedBySeconds === null
        ? ''
        : ` The borrowing adjustment at ${seconds(m.rise.atSeconds)} raised CurrentCL to ${m.rise.to} and the queueing stopped by ` +
          `${seconds(m.rise.stoppedBySeconds)}, but as long as they are one flow, ${name} waits whenever ${heavy} bursts.`) +
      v.serverClause,
    remedies: [
      { kind: 'dedicated-level', flow: heavy },
      { kind: 'more-shares', level: levelName },
    ],
  };
}

/**
 * A hand collision: its requests waited behind a heavier flow's in the queues of its hand while
 * queues outside it were idle. Not a shortage of seats, so more seats are not the remedy.
 */
function handCollision(run: Run, v: Victim): Explanation | undefined {
  const { level, levelName, name, symptom, m, cl } = v;
  const collision = m === undefined ? undefined : handCollisionAt(run.report, run.hands, name, m);
  if (m === undefined || collision === undefined) return undefined;
  const handSize = v.plc?.spec?.limited?.limitResponse?.queuing?.handSize ?? 0;
  const deal =
    handSize > 0
      ? `shuffle sharding deals each flow of ${levelName} a hand of ${handSize} of its ${level.queues} queues, ` +
        `and the hand of ${name} overlaps that of ${collision.heavy}`
      : `shuffle sharding put ${name} in the queues of ${collision.heavy}`;
  return {
    flow: name,
    level: levelName,
    text:
      `Hand collision: ${deal}. ${capitalized(spanText(m))} the requests of ${name} found up to ${fmtInt(collision.aheadMax)} requests of other flows ` +
      `ahead of them in their queues (${Math.round(100 * collision.heavyShare)}% of them from ${collision.heavy}), while ${collision.idleQueues} of ` +
      `the level's ${level.queues} queues had nothing waiting: ${name} ${symptom}. Each request joins the shortest queue of its own hand, so ` +
      `${name} waits behind ${collision.heavy} however idle the other queues are (the CurrentCL of ${levelName} was ${cl}, ${stateText(m)}). More ` +
      `queues or a larger handSize make such an overlap rarer; a FlowSchema of its own for ${collision.heavy}, or a distinguisher that ` +
      `tells it apart, takes it out of these queues.` +
      v.serverClause,
    remedies: [
      { kind: 'dedicated-level', flow: collision.heavy },
      { kind: 'more-queues', level: levelName },
    ],
  };
}

/** The level is simply asked for more than it has. */
function overAsked({ report }: Run, v: Victim): Explanation {
  const { f, level, levelName, name, symptom, m, cl } = v;
  const demand = Object.values(report.fairness[levelName]?.maxMinFair ?? {}).reduce((s, x) => s + x.demandSeats, 0);
  const queueLimit = v.plc?.spec?.limited?.limitResponse?.queuing?.queueLengthLimit;
  const remedies: Remedy[] = [{ kind: 'more-shares', level: levelName }];
  if (f.rejected['queue-full'] > 0 && queueLimit !== undefined && level.longestQueue >= queueLimit) remedies.push({ kind: 'longer-queues', level: levelName });
  // At the moments the flow suffered, what was asked and what the level had then, and who held its
  // seats then; the run's means only without them.
  const asked = m === undefined ? undefined : offeredSeatsAt(report, levelName, m.buckets);
  const heldThen = m === undefined || asked === undefined ? undefined : heldSeatSharesAt(report, levelName, m.buckets);
  const share = (flow: string) => (heldThen === undefined ? seatShare(report, levelName, flow) : (heldThen.get(flow) ?? 0));
  const top = [...v.neighbours].sort((a, b) => share(b[0]) - share(a[0]))[0];
  const head =
    m === undefined || asked === undefined
      ? `The flows of ${levelName} asked for ${fmtNumber(demand)} seats on average and it had ${fmtNumber(level.currentCL.mean)} (NominalCL ${level.nominalCL})`
      : `${capitalized(spanText(m))} the flows of ${levelName} asked for about ${fmtNumber(asked)} seats and it had ${cl} (NominalCL ${level.nominalCL})`;
  return {
    flow: name,
    level: levelName,
    text:
      head +
      (top !== undefined && share(top[0]) >= 0.5 ? `, ${Math.round(100 * share(top[0]))}% of them held by ${top[0]}` : '') +
      `; ${name} ${symptom}` +
      (f.rejected['queue-full'] > 0 && queueLimit !== undefined
        ? ` (queue-full: its queues hold at most ${queueLimit} requests${m === undefined ? '' : `, and the longest held ${m.longestQueue} then`})`
        : '') +
      '.' +
      (m === undefined ? '' : asked === undefined ? ` ${capitalized(spanText(m))} its CurrentCL was ${cl} (${stateText(m)}).` : ` Then: ${stateText(m)}.`) +
      v.serverClause,
    remedies,
  };
}

const capitalized = (text: string) => text.charAt(0).toUpperCase() + text.slice(1);

/** The limit in force at the moments: one number, or the range it moved in. */
function clText(m: Moments): string {
  return fmtRange(String(m.currentCL.min), String(m.currentCL.max));
}

function stateText(m: LevelState): string {
  return `up to ${fmtInt(m.seatsInUseMax)} seats in use, ${fmtInt(m.waitingMax)} requests waiting, longest queue ${fmtInt(m.longestQueue)}`;
}

/**
 * Why a wide request costs what it does: its objects at objectsPerSeat, capped at the level's
 * maxSeats, which comes from its NominalCL and handSize (max-seats.ts).
 */
function seatsWhy(objects: number, seats: number, levelName: string, level: LevelReport, handSize: number | undefined, scenario: Scenario): string {
  const perSeat = scenario.server.workEstimator?.objectsPerSeat ?? DEFAULT_WORK_ESTIMATOR_CONFIG.objectsPerSeat;
  const wanted = Math.ceil(objects / perSeat);
  if (wanted <= seats) return ` ${fmtInt(objects)} objects at ${perSeat} per seat make ${fmtNumber(seats)} seats.`;
  const limit = scenario.server.workEstimator?.maximumSeatsLimit ?? MAXIMUM_SEATS_LIMIT;
  const cap = effectiveMaxSeats(level.maxSeats, limit);
  const bounds = handSize === undefined || handSize <= 0 ? undefined : maxSeatsBounds(level.nominalCL, handSize);
  const from =
    level.maxSeats > 0 && handSize !== undefined && bounds !== undefined
      ? `its maxSeats, the smaller of ⌈${Math.round(100 * PRIORITY_LEVEL_MAX_SEATS_FRACTION)}% of its NominalCL ${level.nominalCL}⌉ ` +
        `= ${bounds.byPercent} and ` +
        `⌊NominalCL ÷ handSize⌋ = ⌊${level.nominalCL} ÷ ${handSize}⌋ = ${bounds.byHand}, is ${level.maxSeats}` +
        (level.maxSeats > limit ? `, and no request costs more than ${limit}` : '')
      : `no request costs more than ${limit}`;
  return ` ${fmtInt(objects)} objects at ${perSeat} per seat would be ${fmtInt(wanted)} seats, but ${levelName} charges at most ${cap}: ${from}.`;
}

/** The flow's part of the seats its level's flows held over the run. */
function seatShare(report: SimulationReport, level: string, flow: string): number {
  const fair = report.fairness[level]?.maxMinFair ?? {};
  const total = Object.values(fair).reduce((s, m) => s + m.receivedSeats, 0);
  return total > 0 ? (fair[flow]?.receivedSeats ?? 0) / total : 0;
}

function durationMs(report: SimulationReport): number {
  return report.scenario.durationSeconds * 1000;
}
