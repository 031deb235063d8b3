// JSON bytes as kube-apiserver writes them. Its JSON serializer is Go's `json.Encoder`, which
// (a) escapes `<`, `>` and `&` as \u003c \u003e \u0026 (EscapeHTML is on by default), (b) always
// escapes U+2028 and U+2029, and (c) ends every value with a newline. JSON.stringify does none of
// these, so clients comparing bytes (or JavaScript embedding the body) would see a difference.
// The escaped characters can only occur inside JSON strings, so rewriting the finished text is exact.
// Every JSON the server sends is made here: the watch cache's per-object encodings, the handlers'
// bodies and the worker threads' renderings, so all of them agree byte for byte.

const GO_ESCAPED_CHARACTER = /[<>&\u2028\u2029]/;
const GO_ESCAPED_CHARACTERS = /[<>&\u2028\u2029]/g;
const GO_ESCAPES: Readonly<Record<string, string>> = {
  '<': '\\u003c',
  '>': '\\u003e',
  '&': '\\u0026',
  '\u2028': '\\u2028',
  '\u2029': '\\u2029',
};
const NEWLINE = 0x0a;

/**
 * JSON text of `value`, escaped as Go's encoder escapes it (no trailing newline): compact, or
 * indented by two spaces as Go's MarshalIndent indents (kube-apiserver's `?pretty`).
 */
export function goJsonText(value: unknown, pretty = false): string {
  const text = (pretty ? JSON.stringify(value, null, 2) : JSON.stringify(value)) as string | undefined;
  if (text === undefined) throw new TypeError(`${describeType(value)} has no JSON encoding`);
  return GO_ESCAPED_CHARACTER.test(text) ? text.replace(GO_ESCAPED_CHARACTERS, (c) => GO_ESCAPES[c] ?? c) : text;
}

/**
 * UTF-8 bytes of `texts` joined by newlines, with a final newline: one Go-encoded value per text.
 * The Buffer owns its whole ArrayBuffer (never Node's shared pool), so a worker can transfer it.
 */
export function newlineTerminatedBytes(texts: readonly string[]): Buffer {
  let byteLength = 0;
  for (const text of texts) byteLength += Buffer.byteLength(text, 'utf8') + 1;
  const bytes = Buffer.allocUnsafeSlow(byteLength);
  let offset = 0;
  for (const text of texts) {
    offset += bytes.write(text, offset, 'utf8');
    bytes[offset++] = NEWLINE;
  }
  return bytes;
}

function describeType(value: unknown): string {
  return value === undefined ? 'an undefined value' : `a ${typeof value} value`;
}
