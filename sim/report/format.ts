// Number, time and name formatting shared by the simulator's pages (report, sweep summary,
// comparison): times with units and three significant digits, counts with thousands separators,
// HTML escaping, and short display names whose full text is on hover.

export function fmtSeconds(s: number | null | undefined): string {
  if (s === null || s === undefined) return '—';
  if (s === 0) return '0';
  if (Math.abs(s) < 0.001) return `${Number((s * 1e6).toPrecision(3))} µs`;
  if (Math.abs(s) < 1) return `${Number((s * 1000).toPrecision(3))} ms`;
  return `${Number(s.toPrecision(3))} s`;
}

export function fmtInt(n: number): string {
  return String(n).replace(/\B(?=(\d{3})+(?!\d))/g, ',');
}

export function fmtNumber(n: number): string {
  return Math.abs(n) >= 100 ? fmtInt(Math.round(n)) : String(Number(n.toFixed(2)));
}

export function fmtPercent(fraction: number): string {
  if (fraction === 0) return '0%';
  const pct = fraction * 100;
  return `${Number(pct.toPrecision(pct < 1 ? 2 : 3))}%`;
}

/** Bytes in binary units with three significant digits (`1.5 GiB`). */
export function fmtBytes(n: number): string {
  const units = ['B', 'KiB', 'MiB', 'GiB', 'TiB'];
  let value = n;
  let unit = 0;
  while (Math.abs(value) >= 1024 && unit < units.length - 1) {
    value /= 1024;
    unit++;
  }
  return `${Number(value.toPrecision(3))} ${units[unit]}`;
}

export function esc(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');
}

const DISPLAY_MAX = 36;

/**
 * A flow or level name short enough for a table cell: well-known prefixes abbreviated
 * (`system:serviceaccount:ns:name` → `sa:ns:name`), then the middle elided. The caller shows the
 * full name on hover.
 */
export function shortName(name: string): string {
  let short = name.replace(/^audit:/, '').replace(/system:serviceaccount:/g, 'sa:');
  // A user agent's version and platform say little in a table: keep the product and its last part.
  short = short.replace(/\/v\d+\.\d+\.\d+\S* \([^)]*\)( kubernetes\/[0-9a-f]+)?/g, '');
  if (short.length <= DISPLAY_MAX) return short;
  const head = Math.ceil((DISPLAY_MAX - 1) * 0.6);
  return `${short.slice(0, head)}…${short.slice(short.length - (DISPLAY_MAX - 1 - head))}`;
}

/** A name for a table cell: the short form, with the full name on hover when they differ. */
export function nameCell(name: string): string {
  const short = shortName(name);
  return short === name ? esc(name) : `<span title="${esc(name)}">${esc(short)}</span>`;
}

/** A typographic minus: "−14.9" reads as negative where "-14.9" reads as a dash. */
export const minus = (text: string) => text.replace(/^-/, '−');

/** "−14.92 to −12.42", not "-14.92–-12.42": an en dash between negative numbers reads as a minus. */
export function fmtRange(low: string, high: string): string {
  // Two values that print alike are one value to the reader ("3.99", not "3.99–3.99").
  if (low === high) return minus(low);
  return low.startsWith('-') || high.startsWith('-') ? `${minus(low)} to ${minus(high)}` : `${low}–${high}`;
}
