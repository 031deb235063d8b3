// The list mechanics of a strategic merge patch that Go's strategicpatch spells out in detail and
// clients can observe: which element kind a list has, how merged items are split into "from the
// patch" and "server only", and the order they end up in (patch items in patch order, server-only
// items in server order, interleaved by Go's `mergeSortedSlice`). Also the failure classes.

import { goFormatValue } from './go-json.ts';
import { isRecord, ownValue } from '../own-property.ts';
import { goStableSort } from './go-stable-sort.ts';
import type { JsonObject } from './typed-value.ts';

const DIRECTIVE = '$patch';

/** How kube-apiserver classifies a strategic-merge failure: 400, 422, or a plain 500. */
export class SmpFailure extends Error {
  constructor(
    readonly kind: 'badRequest' | 'invalid' | 'unclassified',
    message: string,
  ) {
    super(message);
  }
}

export const unclassified = (message: string): SmpFailure => new SmpFailure('unclassified', message);

export function noMergeKey(item: JsonObject, mergeKey: string): SmpFailure {
  return unclassified(`map: ${goFormatValue(item)} does not contain declared merge key: ${mergeKey}`);
}

/**
 * Positions in a list by merge key (by value for a list of primitives), first occurrence winning,
 * so "where is this item in that list" costs O(1) instead of a scan: strategicpatch's own scans make
 * a patch of a few thousand list items cost seconds.
 */
export class ListPositions {
  private readonly first = new Map<unknown, number>();

  constructor(
    list: readonly unknown[],
    private readonly mergeKey: string,
  ) {
    list.forEach((item, i) => {
      const key = this.keyOf(item);
      if (!this.first.has(key)) this.first.set(key, i);
    });
  }

  /** The position of the first item with the same merge key as `item`, or -1. */
  indexOf(item: unknown): number {
    return this.first.get(this.keyOf(item)) ?? -1;
  }

  private keyOf(item: unknown): unknown {
    if (this.mergeKey === '') return item;
    return isRecord(item) ? ownValue(item, this.mergeKey) : undefined;
  }
}

export function partition(merged: unknown[], by: unknown[], mergeKey: string): [unknown[], unknown[]] {
  const positions = new ListPositions(by, mergeKey);
  const inPatch: unknown[] = [];
  const serverOnly: unknown[] = [];
  for (const item of merged) (positions.indexOf(item) >= 0 ? inPatch : serverOnly).push(item);
  return [inPatch, serverOnly];
}

/** Patch items in patch order, server-only items in server order, interleaved as Go's `mergeSortedSlice` does. */
export function normalizeOrder(
  patchItems: unknown[],
  serverOnly: unknown[],
  patchOrder: unknown[],
  serverOrder: unknown[],
  mergeKey: string,
  kind: string,
): unknown[] {
  const serverPositions = new ListPositions(serverOrder, mergeKey);
  const left = sortByOrder(serverOnly, serverOrder, mergeKey, kind, serverPositions);
  const right = sortByOrder(patchItems, patchOrder, mergeKey, kind);
  const out: unknown[] = [];
  let i = 0;
  let j = 0;
  while (i < left.length || j < right.length) {
    if (j >= right.length) out.push(left[i++]);
    else if (i >= left.length) out.push(right[j++]);
    else {
      const li = serverPositions.indexOf(left[i]);
      const ri = serverPositions.indexOf(right[j]);
      // A patch item the server never had wins the tie, so new items go before later server items.
      if (li >= 0 && ri >= 0 && li < ri) out.push(left[i++]);
      else out.push(right[j++]);
    }
  }
  return out;
}

/** Go's `sort.SliceStable` with strategicpatch's lenient `less` (missing from the order: "less"). */
function sortByOrder(items: unknown[], order: unknown[], mergeKey: string, kind: string, orderPositions?: ListPositions): unknown[] {
  let toSort = [...items];
  let toDelete: unknown[] = [];
  if (kind === 'object') {
    for (const item of [...toSort, ...order]) {
      if (!isRecord(item)) throw unclassified(`expected a map, but received a ${goReflectKind(item)}`);
      if (!Object.hasOwn(item, mergeKey)) throw noMergeKey(item, mergeKey);
    }
    toDelete = toSort.filter((item) => (item as JsonObject)[DIRECTIVE] === 'delete');
    toSort = toSort.filter((item) => (item as JsonObject)[DIRECTIVE] !== 'delete');
  }
  const positions = orderPositions ?? new ListPositions(order, mergeKey);
  goStableSort(toSort, (a, b) => {
    const ia = positions.indexOf(a);
    const ib = positions.indexOf(b);
    return ia >= 0 && ib >= 0 ? ia < ib : true;
  });
  return [...toSort, ...toDelete];
}

export function sameMergeKey(a: unknown, b: unknown, mergeKey: string): boolean {
  if (mergeKey === '') return a === b;
  for (const item of [a, b]) {
    if (!isRecord(item)) throw unclassified(`expected a map, but received a ${goReflectKind(item)}`);
    if (!Object.hasOwn(item, mergeKey)) throw noMergeKey(item, mergeKey);
  }
  return (a as JsonObject)[mergeKey] === (b as JsonObject)[mergeKey];
}

/** The one element kind of all the lists; lists of lists are refused (422), mixed kinds fail. */
export function elementKind(...lists: unknown[][]): string {
  let kind: string | undefined;
  for (const item of lists.flat()) {
    const current = goKind(item);
    if (kind === undefined) {
      if (current === 'array') throw new SmpFailure('invalid', 'lists of lists are not supported');
      kind = current;
    } else if (kind !== current) {
      throw unclassified(`list element types are not identical: ${goFormatValue(lists)}`);
    }
  }
  if (kind === undefined) throw unclassified('no elements in any of the given slices');
  return kind;
}

export function goKind(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'array';
  return typeof value;
}

export function goReflectKind(value: unknown): string {
  if (value === null || value === undefined) return 'nil';
  if (Array.isArray(value)) return 'slice';
  if (typeof value === 'object') return 'map';
  if (typeof value === 'number') return Number.isInteger(value) ? 'int64' : 'float64';
  return typeof value === 'boolean' ? 'bool' : 'string';
}
