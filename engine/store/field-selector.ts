// Field selectors as apimachinery's `fields.ParseSelector` reads them, restricted to the fields
// kube-apiserver supports for kinds without their own field-label conversion (PLC, FlowSchema):
// `metadata.name` and `metadata.namespace` (always "" for cluster-scoped objects). Operators `=`,
// `==` and `!=`; terms are comma-separated and ANDed; `\`, `,` and `=` in values are escaped with `\`.

import { badRequestError } from './store-errors.ts';

export type FieldName = 'metadata.name' | 'metadata.namespace';

export interface FieldTerm {
  readonly field: FieldName;
  /** `==` is read as `=`. */
  readonly operator: '=' | '!=';
  readonly value: string;
}

/** The field values of one object. */
export interface ObjectFields {
  readonly name: string;
  readonly namespace: string;
}

export interface FieldSelector {
  /** Sorted by their text, as Kubernetes sorts terms. */
  readonly terms: readonly FieldTerm[];
  readonly empty: boolean;
  /** The one name every match must have (`metadata.name=x`), which lets a list read a single key. */
  readonly requiredName: string | undefined;
  matches(fields: ObjectFields): boolean;
  toString(): string;
}

const SUPPORTED: readonly FieldName[] = ['metadata.name', 'metadata.namespace'];
const OPERATORS = ['!=', '==', '='] as const;

/** Parses a field selector; a bad one is a BadRequest StoreError with kube-apiserver's text. */
export function parseFieldSelector(text: string): FieldSelector {
  const parts = splitTerms(text).sort();
  const parsed: { field: string; operator: '=' | '!='; value: string }[] = [];
  for (const part of parts) {
    if (part === '') continue;
    const term = splitTerm(part);
    if (term === undefined) throw badRequestError('FW_ERR_STORE_BAD_FIELD_SELECTOR', `invalid selector: '${text}'; can't understand '${part}'`);
    parsed.push({ field: term.field, operator: term.operator, value: unescapeValue(term.value) });
  }
  const terms: FieldTerm[] = parsed.map((t) => {
    if (!(SUPPORTED as readonly string[]).includes(t.field)) {
      throw badRequestError(
        'FW_ERR_STORE_BAD_FIELD_SELECTOR',
        `${JSON.stringify(t.field)} is not a known field selector: only "metadata.name", "metadata.namespace"`,
      );
    }
    return { field: t.field as FieldName, operator: t.operator, value: t.value };
  });
  return makeFieldSelector(terms);
}

export const EVERYTHING_FIELDS: FieldSelector = makeFieldSelector([]);

function makeFieldSelector(terms: FieldTerm[]): FieldSelector {
  const names = terms.filter((t) => t.field === 'metadata.name' && t.operator === '=').map((t) => t.value);
  return {
    terms,
    empty: terms.length === 0,
    requiredName: names[0],
    matches(fields) {
      for (const t of terms) {
        const actual = t.field === 'metadata.name' ? fields.name : fields.namespace;
        if ((actual === t.value) !== (t.operator === '=')) return false;
      }
      return true;
    },
    toString: () => terms.map((t) => `${t.field}${t.operator}${escapeValue(t.value)}`).join(','),
  };
}

/** Splits on commas not preceded by a backslash escape. */
function splitTerms(text: string): string[] {
  if (text.length === 0) return [];
  const terms: string[] = [];
  let start = 0;
  let inSlash = false;
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (inSlash) inSlash = false;
    else if (c === '\\') inSlash = true;
    else if (c === ',') {
      terms.push(text.slice(start, i));
      start = i + 1;
    }
  }
  terms.push(text.slice(start));
  return terms;
}

/** The first operator occurrence, trying `!=`, `==`, `=` at each position. */
function splitTerm(term: string): { field: string; operator: '=' | '!='; value: string } | undefined {
  for (let i = 0; i < term.length; i++) {
    for (const op of OPERATORS) {
      if (term.startsWith(op, i)) {
        return { field: term.slice(0, i), operator: op === '!=' ? '!=' : '=', value: term.slice(i + op.length) };
      }
    }
  }
  return undefined;
}

function unescapeValue(value: string): string {
  if (!/[\\,=]/.test(value)) return value;
  let out = '';
  let inSlash = false;
  for (const c of value) {
    if (inSlash) {
      if (c !== '\\' && c !== ',' && c !== '=') {
        throw badRequestError('FW_ERR_STORE_BAD_FIELD_SELECTOR', `invalid field selector: invalid escape sequence: \\${c}`);
      }
      out += c;
      inSlash = false;
    } else if (c === '\\') inSlash = true;
    else if (c === ',' || c === '=') {
      // Go prints the rune with %v, i.e. as its code point number.
      throw badRequestError('FW_ERR_STORE_BAD_FIELD_SELECTOR', `invalid field selector: unescaped character in value: ${c.codePointAt(0)}`);
    } else out += c;
  }
  if (inSlash) throw badRequestError('FW_ERR_STORE_BAD_FIELD_SELECTOR', 'invalid field selector: invalid escape sequence: \\');
  return out;
}

function escapeValue(value: string): string {
  return value.replace(/[\\,=]/g, (c) => `\\${c}`);
}
