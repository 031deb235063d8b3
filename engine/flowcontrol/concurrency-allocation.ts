// Borrowing: how the periodic adjustment splits the seats among priority levels
// (apf-semantics 8.3 and 8.4). Both functions are pure; the controller feeds them the limits
// from concurrency-limits.ts and the demand statistics from seat-demand.ts.

import { goRound } from '../go-math.ts';

/** Targets below this are raised to it so that relative bounds never divide by zero. */
export const MIN_TARGET = 0.001;
/** Slack for "the bounds already pin the sum". */
export const ALLOCATION_EPSILON = 1e-7;

export interface AllocationClass {
  target: number;
  lowerBound: number;
  upperBound: number;
}

export type AllocationResult = { allocs: number[]; fairProp: number } | { error: string };

/**
 * Finds `fairProp` and `allocs[j] = clamp(fairProp * target[j], lower[j], upper[j])` with
 * `Σ allocs = requiredSum`. The answer is unique because the sum is non-decreasing in fairProp.
 */
export function computeConcurrencyAllocation(requiredSum: number, classes: readonly AllocationClass[]): AllocationResult {
  if (!Number.isFinite(requiredSum)) return { error: `required sum ${String(requiredSum)} is not a finite number` };
  if (requiredSum < 0) return { error: 'negative sums are not supported' };
  let lowSum = 0;
  let highSum = 0;
  let targetSum = 0;
  let lbMin = Infinity;
  let lbMax = -Infinity;
  let ubMin = Infinity;
  let ubMax = -Infinity;
  const targets: number[] = [];
  const relLower: number[] = [];
  const relUpper: number[] = [];
  for (const [idx, item] of classes.entries()) {
    const { lowerBound, upperBound } = item;
    if (![item.target, lowerBound, upperBound].every(Number.isFinite)) {
      return { error: `class ${idx} has a bound or target that is not a finite number` };
    }
    if (lowerBound < 0) {
      return { error: `lower bound ${idx} is ${lowerBound} but negative lower bounds are not allowed` };
    }
    if (item.target < lowerBound) {
      return { error: `target ${idx} is ${item.target}, which is below its lower bound of ${lowerBound}` };
    }
    if (upperBound < lowerBound) {
      return { error: `upper bound ${idx} is ${upperBound} but should not be less than the lower bound ${lowerBound}` };
    }
    const target = Math.max(item.target, MIN_TARGET);
    lowSum += lowerBound;
    highSum += upperBound;
    targetSum += target;
    targets.push(target);
    relLower.push(lowerBound / target);
    relUpper.push(upperBound / target);
    lbMin = Math.min(lbMin, lowerBound / target);
    lbMax = Math.max(lbMax, lowerBound / target);
    ubMin = Math.min(ubMin, upperBound / target);
    ubMax = Math.max(ubMax, upperBound / target);
  }
  if (lbMax > 1) {
    return { error: `lbRange.max-1=${lbMax - 1}, which is impossible because lbRange.max can not be greater than 1` };
  }
  if (lowSum - requiredSum > ALLOCATION_EPSILON) {
    return { error: `lower bounds sum to ${lowSum}, which is higher than the required sum of ${requiredSum}` };
  }
  if (requiredSum - highSum > ALLOCATION_EPSILON) {
    return { error: `upper bounds sum to ${highSum}, which is lower than the required sum of ${requiredSum}` };
  }
  const n = classes.length;
  if (requiredSum === 0) return { allocs: new Array<number>(n).fill(0), fairProp: 0 };
  if (lowSum - requiredSum > -ALLOCATION_EPSILON) {
    return { allocs: classes.map((c) => c.lowerBound), fairProp: lbMin };
  }
  if (requiredSum - highSum > -ALLOCATION_EPSILON) {
    return { allocs: classes.map((c) => c.upperBound), fairProp: ubMax };
  }
  let fairProp = requiredSum / targetSum;
  if (lbMax <= fairProp && fairProp <= ubMin) {
    return { allocs: targets.map((t) => t * fairProp), fairProp };
  }

  // Some bounds bind. Walk fairProp upward through the sorted relative bounds; between two
  // consecutive bounds the sum grows linearly at the rate of the targets of the classes that are
  // strictly between their bounds ("sensitive").
  const bounds: { value: number; item: number; lower: boolean }[] = [];
  for (let j = 0; j < n; j++) {
    bounds.push({ value: relLower[j]!, item: j, lower: true }, { value: relUpper[j]!, item: j, lower: false });
  }
  bounds.sort((a, b) => a.value - b.value);
  let sumSoFar = lowSum;
  fairProp = lbMin;
  let sensitiveTargetSum = 0;
  let deltaSensitiveTargetSum = 0;
  let numSensitive = 0;
  let deltaSensitive = 0;
  let nextIdx = 0;
  while (sumSoFar < requiredSum) {
    // Apply every bound equal to the current fairProp, stopping at the first one above it.
    let nextBound: number;
    for (;;) {
      sensitiveTargetSum += deltaSensitiveTargetSum;
      numSensitive += deltaSensitive;
      const bound = bounds[nextIdx];
      if (bound === undefined) {
        return { error: 'impossible: ran out of bounds to consider in bound-constrained problem' };
      }
      nextBound = bound.value;
      deltaSensitive = bound.lower ? 1 : -1;
      deltaSensitiveTargetSum = bound.lower ? targets[bound.item]! : -targets[bound.item]!;
      nextIdx++;
      if (nextBound > fairProp) break;
    }
    if (numSensitive === 0) {
      fairProp = nextBound;
      continue;
    }
    const nextProp = fairProp + (requiredSum - sumSoFar) / sensitiveTargetSum;
    if (nextProp <= nextBound) {
      fairProp = nextProp;
      break;
    }
    sumSoFar += (nextBound - fairProp) * sensitiveTargetSum;
    fairProp = nextBound;
  }
  const allocs = classes.map((c, j) => Math.max(c.lowerBound, Math.min(c.upperBound, fairProp * targets[j]!)));
  return { allocs, fairProp };
}

