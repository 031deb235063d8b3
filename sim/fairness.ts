// Jain's fairness index, J = (Σx)² / (n · Σx²): 1 when every competitor gets the same, 1/n when
// one gets everything. The simulator applies it to the seats each *backlogged* flow of a priority
// level held while it was backlogged (a flow that is not backlogged is not asking for more, so
// max-min fairness makes no claim about it). Pure.

export function jainIndex(values: readonly number[]): number | undefined {
  if (values.length === 0) return undefined;
  let sum = 0;
  let sumSquares = 0;
  for (const x of values) {
    sum += x;
    sumSquares += x * x;
  }
  // Nobody got anything: equally (un)served.
  if (sumSquares === 0) return 1;
  return (sum * sum) / (values.length * sumSquares);
}

/** A flow counts as backlogged for the index when it had requests waiting this share of the run. */
export const BACKLOGGED_FRACTION_MIN = 0.1;

/**
 * Max-min fair shares of `capacity` among flows demanding `demands` (water filling): a flow asking
 * less than an equal split gets what it asks, and what it leaves is split among the others.
 */
export function maxMinFairShares(demands: readonly number[], capacity: number): number[] {
  const order = demands.map((d, i) => [d, i] as const).sort((a, b) => a[0] - b[0] || a[1] - b[1]);
  const shares = new Array<number>(demands.length).fill(0);
  let remaining = Math.max(0, capacity);
  order.forEach(([demand, index], k) => {
    const share = Math.min(Math.max(0, demand), remaining / (order.length - k));
    shares[index] = share;
    remaining -= share;
  });
  return shares;
}
