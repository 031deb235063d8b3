// Go's views of decoded JSON values that patch messages print; the reader itself (syntax errors and
// duplicate fields as Go words them) and Go's type names are engine/go-json.ts, shared with every
// other JSON the server reads.
export { goJsonTypeName, parseGoJson, type GoJsonResult } from '../go-json.ts';

/** Go's `%v` of a decoded JSON value: `map[a:1 b:[x y]]`, keys sorted. */
export function goFormatValue(value: unknown): string {
  if (value === null || value === undefined) return '<nil>';
  if (Array.isArray(value)) return `[${value.map(goFormatValue).join(' ')}]`;
  if (typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>)
      .filter(([, v]) => v !== undefined)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `map[${entries.map(([k, v]) => `${k}:${goFormatValue(v)}`).join(' ')}]`;
  }
  return String(value);
}
