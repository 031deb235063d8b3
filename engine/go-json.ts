// Reads JSON as Go's encoding/json does, for what clients see of it and JSON.parse loses: the
// syntax error text (`invalid character 'x' looking for beginning of value`, `unexpected end of
// JSON input`), which kube-apiserver puts in its Status messages verbatim; the duplicate fields
// that `fieldValidation=Strict` reports (`duplicate field "spec.type"`; otherwise the last one wins,
// as in JSON.parse); and how numbers were written: `5e3`, `5.0` and `1e-400` parse to the integers
// 5000, 5 and 0, but Go refuses them for an integer field (`cannot unmarshal number 5e3`). And the
// JSON type name Go gives a decoded value in its decoding errors.

export type GoJsonResult =
  | {
      value: unknown;
      /** Paths of repeated keys, in the order they appear: `spec.type`, `spec.rules[0].verbs`. */
      duplicates: string[];
      /** The literal of every number not written as a short plain integer (a fraction, an exponent, or more than 15 digits), by path. */
      numberLiterals: Map<string, string>;
    }
  | { error: string };

export function parseGoJson(text: string): GoJsonResult {
  const reader = new Reader(text);
  try {
    reader.skipSpace();
    reader.value('');
    reader.skipSpace();
    if (!reader.atEnd()) reader.fail('after top-level value');
  } catch (error) {
    if (error instanceof SyntaxFailure) return { error: error.message };
    // Deeper than this engine's stack: Go's scanner stops even sooner (10000 levels) with these words.
    if (error instanceof RangeError) return { error: MAX_DEPTH };
    throw error;
  }
  return { value: JSON.parse(text), duplicates: reader.duplicates, numberLiterals: reader.numberLiterals };
}

/** Go's encoding/json nesting limit and its error text (the stack here may run out sooner: the same error). */
const MAX_NESTING_DEPTH = 10_000;
const MAX_DEPTH = 'exceeded max depth';

class SyntaxFailure extends Error {}

const END = 'unexpected end of JSON input';

class Reader {
  pos = 0;
  private depth = 0;
  readonly duplicates: string[] = [];
  readonly numberLiterals = new Map<string, string>();

  constructor(private readonly text: string) {}

  atEnd(): boolean {
    return this.pos >= this.text.length;
  }

  skipSpace(): void {
    while (!this.atEnd() && ' \t\n\r'.includes(this.text[this.pos]!)) this.pos++;
  }

  fail(context: string): never {
    if (this.atEnd()) throw new SyntaxFailure(END);
    throw new SyntaxFailure(`invalid character ${quoteChar(this.text[this.pos]!)} ${context}`);
  }

  private peek(): string {
    if (this.atEnd()) throw new SyntaxFailure(END);
    return this.text[this.pos]!;
  }

  value(path: string): void {
    const ch = this.peek();
    if (ch === '{' || ch === '[') {
      try {
        return ch === '{' ? this.object(path) : this.array(path);
      } finally {
        this.depth--;
      }
    }
    if (ch === '"') return void this.string();
    if (ch === '-' || (ch >= '0' && ch <= '9')) return this.number(path);
    for (const literal of ['true', 'false', 'null']) {
      if (ch === literal[0]) return this.literal(literal);
    }
    this.fail('looking for beginning of value');
  }

  private nest(): void {
    if (++this.depth > MAX_NESTING_DEPTH) throw new SyntaxFailure(MAX_DEPTH);
  }

  private object(path: string): void {
    this.nest();
    this.pos++;
    this.skipSpace();
    if (this.peek() === '}') {
      this.pos++;
      return;
    }
    const seen = new Set<string>();
    for (;;) {
      if (this.peek() !== '"') this.fail('looking for beginning of object key string');
      const key = this.string();
      const keyPath = path === '' ? key : `${path}.${key}`;
      if (seen.has(key)) this.duplicates.push(keyPath);
      seen.add(key);
      this.skipSpace();
      if (this.peek() !== ':') this.fail('after object key');
      this.pos++;
      this.skipSpace();
      this.value(keyPath);
      this.skipSpace();
      const next = this.peek();
      if (next === '}') {
        this.pos++;
        return;
      }
      if (next !== ',') this.fail('after object key:value pair');
      this.pos++;
      this.skipSpace();
    }
  }

