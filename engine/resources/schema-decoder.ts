// The schema decoder: the step kube-apiserver performs before defaulting and validation. JSON
// has to fit the Go struct it is decoded into. A string where an int32 belongs, or a field the
// type does not have (strict field validation, kubectl's default), is rejected before validation
// ever runs. Validation code in engine/resources can then trust the types it reads.
//
// `null` decodes to Go's zero value (a nil pointer, an empty slice), i.e. "absent", so nulls are
// dropped from the decoded copy. A metav1.Time is an RFC 3339 string read as Go reads it: an invalid
// one is an error in time.Parse's words, a valid one is kept as Go writes it back (UTC, whole
// seconds; the zero time is absent).

import type { FieldError } from './field-errors.ts';
import { FieldPath, forbidden, invalid, typeInvalid } from './field-errors.ts';
import { normalizeRfc3339 } from './rfc3339.ts';
import { isRecord, ownValue, setOwn } from '../own-property.ts';
import { goParseInt64 } from '../go-integer.ts';

export type Shape = (
  | { readonly type: 'string' }
  | { readonly type: 'int32' }
  | { readonly type: 'int64' }
  | { readonly type: 'boolean' }
  | { readonly type: 'time' }
  | { readonly type: 'any' }
  | { readonly type: 'array'; readonly items: Shape }
  | { readonly type: 'map'; readonly values: Shape }
  | { readonly type: 'object'; readonly fields: Readonly<Record<string, Shape>>; readonly open: boolean }
) & {
  /** The Go type a type error names, where it is not the JSON type's (`v1.DeletionPropagation`, `[]string`). */
  readonly goType?: string;
};

/** `shape`, with type errors naming `goType` as Go's decoder would. */
export const named = (shape: Shape, goType: string): Shape => ({ ...shape, goType });

export const string: Shape = { type: 'string' };
export const int32: Shape = { type: 'int32' };
export const int64: Shape = { type: 'int64' };
export const boolean: Shape = { type: 'boolean' };
/** metav1.Time. */
export const time: Shape = { type: 'time' };
export const anything: Shape = { type: 'any' };
export const arrayOf = (items: Shape): Shape => ({ type: 'array', items });
export const mapOf = (values: Shape): Shape => ({ type: 'map', values });
/** A struct: unknown fields are errors unless `open` (then they are kept as they are). */
export const struct = (fields: Record<string, Shape>, open = false): Shape => ({ type: 'object', fields, open });

export interface Decoded {
  /** A deep copy with nulls removed; meaningful only when `errors` is empty. */
  value: unknown;
  errors: FieldError[];
}

/**
 * Checks `value` against `shape`; field paths start at `root` (`''` for a whole document).
 * `numberLiterals`, when the value was parsed from JSON text, holds how numbers were written, by
 * path: an integer field written with a fraction or an exponent (`5e3`, `5.0`) is a type error, as
 * in Go, even though it parsed to an integer.
 */
export function decodeShape(value: unknown, shape: Shape, root = '', numberLiterals?: ReadonlyMap<string, string>): Decoded {
  const errors: FieldError[] = [];
  const literals = numberLiterals !== undefined && numberLiterals.size > 0 ? numberLiterals : undefined;
  const decoded = decode(value, shape, FieldPath.root(root), errors, literals);
  return { value: decoded, errors };
}

/** False for a number written as `5e3`, `5.0` or `1e-400`. */
function writtenAsInteger(path: FieldPath, literals: ReadonlyMap<string, string> | undefined): boolean {
  const literal = literals?.get(path.toString());
  return literal === undefined || !/[.eE]/.test(literal);
}

/**
 * What Go decodes into an int64: a plain integer literal within int64's range (`5e3` and `5.0` are
 * not, and a literal past 2^53 is, though JavaScript holds it rounded).
 */
function isGoInt64(value: unknown, literal: string | undefined): boolean {
  if (typeof value !== 'number') return false;
  if (literal === undefined) return Number.isSafeInteger(value);
  // JSON writes no `+`; otherwise strconv's rule (and never a BigInt of a megabyte literal).
  return literal[0] !== '+' && typeof goParseInt64(literal) === 'bigint';
}

const INT32_MIN = -(2 ** 31);
const INT32_MAX = 2 ** 31 - 1;

function decode(value: unknown, shape: Shape, path: FieldPath, errors: FieldError[], literals: ReadonlyMap<string, string> | undefined): unknown {
  const mismatch = (expected: string): undefined => {
    errors.push(typeInvalid(path, value, `must be of type ${shape.goType ?? expected}`));
    return undefined;
  };
  switch (shape.type) {
    case 'any':
      return structuredClone(value);
    case 'string':
      return typeof value === 'string' ? value : mismatch('string');
    case 'boolean':
      return typeof value === 'boolean' ? value : mismatch('boolean');
    case 'time': {
      if (typeof value !== 'string') return mismatch('string');
      const normalized = normalizeRfc3339(value);
      if (normalized.ok) return normalized.value;
      errors.push(invalid(path, value, normalized.message));
      return undefined;
    }
    case 'int32':
      return Number.isInteger(value) && (value as number) >= INT32_MIN && (value as number) <= INT32_MAX && writtenAsInteger(path, literals)
        ? value
        : mismatch('int32');
    case 'int64':
      return isGoInt64(value, literals?.get(path.toString())) ? value : mismatch('int64');
    case 'array': {
      if (!Array.isArray(value)) return mismatch('array');
      return value.map((item, i) => decode(item, shape.items, path.index(i), errors, literals));
    }
    case 'map': {
      if (!isRecord(value)) return mismatch('object');
      const out: Record<string, unknown> = {};
      for (const [key, item] of Object.entries(value)) {
        if (item !== null) setOwn(out, key, decode(item, shape.values, path.key(key), errors, literals));
      }
      return out;
    }
    case 'object': {
      if (!isRecord(value)) return mismatch('object');
      const out: Record<string, unknown> = {};
      for (const [key, item] of Object.entries(value)) {
        const fieldShape = ownValue(shape.fields, key);
        // Go's strict decoding reports an unknown field whatever its value, null included.
        if (item === null && (fieldShape !== undefined || shape.open)) continue;
        if (fieldShape !== undefined) {
          const decoded = decode(item, fieldShape, path.child(key), errors, literals);
          if (decoded !== undefined) setOwn(out, key, decoded);
        } else if (shape.open) setOwn(out, key, structuredClone(item));
        else errors.push(forbidden(path.child(key), 'unknown field'));
      }
      return out;
    }
  }
}
