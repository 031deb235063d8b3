// RFC 6902 JSON patch as kube-apiserver applies it: with gopkg.in/evanphx/json-patch.v4, whose
// behaviour clients have come to rely on and whose error text ends up verbatim in the 422 Status.
// Where v4 departs from the RFC, this follows v4:
//   - `replace` of a missing key in an existing object sets it (only a missing parent fails);
//   - `test` of a missing or null member passes when the expected value is null;
//   - negative array indexes count from the end;
//   - a null or absent `value` is the JSON null.
// Errors read `<what>: <cause>`, as github.com/pkg/errors wraps them, e.g.
// `testing value /spec/type failed: test failed`.
//
// `copy` is the one operation whose output can outgrow its input (22 copies of a doubling subtree
// in a 2 KB patch is 4 GB), so, as kube-apiserver sets v4's AccumulatedCopySizeLimit to its
// JSONPatchMaxCopyBytes, the bytes one patch copies are capped at 3 MiB.

import type { Status } from '../resources/types.ts';
import { MAX_JSON_PATCH_OPERATIONS, badRequest, patchFailed, tooManyPatchOperations } from '../status/errors.ts';
import { goJsonText } from '../store/go-json.ts';
import { goJsonTypeName, parseGoJson } from './go-json.ts';
import { deepEqual } from './typed-value.ts';
import { isRecord, ownValue, setOwn } from '../own-property.ts';

export type FieldValidation = 'Ignore' | 'Warn' | 'Strict';

/** `numberLiterals`: how the numbers the patch put into the result were written, where Go would keep that spelling (engine/go-json.ts paths). */
export type JsonPatchResult = { value: unknown; numberLiterals: ReadonlyMap<string, string> } | { status: Status };

/** kube-apiserver's JSONPatchMaxCopyBytes: twice etcd's 1.5 MiB request limit. */
export const JSON_PATCH_MAX_COPY_BYTES = 3 * 1024 * 1024;

interface Holder {
  doc: unknown;
  /** Bytes copied so far, as Go's encoder writes the copied values. */
  copiedBytes: number;
  /** Whether any value carries a LiteralNumber (then copies must keep them). */
  literals: boolean;
}

/**
 * An integral number the patch wrote in a form Go's integer decoder refuses (`5e3`, `5.0`,
 * `1e-400`). v4 moves values as raw JSON bytes, so that spelling reaches the decoding of the
 * patched object, which fails for an integer field (`cannot unmarshal number 5e3`); JSON.parse
 * would have made it 5000. The number travels boxed through the operations and is unboxed at the
 * end, its spelling recorded by path.
 */
class LiteralNumber {
  constructor(
    readonly number: number,
    readonly literal: string,
  ) {}
}

const NO_LITERALS: ReadonlyMap<string, string> = new Map();

/** Applies `patchText` to a copy of `document`; the input is never changed. */
export function applyJsonPatch(document: unknown, patchText: string, fieldValidation: FieldValidation = 'Warn'): JsonPatchResult {
  const parsed = parseGoJson(patchText);
  const strict = fieldValidation !== 'Ignore';
  if ('error' in parsed) return { status: badRequest(strict ? `error decoding patch: ${parsed.error}` : parsed.error) };
  const operations = parsed.value;
  const shapeError = checkShape(operations, strict);
  if (shapeError !== undefined) return { status: badRequest(shapeError) };
  const list = (operations ?? []) as unknown[];
  if (list.length > MAX_JSON_PATCH_OPERATIONS) return { status: tooManyPatchOperations(list.length) };

  const holder: Holder = { doc: structuredClone(document), copiedBytes: 0, literals: boxLiterals(list, parsed.numberLiterals) };
  for (const raw of list) {
    const error = applyOperation(holder, isRecord(raw) ? raw : {});
    if (error !== undefined) return { status: patchFailed(error) };
  }
  if (!holder.literals) return { value: holder.doc, numberLiterals: NO_LITERALS };
  const numberLiterals = new Map<string, string>();
  return { value: unbox(holder.doc, '', numberLiterals), numberLiterals };
}

