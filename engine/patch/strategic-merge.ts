// Strategic merge patch, applied as kube-apiserver applies it (k8s.io/apimachinery
// pkg/util/strategicpatch, server side: parallel lists merged, unmatched nulls ignored), driven by
// the kind's schema instead of Go struct tags. For PLC and FS the only merged lists are
// `status.conditions` (by `type`), `metadata.finalizers` (a set of strings) and
// `metadata.ownerReferences` (by `uid`); every other list is replaced whole, so under `spec` a
// strategic merge patch behaves like a JSON merge patch.
//
// Directives: `$patch: replace|delete` in a map, `{"$patch": "delete", <key>: ...}` and
// `{"$patch": "replace"}` items in a merged list, `$retainKeys`, `$deleteFromPrimitiveList/<f>`
// and `$setElementOrder/<f>` (kubectl's client-side apply sends the last for merged lists).
// Ordering of merged lists follows Go exactly: patch items keep the patch's order, items only on
// the server keep theirs, and a new item lands before the server-only items that follow it.

import type { Status } from '../resources/types.ts';
import { badRequest, patchFailed } from '../status/errors.ts';
import { goFormatValue, goJsonTypeName, parseGoJson } from './go-json.ts';
import type { ListNode, SchemaNode } from './schema.ts';
import { elementKind, goKind, goReflectKind, noMergeKey, normalizeOrder, partition, sameMergeKey, SmpFailure, unclassified } from './strategic-list-order.ts';
import type { JsonObject } from './typed-value.ts';
import { lowerBound } from '../lower-bound.ts';
import { isRecord, ownValue, setOwn } from '../own-property.ts';

export type StrategicMergeResult = { value: unknown; duplicates: string[] } | { status: Status };

const DIRECTIVE = '$patch';
const RETAIN_KEYS = '$retainKeys';
const DELETE_FROM_PRIMITIVE_LIST = '$deleteFromPrimitiveList';
const SET_ELEMENT_ORDER = '$setElementOrder';

/** Applies `patchText` to a copy of `document`; `duplicates` are the patch's repeated fields. */
export function applyStrategicMergePatch(document: unknown, patchText: string, node: SchemaNode): StrategicMergeResult {
  const parsed = parseGoJson(patchText);
  if ('error' in parsed) return { status: badRequest(parsed.error) };
  const patch = parsed.value ?? {};
  if (!isRecord(patch)) return { status: badRequest(`json: cannot unmarshal ${goJsonTypeName(patch)} into Go value of type map[string]interface {}`) };
  const original = isRecord(document) ? structuredClone(document) : {};
  try {
    return { value: mergeMap(original, structuredClone(patch), node), duplicates: parsed.duplicates };
  } catch (error) {
    if (!(error instanceof SmpFailure)) throw error;
    const status = error.kind === 'badRequest' ? badRequest(error.message) : error.kind === 'invalid' ? patchFailed(error.message) : badRequest(error.message);
    return { status };
  }
}

// ---------------------------------------------------------------------------------------------
// Maps

interface FieldMeta {
  node: SchemaNode | undefined;
  mergeList: boolean;
  mergeKey: string;
}

function lookup(node: SchemaNode | undefined, key: string): FieldMeta {
  let child: SchemaNode | undefined;
  if (node?.kind === 'struct') child = ownValue(node.fields, key)?.type;
  else if (node?.kind === 'map') child = node.values;
  const list = child?.kind === 'list' ? (child as ListNode) : undefined;
  return { node: child, mergeList: list?.patchStrategy === 'merge', mergeKey: list?.patchMergeKey ?? '' };
}

const itemsOf = (meta: FieldMeta): SchemaNode | undefined => (meta.node?.kind === 'list' ? meta.node.items : undefined);

