// Why a flow suffered, in an operator's words, from what the run recorded at the moments it
// suffered (moments.ts): the limit its level had then, the seats in use and the queues, and the
// mechanism: a cold start, borrowing that lags a burst, a lender's own demand coming back, the seat
// cost of wide requests (and why they cost that), one APF flow shared with a heavier sender, a
// hand collision (shuffle sharding put it in a heavier flow's queues while others were idle), the
// queue length limit, the server's concurrency limit; and, apart from APF, CPUs oversubscribed at
// those moments (the capacity model). Each explanation names the remedies that
// address its cause; suggest.ts turns those into manifests and simulates them.

import { BORROWING_ADJUSTMENT_PERIOD_MS } from '../../engine/flowcontrol/seat-demand.ts';
import { groupResourceKey } from '../../engine/flowcontrol/work-estimate.ts';
import type { FlowcontrolConfig } from '../../engine/flowcontrol/controller.ts';
import type { FlowReport, SimulationReport } from '../report.ts';
import type { Scenario } from '../scenario.ts';
import { fmtInt, fmtNumber, fmtSeconds } from '../report/format.ts';
import { effectiveMaxSeats, MAXIMUM_SEATS_LIMIT, PRIORITY_LEVEL_MAX_SEATS_FRACTION } from '../../engine/flowcontrol/max-seats.ts';
import { DEFAULT_WORK_ESTIMATOR_CONFIG } from '../../engine/flowcontrol/work-estimator-config.ts';
import type { LevelReport } from '../report.ts';
import { momentsOf, seconds, spanText, type LevelState, type Moments } from './moments.ts';
import type { Remedy } from './remedy.ts';
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
/** Two borrowing adjustments: before the second, CurrentCL comes from a start without demand history. */
export const COLD_START_MS = 2 * BORROWING_ADJUSTMENT_PERIOD_MS;
const PAGE_LIMIT = 500;

export function isSuffering(f: FlowReport): boolean {
  return (f.arrived > 0 && f.rejectedTotal >= SUFFERING_REJECTED_FRACTION * f.arrived) || (f.waitSeconds.p99 ?? 0) >= SUFFERING_WAIT_P99_SECONDS;
}

