/** The first position in ascending `sorted` whose item is not below `value`: where `value` would be inserted. */
export function lowerBound<T extends string | number>(sorted: readonly T[], value: T): number {
  let lo = 0;
  let hi = sorted.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (sorted[mid]! < value) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}