  private array(path: string): void {
    this.nest();
    this.pos++;
    this.skipSpace();
    if (this.peek() === ']') {
      this.pos++;
      return;
    }
    for (let index = 0; ; index++) {
      this.value(`${path}[${index}]`);
      this.skipSpace();
      const next = this.peek();
      if (next === ']') {
        this.pos++;
        return;
      }
      if (next !== ',') this.fail('after array element');
      this.pos++;
      this.skipSpace();
    }
  }

  private string(): string {
    const start = this.pos;
    this.pos++;
    for (;;) {
      const ch = this.peek();
      if (ch === '"') {
        this.pos++;
        return JSON.parse(this.text.slice(start, this.pos)) as string;
      }
      if (ch === '\\') {
        this.pos++;
        const escaped = this.peek();
        if (escaped === 'u') {
          for (let i = 0; i < 4; i++) {
            this.pos++;
            if (!/[0-9a-fA-F]/.test(this.peek())) this.fail('in \\u hexadecimal character escape');
          }
        } else if (!'"\\/bfnrt'.includes(escaped)) {
          this.fail('in string escape code');
        }
        this.pos++;
        continue;
      }
      if (ch < ' ') this.fail('in string literal');
      this.pos++;
    }
  }

  private number(path: string): void {
    const start = this.pos;
    this.scanNumber();
    const literal = this.text.slice(start, this.pos);
    if (literal.length > 15 || /[.eE]/.test(literal)) this.numberLiterals.set(path, literal);
  }

  private scanNumber(): void {
    const digit = (): boolean => !this.atEnd() && this.text[this.pos]! >= '0' && this.text[this.pos]! <= '9';
    if (this.text[this.pos] === '-') {
      this.pos++;
      if (!digit()) this.fail('in numeric literal');
    }
    if (this.text[this.pos] === '0') this.pos++;
    else while (digit()) this.pos++;
    if (this.text[this.pos] === '.') {
      this.pos++;
      if (!digit()) this.fail('after decimal point in numeric literal');
      while (digit()) this.pos++;
    }
    if (this.text[this.pos] === 'e' || this.text[this.pos] === 'E') {
      this.pos++;
      if (this.text[this.pos] === '+' || this.text[this.pos] === '-') this.pos++;
      if (!digit()) this.fail('in exponent of numeric literal');
      while (digit()) this.pos++;
    }
  }

  private literal(word: string): void {
    for (let i = 0; i < word.length; i++) {
      if (this.peek() !== word[i]) this.fail(`in literal ${word} (expecting ${quoteChar(word[i]!)})`);
      this.pos++;
    }
  }
}

/** Go's `quoteChar`: the character between single quotes, escaped as strconv.Quote would. */
function quoteChar(ch: string): string {
  if (ch === "'") return "'\\''";
  if (ch === '"') return `'"'`;
  const escapes: Record<string, string> = { '\n': '\\n', '\r': '\\r', '\t': '\\t', '\b': '\\b', '\f': '\\f', '\\': '\\\\' };
  if (escapes[ch] !== undefined) return `'${escapes[ch]}'`;
  const code = ch.charCodeAt(0);
  if (code < 0x20 || code === 0x7f) return `'\\x${code.toString(16).padStart(2, '0')}'`;
  return `'${ch}'`;
}

/** The JSON type name Go's `UnmarshalTypeError` uses for a decoded value. */
export function goJsonTypeName(value: unknown): string {
  if (Array.isArray(value)) return 'array';
  if (value === null) return 'null';
  if (typeof value === 'boolean') return 'bool';
  return typeof value === 'object' ? 'object' : typeof value;
}