/** Boxes the integral numbers of the operations' values that Go would not read as integers; whether there were any. */
function boxLiterals(operations: unknown[], literals: ReadonlyMap<string, string>): boolean {
  if (literals.size === 0) return false;
  let boxed = false;
  const visit = (value: unknown, path: string): unknown => {
    if (typeof value === 'number') {
      const literal = literals.get(path);
      if (literal === undefined || !Number.isInteger(value) || /^-?\d+$/.test(literal)) return value;
      boxed = true;
      return new LiteralNumber(value, literal);
    }
    if (Array.isArray(value)) {
      for (let i = 0; i < value.length; i++) value[i] = visit(value[i], `${path}[${i}]`);
    } else if (isRecord(value)) {
      for (const key of Object.keys(value)) setOwn(value, key, visit(value[key], path === '' ? key : `${path}.${key}`));
    }
    return value;
  };
  operations.forEach((op, i) => {
    if (isRecord(op) && Object.hasOwn(op, 'value')) op['value'] = visit(op['value'], `[${i}].value`);
  });
  return boxed;
}

/** The document with every LiteralNumber replaced by its number, each spelling recorded at its path. */
function unbox(value: unknown, path: string, found: Map<string, string>): unknown {
  if (value instanceof LiteralNumber) {
    found.set(path, value.literal);
    return value.number;
  }
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) value[i] = unbox(value[i], `${path}[${i}]`, found);
  } else if (isRecord(value)) {
    for (const key of Object.keys(value)) setOwn(value, key, unbox(value[key], path === '' ? key : `${path}.${key}`, found));
  }
  return value;
}

/** A deep copy that keeps LiteralNumbers (structuredClone would make them plain objects). */
function cloneKeepingLiterals(value: unknown): unknown {
  if (value instanceof LiteralNumber) return value;
  if (Array.isArray(value)) return value.map(cloneKeepingLiterals);
  if (!isRecord(value)) return value;
  const copy: Record<string, unknown> = {};
  for (const key of Object.keys(value)) setOwn(copy, key, cloneKeepingLiterals(value[key]));
  return copy;
}

const cloneValue = (holder: Holder, value: unknown): unknown => (holder.literals ? cloneKeepingLiterals(value) : structuredClone(value));
const unboxed = (value: unknown): unknown =>
  value instanceof LiteralNumber ? value.number : isContainer(value) ? unbox(cloneKeepingLiterals(value), '', new Map()) : value;
/** A value as Go would compare or measure it: with its boxed numbers as numbers. */
const plain = (holder: Holder, value: unknown): unknown => (holder.literals ? unboxed(value) : value);

/** The decode errors Go reports before any operation runs (`[]handlers.jsonPatchOp`, then `jsonpatch.Patch`). */
function checkShape(operations: unknown, strict: boolean): string | undefined {
  if (operations === null) return undefined;
  if (!Array.isArray(operations)) {
    return strict
      ? `error decoding patch: json: cannot unmarshal ${goJsonTypeName(operations)} into Go value of type []handlers.jsonPatchOp`
      : `json: cannot unmarshal ${goJsonTypeName(operations)} into Go value of type jsonpatch.Patch`;
  }
  for (const op of operations) {
    if (op === null || isRecord(op)) {
      if (!strict || op === null) continue;
      for (const field of ['op', 'path', 'from']) {
        const value = op[field];
        if (value !== undefined && value !== null && typeof value !== 'string') {
          return `error decoding patch: json: cannot unmarshal ${goJsonTypeName(value)} into Go struct field jsonPatchOp.${field} of type string`;
        }
      }
      continue;
    }
    return strict
      ? `error decoding patch: json: cannot unmarshal ${goJsonTypeName(op)} into Go value of type handlers.jsonPatchOp`
      : `json: cannot unmarshal ${goJsonTypeName(op)} into Go value of type jsonpatch.Operation`;
  }
  return undefined;
}

// ---------------------------------------------------------------------------------------------
// Operations

type Operation = Record<string, unknown>;
type Container = Record<string, unknown> | unknown[];

const MISSING = 'missing value';
const INVALID_INDEX = 'invalid index referenced';
const TEST_FAILED = 'test failed';

class PatchError extends Error {}

const wrap = (message: string, cause: string): string => `${message}: ${cause}`;

function applyOperation(holder: Holder, op: Operation): string | undefined {
  const kind = typeof op['op'] === 'string' ? op['op'] : 'unknown';
  try {
    switch (kind) {
      case 'add':
        return add(holder, op);
      case 'remove':
        return remove(holder, op);
      case 'replace':
        return replace(holder, op);
      case 'move':
        return move(holder, op);
      case 'test':
        return testOperation(holder, op);
      case 'copy':
        return copy(holder, op);
      default:
        return `Unexpected kind: ${kind}`;
    }
  } catch (error) {
    if (error instanceof PatchError) return error.message;
    throw error;
  }
}