/** Merges `patch` into `original`; both are private copies and may be changed. */
function mergeMap(original: JsonObject, patch: JsonObject, node: SchemaNode | undefined): JsonObject {
  if (Object.hasOwn(patch, DIRECTIVE)) {
    const directive = patch[DIRECTIVE];
    if (directive === 'replace') {
      delete patch[DIRECTIVE];
      return patch;
    }
    if (directive === 'delete') return {};
    throw unclassified(`unknown patch type: ${goFormatValue(directive)} in map: ${goFormatValue(patch)}`);
  }
  applyRetainKeys(original, patch);
  mergeElementOrderLists(original, patch, node);

  for (const [rawKey, patchValue] of Object.entries(patch)) {
    let key = rawKey;
    const isDeleteList = rawKey.startsWith(DELETE_FROM_PRIMITIVE_LIST);
    if (isDeleteList) key = extractKey(rawKey, DELETE_FROM_PRIMITIVE_LIST);
    if (patchValue === null) {
      delete original[key];
      continue;
    }
    const meta = lookup(node, key);
    const current = ownValue(original, key);
    if (current === undefined) {
      if (!isDeleteList) setOwn(original, key, freshValue(meta, patchValue));
      continue;
    }
    if (goKind(current) !== goKind(patchValue)) {
      if (!isDeleteList) setOwn(original, key, discardNulls(patchValue));
      continue;
    }
    if (isRecord(current)) setOwn(original, key, mergeMap(current, patchValue as JsonObject, meta.node));
    else if (Array.isArray(current)) setOwn(original, key, mergeListField(current, patchValue as unknown[], meta, isDeleteList));
    else setOwn(original, key, patchValue);
  }
  return original;
}

/** A patch value with nothing to merge into: directives still apply, unmatched nulls go. */
function freshValue(meta: FieldMeta, value: unknown): unknown {
  if (isRecord(value)) return mergeMap({}, value, meta.node);
  if (Array.isArray(value)) return meta.mergeList ? mergeList([], value, meta, false) : discardNulls(value);
  return value;
}

function discardNulls(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(discardNulls);
  if (!isRecord(value)) return value;
  const out: JsonObject = {};
  for (const [key, item] of Object.entries(value)) if (item !== null) setOwn(out, key, discardNulls(item));
  return out;
}

function applyRetainKeys(original: JsonObject, patch: JsonObject): void {
  if (!Object.hasOwn(patch, RETAIN_KEYS)) return;
  const retain = patch[RETAIN_KEYS];
  delete patch[RETAIN_KEYS];
  if (!Array.isArray(retain)) throw new SmpFailure('badRequest', 'invalid patch format of retainKeys');
  const kept = new Set(retain);
  for (const [key, value] of Object.entries(patch)) {
    if (value === null || key.startsWith(DELETE_FROM_PRIMITIVE_LIST) || key.startsWith(SET_ELEMENT_ORDER)) continue;
    if (!kept.has(key)) throw new SmpFailure('badRequest', 'invalid patch format of retainKeys');
  }
  for (const key of Object.keys(original)) if (!kept.has(key)) delete original[key];
}

function extractKey(key: string, prefix: string): string {
  const slash = key.indexOf('/');
  if (slash < 0 || key.slice(0, slash) !== prefix) {
    const message = prefix === SET_ELEMENT_ORDER ? 'invalid patch format of setElementOrder list' : 'invalid patch format of primitive list';
    throw new SmpFailure('badRequest', message);
  }
  return key.slice(slash + 1);
}

/** `$setElementOrder/<field>`: merge that list now and put its items in the given order. */
function mergeElementOrderLists(original: JsonObject, patch: JsonObject, node: SchemaNode | undefined): void {
  for (const key of Object.keys(patch)) {
    if (!key.startsWith(SET_ELEMENT_ORDER)) continue;
    const order = patch[key];
    delete patch[key];
    if (!Array.isArray(order)) throw unclassified(`expected a slice, but received a ${goReflectKind(order)}`);
    const field = extractKey(key, SET_ELEMENT_ORDER);
    const originalList = ownValue(original, field);
    const patchList = ownValue(patch, field);
    for (const list of [originalList, patchList]) {
      if (list !== undefined && !Array.isArray(list)) throw unclassified(`expected a slice, but received a ${goReflectKind(list)}`);
    }
    const meta = lookup(node, field);
    const fromOriginal = originalList as unknown[] | undefined;
    const fromPatch = patchList as unknown[] | undefined;
    checkAgainstElementOrder(fromPatch ?? [], order, meta.mergeKey);
    let merged: unknown[];
    if (fromOriginal !== undefined && fromPatch !== undefined) merged = mergeListField(fromOriginal, fromPatch, meta, false);
    else if (fromOriginal !== undefined) merged = fromOriginal;
    else if (fromPatch !== undefined) merged = fromPatch;
    else continue;
    const kind = elementKind(fromOriginal ?? [], fromPatch ?? []);
    const [patchItems, serverOnly] = partition(merged, order, meta.mergeKey);
    setOwn(original, field, normalizeOrder(patchItems, serverOnly, order, fromOriginal ?? [], meta.mergeKey, kind));
    delete patch[field];
  }
}

