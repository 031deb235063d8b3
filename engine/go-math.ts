// Go-compatible numeric helpers. The APF formulas are specified by what Go's float64 and integer
// arithmetic produce, so where JavaScript differs (rounding of halves, integer division, log2 of a
// power of two) these functions reproduce Go's result bit for bit.

/**
 * Go `math.Round`: nearest integer, halves away from zero. JavaScript's `Math.round` sends -2.5 to
 * -2, Go sends it to -3. `x - trunc(x)` is exact in binary floating point, so the half test has no
 * rounding error of its own.
 */
export function goRound(x: number): number {
  // Infinities and NaN need no test of their own: x − trunc(x) is NaN for them, so they come back
  // as they are. The two one-sided tests are the queue set's virtual-time hot path (Math.abs and
  // Math.sign cost more there than the rest of the rounding).
  const t = Math.trunc(x);
  const fraction = x - t;
  if (fraction >= 0.5) return t + 1;
  if (fraction <= -0.5) return t - 1;
  return t;
}

/** Go integer division on non-negative ints (truncates toward zero, like Go for any sign). */
export function goIntDiv(a: number, b: number): number {
  return Math.trunc(a / b);
}

/**
 * `ceil(a / b)` for integers, computed exactly: `Math.ceil(a / b)` is also exact while `a < 2^52`
 * (a non-integer quotient is at least `1/b` away from the next integer, far more than one ulp), but
 * the remainder test makes the result independent of that argument.
 */
export function ceilDiv(a: number, b: number): number {
  if (!Number.isSafeInteger(a) || !Number.isSafeInteger(b)) return Math.ceil(a / b);
  const q = Math.trunc(a / b);
  // trunc(a/b) can be off by one only when a/b lies within an ulp of an integer; fix it with the remainder.
  const r = a - q * b;
  if (r === 0) return q;
  const sameSign = r > 0 === b > 0;
  return sameSign ? q + 1 : q;
}

const scratch = new DataView(new ArrayBuffer(8));

/** Go `math.Frexp`: `x = frac * 2^exp` with `0.5 <= |frac| < 1` (0, NaN, ±Inf returned as is, exp 0). */
export function goFrexp(x: number): { frac: number; exp: number } {
  if (x === 0 || !Number.isFinite(x)) return { frac: x, exp: 0 };
  let value = x;
  let bias = 0;
  // Subnormals: scale into the normal range first so the exponent field is meaningful.
  if (Math.abs(value) < 2.2250738585072014e-308) {
    value *= 2 ** 52;
    bias = -52;
  }
  scratch.setFloat64(0, value);
  const hi = scratch.getUint32(0);
  const exp = ((hi >>> 20) & 0x7ff) - 1022 + bias;
  scratch.setUint32(0, (hi & 0x800fffff) | (1022 << 20));
  return { frac: scratch.getFloat64(0), exp };
}

/**
 * Go `math.Log2`: exact for powers of two (Go special-cases `frac == 0.5`), otherwise
 * `log(frac)/ln2 + exp`. Matters for `RequiredEntropyBits`, whose `ceil` sits on integer boundaries
 * whenever the deck size is a power of two.
 */
export function goLog2(x: number): number {
  const { frac, exp } = goFrexp(x);
  if (frac === 0.5) return exp - 1;
  return Math.log(frac) * (1 / Math.LN2) + exp;
}

/** 2^64 − 1, the largest Go uint64. */
export const MAX_UINT64 = (1n << 64n) - 1n;

/** Reinterpret any bigint as a Go uint64 (two's-complement wrap-around). */
export function toUint64(x: bigint): bigint {
  return BigInt.asUintN(64, x);
}

/** Reinterpret any bigint as a Go int64 (two's-complement wrap-around). */
export function toInt64(x: bigint): bigint {
  return BigInt.asIntN(64, x);
}