export interface BorrowingLevelInput {
  name: string;
  exempt: boolean;
  nominalCL: number;
  minCL: number;
  maxCL: number;
  /** round(max seat demand) over the period just ended. */
  highWatermark: number;
  /** Smoothed seat-demand envelope (seat-demand.ts). */
  smoothedDemand: number;
  /** CurrentCL before this update; kept when the solver fails. */
  previousCurrentCL: number;
}

export interface BorrowingLevelResult {
  name: string;
  currentCL: number;
  /** For non-exempt levels `max(minCurrentCL, smoothedDemand)`; for exempt levels `minCurrentCL`. */
  target: number;
  minCurrentCL: number;
}

export interface BorrowingResult {
  levels: BorrowingLevelResult[];
  /** The seat_fair_frac metric: the solver's fairProp, 0 when a bound-only case applied. */
  fairFrac: number;
  /** Set when the solver failed and the previous CurrentCLs were kept (the upstream backstop). */
  solverError?: string;
}

/**
 * One borrowing adjustment (`updateBorrowingLocked`). Exempt levels take their demand first; what
 * is left of Σ NominalCL decides between three cases. In the solver case the *whole* nominalCLSum is
 * handed to the solver, as the v1.32 code does (the KEP text says the remainder).
 */
export function allocateCurrentLimits(input: { nominalCLSum: number; levels: readonly BorrowingLevelInput[] }): BorrowingResult {
  let remaining = input.nominalCLSum;
  let minCLSum = 0;
  let minCurrentCLSum = 0;
  const minCurrent: number[] = [];
  const items: AllocationClass[] = [];
  const limitedIdx: number[] = [];
  for (const [idx, level] of input.levels.entries()) {
    if (level.exempt) {
      const m = Math.max(level.minCL, level.highWatermark);
      minCurrent.push(m);
      remaining -= m;
      continue;
    }
    const m = Math.max(level.minCL, Math.min(level.nominalCL, level.highWatermark));
    minCurrent.push(m);
    minCLSum += level.minCL;
    minCurrentCLSum += m;
    limitedIdx.push(idx);
    items.push({ lowerBound: m, upperBound: level.maxCL, target: Math.max(m, level.smoothedDemand) });
  }

  const currentCL: number[] = input.levels.map((level, idx) => (level.exempt ? minCurrent[idx]! : level.previousCurrentCL));
  let fairFrac = 0;
  let solverError: string | undefined;
  if (remaining <= minCLSum) {
    for (const idx of limitedIdx) currentCL[idx] = input.levels[idx]!.minCL;
  } else if (remaining <= minCurrentCLSum) {
    const shareFrac = (remaining - minCLSum) / (minCurrentCLSum - minCLSum);
    for (const idx of limitedIdx) {
      const { minCL } = input.levels[idx]!;
      currentCL[idx] = minCL + goRound((minCurrent[idx]! - minCL) * shareFrac);
    }
  } else if (items.length > 0) {
    const solved = computeConcurrencyAllocation(input.nominalCLSum, items);
    if ('error' in solved) {
      solverError = solved.error;
    } else {
      fairFrac = solved.fairProp;
      limitedIdx.forEach((idx, k) => (currentCL[idx] = goRound(solved.allocs[k]!)));
    }
  }

  let k = 0;
  const levels = input.levels.map((level, idx): BorrowingLevelResult => {
    const target = level.exempt ? minCurrent[idx]! : items[k++]!.target;
    return { name: level.name, currentCL: currentCL[idx]!, target, minCurrentCL: minCurrent[idx]! };
  });
  return solverError === undefined ? { levels, fairFrac } : { levels, fairFrac, solverError };
}
