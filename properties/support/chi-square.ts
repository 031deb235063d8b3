// Pearson's chi-square goodness-of-fit against the uniform distribution, with the critical value
// from the Wilson–Hilferty approximation (accurate to a few percent for the dozens-to-thousands
// degrees of freedom used here, far finer than the one-in-a-million tail we test at).

/** Σ (observed − expected)² / expected, for counts that should be equal. */
export function chiSquareUniform(counts: readonly number[]): number {
  const total = counts.reduce((a, b) => a + b, 0);
  const expected = total / counts.length;
  let statistic = 0;
  for (const c of counts) statistic += ((c - expected) * (c - expected)) / expected;
  return statistic;
}

/** z with P(Z > z) = 1e-6 for a standard normal Z. */
export const Z_ONE_IN_A_MILLION = 4.753424;

/** The value a chi-square variable with `dof` degrees of freedom exceeds with the tail probability of `z`. */
export function chiSquareCritical(dof: number, z = Z_ONE_IN_A_MILLION): number {
  const a = 2 / (9 * dof);
  return dof * (1 - a + z * Math.sqrt(a)) ** 3;
}
