// Validation returns a list of field errors, shaped and worded as k8s.io/apimachinery's
// `field.Error`, so the API layer can build an `Invalid` Status with causes and the CLI can print
// the very lines kube-apiserver would.
import { ownValue } from '../own-property.ts';

export type FieldErrorType =
  | 'FieldValueNotFound'
  | 'FieldValueRequired'
  | 'FieldValueDuplicate'
  | 'FieldValueInvalid'
  | 'FieldValueNotSupported'
  | 'FieldValueForbidden'
  | 'FieldValueTooLong'
  | 'FieldValueTooMany'
  | 'InternalError'
  | 'FieldValueTypeInvalid';

export interface FieldError {
  /** The cause type; it is also `StatusCause.reason` on the wire. */
  type: FieldErrorType;
  /** Dotted path with indices: `spec.rules[0].subjects[1].kind`. */
  field: string;
  /** The offending value; `undefined` when Kubernetes omits it (Required, Forbidden, TooLong...). */
  value?: unknown;
  /** The detail text, e.g. `must be positive`. */
  detail: string;
}

/** Kubernetes' `ErrorType.String()`. */
const TYPE_TEXT: Record<FieldErrorType, string> = {
  FieldValueNotFound: 'Not found',
  FieldValueRequired: 'Required value',
  FieldValueDuplicate: 'Duplicate value',
  FieldValueInvalid: 'Invalid value',
  FieldValueNotSupported: 'Unsupported value',
  FieldValueForbidden: 'Forbidden',
  FieldValueTooLong: 'Too long',
  FieldValueTooMany: 'Too many',
  InternalError: 'Internal error',
  FieldValueTypeInvalid: 'Invalid value',
};

/** Types whose message never shows the bad value (as in apimachinery's `ErrorBody`). */
const VALUE_HIDDEN = new Set<FieldErrorType>(['FieldValueRequired', 'FieldValueForbidden', 'FieldValueTooLong', 'InternalError']);

/** A field path builder: `root('spec').child('rules').index(0).key('a')`. */
export class FieldPath {
  private constructor(private readonly text: string) {}

  static root(name: string): FieldPath {
    return new FieldPath(name);
  }

  child(name: string): FieldPath {
    return new FieldPath(this.text === '' ? name : `${this.text}.${name}`);
  }

  index(i: number): FieldPath {
    return new FieldPath(`${this.text}[${i}]`);
  }

  key(k: string): FieldPath {
    return new FieldPath(`${this.text}[${k}]`);
  }

  toString(): string {
    return this.text;
  }
}

type PathLike = FieldPath | string;

const at = (path: PathLike): string => path.toString();

export function required(path: PathLike, detail = ''): FieldError {
  return { type: 'FieldValueRequired', field: at(path), detail };
}

export function invalid(path: PathLike, value: unknown, detail: string): FieldError {
  return { type: 'FieldValueInvalid', field: at(path), value, detail };
}

export function forbidden(path: PathLike, detail: string): FieldError {
  return { type: 'FieldValueForbidden', field: at(path), detail };
}

export function duplicate(path: PathLike, value: unknown): FieldError {
  return { type: 'FieldValueDuplicate', field: at(path), value, detail: '' };
}

export function notFound(path: PathLike, value: unknown): FieldError {
  return { type: 'FieldValueNotFound', field: at(path), value, detail: '' };
}

export function tooLong(path: PathLike, value: unknown, maxLength: number): FieldError {
  return { type: 'FieldValueTooLong', field: at(path), value, detail: `must have at most ${maxLength} bytes` };
}

export function tooMany(path: PathLike, actual: number, max: number): FieldError {
  return { type: 'FieldValueTooMany', field: at(path), value: actual, detail: `must have at most ${max} items` };
}

export function typeInvalid(path: PathLike, value: unknown, detail: string): FieldError {
  return { type: 'FieldValueTypeInvalid', field: at(path), value, detail };
}

