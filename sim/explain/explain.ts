// Why a flow suffered, in an operator's words, from what the run recorded: its seats per request,
// the objects its LISTs touched and whether they paged, the level's CurrentCL and demand, who
// shared its APF flow, and when its rejections happened. Each explanation names the remedies that
// address its cause; suggest.ts turns those into manifests and simulates them.

import { BORROWING_ADJUSTMENT_PERIOD_MS } from '../../engine/flowcontrol/seat-demand.ts';
import { groupResourceKey } from '../../engine/flowcontrol/work-estimate.ts';
import type { FlowcontrolConfig } from '../../engine/flowcontrol/controller.ts';
import type { FlowReport, SimulationReport } from '../report.ts';
import type { Scenario } from '../scenario.ts';
import { fmtInt, fmtNumber, fmtSeconds } from '../report/format.ts';
import type { Remedy } from './remedy.ts';

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

export function explain(report: SimulationReport, scenario: Scenario, config: FlowcontrolConfig): Explanation[] {
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

    const neighbours = Object.entries(report.flows).filter(([n, g]) => n !== name && g.priorityLevel === levelName);
    // Wide requests: a LIST wider than one seat at the head of a queue holds the level until it fits.
    const wide = [
      ...(f.seatsPerRequest !== null && f.seatsPerRequest >= 2 ? [[name, f] as [string, FlowReport]] : []),
      ...neighbours.filter(([, g]) => (g.seatsPerRequest ?? 1) >= 2),
    ].sort((a, b) => seatShare(report, levelName, b[0]) - seatShare(report, levelName, a[0]) || (a[0] < b[0] ? -1 : 1));
    if (wide.length > 0 && (level.noAccommodation > 0 || wide[0]![0] === name)) {
      const [offender, o] = wide[0]!;
      const spec = specs.get(offender);
      const seats = o.seatsPerRequest!;
      const objects = spec === undefined ? undefined : (spec.objects ?? scenario.objectCounts[groupResourceKey(spec.apiGroup, spec.resource)]);
      const paged = spec?.query.limit !== undefined;
      const cost =
        `${offender}'s ${spec?.verb === 'watch' ? 'WATCHes' : 'LISTs'} cost ${fmtNumber(seats)} seats each` +
        `${objects === undefined ? '' : ` (${fmtInt(objects)} objects${paged ? `, limit ${spec!.query.limit}` : ', no limit'})`}`;
      const fill = Math.max(1, Math.ceil(level.currentCL.mean / seats));
      const remedies: Remedy[] = [{ kind: 'dedicated-level', flow: offender }];
      if (spec !== undefined && spec.verb === 'list' && !paged && objects !== undefined && objects > PAGE_LIMIT)
        remedies.push({ kind: 'paginate', flow: offender, limit: PAGE_LIMIT });
      remedies.push({ kind: 'more-shares', level: levelName });
      out.push({
        flow: name,
        level: levelName,
        text:
          offender === name
            ? `${cost}; ${fill} of them fill ${levelName}'s CurrentCL (${fmtNumber(level.currentCL.mean)} on average), so the rest queue: ${name} ${symptom}.`
            : `${cost}; ${fill} of them fill ${levelName}'s CurrentCL (${fmtNumber(level.currentCL.mean)} on average), and a LIST at the head of a ` +
              `queue holds the level until that many seats are free (${fmtInt(level.noAccommodation)} times), so ${name} waits behind them: it ` +
              `${symptom}.`,
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
            `${symptom}.`,
          remedies: [
            { kind: 'dedicated-level', flow: heavy },
            { kind: 'more-shares', level: levelName },
          ],
        });
        continue;
      }
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
        (f.rejected['queue-full'] > 0 && queueLimit !== undefined ? ` (queue-full: its queues hold at most ${queueLimit} requests)` : '') +
        '.',
      remedies,
    });
  }
  return out;
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
