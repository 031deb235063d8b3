// Go's `time.Duration` text form, as config files carry it (`timeout: 3s`, `1m30s`, `250ms`).
// metav1.Duration decodes with time.ParseDuration and prints with Duration.String, so a value
// that round-trips through kube-apiserver reads back in this canonical form (`90s` → `1m30s`).
// Nanoseconds are bigints: Go's range is ±2^63 ns, beyond a double's exact integers.

export type GoDurationParse = { ok: true; nanoseconds: bigint } | { ok: false; error: string };

// A Map, not an object literal: the unit is a client's text (`?timeout=1__proto__`), and an
// object would answer `__proto__` or `constructor` from Object.prototype.
const UNIT_NANOSECONDS: ReadonlyMap<string, bigint> = new Map([
  ['ns', 1n],
  ['us', 1_000n],
  ['µs', 1_000n], // U+00B5 micro sign
  ['μs', 1_000n], // U+03BC Greek mu
  ['ms', 1_000_000n],
  ['s', 1_000_000_000n],
  ['m', 60_000_000_000n],
  ['h', 3_600_000_000_000n],
]);

/** A whole number of more significant digits is past 2^63 in any unit: invalid, with no BigInt made of it. */
const MAX_WHOLE_DIGITS = 19;
/** Go reads a fraction's digits while they fit an int64 and ignores the rest (time.leadingFraction). */
const MAX_FRACTION_DIGITS = 19;
const LEADING_ZEROS = /^0+/;

const MAX_NANOSECONDS = (1n << 63n) - 1n;

/** `time.ParseDuration`, with Go's error texts. */
export function parseGoDuration(text: string): GoDurationParse {
  const invalid = { ok: false as const, error: `time: invalid duration ${goQuoteSimple(text)}` };
  let rest = text;
  let negative = false;
  if (rest.startsWith('-') || rest.startsWith('+')) {
    negative = rest.startsWith('-');
    rest = rest.slice(1);
  }
  if (rest === '0') return { ok: true, nanoseconds: 0n };
  if (rest === '') return invalid;
  let total = 0n;
  while (rest !== '') {
    const number = /^(\d*)(?:\.(\d*))?/.exec(rest)!;
    const whole = number[1] ?? '';
    const fraction = number[2];
    if (whole === '' && (fraction === undefined || fraction === '')) return invalid;
    rest = rest.slice(number[0].length);
    const unitMatch = /^[^\d.]+/.exec(rest);
    if (unitMatch === null) return { ok: false, error: `time: missing unit in duration ${goQuoteSimple(text)}` };
    const unit = unitMatch[0];
    const scale = UNIT_NANOSECONDS.get(unit);
    if (scale === undefined) return { ok: false, error: `time: unknown unit ${goQuoteSimple(unit)} in duration ${goQuoteSimple(text)}` };
    rest = rest.slice(unit.length);
    const significant = whole.replace(LEADING_ZEROS, '');
    if (significant.length > MAX_WHOLE_DIGITS) return invalid;
    let value = BigInt(significant === '' ? '0' : significant) * scale;
    if (fraction !== undefined && fraction !== '') {
      // Go keeps the fraction exactly up to the unit's resolution and truncates the rest.
      const kept = fraction.slice(0, MAX_FRACTION_DIGITS);
      value += (BigInt(kept) * scale) / 10n ** BigInt(kept.length);
    }
    total += value;
    if (total > MAX_NANOSECONDS + (negative ? 1n : 0n)) return invalid;
  }
  return { ok: true, nanoseconds: negative ? -total : total };
}

/** `Duration.String()`: `0s`, `1.5µs`, `250ms`, `3s`, `1m30s`, `2h0m0s`. */
export function formatGoDuration(nanoseconds: bigint): string {
  if (nanoseconds === 0n) return '0s';
  const sign = nanoseconds < 0n ? '-' : '';
  const u = nanoseconds < 0n ? -nanoseconds : nanoseconds;
  if (u < 1_000_000_000n) {
    if (u < 1_000n) return `${sign}${u}ns`;
    if (u < 1_000_000n) return `${sign}${withFraction(u, 3)}µs`;
    return `${sign}${withFraction(u, 6)}ms`;
  }
  const seconds = u / 1_000_000_000n;
  const secondsText = `${seconds % 60n}${fractionDigits(u % 1_000_000_000n, 9)}s`;
  const minutes = seconds / 60n;
  if (minutes === 0n) return `${sign}${secondsText}`;
  const hours = minutes / 60n;
  if (hours === 0n) return `${sign}${minutes}m${secondsText}`;
  return `${sign}${hours}h${minutes % 60n}m${secondsText}`;
}

/** Milliseconds as a double, for timers; sub-millisecond precision is kept as a fraction. */
export function goDurationToMs(nanoseconds: bigint): number {
  return Number(nanoseconds) / 1e6;
}

function withFraction(value: bigint, precision: number): string {
  const scale = 10n ** BigInt(precision);
  return `${value / scale}${fractionDigits(value % scale, precision)}`;
}

function fractionDigits(remainder: bigint, precision: number): string {
  if (remainder === 0n) return '';
  return `.${remainder.toString().padStart(precision, '0').replace(/0+$/, '')}`;
}

/** Config values are printable text; JSON quoting matches Go's %q for them. */
function goQuoteSimple(text: string): string {
  return JSON.stringify(text);
}
