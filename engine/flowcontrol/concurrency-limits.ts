// Per-priority-level concurrency limits derived from the server limit and the levels' shares
// (apf-semantics 0 and 8.1 step 5). All results are whole seats; the float steps mirror Go's
// float64 arithmetic, which for the integer inputs used here equals exact rational arithmetic.

import { ceilDiv, goRound } from '../go-math.ts';

export interface LevelLimitsInput {
  name: string;
  exempt: boolean;
  /** nominalConcurrencyShares; nil (exempt without the field) counts as 0. */
  ncs: number | null | undefined;
  /** nil means 0. */
  lendablePercent: number | null | undefined;
  /** nil means "may borrow up to ServerCL"; ignored for exempt levels. */
  borrowingLimitPercent: number | null | undefined;
}

export interface LevelLimits {
  name: string;
  exempt: boolean;
  nominalCL: number;
  lendableCL: number;
  borrowingCL: number;
  minCL: number;
  maxCL: number;
  /** CurrentCL a newly created level starts with, before the first borrowing update. */
  initialCurrentCL: number;
}

/** Whether two results are the same numbers (a digest recomputes every level's). */
export function sameLevelLimits(a: LevelLimits, b: LevelLimits): boolean {
  return (
    a.name === b.name &&
    a.exempt === b.exempt &&
    a.nominalCL === b.nominalCL &&
    a.lendableCL === b.lendableCL &&
    a.borrowingCL === b.borrowingCL &&
    a.minCL === b.minCL &&
    a.maxCL === b.maxCL &&
    a.initialCurrentCL === b.initialCurrentCL
  );
}

export interface ComputedLimits {
  shareSum: number;
  /** Σ NominalCL; because of the ceil it may exceed ServerCL. */
  nominalCLSum: number;
  levels: LevelLimits[];
}

/** `ceil(ServerCL * NCS / shareSum)`; 0 when there are no shares at all (Go would produce NaN). */
export function nominalCL(serverCL: number, ncs: number, shareSum: number): number {
  if (shareSum <= 0) return 0;
  if (Number.isSafeInteger(serverCL * ncs) && Number.isSafeInteger(shareSum)) {
    return ceilDiv(serverCL * ncs, shareSum);
  }
  return Math.ceil((serverCL * ncs) / shareSum);
}

/** `round(NominalCL * lendablePercent / 100)`, half away from zero; nil percent lends nothing. */
export function lendableCL(nominal: number, lendablePercent: number | null | undefined): number {
  if (lendablePercent == null) return 0;
  return goRound((nominal * lendablePercent) / 100);
}

/** `round(NominalCL * borrowingLimitPercent / 100)`, or ServerCL when nil or when the level is exempt. */
export function borrowingCL(serverCL: number, nominal: number, borrowingLimitPercent: number | null | undefined, exempt = false): number {
  if (exempt || borrowingLimitPercent == null) return serverCL;
  return goRound((nominal * borrowingLimitPercent) / 100);
}

export function minCL(nominal: number, lendable: number): number {
  return nominal - lendable;
}

export function maxCL(nominal: number, borrowing: number): number {
  return nominal + borrowing;
}

/** A new level starts halfway between nominal and its lending floor (Go int division). */
export function initialCurrentCL(nominal: number, lendable: number): number {
  return nominal - Math.trunc(lendable / 2);
}

export function computeLevelLimits(serverCL: number, levels: readonly LevelLimitsInput[]): ComputedLimits {
  assertCount('serverCL', serverCL);
  let shareSum = 0;
  for (const level of levels) {
    const ncs = level.ncs ?? 0;
    // Messages are built only on failure: a digest checks thousands of levels.
    assertCount('nominalConcurrencyShares', ncs, level.name);
    assertPercent('lendablePercent', level.lendablePercent, level.name);
    if (!level.exempt) assertCount('borrowingLimitPercent', level.borrowingLimitPercent ?? 0, level.name);
    shareSum += ncs;
  }
  let nominalCLSum = 0;
  const out = levels.map((level): LevelLimits => {
    const nominal = nominalCL(serverCL, level.ncs ?? 0, shareSum);
    const lendable = lendableCL(nominal, level.lendablePercent);
    const borrowing = borrowingCL(serverCL, nominal, level.borrowingLimitPercent, level.exempt);
    nominalCLSum += nominal;
    return {
      name: level.name,
      exempt: level.exempt,
      nominalCL: nominal,
      lendableCL: lendable,
      borrowingCL: borrowing,
      minCL: minCL(nominal, lendable),
      maxCL: maxCL(nominal, borrowing),
      initialCurrentCL: initialCurrentCL(nominal, lendable),
    };
  });
  return { shareSum, nominalCLSum, levels: out };
}

function assertCount(what: string, value: number, level?: string): void {
  if (!Number.isSafeInteger(value) || value < 0) {
    throw new RangeError(`${what}${level === undefined ? '' : ` of ${level}`} must be a non-negative integer, got ${String(value)}`);
  }
}

function assertPercent(what: string, value: number | null | undefined, level: string): void {
  if (value == null) return;
  if (!Number.isSafeInteger(value) || value < 0 || value > 100) {
    throw new RangeError(`${what} of ${level} must be an integer in [0, 100], got ${String(value)}`);
  }
}
