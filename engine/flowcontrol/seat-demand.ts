// Seat-demand statistics for borrowing (apf-semantics 8.2): a time-weighted integrator of
// `seatsInUse + seatsWaiting`, reset at every adjustment, and the exponential smoothing of its
// mean-plus-deviation envelope. Plain data plus functions; time comes in as milliseconds.

import { goRound } from '../go-math.ts';

/** Weight kept by the old smoothed value at each 10 s step (half-life about 5 minutes). */
export const SEAT_DEMAND_SMOOTHING_COEFFICIENT = 0.977;
export const BORROWING_ADJUSTMENT_PERIOD_MS = 10_000;

export interface SeatDemandIntegrator {
  /** Current value of the integrated quantity. */
  value: number;
  lastMs: number;
  /** ∫dt, ∫x dt and ∫x² dt over the current period, with t in seconds. */
  elapsedSeconds: number;
  integralX: number;
  integralXX: number;
  min: number;
  max: number;
}

export interface IntegratorResults {
  durationSeconds: number;
  /** Time-weighted mean; NaN when no time has passed. */
  average: number;
  /** Population standard deviation; NaN when no time has passed or the variance rounds negative. */
  deviation: number;
  min: number;
  max: number;
}

export function createSeatDemandIntegrator(nowMs: number, initialValue = 0): SeatDemandIntegrator {
  return {
    value: initialValue,
    lastMs: nowMs,
    elapsedSeconds: 0,
    integralX: 0,
    integralXX: 0,
    min: initialValue,
    max: initialValue,
  };
}

/** Close the interval since the last change at the old value. A clock step backwards counts as no time. */
function advance(igr: SeatDemandIntegrator, nowMs: number): void {
  // Several changes in one instant (a request queued and dispatched at once) close no interval:
  // adding value × 0 changes no sum while the value is finite, as seat counts are.
  if (nowMs === igr.lastMs) return;
  const dt = Math.max(0, nowMs - igr.lastMs) / 1000;
  igr.lastMs = Math.max(igr.lastMs, nowMs);
  igr.elapsedSeconds += dt;
  igr.integralX += igr.value * dt;
  igr.integralXX += igr.value * igr.value * dt;
}

export function setDemand(igr: SeatDemandIntegrator, value: number, nowMs: number): void {
  advance(igr, nowMs);
  igr.value = value;
  if (value < igr.min) igr.min = value;
  if (value > igr.max) igr.max = value;
}

export function addDemand(igr: SeatDemandIntegrator, delta: number, nowMs: number): void {
  setDemand(igr, igr.value + delta, nowMs);
}

/** Statistics of the period so far, without ending it. */
export function demandResults(igr: SeatDemandIntegrator, nowMs: number): IntegratorResults {
  advance(igr, nowMs);
  const durationSeconds = igr.elapsedSeconds;
  if (durationSeconds <= 0) {
    return { durationSeconds, average: NaN, deviation: NaN, min: igr.min, max: igr.max };
  }
  const average = igr.integralX / durationSeconds;
  const variance = igr.integralXX / durationSeconds - average * average;
  const deviation = variance >= 0 ? Math.sqrt(variance) : NaN;
  return { durationSeconds, average, deviation, min: igr.min, max: igr.max };
}

/**
 * End the period: return its statistics and start a new one whose min and max are the current
 * value, which is why a burst shows up in the high watermark of the *next* period too.
 */
export function resetDemand(igr: SeatDemandIntegrator, nowMs: number): IntegratorResults {
  const results = demandResults(igr, nowMs);
  igr.elapsedSeconds = 0;
  igr.integralX = 0;
  igr.integralXX = 0;
  igr.min = igr.value;
  igr.max = igr.value;
  return results;
}

/** A thin object form of the functions above, for callers that prefer methods. No timers. */
export class SeatDemandTracker {
  readonly state: SeatDemandIntegrator;
  /** The statistics folded in at the last borrowing adjustment. */
  stats: SeatDemandStats = ZERO_SEAT_DEMAND_STATS;
  constructor(nowMs: number, initialValue = 0) {
    this.state = createSeatDemandIntegrator(nowMs, initialValue);
  }
  get value(): number {
    return this.state.value;
  }
  set(value: number, nowMs: number): void {
    setDemand(this.state, value, nowMs);
  }
  add(delta: number, nowMs: number): void {
    addDemand(this.state, delta, nowMs);
  }
  results(nowMs: number): IntegratorResults {
    return demandResults(this.state, nowMs);
  }
  reset(nowMs: number): IntegratorResults {
    return resetDemand(this.state, nowMs);
  }
  /** Ends a borrowing period: folds it into `stats` and starts the next one. */
  closePeriod(nowMs: number): SeatDemandStats {
    this.stats = updateSeatDemandStats(this.stats, this.reset(nowMs));
    return this.stats;
  }
}

export interface SeatDemandStats {
  avg: number;
  stdDev: number;
  highWatermark: number;
  smoothed: number;
}

export const ZERO_SEAT_DEMAND_STATS: SeatDemandStats = Object.freeze({ avg: 0, stdDev: 0, highWatermark: 0, smoothed: 0 });

/**
 * Fold one period into the level's statistics. The high watermark always follows the period; the
 * averages and the smoothed envelope only move when the period had a positive duration.
 */
export function updateSeatDemandStats(previous: SeatDemandStats, obs: IntegratorResults): SeatDemandStats {
  const highWatermark = goRound(obs.max);
  if (!(obs.durationSeconds > 0)) return { ...previous, highWatermark };
  const stdDev = Number.isNaN(obs.deviation) ? 0 : obs.deviation;
  const envelope = obs.average + stdDev;
  const A = SEAT_DEMAND_SMOOTHING_COEFFICIENT;
  const smoothed = Math.max(envelope, A * previous.smoothed + (1 - A) * envelope);
  // An idle level folds to the same numbers every time; thousands of them need no new objects.
  if (previous.avg === obs.average && previous.stdDev === stdDev && previous.highWatermark === highWatermark && previous.smoothed === smoothed) return previous;
  return { avg: obs.average, stdDev, highWatermark, smoothed };
}

/** The two numbers borrowing needs: `{highWatermark, smoothed}` after one period. */
export function smoothDemand(previousSmoothed: number, obs: IntegratorResults): { highWatermark: number; smoothed: number } {
  const next = updateSeatDemandStats({ ...ZERO_SEAT_DEMAND_STATS, smoothed: previousSmoothed }, obs);
  return { highWatermark: next.highWatermark, smoothed: next.smoothed };
}