export function internalError(path: PathLike, detail: string): FieldError {
  return { type: 'InternalError', field: at(path), detail };
}

/** `field.NotSupported`: the detail lists the quoted, comma-separated supported values. */
export function notSupported(path: PathLike, value: unknown, supported: readonly string[]): FieldError {
  const detail = supported.length > 0 ? `supported values: ${supported.map((s) => JSON.stringify(s)).join(', ')}` : '';
  return { type: 'FieldValueNotSupported', field: at(path), value, detail };
}

/** Go's `%v` / `%q` / `%#v` rendering of a bad value, as `ErrorBody` chooses it, cut off when long. */
function renderValue(value: unknown): string {
  if (value === null || value === undefined) return '<nil>';
  if (typeof value === 'number' || typeof value === 'boolean' || typeof value === 'bigint') return String(value);
  return boundedJson(value);
}

/** Deeper parts of a rendered value show as `"..."`: no error message needs them. */
const MAX_RENDERED_DEPTH = 32;
/**
 * A rendered value stops after this many characters and ends in `...`. Go prints it whole; here
 * 20,000 owner references marked controller, each an error rendering the whole list, ran out of heap.
 */
const MAX_RENDERED_CHARS = 4096;

function cutOff(text: string, max = MAX_RENDERED_CHARS): string {
  return text.length > max ? `${text.slice(0, max)}...` : text;
}

/**
 * JSON.stringify's text, written by hand so that it stops: below MAX_RENDERED_DEPTH levels (a
 * value a million levels deep overflowed the stack in JSON.stringify's recursion) and once
 * MAX_RENDERED_CHARS are written (a long list costs no more than its first items).
 */
function boundedJson(value: unknown): string {
  const parts: string[] = [];
  let written = 0;
  const write = (text: string): void => {
    parts.push(text);
    written += text.length;
  };
  const visit = (node: unknown, depth: number): void => {
    let v = node;
    if (typeof v === 'object' && v !== null && typeof (v as { toJSON?: unknown }).toJSON === 'function') v = (v as { toJSON(): unknown }).toJSON();
    if (typeof v === 'string') return write(JSON.stringify(v.length > MAX_RENDERED_CHARS ? v.slice(0, MAX_RENDERED_CHARS + 1) : v));
    if (typeof v === 'number') return write(Number.isFinite(v) ? String(v) : 'null');
    if (typeof v === 'boolean' || typeof v === 'bigint') return write(String(v));
    if (typeof v !== 'object' || v === null) return write('null');
    if (depth > MAX_RENDERED_DEPTH) return write('"..."');
    if (Array.isArray(v)) {
      write('[');
      for (let i = 0; i < v.length && written <= MAX_RENDERED_CHARS; i++) {
        if (i > 0) write(',');
        visit(v[i], depth + 1);
      }
      return write(']');
    }
    const record = v as Record<string, unknown>;
    write('{');
    let first = true;
    for (const key of Object.keys(record)) {
      if (written > MAX_RENDERED_CHARS) break;
      const child = ownValue(record, key);
      if (child === undefined || typeof child === 'function' || typeof child === 'symbol') continue;
      write(`${first ? '' : ','}${JSON.stringify(key)}:`);
      first = false;
      visit(child, depth + 1);
    }
    write('}');
  };
  visit(value, 1);
  return cutOff(parts.join(''));
}

/** The text after the field path: `Invalid value: -1: must be a non-negative integer`. */
export function fieldErrorBody(error: FieldError): string {
  let text = TYPE_TEXT[error.type];
  if (!VALUE_HIDDEN.has(error.type) && error.value !== undefined) text += `: ${renderValue(error.value)}`;
  if (error.detail.length > 0) text += `: ${error.detail}`;
  return text;
}

/** `spec.limited.nominalConcurrencyShares: Invalid value: -1: must be a non-negative integer`. */
export function formatFieldError(error: FieldError): string {
  return `${error.field}: ${fieldErrorBody(error)}`;
}

