// metav1.Time as Kubernetes reads and writes it: JSON holds Go's `time.Parse(time.RFC3339, s)`
// input and `t.UTC().Format(time.RFC3339)` output, so a valid time in any offset or with a
// fraction is stored as UTC whole seconds, and an invalid one is refused with the text of Go's
// `*time.ParseError` (clients and people compare it with a real cluster's). Go's general parser,
// not only its RFC 3339 fast path, decides what is valid: it is what time.Parse falls back to,
// and it is more lenient (a one-digit hour, a fraction of any length).

export type TimeParse = { ok: true; seconds: number; nanos: number } | { ok: false; message: string };

const LAYOUT = '2006-01-02T15:04:05Z07:00';

type Std = 'year' | 'month' | 'day' | 'hour' | 'minute' | 'second' | 'zone';

/** The layout cut into Go's chunks: the literal before each element, then the element. */
const CHUNKS: readonly { prefix: string; std: Std; text: string }[] = [
  { prefix: '', std: 'year', text: '2006' },
  { prefix: '-', std: 'month', text: '01' },
  { prefix: '-', std: 'day', text: '02' },
  { prefix: 'T', std: 'hour', text: '15' },
  { prefix: ':', std: 'minute', text: '04' },
  { prefix: ':', std: 'second', text: '05' },
  { prefix: '', std: 'zone', text: 'Z07:00' },
];

/** Go's time-package `quote`: non-ASCII and control bytes as `\xNN`, `"` and `\` escaped. */
export function goTimeQuote(text: string): string {
  let out = '"';
  for (const byte of Buffer.from(text, 'utf8')) {
    if (byte >= 0x80 || byte < 0x20) out += `\\x${byte.toString(16).padStart(2, '0')}`;
    else {
      const ch = String.fromCharCode(byte);
      out += ch === '"' || ch === '\\' ? `\\${ch}` : ch;
    }
  }
  return `${out}"`;
}

const isDigit = (s: string, i: number) => i < s.length && s.charCodeAt(i) >= 48 && s.charCodeAt(i) <= 57;

/** Go's getnum: one or two digits (exactly two when `fixed`). */
function getnum(s: string, fixed: boolean): { n: number; rest: string } | undefined {
  if (!isDigit(s, 0)) return undefined;
  if (!isDigit(s, 1)) return fixed ? undefined : { n: s.charCodeAt(0) - 48, rest: s.slice(1) };
  return { n: (s.charCodeAt(0) - 48) * 10 + (s.charCodeAt(1) - 48), rest: s.slice(2) };
}

const daysIn = (month: number, year: number) => {
  if (month === 2) return (year % 4 === 0 && year % 100 !== 0) || year % 400 === 0 ? 29 : 28;
  return [4, 6, 9, 11].includes(month) ? 30 : 31;
};

/** Days since 1970-01-01 of a proleptic Gregorian date (any year, no Date quirks for years < 100). */
function daysFromCivil(year: number, month: number, day: number): number {
  const y = month <= 2 ? year - 1 : year;
  const era = Math.floor(y / 400);
  const yoe = y - era * 400;
  const doy = Math.floor((153 * (month + (month > 2 ? -3 : 9)) + 2) / 5) + day - 1;
  const doe = yoe * 365 + Math.floor(yoe / 4) - Math.floor(yoe / 100) + doy;
  return era * 146097 + doe - 719468;
}