function checkAgainstElementOrder(patchList: unknown[], order: unknown[], mergeKey: string): void {
  if (order.length === 0 || patchList.length === 0) return;
  const kept = mergeKey === '' ? patchList : patchList.filter((item) => !(isRecord(item) && item[DIRECTIVE] === 'delete'));
  let p = 0;
  let s = 0;
  while (p < kept.length && s < order.length) {
    if (isRecord(kept[p]) && Object.hasOwn(kept[p] as JsonObject, DIRECTIVE)) {
      p++;
      continue;
    }
    if (sameMergeKey(kept[p], order[s], mergeKey)) p++;
    s++;
  }
  if (p < kept.length) {
    throw unclassified(`The order in patch list:\n${goFormatValue(patchList)}\n doesn't match ${SET_ELEMENT_ORDER} list:\n${goFormatValue(order)}\n`);
  }
}

// ---------------------------------------------------------------------------------------------
// Lists

function mergeListField(original: unknown[], patch: unknown[], meta: FieldMeta, isDeleteList: boolean): unknown[] {
  return meta.mergeList || isDeleteList ? mergeList(original, patch, meta, isDeleteList) : patch;
}

function mergeList(original: unknown[], patch: unknown[], meta: FieldMeta, isDeleteList: boolean): unknown[] {
  if (original.length === 0 && patch.length === 0) return original;
  const kind = elementKind(original, patch);
  let server = original;
  let patchItems = patch;
  let merged: unknown[];
  if (kind !== 'object') {
    if (isDeleteList) {
      const deleted = new Set(patch);
      return original.filter((item) => !deleted.has(item));
    }
    merged = [...new Set([...original, ...patch])];
  } else {
    if (meta.mergeKey === '') throw unclassified('cannot merge lists without merge key');
    [server, patchItems] = applySpecialItems(original, patch, meta.mergeKey);
    merged = mergeByKey(server, patchItems as JsonObject[], meta);
  }
  const [fromPatch, serverOnly] = partition(merged, patchItems, meta.mergeKey);
  return normalizeOrder(fromPatch, serverOnly, patchItems, server, meta.mergeKey, kind);
}

/**
 * Each patch item merges into the first list item with its merge key, or is appended. The first
 * holder of each key is kept in a map, so the merge is linear in the two lists.
 */
function mergeByKey(server: unknown[], patchItems: JsonObject[], meta: FieldMeta): unknown[] {
  const mergeKey = meta.mergeKey;
  const merged = [...server];
  // Positions of the object items holding each key, ascending; the first is the one a patch item meets.
  const holders = new Map<unknown, number[]>();
  const hold = (key: unknown, at: number): void => {
    const list = holders.get(key);
    if (list === undefined) holders.set(key, [at]);
    else list.splice(lowerBound(list, at), 0, at);
  };
  merged.forEach((item, at) => {
    if (isRecord(item)) hold(ownValue(item, mergeKey), at);
  });
  for (const item of patchItems) {
    if (!Object.hasOwn(item, mergeKey)) throw noMergeKey(item, mergeKey);
    const key = item[mergeKey];
    const at = holders.get(key)?.[0];
    if (at === undefined) {
      merged.push(item);
      hold(key, merged.length - 1);
      continue;
    }
    const next = mergeMap(merged[at] as JsonObject, item, itemsOf(meta));
    merged[at] = next;
    const nextKey = ownValue(next, mergeKey);
    // A null merge key in the patch deletes the key: the item now answers to another one.
    if (nextKey !== key) {
      holders.get(key)!.shift();
      hold(nextKey, at);
    }
  }
  return merged;
}

/** `$patch: delete` items remove their match; a `$patch: replace` item makes the patch items the whole list. */
function applySpecialItems(original: unknown[], patch: unknown[], mergeKey: string): [unknown[], unknown[]] {
  const plain: unknown[] = [];
  const deleted = new Set<unknown>();
  let replace = false;
  for (const item of patch as JsonObject[]) {
    if (!Object.hasOwn(item, DIRECTIVE)) {
      plain.push(item);
      continue;
    }
    const directive = item[DIRECTIVE];
    if (directive === 'delete') {
      if (!Object.hasOwn(item, mergeKey)) throw noMergeKey(item, mergeKey);
      deleted.add(item[mergeKey]);
    } else if (directive === 'replace') {
      replace = true;
    } else if (directive === 'merge') {
      throw unclassified('merging lists cannot yet be specified in the patch');
    } else {
      throw unclassified(`unknown patch type: ${goFormatValue(directive)} in map: ${goFormatValue(item)}`);
    }
  }
  const server = deleted.size === 0 ? original : original.filter((candidate) => !(isRecord(candidate) && deleted.has(ownValue(candidate, mergeKey))));
  return replace ? [plain, []] : [server, plain];
}
