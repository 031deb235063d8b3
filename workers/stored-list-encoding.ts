// A LIST response built from stored bytes. This is the large-LIST case the pool exists for: the
// items cross to the worker as one transferred buffer (no structured clone of an object graph, which
// costs the main thread as much as encoding it would — docs/execution-plane.md), and the worker
// decodes them (engine/store/codec.ts) and writes the JSON body.
//
// Stored values carry no resourceVersion (the revision is the truth), so each item gets its mod
// revision back here, at the position Go's ObjectMeta field order gives it.

import { decodeObject } from '../engine/store/codec.ts';
import type { KubeObject } from '../engine/resources/types.ts';
import type { Work } from './executor.ts';
import { goJsonText, newlineTerminatedBytes } from './json-encoding.ts';
import { setOwn } from '../engine/own-property.ts';

export const ENCODE_STORED_LIST_STAGE = 'encode-stored-list';

export interface StoredListPayload {
  /** The list without `items`: apiVersion, kind, metadata. `items` is appended last, as Go orders it. */
  readonly list: Readonly<Record<string, unknown>>;
  /** Stored values (codec bytes, already through the transformer chain), back to back. */
  readonly values: Uint8Array;
  /** End offset in `values` of each item, ascending. */
  readonly ends: Uint32Array | readonly number[];
  /** Mod revision of each item, written as its metadata.resourceVersion. */
  readonly modRevisions: Float64Array | readonly number[];
  /** Typed lists omit each item's apiVersion and kind; set to drop them. */
  readonly dropItemTypeMeta?: boolean;
}

export interface StoredRecord {
  readonly value: Uint8Array;
  readonly modRevision: number;
}

/**
 * Packs records into a Work whose bulk data is three owned buffers listed for transfer, so the
 * main thread pays one memcpy of the stored bytes and nothing per object.
 */
export function storedListWork(
  list: Readonly<Record<string, unknown>>,
  records: readonly StoredRecord[],
  options: { dropItemTypeMeta?: boolean } = {},
): Work {
  let byteLength = 0;
  for (const record of records) byteLength += record.value.byteLength;
  const values = new Uint8Array(new ArrayBuffer(byteLength));
  const ends = new Uint32Array(records.length);
  const modRevisions = new Float64Array(records.length);
  let offset = 0;
  records.forEach((record, index) => {
    values.set(record.value, offset);
    offset += record.value.byteLength;
    ends[index] = offset;
    modRevisions[index] = record.modRevision;
  });
  const payload: StoredListPayload = { list, values, ends, modRevisions, dropItemTypeMeta: options.dropItemTypeMeta === true };
  return {
    stage: ENCODE_STORED_LIST_STAGE,
    payload,
    transferList: [values.buffer as ArrayBuffer, ends.buffer as ArrayBuffer, modRevisions.buffer as ArrayBuffer],
  };
}

/** Bytes of stored values in the payload: decoding and encoding cost grows with them, not with the item count. */
export function storedListByteLength(payload: unknown): number {
  const values = (payload as { values?: unknown } | null)?.values;
  return values instanceof Uint8Array ? values.byteLength : 0;
}

export function encodeStoredList(payload: unknown): Buffer {
  const { list, values, ends, modRevisions, dropItemTypeMeta } = checkPayload(payload);
  const items: KubeObject[] = new Array(ends.length);
  let start = 0;
  for (let index = 0; index < ends.length; index++) {
    const end = ends[index]!;
    if (end < start || end > values.byteLength) {
      throw new RangeError(`ends[${index}] = ${end} is outside the values (${start}..${values.byteLength})`);
    }
    let item = decodeObject(values.subarray(start, end));
    if (dropItemTypeMeta) item = withoutTypeMeta(item);
    items[index] = withResourceVersion(item, String(modRevisions[index]));
    start = end;
  }
  return newlineTerminatedBytes([goJsonText({ ...list, items })]);
}

// Go's ObjectMeta declares these before resourceVersion; every other field comes after it.
const BEFORE_RESOURCE_VERSION = new Set(['name', 'generateName', 'namespace', 'selfLink', 'uid']);

export function withResourceVersion(object: KubeObject, resourceVersion: string): KubeObject {
  const meta = (object.metadata ?? {}) as Record<string, unknown>;
  const ordered: Record<string, unknown> = {};
  let placed = false;
  for (const [key, value] of Object.entries(meta)) {
    if (key === 'resourceVersion') continue;
    if (!placed && !BEFORE_RESOURCE_VERSION.has(key)) {
      ordered['resourceVersion'] = resourceVersion;
      placed = true;
    }
    setOwn(ordered, key, value);
  }
  if (!placed) ordered['resourceVersion'] = resourceVersion;
  return { ...object, metadata: ordered } as KubeObject;
}

function withoutTypeMeta(object: KubeObject): KubeObject {
  const { apiVersion: _apiVersion, kind: _kind, ...rest } = object as KubeObject & Record<string, unknown>;
  return rest as KubeObject;
}

function checkPayload(payload: unknown): Required<StoredListPayload> {
  if (typeof payload !== 'object' || payload === null) throw new TypeError('payload must be an object');
  const p = payload as Partial<StoredListPayload>;
  if (typeof p.list !== 'object' || p.list === null || Array.isArray(p.list)) throw new TypeError('payload.list must be an object');
  if (!(p.values instanceof Uint8Array)) throw new TypeError('payload.values must be a Uint8Array');
  const ends = p.ends;
  const revisions = p.modRevisions;
  if (!(ends instanceof Uint32Array || Array.isArray(ends))) throw new TypeError('payload.ends must be a Uint32Array or number[]');
  if (!(revisions instanceof Float64Array || Array.isArray(revisions))) {
    throw new TypeError('payload.modRevisions must be a Float64Array or number[]');
  }
  if (revisions.length !== ends.length) {
    throw new RangeError(`payload.modRevisions has ${revisions.length} entries for ${ends.length} items`);
  }
  return { list: p.list, values: p.values, ends, modRevisions: revisions, dropItemTypeMeta: p.dropItemTypeMeta === true };
}