/** `op.Path()` / `op.From()`: the string member, or why it cannot be read. */
function member(op: Operation, name: 'path' | 'from'): { value: string } | { error: string } {
  const raw = op[name];
  if (raw === undefined || raw === null) return { error: wrap(`operation missing ${name} field`, MISSING) };
  if (typeof raw !== 'string') return { error: `json: cannot unmarshal ${goJsonTypeName(raw)} into Go value of type string` };
  return { value: raw };
}

const opValue = (holder: Holder, op: Operation): unknown => (op['value'] === undefined ? null : cloneValue(holder, op['value']));

function add(holder: Holder, op: Operation): string | undefined {
  const path = member(op, 'path');
  if ('error' in path) return wrap('add operation failed to decode path', MISSING);
  const target = findObject(holder.doc, path.value);
  if (target === undefined) return wrap(`add operation does not apply: doc is missing path: "${path.value}"`, MISSING);
  const error = containerAdd(target.container, target.key, opValue(holder, op));
  return error === undefined ? undefined : wrap(`error in add for path: '${path.value}'`, error);
}

function remove(holder: Holder, op: Operation): string | undefined {
  const path = member(op, 'path');
  if ('error' in path) return wrap('remove operation failed to decode path', MISSING);
  const target = findObject(holder.doc, path.value);
  if (target === undefined) return wrap(`remove operation does not apply: doc is missing path: "${path.value}"`, MISSING);
  const error = containerRemove(target.container, target.key);
  return error === undefined ? undefined : wrap(`error in remove for path: '${path.value}'`, error);
}

function replace(holder: Holder, op: Operation): string | undefined {
  const path = member(op, 'path');
  if ('error' in path) return wrap('replace operation failed to decode path', path.error);
  if (path.value === '') {
    // v4 swaps the whole document for an object or array, and silently ignores anything else.
    const value = opValue(holder, op);
    if (typeof value === 'object' && value !== null) holder.doc = value;
    return undefined;
  }
  const target = findObject(holder.doc, path.value);
  if (target === undefined) return wrap(`replace operation does not apply: doc is missing path: ${path.value}`, MISSING);
  if ('error' in containerGet(target.container, target.key)) {
    return wrap(`replace operation does not apply: doc is missing key: ${path.value}`, MISSING);
  }
  containerSet(target.container, target.key, opValue(holder, op));
  return undefined;
}

function move(holder: Holder, op: Operation): string | undefined {
  const from = member(op, 'from');
  if ('error' in from) return wrap('move operation failed to decode from', from.error);
  const source = findObject(holder.doc, from.value);
  if (source === undefined) return wrap(`move operation does not apply: doc is missing from path: ${from.value}`, MISSING);
  const got = containerGet(source.container, source.key);
  if ('error' in got) return wrap(`error in move for path: '${source.key}'`, got.error);
  const removed = containerRemove(source.container, source.key);
  if (removed !== undefined) return wrap(`error in move for path: '${source.key}'`, removed);
  const path = member(op, 'path');
  if ('error' in path) return wrap('move operation failed to decode path', path.error);
  const target = findObject(holder.doc, path.value);
  if (target === undefined) return wrap(`move operation does not apply: doc is missing destination path: ${path.value}`, MISSING);
  const error = containerAdd(target.container, target.key, got.value ?? null);
  return error === undefined ? undefined : wrap(`error in move for path: '${path.value}'`, error);
}

function testOperation(holder: Holder, op: Operation): string | undefined {
  const path = member(op, 'path');
  if ('error' in path) return wrap('test operation failed to decode path', path.error);
  const expected = op['value'] === undefined ? null : plain(holder, op['value']);
  const failed = wrap(`testing value ${path.value} failed`, TEST_FAILED);
  if (path.value === '') return deepEqual(plain(holder, holder.doc), expected) ? undefined : failed;
  const target = findObject(holder.doc, path.value);
  if (target === undefined) return wrap(`test operation does not apply: is missing path: ${path.value}`, MISSING);
  const got = containerGet(target.container, target.key);
  if ('error' in got) return wrap(`error in test for path: '${path.value}'`, got.error);
  if (got.value === undefined || got.value === null) return expected === null ? undefined : failed;
  return deepEqual(plain(holder, got.value), expected) ? undefined : failed;
}

