// Go's strconv.ParseInt(s, 10, 64) and ParseUint(s, 10, 64), for integers a client writes (limit,
// timeoutSeconds, gracePeriodSeconds, resourceVersion, a label selector's `gt`/`lt`, an int64 field
// of a body such as DeleteOptions). A request may carry a megabyte of digits, and a BigInt of that
// takes the main thread about a fifth of a second; no int64 or uint64 has more than 20 significant
// digits, so only a number that short is ever made into a BigInt.

export const INT64_MIN = -(2n ** 63n);
export const INT64_MAX = 2n ** 63n - 1n;
export const UINT64_MAX = 2n ** 64n - 1n;

/** Why strconv refuses a number, in its words. */
export type GoIntegerError = 'invalid syntax' | 'value out of range';

const SIGNED = /^[+-]?[0-9]+$/;
const UNSIGNED = /^[0-9]+$/;
/** Digits of UINT64_MAX, the widest of the three bounds. */
const MAX_SIGNIFICANT_DIGITS = 20;

/** ParseInt(text, 10, 64): the value, or strconv's reason. */
export function goParseInt64(text: string): bigint | GoIntegerError {
  if (!SIGNED.test(text)) return 'invalid syntax';
  const value = boundedBigInt(text);
  return value === undefined || value < INT64_MIN || value > INT64_MAX ? 'value out of range' : value;
}

/** ParseUint(text, 10, 64): the value, or strconv's reason. */
export function goParseUint64(text: string): bigint | GoIntegerError {
  if (!UNSIGNED.test(text)) return 'invalid syntax';
  const value = boundedBigInt(text);
  return value === undefined || value > UINT64_MAX ? 'value out of range' : value;
}

/** The value of a signed decimal already checked for syntax; undefined when it has too many digits to be any 64-bit integer. */
function boundedBigInt(text: string): bigint | undefined {
  if (text.length <= MAX_SIGNIFICANT_DIGITS) return BigInt(text);
  const signed = text[0] === '-' || text[0] === '+';
  let start = signed ? 1 : 0;
  while (start < text.length - 1 && text[start] === '0') start++;
  if (text.length - start > MAX_SIGNIFICANT_DIGITS) return undefined;
  const value = BigInt(text.slice(start));
  return text[0] === '-' ? -value : value;
}
