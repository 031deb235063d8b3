// A fixed log-bucketed histogram of durations, so percentiles of millions of requests cost O(1)
// memory per flow and O(1) time per sample. Buckets grow by 1% from 1 µs to about 3 hours; exact
// zeros (requests dispatched without waiting) have their own bucket. A percentile is reported as
// the geometric middle of its bucket, so it is within 0.5% of the true sample value; count, sum,
// min and max are exact.

const MIN_MS = 0.001;
const GROWTH = 1.01;
const LOG_GROWTH = Math.log(GROWTH);
const BUCKETS = Math.ceil(Math.log(1e7 / MIN_MS) / LOG_GROWTH) + 2;

export class DurationHistogram {
  /** counts[0]: exactly 0; counts[1]: (0, 1 µs); counts[i ≥ 2]: [MIN·G^(i-2), MIN·G^(i-1)). */
  private readonly counts = new Float64Array(BUCKETS);
  count = 0;
  sumMs = 0;
  minMs = Infinity;
  maxMs = 0;

  record(ms: number): void {
    this.count++;
    this.sumMs += ms;
    if (ms < this.minMs) this.minMs = ms;
    if (ms > this.maxMs) this.maxMs = ms;
    this.counts[bucketOf(ms)]!++;
  }

  /** Nearest-rank percentile (q in [0, 1]); undefined when empty. */
  quantileMs(q: number): number | undefined {
    if (this.count === 0) return undefined;
    const rank = Math.max(1, Math.ceil(q * this.count));
    let seen = 0;
    for (let i = 0; i < BUCKETS; i++) {
      seen += this.counts[i]!;
      if (seen >= rank) return Math.min(this.maxMs, Math.max(this.minMs, representativeMs(i)));
    }
    return this.maxMs;
  }

  get meanMs(): number | undefined {
    return this.count === 0 ? undefined : this.sumMs / this.count;
  }

  /** Points of the cumulative distribution, thinned to at most `maxPoints`: [ms, fraction ≤ ms]. */
  cdf(maxPoints = 200): [number, number][] {
    if (this.count === 0) return [];
    const points: [number, number][] = [];
    let seen = 0;
    for (let i = 0; i < BUCKETS; i++) {
      const c = this.counts[i]!;
      if (c === 0) continue;
      seen += c;
      points.push([Math.min(this.maxMs, upperBoundMs(i)), seen / this.count]);
    }
    if (points.length <= maxPoints) return points;
    const step = points.length / maxPoints;
    const thinned: [number, number][] = [];
    for (let k = 0; k < maxPoints - 1; k++) thinned.push(points[Math.floor(k * step)]!);
    thinned.push(points[points.length - 1]!);
    return thinned;
  }
}

function bucketOf(ms: number): number {
  if (ms <= 0) return 0;
  if (ms < MIN_MS) return 1;
  const i = Math.floor(Math.log(ms / MIN_MS) / LOG_GROWTH) + 2;
  return i < BUCKETS ? i : BUCKETS - 1;
}

function lowerBoundMs(i: number): number {
  return i <= 1 ? 0 : MIN_MS * GROWTH ** (i - 2);
}

function upperBoundMs(i: number): number {
  return i === 0 ? 0 : MIN_MS * GROWTH ** (i - 1);
}

function representativeMs(i: number): number {
  if (i === 0) return 0;
  if (i === 1) return MIN_MS / 2;
  return Math.sqrt(lowerBoundMs(i) * upperBoundMs(i));
}