function copy(holder: Holder, op: Operation): string | undefined {
  const from = member(op, 'from');
  if ('error' in from) return wrap('copy operation failed to decode from', from.error);
  const source = findObject(holder.doc, from.value);
  if (source === undefined) return wrap(`copy operation does not apply: doc is missing from path: ${from.value}`, MISSING);
  const got = containerGet(source.container, source.key);
  if ('error' in got) return wrap(`error in copy for from: '${from.value}'`, got.error);
  const path = member(op, 'path');
  if ('error' in path) return wrap('copy operation failed to decode path', MISSING);
  const target = findObject(holder.doc, path.value);
  if (target === undefined) return wrap(`copy operation does not apply: doc is missing destination path: ${path.value}`, MISSING);
  const value = got.value ?? null;
  holder.copiedBytes += Buffer.byteLength(goJsonText(plain(holder, value)), 'utf8');
  if (holder.copiedBytes > JSON_PATCH_MAX_COPY_BYTES) {
    return `Unable to complete the copy, the accumulated size increase of copy is ${holder.copiedBytes}, exceeding the limit ${JSON_PATCH_MAX_COPY_BYTES}`;
  }
  const error = containerAdd(target.container, target.key, cloneValue(holder, value));
  return error === undefined ? undefined : wrap('error while adding value during copy', error);
}

// ---------------------------------------------------------------------------------------------
// Pointers and containers

/** v4's `findObject`: the container holding the last token, or undefined when any step is missing. */
function findObject(doc: unknown, pointer: string): { container: Container; key: string } | undefined {
  const tokens = pointer.split('/');
  if (tokens.length < 2) return undefined;
  let node = doc;
  for (const token of tokens.slice(1, -1)) {
    if (!isContainer(node)) return undefined;
    const next = containerGet(node, decodeToken(token));
    if ('error' in next || next.value === undefined || next.value === null) return undefined;
    node = next.value;
  }
  if (!isContainer(node)) return undefined;
  return { container: node, key: decodeToken(tokens[tokens.length - 1]!) };
}

/** RFC 6901 unescaping in one pass (`~01` is `~1`, not `/`). */
function decodeToken(token: string): string {
  return token.replace(/~[01]/g, (sequence) => (sequence === '~1' ? '/' : '~'));
}

function isContainer(value: unknown): value is Container {
  return Array.isArray(value) || (isRecord(value) && !(value instanceof LiteralNumber));
}

function containerGet(container: Container, key: string): { value: unknown } | { error: string } {
  if (!Array.isArray(container)) return { value: ownValue(container, key) };
  const index = resolveIndex(key, container.length);
  if (typeof index !== 'number') return index;
  return { value: container[index] };
}

function containerSet(container: Container, key: string, value: unknown): void {
  if (!Array.isArray(container)) {
    setOwn(container, key, value);
    return;
  }
  const index = resolveIndex(key, container.length);
  if (typeof index !== 'number') throw new PatchError(index.error);
  container[index] = value;
}

function containerAdd(container: Container, key: string, value: unknown): string | undefined {
  if (!Array.isArray(container)) {
    setOwn(container, key, value);
    return undefined;
  }
  if (key === '-') {
    container.push(value);
    return undefined;
  }
  const parsed = goAtoi(key);
  if (typeof parsed !== 'number') return wrap(`value was not a proper array index: '${key}'`, parsed.error);
  const size = container.length + 1;
  let index = parsed;
  if (index >= size || index < -size) return wrap(`Unable to access invalid index: ${parsed}`, INVALID_INDEX);
  if (index < 0) index += size;
  container.splice(index, 0, value);
  return undefined;
}

function containerRemove(container: Container, key: string): string | undefined {
  if (!Array.isArray(container)) {
    if (!Object.hasOwn(container, key)) return wrap(`Unable to remove nonexistent key: ${key}`, MISSING);
    delete container[key];
    return undefined;
  }
  const parsed = goAtoi(key);
  if (typeof parsed !== 'number') return parsed.error;
  let index = parsed;
  if (index >= container.length || index < -container.length) return wrap(`Unable to access invalid index: ${parsed}`, INVALID_INDEX);
  if (index < 0) index += container.length;
  container.splice(index, 1);
  return undefined;
}

function resolveIndex(key: string, length: number): number | { error: string } {
  const parsed = goAtoi(key);
  if (typeof parsed !== 'number') return parsed;
  let index = parsed;
  if (index < 0) {
    if (index < -length) return { error: wrap(`Unable to access invalid index: ${index}`, INVALID_INDEX) };
    index += length;
  }
  if (index >= length) return { error: wrap(`Unable to access invalid index: ${index}`, INVALID_INDEX) };
  return index;
}

/** Go's `strconv.Atoi`, with its error text. */
function goAtoi(text: string): number | { error: string } {
  if (!/^[+-]?\d+$/.test(text) || !Number.isSafeInteger(Number(text))) {
    return { error: `strconv.Atoi: parsing ${JSON.stringify(text)}: invalid syntax` };
  }
  return Number(text);
}
