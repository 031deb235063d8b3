// The widest request a priority level admits (apf-semantics 7.1, 7.2).

import { goIntDiv } from '../go-math.ts';

export const MAXIMUM_SEATS_LIMIT = 10;
export const PRIORITY_LEVEL_MAX_SEATS_FRACTION = 0.15;

/**
 * `max(1, min(ceil(0.15 * NominalCL), floor(NominalCL / handSize)))`, set only for levels that queue.
 * The product stays in float64 as in Go: `0.15 * 41` is 6.1499999999999995 there too, so the ceil
 * agrees.
 */
export function maxSeatsForLevel(nominalCL: number, handSize: number): number {
  if (!Number.isSafeInteger(nominalCL) || nominalCL < 0) {
    throw new RangeError(`nominalCL must be a non-negative integer, got ${String(nominalCL)}`);
  }
  if (!Number.isSafeInteger(handSize) || handSize <= 0) {
    throw new RangeError(`handSize must be a positive integer, got ${String(handSize)}`);
  }
  const { byPercent, byHand } = maxSeatsBounds(nominalCL, handSize);
  return Math.max(1, Math.min(byPercent, byHand));
}

/** The two bounds maxSeats is the smaller of (unchecked: for explaining a value already computed). */
export function maxSeatsBounds(nominalCL: number, handSize: number): { byPercent: number; byHand: number } {
  return { byPercent: Math.ceil(nominalCL * PRIORITY_LEVEL_MAX_SEATS_FRACTION), byHand: goIntDiv(nominalCL, handSize) };
}

/**
 * What the estimators actually use: a level without a tracked value (0: exempt, Reject, or unknown)
 * and any value above the hard limit (MaximumSeatsLimit, 10 by default) both become that limit.
 */
export function effectiveMaxSeats(maxSeats: number | undefined, maximumSeatsLimit = MAXIMUM_SEATS_LIMIT): number {
  if (maxSeats === undefined || !(maxSeats > 0) || maxSeats > maximumSeatsLimit) return maximumSeatsLimit;
  return maxSeats;
}
