// The max-min fair allocation of a capacity among demands, written from the definition and
// nothing else (it shares no code with the engine's borrowing solver): an allocation is max-min
// fair when no party can get more without taking from a party that already has less or the same.
// Water-filling finds it: raise a common level from 0; a party whose demand is below the level is
// frozen at its demand; the level stops where the capacity runs out.

export function maxMinFairAllocation(demands: readonly number[], capacity: number): number[] {
  if (!(capacity >= 0) || !Number.isFinite(capacity)) throw new RangeError(`capacity must be finite and >= 0, got ${capacity}`);
  for (const d of demands) {
    if (!(d >= 0) || !Number.isFinite(d)) throw new RangeError(`demands must be finite and >= 0, got ${d}`);
  }
  const order = demands.map((_, i) => i).sort((a, b) => demands[a]! - demands[b]!);
  const allocation = new Array<number>(demands.length).fill(0);
  let remaining = capacity;
  // Visit demands from the smallest; each takes its demand or an equal split of what is left.
  for (let k = 0; k < order.length; k++) {
    const i = order[k]!;
    const equalSplit = remaining / (order.length - k);
    const share = Math.min(demands[i]!, equalSplit);
    allocation[i] = share;
    remaining -= share;
  }
  return allocation;
}