/** `hands`: the run's hand-collision records (SimulationResult.handCollisions); without them none is named. */
export function explain(report: SimulationReport, scenario: Scenario, config: FlowcontrolConfig, hands?: HandCollisionRecords): Explanation[] {
  const out: Explanation[] = [];
  const specs = new Map(scenario.flows.map((f) => [f.name, f]));
  const schemas = new Map(config.flowSchemas.map((fs) => [fs.metadata?.name ?? '', fs]));
  const plcs = new Map(config.priorityLevels.map((p) => [p.metadata?.name ?? '', p]));
  const times = report.series.timesSeconds;
  const suffering = Object.entries(report.flows)
    .filter(([, f]) => isSuffering(f) && !f.priorityLevel.includes(','))
    .sort(
      (a, b) =>
        b[1].rejectedTotal / Math.max(1, b[1].arrived) - a[1].rejectedTotal / Math.max(1, a[1].arrived) ||
        (b[1].waitSeconds.p99 ?? 0) - (a[1].waitSeconds.p99 ?? 0),
    );

  for (const [name, f] of suffering) {
    const levelName = f.priorityLevel;
    const level = report.levels[levelName];
    if (level === undefined) continue;
    const rejectedSeries = report.series.flows[name]?.rejected ?? [];
    const lateRejections = rejectedSeries.reduce((sum, n, i) => sum + (times[i]! * 1000 > COLD_START_MS ? n : 0), 0);
    const slow = (f.waitSeconds.p99 ?? 0) >= SUFFERING_WAIT_P99_SECONDS;
    const symptom =
      f.rejectedTotal > 0
        ? `lost ${fmtInt(f.rejectedTotal)} of ${fmtInt(f.arrived)} requests${slow ? ` and waited ${fmtSeconds(f.waitSeconds.p99!)} at p99` : ''}`
        : `waited ${fmtSeconds(f.waitSeconds.p99!)} at p99`;

    // Trouble only while the levels still had their start-up limits is not a configuration problem:
    // no rejection after the cold start, and the level's queues (almost) empty from then on.
    const waitingLater = (report.series.levels[levelName]?.waitingMean ?? []).reduce((m, w, i) => (times[i]! * 1000 > COLD_START_MS ? Math.max(m, w) : m), 0);
    if (lateRejections === 0 && waitingLater < 1 && durationMs(report) > COLD_START_MS) {
      const cl = report.series.levels[levelName]?.currentCL ?? [];
      const at = (s: number) =>
        cl[
          Math.max(
            0,
            times.findIndex((t) => t >= s),
          )
        ] ?? level.currentCL.final;
      out.push({
        flow: name,
        level: levelName,
        text:
          `${name} ${symptom}, all in the first ${COLD_START_MS / 1000} s: ${levelName} started at CurrentCL ${at(0)} (NominalCL ${level.nominalCL}) ` +
          `before the 10 s borrowing adjustments had seen any demand, and had ${at(COLD_START_MS / 1000 + 1)} by ${COLD_START_MS / 1000} s. A server ` +
          'that has been running does not start cold; nothing to change.',
        remedies: [],
      });
      continue;
    }

    const m = momentsOf(report, name, levelName, SUFFERING_WAIT_P99_SECONDS);
    // The limit quoted is the one in force while the flow suffered; the run's mean only when no
    // interval shows the suffering.
    const cl = m === undefined ? fmtNumber(level.currentCL.mean) : clText(m);
    const then = m === undefined ? ' on average' : ` ${spanText(m)}, while ${name} suffered: ${stateText(m)}`;
    const serverFull = m !== undefined && m.serverSeatsInUseMax >= report.scenario.server.serverConcurrencyLimit;
    const serverClause =
      (serverFull
        ? ` The server's ${report.scenario.server.serverConcurrencyLimit} seats were all in use then (its concurrency limit), so no level had any to lend.`
        : '') + (m === undefined ? '' : cpuClause(report, m.buckets));
    const plc = plcs.get(levelName);
    const neighbours = Object.entries(report.flows).filter(([n, g]) => n !== name && g.priorityLevel === levelName);
    const costOf = (offender: string, o: FlowReport) => {
      const spec = specs.get(offender);
      const objects = spec === undefined ? undefined : (spec.objects ?? scenario.objectCounts[groupResourceKey(spec.apiGroup, spec.resource)]);
      const paged = spec?.query.limit !== undefined;
      const text =
        `${offender}'s ${spec?.verb === 'watch' ? 'WATCHes' : 'LISTs'} cost ${fmtNumber(o.seatsPerRequest!)} seats each` +
        `${objects === undefined ? '' : ` (${fmtInt(objects)} objects${paged ? `, limit ${spec!.query.limit}` : ', no limit'})`}`;
      const why =
        objects === undefined ? '' : seatsWhy(objects, o.seatsPerRequest!, levelName, level, plc?.spec?.limited?.limitResponse?.queuing?.handSize, scenario);
      return { spec, objects, paged, text, why };
    };

    // Borrowing lags a burst: the level was full at the limit it had, and the next adjustment
    // raised it and ended the suffering. A level below its NominalCL had lent its seats and got
    // them back only then.
    const rise = m?.rise;
    if (
      m !== undefined &&
      rise !== undefined &&
      rise.stoppedBySeconds !== null &&
      rise.before.seatsInUseMax >= rise.before.currentCLAtStart - Math.max(0, effectiveMaxSeats(level.maxSeats) - 1)
    ) {
      const b = rise.before;
      const lent = level.nominalCL - b.currentCLAtStart;
      const until = { fromSeconds: m.fromSeconds, toSeconds: rise.atSeconds };
      const wideFlow = [[name, f] as [string, FlowReport], ...neighbours].find(([, g]) => (g.seatsPerRequest ?? 1) >= 2);
      const cost = wideFlow === undefined ? undefined : costOf(wideFlow[0], wideFlow[1]);
      const remedies: Remedy[] = wideFlow !== undefined && wideFlow[0] !== name ? [{ kind: 'dedicated-level', flow: wideFlow[0] }] : [];
      remedies.push({ kind: 'more-shares', level: levelName });
      if (cost?.spec?.verb === 'list' && !cost.paged && cost.objects !== undefined && cost.objects > PAGE_LIMIT)
        remedies.push({ kind: 'paginate', flow: wideFlow![0], limit: PAGE_LIMIT });
      const head =
        lent > 0
          ? `${levelName} had lent ${lent} of its ${level.nominalCL} nominal seats while idle, and its own demand came back ${spanText(until)}: ` +
            `its CurrentCL was ${b.currentCLAtStart}, all in use (${stateText(b)}), and ${name} ${symptom}. The lent seats came back only at the ` +
            `next borrowing adjustment, at ${seconds(rise.atSeconds)}, when CurrentCL rose to ${rise.to}`
          : `Borrowing lag: ${spanText(until)} ${levelName}'s CurrentCL was ${b.currentCLAtStart}, all in use (${stateText(b)}), and ${name} ` +
            `${symptom}. At the next borrowing adjustment, at ${seconds(rise.atSeconds)}, it rose to ${rise.to}`;
      out.push({
        flow: name,
        level: levelName,
        text:
          `${head}, and the queueing stopped by ${seconds(rise.stoppedBySeconds)}. Borrowing follows demand once every ` +
          `${BORROWING_ADJUSTMENT_PERIOD_MS / 1000} s, so a burst waits up to one period for seats; a larger NominalCL covers it without waiting.` +
          (cost === undefined ? '' : ` ${cost.text}.${cost.why}`) +
          serverClause,
        remedies,
      });
      continue;
    }
    // Wide requests: a LIST wider than one seat at the head of a queue holds the level until it fits.
    const wide = [
      ...(f.seatsPerRequest !== null && f.seatsPerRequest >= 2 ? [[name, f] as [string, FlowReport]] : []),
      ...neighbours.filter(([, g]) => (g.seatsPerRequest ?? 1) >= 2),
    ].sort((a, b) => seatShare(report, levelName, b[0]) - seatShare(report, levelName, a[0]) || (a[0] < b[0] ? -1 : 1));
    if (wide.length > 0 && (level.noAccommodation > 0 || wide[0]![0] === name)) {
      const [offender, o] = wide[0]!;
      const { spec, objects, paged, text: cost, why } = costOf(offender, o);
      const seats = o.seatsPerRequest!;
      const fill = Math.max(1, Math.ceil((m === undefined ? level.currentCL.mean : m.currentCL.min) / seats));
      const remedies: Remedy[] = [{ kind: 'dedicated-level', flow: offender }];
      if (spec !== undefined && spec.verb === 'list' && !paged && objects !== undefined && objects > PAGE_LIMIT)
        remedies.push({ kind: 'paginate', flow: offender, limit: PAGE_LIMIT });
      remedies.push({ kind: 'more-shares', level: levelName });
      out.push({
        flow: name,
        level: levelName,
        text:
          (offender === name
            ? `${cost}; ${fill} of them fill ${levelName}'s CurrentCL (${cl}${then}), so the rest queue: ${name} ${symptom}.`
            : `${cost}; ${fill} of them fill ${levelName}'s CurrentCL (${cl}${then}), and a LIST at the head of a ` +
              `queue holds the level until that many seats are free (${fmtInt(level.noAccommodation)} times), so ${name} waits behind them: it ` +
              `${symptom}.`) +
          why +
          serverClause,
        remedies,
      });
      continue;
    }

    // One APF flow shared with a heavier sender: the same queues, whatever shuffle sharding does.
    const spec = specs.get(name);
    const schema = schemas.get(f.flowSchema);
    const method = schema?.spec?.distinguisherMethod?.type;
    if (spec !== undefined && method !== undefined) {
      const key = (s: { user: string; namespace: string }) => (method === 'ByUser' ? s.user : s.namespace);
      const sharing = neighbours
        .filter(([n, g]) => g.flowSchema === f.flowSchema && specs.get(n) !== undefined && key(specs.get(n)!) === key(spec))
        .sort((a, b) => b[1].arrived - a[1].arrived);
      if (sharing.length > 0 && sharing[0]![1].arrived > f.arrived) {
        const [heavy, h] = sharing[0]!;
        out.push({
          flow: name,
          level: levelName,
          text:
            `${name} and ${heavy} are one APF flow: FlowSchema ${f.flowSchema} tells flows apart ` +
            `${method === 'ByUser' ? `by user, and both are ${spec.user}` : `by namespace, and both send to namespace "${spec.namespace}"`}. They ` +
            `share one hand of ${levelName}'s queues, so ${heavy}'s ${fmtInt(h.arrived)} requests fill the queues ${name}'s requests wait in: ${name} ` +
            `${symptom}` +
            (m === undefined ? '.' : ` (${spanText(m)}: ${levelName}'s CurrentCL ${cl}, ${stateText(m)}).`) +
            serverClause,
          remedies: [
            { kind: 'dedicated-level', flow: heavy },
            { kind: 'more-shares', level: levelName },
          ],
        });
        continue;
      }
    }

    // A hand collision: its requests waited behind a heavier flow's in the queues of its hand while
    // queues outside it were idle. Not a shortage of seats, so more seats are not the remedy.
    const collision = m === undefined ? undefined : handCollisionAt(report, hands, name, m);
    if (m !== undefined && collision !== undefined) {
      const q = plc?.spec?.limited?.limitResponse?.queuing;
      const handSize = q?.handSize ?? 0;
      const deal =
        handSize > 0
          ? `shuffle sharding deals each flow of ${levelName} a hand of ${handSize} of its ${level.queues} queues, ` +
            `and ${name}'s hand overlaps ${collision.heavy}'s`
          : `shuffle sharding put ${name} in ${collision.heavy}'s queues`;
      out.push({
        flow: name,
        level: levelName,
        text:
          `Hand collision: ${deal}. ${capitalized(spanText(m))} ${name}'s requests found up to ${fmtInt(collision.aheadMax)} requests of other flows ` +
          `ahead of them in their queues (${Math.round(100 * collision.heavyShare)}% of them ${collision.heavy}'s), while ${collision.idleQueues} of ` +
          `the level's ${level.queues} queues had nothing waiting: ${name} ${symptom}. Each request joins the shortest queue of its own hand, so ` +
          `${name} waits behind ${collision.heavy} however idle the other queues are (${levelName}'s CurrentCL ${cl}, ${stateText(m)}). More ` +
          `queues or a larger handSize make such an overlap rarer; a FlowSchema of its own for ${collision.heavy}, or a distinguisher that ` +
          `tells it apart, takes it out of these queues.` +
          serverClause,
        remedies: [
          { kind: 'dedicated-level', flow: collision.heavy },
          { kind: 'more-queues', level: levelName },
        ],
      });
      continue;
    }

    // The level is simply asked for more than it has.
    const demand = Object.values(report.fairness[levelName]?.maxMinFair ?? {}).reduce((s, m) => s + m.demandSeats, 0);
    const queueLimit = plcs.get(levelName)?.spec?.limited?.limitResponse?.queuing?.queueLengthLimit;
    const remedies: Remedy[] = [{ kind: 'more-shares', level: levelName }];
    if (f.rejected['queue-full'] > 0 && queueLimit !== undefined && level.longestQueue >= queueLimit)
      remedies.push({ kind: 'longer-queues', level: levelName });
    const top = [...neighbours].sort((a, b) => seatShare(report, levelName, b[0]) - seatShare(report, levelName, a[0]))[0];
    out.push({
      flow: name,
      level: levelName,
      text:
        `${levelName}'s flows asked for ${fmtNumber(demand)} seats on average and it had ${fmtNumber(level.currentCL.mean)} (NominalCL ${level.nominalCL})` +
        (top !== undefined && seatShare(report, levelName, top[0]) >= 0.5
          ? `, ${Math.round(100 * seatShare(report, levelName, top[0]))}% of them held by ${top[0]}`
          : '') +
        `; ${name} ${symptom}` +
        (f.rejected['queue-full'] > 0 && queueLimit !== undefined
          ? ` (queue-full: its queues hold at most ${queueLimit} requests${m === undefined ? '' : `, and the longest held ${m.longestQueue} then`})`
          : '') +
        '.' +
        (m === undefined ? '' : ` ${capitalized(spanText(m))} its CurrentCL was ${cl} (${stateText(m)}).`) +
        serverClause,
      remedies,
    });
  }
  return out;
}

const capitalized = (text: string) => text.charAt(0).toUpperCase() + text.slice(1);

/** The limit in force at the moments: one number, or the range it moved in. */
function clText(m: Moments): string {
  return m.currentCL.min === m.currentCL.max ? String(m.currentCL.min) : `${m.currentCL.min}–${m.currentCL.max}`;
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
  const from =
    level.maxSeats > 0 && handSize !== undefined
      ? `its maxSeats, the smaller of ${Math.round(100 * PRIORITY_LEVEL_MAX_SEATS_FRACTION)}% of its NominalCL ${level.nominalCL} and ` +
        `NominalCL ÷ handSize (${level.nominalCL} ÷ ${handSize}), is ${level.maxSeats}` +
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
