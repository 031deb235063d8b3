// The moments a flow suffered: the report intervals in which its dispatched requests waited longer
// than its objective or some of its requests were rejected, and what its level looked like then
// (the limit in force, the seats in use, the requests waiting, the longest queue). Explanations
// quote these, not run averages: a burst that queued for ten seconds of a ten-minute run is
// invisible in the means, and the limit it met may be a fifth of the mean.

import { BORROWING_ADJUSTMENT_PERIOD_MS } from '../../engine/flowcontrol/seat-demand.ts';
import type { SimulationReport } from '../report.ts';

export interface Moments {
  /** Indexes into the report's series, ascending. */
  buckets: number[];
  /** From the start of the first suffering interval to the end of the last. */
  fromSeconds: number;
  toSeconds: number;
  /** The level's CurrentCL in force during those intervals (the lower of a bucket's start and end). */
  currentCL: { min: number; max: number };
  /** CurrentCL at the start of the first interval. */
  currentCLAtStart: number;
  seatsInUseMax: number;
  waitingMax: number;
  longestQueue: number;
  /** The longest wait of the flow's requests dispatched then, and its rejections then. */
  waitMaxSeconds: number;
  rejected: number;
  /** The server's seats in use then (the sum of every level's maximum per interval, at most). */
  serverSeatsInUseMax: number;
  /**
   * The first borrowing adjustment during or right after the suffering that raised the limit by
   * at least one of the level's widest requests, and when the suffering stopped after it (null:
   * it went on to the end of the run).
   */
  rise?: { atSeconds: number; from: number; to: number; stoppedBySeconds: number | null; before: LevelState };
}

/**
 * The flow's suffering moments at `level`, or undefined when no interval shows any (the flow's
 * p99 may still be above the objective when every slow request was dispatched at one instant).
 */
export function momentsOf(report: SimulationReport, flow: string, level: string, objectiveSeconds: number): Moments | undefined {
  const f = report.series.flows[flow];
  const l = report.series.levels[level];
  const info = report.levels[level];
  if (f === undefined || l === undefined || info === undefined) return undefined;
  const times = report.series.timesSeconds;
  const interval = report.series.intervalSeconds;
  const suffered = (i: number) => (f.rejected[i] ?? 0) > 0 || (f.waitMaxSeconds[i] ?? 0) > objectiveSeconds;
  const buckets = times.flatMap((_, i) => (suffered(i) ? [i] : []));
  if (buckets.length === 0) return undefined;
  const first = buckets[0]!;
  const last = buckets[buckets.length - 1]!;
  const moments: Moments = {
    buckets,
    fromSeconds: Math.max(0, times[first]! - interval),
    toSeconds: times[last]!,
    ...levelState(report, level, buckets),
    waitMaxSeconds: Math.max(...buckets.map((i) => f.waitMaxSeconds[i] ?? 0)),
    rejected: buckets.reduce((s, i) => s + (f.rejected[i] ?? 0), 0),
  };
  // An adjustment that raised the limit while the flow suffered, or at the end of its last
  // suffering interval (the one that ended it).
  const step = Math.max(1, info.maxSeats);
  for (let j = first + 1; j < times.length && j <= last + 1; j++) {
    const before = l.currentCL[j - 1]!;
    const after = l.currentCL[j]!;
    if (after - before < step) continue;
    // The series holds the limit at each interval's end: it changed within interval j.
    const atSeconds = times[j]!;
    const later = buckets.filter((i) => i > j);
    // Suffering that goes on for more than an adjustment period after the rise has another cause.
    const stoppedBy = later.length === 0 ? atSeconds : times[later[later.length - 1]!]!;
    const settled = later.length === 0 || stoppedBy - atSeconds <= BORROWING_ADJUSTMENT_PERIOD_MS / 1000;
    moments.rise = {
      atSeconds,
      from: before,
      to: after,
      stoppedBySeconds: settled && last < times.length - 1 ? stoppedBy : null,
      before: levelState(
        report,
        level,
        buckets.filter((i) => i < j),
      ),
    };
    break;
  }
  return moments;
}

