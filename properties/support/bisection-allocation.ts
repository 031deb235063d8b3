// An independent solver for the allocation problem of apf-semantics 8.4, by bisection rather than
// the engine's sweep over sorted bounds: find p with Σ clamp(p·target, lower, upper) = required.
// The sum is non-decreasing in p, so bisection converges; where it is flat every term is flat,
// so the allocation itself is unique even when p is not.

export interface BisectionClass {
  target: number;
  lowerBound: number;
  upperBound: number;
}

/** Targets below this are raised to it, as the reference specifies (MinTarget). */
const MIN_TARGET = 0.001;

export function bisectionAllocation(required: number, classes: readonly BisectionClass[]): number[] {
  const targets = classes.map((c) => Math.max(c.target, MIN_TARGET));
  const allocAt = (p: number) => classes.map((c, j) => Math.min(c.upperBound, Math.max(c.lowerBound, p * targets[j]!)));
  const sumAt = (p: number) => allocAt(p).reduce((a, b) => a + b, 0);
  let lo = 0;
  let hi = Math.max(1, ...classes.map((c, j) => c.upperBound / targets[j]!));
  for (let i = 0; i < 200 && hi - lo > 0; i++) {
    const mid = (lo + hi) / 2;
    if (mid === lo || mid === hi) break;
    if (sumAt(mid) < required) lo = mid;
    else hi = mid;
  }
  return allocAt(hi);
}
