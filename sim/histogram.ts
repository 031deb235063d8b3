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

/** The bucket by its definition (the logarithm): what the tables below are built from and checked against. */
export function bucketByLogarithm(ms: number): number {
  if (ms <= 0) return 0;
  if (ms < MIN_MS) return 1;
  const i = Math.floor(Math.log(ms / MIN_MS) / LOG_GROWTH) + 2;
  return i < BUCKETS ? i : BUCKETS - 1;
}

// The same bucket without a logarithm (one per completed request in the simulator, about 1% of
// its time). A double's top 20 bits (exponent and 8 mantissa bits) cut its binade into 256 ranges,
// each narrower than a bucket (1 + 2^-8 < GROWTH), so a range meets at most two buckets: the table
// holds the lower one, and one comparison with the upper one's least member decides. Those least
// members are found by bisecting the definition itself, so the result is the definition's, value for
// value, wherever it grows with `ms` (sim/histogram.test.ts checks every double near every bound).

/** LEAST[i]: the least double the definition puts in bucket i or above (i ≥ 2); Infinity past the last. */
const LEAST = new Float64Array(BUCKETS + 1);
const bits = new Float64Array(1);
const words = new Uint32Array(bits.buffer);
/** Which of the two words holds the sign, exponent and top mantissa bits (the second on little-endian machines). */
const HIGH = new Uint8Array(new Uint32Array([1]).buffer)[0] === 1 ? 1 : 0;
/** The top 20 bits of a double: sign, exponent and 8 mantissa bits. */
function topBits(ms: number): number {
  bits[0] = ms;
  return words[HIGH]! >>> 12;
}

function leastInBucket(i: number): number {
  const guess = MIN_MS * GROWTH ** (i - 2);
  let below = guess * (1 - 1e-10);
  let atOrAbove = guess * (1 + 1e-10);
  if (!(bucketByLogarithm(below) < i && bucketByLogarithm(atOrAbove) >= i)) throw new Error(`histogram: bucket ${i} is not bracketed`);
  for (;;) {
    const middle = below + (atOrAbove - below) / 2;
    if (middle === below || middle === atOrAbove) return atOrAbove;
    if (bucketByLogarithm(middle) >= i) atOrAbove = middle;
    else below = middle;
  }
}

LEAST[2] = MIN_MS;
for (let i = 3; i < BUCKETS; i++) LEAST[i] = leastInBucket(i);
LEAST[BUCKETS] = Number.POSITIVE_INFINITY;
/** From here on every duration is in the last bucket. */
const LAST_MS = LEAST[BUCKETS - 1]!;
const FIRST_RANGE = topBits(MIN_MS);
/** The bucket of each range's least member at or above MIN_MS, by the range's top bits. */
const RANGE_BUCKET = new Uint16Array(topBits(LAST_MS) - FIRST_RANGE + 1);
for (let r = 0; r < RANGE_BUCKET.length; r++) {
  words[HIGH] = (FIRST_RANGE + r) << 12;
  words[1 - HIGH] = 0;
  RANGE_BUCKET[r] = bucketByLogarithm(Math.max(MIN_MS, bits[0]!));
}

export function bucketOf(ms: number): number {
  if (!(ms >= MIN_MS && ms < LAST_MS)) return bucketByLogarithm(ms);
  const i = RANGE_BUCKET[topBits(ms) - FIRST_RANGE]!;
  return ms >= LEAST[i + 1]! ? i + 1 : i;
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