/**
 * The wording of a list of field errors (the Status's causes and message, a command's error line)
 * stops once it holds this many characters of `field: message`, and says how many errors it left
 * out. kube-apiserver words every error; Fairway keeps the answer to a hostile object small.
 */
export const MAX_FIELD_ERRORS_TEXT = 8 * 1024;

/** The errors a wording shows, each with its body, and how many it leaves out. */
export interface ShownFieldErrors {
  shown: { error: FieldError; body: string }[];
  left: number;
}

/**
 * The longest prefix of `errors` whose `field: body` lines fit in `budget` characters (the first
 * always shows, its body cut to fit); `left` also counts the errors the list never kept.
 */
export function showFieldErrors(errors: readonly FieldError[], budget = MAX_FIELD_ERRORS_TEXT): ShownFieldErrors {
  const shown: ShownFieldErrors['shown'] = [];
  let used = 0;
  for (const error of errors) {
    let body = fieldErrorBody(error);
    const size = error.field.length + 2 + body.length;
    if (used + size > budget) {
      if (shown.length > 0) break;
      body = cutOff(body, Math.max(0, budget - error.field.length - 2 - '...'.length));
    }
    shown.push({ error, body });
    used += size;
  }
  return { shown, left: errors.length - shown.length + omittedFieldErrors(errors) };
}

/** What a wording says of the `count` errors it leaves out. */
export function moreFieldErrors(count: number): string {
  return `and ${count} more ${count === 1 ? 'error' : 'errors'}`;
}

/** `ErrorList.ToAggregate().Error()`: one message, or `[a, b]` for several; then what was left out. */
export function formatShownFieldErrors({ shown, left }: ShownFieldErrors): string {
  const messages = [...new Set(shown.map(({ error, body }) => `${error.field}: ${body}`))];
  if (left > 0) messages.push(moreFieldErrors(left));
  return messages.length === 1 ? messages[0]! : `[${messages.join(', ')}]`;
}

/** `ErrorList.ToAggregate().Error()`, within MAX_FIELD_ERRORS_TEXT. */
export function formatFieldErrors(errors: readonly FieldError[]): string {
  return formatShownFieldErrors(showFieldErrors(errors));
}

// Validation results that stop growing: the first MAX_FIELD_ERRORS errors are kept and the rest only
// counted. 150,000 empty conditions are 300,000 errors; keeping them all cost a 52 MB Status and
// seconds of wording on the main thread, and spreading them into another list (`push(...errors)`)
// overflowed the stack. A list is a plain array, so every reader of field errors is unchanged; the
// count of errors not kept rides on it as `omitted`. Merge lists with `addFieldErrors` (a spread
// copy would drop the count).

/** How many field errors a validation keeps: more than anyone reads, few enough to word at once. */
export const MAX_FIELD_ERRORS = 100;

export interface FieldErrorList extends Array<FieldError> {
  /** Errors found past MAX_FIELD_ERRORS and not kept. */
  omitted?: number;
}

/** Keeps `error`, or counts it once the list is full. */
export function addFieldError(list: FieldErrorList, error: FieldError): void {
  if (list.length < MAX_FIELD_ERRORS) list.push(error);
  else list.omitted = (list.omitted ?? 0) + 1;
}

/** Appends `more` (and the errors it counted without keeping) to `list`, within the bound; returns `list`. */
export function addFieldErrors(list: FieldErrorList, more: readonly FieldError[]): FieldErrorList {
  for (const error of more) addFieldError(list, error);
  const omitted = omittedFieldErrors(more);
  if (omitted > 0) list.omitted = (list.omitted ?? 0) + omitted;
  return list;
}

/** How many errors `list` counted but did not keep. */
export function omittedFieldErrors(list: readonly FieldError[]): number {
  return (list as FieldErrorList).omitted ?? 0;
}
