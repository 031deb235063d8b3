// Validation returns a list of field errors, shaped and worded as k8s.io/apimachinery's
// `field.Error`, so the API layer can build an `Invalid` Status with causes and the CLI can print
// the very lines kube-apiserver would.

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

/** Go's `%v` / `%q` / `%#v` rendering of a bad value, as `ErrorBody` chooses it. */
function renderValue(value: unknown): string {
  if (value === null || value === undefined) return '<nil>';
  if (typeof value === 'string') return JSON.stringify(value);
  if (typeof value === 'number' || typeof value === 'boolean' || typeof value === 'bigint') return String(value);
  return depthBoundedJson(value);
}

/** Deeper parts of a rendered value show as `"..."`: no error message needs them. */
const MAX_RENDERED_DEPTH = 32;

/**
 * JSON.stringify recurses once per level, so a value a million levels deep overflowed the stack
 * while its error was being worded. The replacer cuts the value off below MAX_RENDERED_DEPTH;
 * each object's depth is its holder's plus one (the root's holder is JSON.stringify's wrapper).
 */
function depthBoundedJson(value: unknown): string {
  const depths = new WeakMap<object, number>();
  return JSON.stringify(value, function (this: object, _key: string, child: unknown) {
    if (child === null || typeof child !== 'object') return child;
    const depth = (depths.get(this) ?? 0) + 1;
    if (depth > MAX_RENDERED_DEPTH) return '...';
    depths.set(child, depth);
    return child;
  });
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

/** `ErrorList.ToAggregate().Error()`: one message, or `[a, b]` for several. */
export function formatFieldErrors(errors: readonly FieldError[]): string {
  const messages = [...new Set(errors.map(formatFieldError))];
  return messages.length === 1 ? messages[0]! : `[${messages.join(', ')}]`;
}
