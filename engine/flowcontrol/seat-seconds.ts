// SeatSeconds: the unit of work in fair queuing (apf-semantics 6.1). A uint64 fixed-point number
// with 1 unit = 1e-8 seat·second, held here as a bigint so that virtual time never loses precision
// the way a float64 would after a long run. Durations are nanoseconds (`…Ns`) or milliseconds
// (`…Ms`); the names say which.

import { goRound, MAX_UINT64, toUint64 } from '../go-math.ts';

/** Units per seat·second. */
export const SS_SCALE = 100_000_000n;
export const MAX_SEAT_SECONDS = MAX_UINT64;
/** Nanoseconds per SeatSeconds unit at one seat (1e9 / SS_SCALE). */
const NS_PER_UNIT = 10;

/** G: the service time fair queuing assumes for every request until it finishes. */
export const ESTIMATED_SERVICE_DURATION_MS = 3;
export const ESTIMATED_SERVICE_DURATION_NS = 3_000_000;

/**
 * Milliseconds → whole nanoseconds. The product is rounded rather than truncated because decimal
 * fractions of a millisecond are rarely exact in binary (`0.1 * 1e6` is 100000.00000000001).
 */
export function durationMsToNs(durationMs: number): number {
  if (!Number.isFinite(durationMs)) throw new RangeError(`duration ${String(durationMs)} ms is not finite`);
  return goRound(durationMs * 1e6);
}

export function durationNsToMs(durationNs: number): number {
  return durationNs / 1e6;
}

/**
 * `round(seats * duration_ns / 10)` in float64, as Go's `SeatsTimesDuration`. The result is signed:
 * a negative duration (service took longer than G) gives a negative amount, which callers add to a
 * SeatSeconds value to get Go's wrap-around subtraction.
 */
export function seatsTimesDuration(seats: number, durationNs: number | bigint): bigint {
  return BigInt(seatsTimesDurationUnits(seats, Number(durationNs)));
}

export function seatsTimesDurationMs(seats: number, durationMs: number): bigint {
  return seatsTimesDuration(seats, durationMsToNs(durationMs));
}

/**
 * The same amount as a float64 holding a whole number of units. Integers below 2^53 are exact in
 * a double, so the queue set keeps its virtual time in numbers (no BigInt allocation per event)
 * and rolls its epoch before 2^53, with exactly the results of the uint64 arithmetic.
 */
export function seatsTimesDurationUnits(seats: number, durationNs: number): number {
  const product = goRound((seats * durationNs) / NS_PER_UNIT);
  if (!Number.isFinite(product)) throw new RangeError(`seats ${seats} × ${String(durationNs)} ns is not finite`);
  return product;
}

/**
 * `seatsTimesDurationUnits(seats, durationMsToNs(durationMs))` in one small function: the queue
 * set calls it at every event and every finish, and V8 did not inline the two calls. Same
 * arithmetic, step for step.
 */
export function seatsTimesDurationMsUnits(seats: number, durationMs: number): number {
  if (!Number.isFinite(durationMs)) throw new RangeError(`duration ${String(durationMs)} ms is not finite`);
  const product = goRound((seats * goRound(durationMs * 1e6)) / NS_PER_UNIT);
  if (!Number.isFinite(product)) throw new RangeError(`seats ${seats} × ${durationMs} ms is not finite`);
  return product;
}

/** Go's `DurationPerSeat`: the duration that, at `seats` seats, does this much work (truncated to whole ns). */
export function durationPerSeatNs(work: bigint, seats: number): number {
  return Math.trunc((Number(work) / seats) * NS_PER_UNIT);
}

/** Seat·seconds as a float, for metrics and debug output. */
export function seatSecondsToFloat(work: bigint): number {
  return Number(toUint64(work)) / Number(SS_SCALE);
}

/** Go's `"%d.%08dss"` rendering; values outside uint64 wrap as they would in Go. */
export function formatSeatSeconds(work: bigint): string {
  const u = toUint64(work);
  return `${u / SS_SCALE}.${(u % SS_SCALE).toString().padStart(8, '0')}ss`;
}

/**
 * The work a request is charged when it is queued, frozen at creation:
 * `SeatsTimesDuration(initialSeats, G) + SeatsTimesDuration(finalSeats, additionalLatency)`.
 */
export function totalWork(estimate: { initialSeats: number; finalSeats: number; additionalLatencyMs: number }): bigint {
  return BigInt(totalWorkUnits(estimate));
}

/** `totalWork` as a whole number of units in a double (see seatsTimesDurationUnits). */
export function totalWorkUnits(estimate: { initialSeats: number; finalSeats: number; additionalLatencyMs: number }): number {
  return (
    seatsTimesDurationUnits(estimate.initialSeats, ESTIMATED_SERVICE_DURATION_NS) + seatsTimesDurationMsUnits(estimate.finalSeats, estimate.additionalLatencyMs)
  );
}