export type LevelState = Pick<Moments, 'currentCL' | 'currentCLAtStart' | 'seatsInUseMax' | 'waitingMax' | 'longestQueue' | 'serverSeatsInUseMax'>;

/** The level (and the server) over the given intervals of the series. */
export function levelState(report: SimulationReport, level: string, buckets: readonly number[]): LevelState {
  const l = report.series.levels[level]!;
  const during = (i: number) => Math.min(l.currentCL[i - 1] ?? l.currentCL[i]!, l.currentCL[i]!);
  const pick = (series: readonly number[]) => Math.max(0, ...buckets.map((i) => series[i] ?? 0));
  const levels = Object.values(report.series.levels);
  return {
    currentCL: { min: Math.min(...buckets.map(during)), max: Math.max(...buckets.map(during)) },
    currentCLAtStart: buckets.length === 0 ? 0 : during(buckets[0]!),
    seatsInUseMax: pick(l.seatsInUseMax),
    waitingMax: pick(l.waitingMax),
    longestQueue: pick(l.longestQueue),
    serverSeatsInUseMax: Math.max(0, ...buckets.map((i) => levels.reduce((s, x) => s + (x.seatsInUseMax[i] ?? 0), 0))),
  };
}

/**
 * The seats the level's flows asked for during `buckets`: each flow's requests that arrived then,
 * times the seat-time one of its requests asks for on average over the run (its offered seat-time
 * over its arrivals). Undefined when the run recorded no demand for the level.
 */
export function offeredSeatsAt(report: SimulationReport, level: string, buckets: readonly number[]): number | undefined {
  const perFlow = seatSecondsAt(report, level, buckets, 'arrived');
  if (perFlow === undefined) return undefined;
  const seatSeconds = [...perFlow.values()].reduce((s, x) => s + x, 0);
  return seatSeconds / (buckets.length * report.series.intervalSeconds);
}

/**
 * Each flow's part of the seats its level's requests held during `buckets` (the requests dispatched
 * then, at the same average seat-time per request as offeredSeatsAt); empty when none were held.
 */
export function heldSeatSharesAt(report: SimulationReport, level: string, buckets: readonly number[]): Map<string, number> {
  const perFlow = seatSecondsAt(report, level, buckets, 'dispatched') ?? new Map<string, number>();
  const total = [...perFlow.values()].reduce((s, x) => s + x, 0);
  return new Map(total > 0 ? [...perFlow].map(([flow, x]) => [flow, x / total]) : []);
}

/** Per flow of the level, the seat-seconds of its requests that arrived (or were dispatched) during `buckets`. */
function seatSecondsAt(report: SimulationReport, level: string, buckets: readonly number[], which: 'arrived' | 'dispatched'): Map<string, number> | undefined {
  const fair = report.fairness[level]?.maxMinFair;
  if (fair === undefined || buckets.length === 0) return undefined;
  const perFlow = new Map<string, number>();
  for (const [flow, { demandSeats }] of Object.entries(fair)) {
    const arrived = report.flows[flow]?.arrived ?? 0;
    if (arrived === 0) continue;
    const perRequest = (demandSeats * report.scenario.durationSeconds) / arrived;
    const series = report.series.flows[flow]?.[which] ?? [];
    perFlow.set(flow, perRequest * buckets.reduce((sum, i) => sum + (series[i] ?? 0), 0));
  }
  return perFlow;
}

/** "from 41 s to 56 s". */
export function spanText(m: Pick<Moments, 'fromSeconds' | 'toSeconds'>): string {
  return `from ${seconds(m.fromSeconds)} to ${seconds(m.toSeconds)}`;
}

export function seconds(s: number): string {
  return `${Number(s.toFixed(s >= 100 ? 0 : 1))} s`;
}