/** Go's `time.Parse(time.RFC3339, value)`: seconds since the epoch and nanoseconds, or Go's error text. */
export function parseRfc3339(value: string): TimeParse {
  const cannotParse = (valueElem: string, layoutElem: string): TimeParse => ({
    ok: false,
    message: `parsing time ${goTimeQuote(value)} as ${goTimeQuote(LAYOUT)}: cannot parse ${goTimeQuote(valueElem)} as ${goTimeQuote(layoutElem)}`,
  });
  const failed = (message: string): TimeParse => ({ ok: false, message: `parsing time ${goTimeQuote(value)}${message}` });
  let rest = value;
  let year = 0;
  let month = 0;
  let day = 0;
  let hour = 0;
  let minute = 0;
  let second = 0;
  let nanos = 0;
  let offsetSeconds = 0;
  for (const chunk of CHUNKS) {
    for (const ch of chunk.prefix) {
      if (rest.length === 0 || rest[0] !== ch) return cannotParse(rest, chunk.prefix);
      rest = rest.slice(1);
    }
    const hold = rest;
    let range = '';
    let bad = false;
    switch (chunk.std) {
      case 'year':
        if (rest.length < 4 || !isDigit(rest, 0) || ![1, 2, 3].every((i) => isDigit(rest, i))) bad = true;
        else {
          year = Number(rest.slice(0, 4));
          rest = rest.slice(4);
        }
        break;
      case 'month':
      case 'day':
      case 'minute': {
        const got = getnum(rest, true);
        if (got === undefined) bad = true;
        else {
          rest = got.rest;
          if (chunk.std === 'month') {
            month = got.n;
            if (month <= 0 || month > 12) range = 'month';
          } else if (chunk.std === 'day') day = got.n;
          else {
            minute = got.n;
            if (minute >= 60) range = 'minute';
          }
        }
        break;
      }
      case 'hour': {
        const got = getnum(rest, false);
        if (got === undefined) bad = true;
        else {
          hour = got.n;
          rest = got.rest;
          if (hour >= 24) range = 'hour';
        }
        break;
      }
      case 'second': {
        const got = getnum(rest, true);
        if (got === undefined) {
          bad = true;
          break;
        }
        second = got.n;
        rest = got.rest;
        if (second >= 60) {
          range = 'second';
          break;
        }
        // A fraction the layout does not mention is accepted after the seconds (Go's special case).
        if (rest.length >= 2 && (rest[0] === '.' || rest[0] === ',') && isDigit(rest, 1)) {
          let n = 2;
          while (isDigit(rest, n)) n++;
          const digits = rest.slice(1, Math.min(n, 10));
          nanos = Number(digits) * 10 ** (9 - digits.length);
          rest = rest.slice(n);
        }
        break;
      }
      case 'zone': {
        if (rest.length >= 1 && rest[0] === 'Z') {
          rest = rest.slice(1);
          break;
        }
        if (rest.length < 6 || rest[3] !== ':') {
          bad = true;
          break;
        }
        const sign = rest[0];
        const hh = getnum(rest.slice(1, 3), true);
        const mm = hh === undefined ? undefined : getnum(rest.slice(4, 6), true);
        rest = rest.slice(6);
        bad = mm === undefined;
        // As in Go, an offset that did not parse counts as 0 for the range checks, which come first.
        const offsetHours = hh?.n ?? 0;
        const offsetMinutes = mm?.n ?? 0;
        if (offsetHours > 24) range = 'time zone offset hour';
        if (offsetMinutes > 60) range = 'time zone offset minute';
        offsetSeconds = (offsetHours * 60 + offsetMinutes) * 60;
        if (sign === '-') offsetSeconds = -offsetSeconds;
        else if (sign !== '+') bad = true;
        break;
      }
    }
    if (range !== '') return failed(`: ${range} out of range`);
    if (bad) return cannotParse(hold, chunk.text);
  }
  if (rest.length !== 0) return failed(`: extra text: ${goTimeQuote(rest)}`);
  if (day < 1 || day > daysIn(month, year)) return failed(': day out of range');
  const seconds = daysFromCivil(year, month, day) * 86_400 + hour * 3600 + minute * 60 + second - offsetSeconds;
  return { ok: true, seconds, nanos };
}

/** Go's `t.UTC().Format(time.RFC3339)` of whole seconds since the epoch; undefined outside years 0–9999 (Go's MarshalJSON fails there). */
export function formatRfc3339Seconds(seconds: number): string | undefined {
  const days = Math.floor(seconds / 86_400);
  const secondOfDay = seconds - days * 86_400;
  // civil_from_days
  const z = days + 719468;
  const era = Math.floor(z / 146097);
  const doe = z - era * 146097;
  const yoe = Math.floor((doe - Math.floor(doe / 1460) + Math.floor(doe / 36524) - Math.floor(doe / 146096)) / 365);
  const doy = doe - (365 * yoe + Math.floor(yoe / 4) - Math.floor(yoe / 100));
  const mp = Math.floor((5 * doy + 2) / 153);
  const day = doy - Math.floor((153 * mp + 2) / 5) + 1;
  const month = mp < 10 ? mp + 3 : mp - 9;
  const year = yoe + era * 400 + (month <= 2 ? 1 : 0);
  if (year < 0 || year > 9999) return undefined;
  const pad = (n: number, width = 2) => String(n).padStart(width, '0');
  const hh = Math.floor(secondOfDay / 3600);
  const mi = Math.floor((secondOfDay % 3600) / 60);
  const ss = secondOfDay % 60;
  return `${pad(year, 4)}-${pad(month)}-${pad(day)}T${pad(hh)}:${pad(mi)}:${pad(ss)}Z`;
}

/** The zero metav1.Time (Go's `time.Time{}`), which JSON writes as null. */
export const ZERO_TIME_SECONDS = -62_135_596_800;

/**
 * A JSON time as Kubernetes stores it: valid ones normalised to UTC whole seconds; the zero time
 * becomes undefined (Go writes null, and a null field is absent).
 */
export function normalizeRfc3339(value: string): { ok: true; value: string | undefined } | { ok: false; message: string } {
  const parsed = parseRfc3339(value);
  if (!parsed.ok) return parsed;
  if (parsed.seconds === ZERO_TIME_SECONDS && parsed.nanos === 0) return { ok: true, value: undefined };
  const formatted = formatRfc3339Seconds(parsed.seconds);
  if (formatted === undefined) return { ok: false, message: 'Time.MarshalJSON: year outside of range [0,9999]' };
  return { ok: true, value: formatted };
}
