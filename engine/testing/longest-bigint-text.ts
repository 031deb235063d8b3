// For tests that pin how long a text a parser hands to BigInt (a long one costs the main thread).

/** Runs `body` with BigInt counting the longest text it was asked to read. */
export function longestBigIntText(body: () => void): number {
  const real = globalThis.BigInt;
  let longest = 0;
  const spy = (value: string | number | bigint | boolean) => {
    if (typeof value === 'string') longest = Math.max(longest, value.length);
    return real(value);
  };
  globalThis.BigInt = spy as BigIntConstructor;
  try {
    body();
  } finally {
    globalThis.BigInt = real;
  }
  return longest;
}
