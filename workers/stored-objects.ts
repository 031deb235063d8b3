// Objects as encoding stages take them: on the calling thread, the watch cache's stored forms (the
// objects themselves, nothing to decode); on a worker, the same forms packed into three buffers —
// the codec bytes back to back, each item's end offset, each item's revision — moved, not copied
// and never structured-cloned as an object graph (which costs the main thread as much as encoding
// it, docs/execution-plane.md). The worker rebuilds each object with `objectFromCodec`, which gives
// back the cache's object key for key, so a stage's bytes are the same on either thread.

import type { TransferListItem } from 'node:worker_threads';
import { objectFromCodec } from '../engine/store/cached-object.ts';
import type { KubeObject } from '../engine/resources/types.ts';
import type { StoredForm } from '../engine/store/store-types.ts';

export interface PackedObjects {
  /** Codec bytes of every object, back to back. */
  readonly values: Uint8Array;
  /** End offset in `values` of each object, ascending. */
  readonly ends: Uint32Array;
  /** The revision each object shows as its metadata.resourceVersion. */
  readonly revisions: Float64Array;
}

/** What a stage payload's `objects` may be. */
export type ObjectsInput = readonly StoredForm[] | PackedObjects;

/** A payload naming objects: `objects` plus whatever the stage needs besides. */
export interface ObjectsPayload {
  readonly objects: ObjectsInput;
}

/** Copies the forms' codec bytes into owned buffers (one memcpy, nothing per object beyond it). */
export function packObjects(forms: readonly StoredForm[]): { packed: PackedObjects; transferList: ArrayBuffer[] } {
  let byteLength = 0;
  for (const form of forms) byteLength += form.codecBytes.byteLength;
  const values = new Uint8Array(new ArrayBuffer(byteLength));
  const ends = new Uint32Array(forms.length);
  const revisions = new Float64Array(forms.length);
  let offset = 0;
  for (let i = 0; i < forms.length; i++) {
    const form = forms[i]!;
    values.set(form.codecBytes, offset);
    offset += form.codecBytes.byteLength;
    ends[i] = offset;
    revisions[i] = form.revision;
  }
  return { packed: { values, ends, revisions }, transferList: [values.buffer as ArrayBuffer, ends.buffer as ArrayBuffer, revisions.buffer as ArrayBuffer] };
}

/** A stage's `pack`: the payload with its forms packed, or undefined when it holds no forms. */
export function packPayload(payload: unknown): { payload: unknown; transferList: TransferListItem[] } | undefined {
  const objects = (payload as Partial<ObjectsPayload> | null)?.objects;
  if (!Array.isArray(objects)) return undefined;
  const { packed, transferList } = packObjects(objects as readonly StoredForm[]);
  return { payload: { ...(payload as object), objects: packed }, transferList };
}

/** The objects of a payload: the forms' own objects, or rebuilt from packed bytes. */
export function objectsOf(payload: unknown): KubeObject[] {
  if (typeof payload !== 'object' || payload === null) throw new TypeError('payload must be an object');
  const objects = (payload as Partial<ObjectsPayload>).objects;
  if (Array.isArray(objects)) {
    return objects.map((form: unknown, index) => {
      const object = (form as Partial<StoredForm> | null)?.object;
      if (typeof object !== 'object' || object === null) throw new TypeError(`payload.objects[${index}] is not a stored form`);
      return object;
    });
  }
  return unpack(objects);
}

/** Codec bytes the payload's objects take: encoding work grows with them. */
export function objectsByteLength(payload: unknown): number {
  const objects = (payload as Partial<ObjectsPayload> | null)?.objects;
  if (Array.isArray(objects)) {
    let total = 0;
    for (const form of objects as readonly StoredForm[]) total += form?.codecBytes?.byteLength ?? 0;
    return total;
  }
  const values = (objects as Partial<PackedObjects> | undefined)?.values;
  return values instanceof Uint8Array ? values.byteLength : 0;
}

function unpack(objects: unknown): KubeObject[] {
  if (typeof objects !== 'object' || objects === null) throw new TypeError('payload.objects must be stored forms or packed objects');
  const { values, ends, revisions } = objects as Partial<PackedObjects>;
  if (!(values instanceof Uint8Array)) throw new TypeError('payload.objects.values must be a Uint8Array');
  if (!(ends instanceof Uint32Array)) throw new TypeError('payload.objects.ends must be a Uint32Array');
  if (!(revisions instanceof Float64Array)) throw new TypeError('payload.objects.revisions must be a Float64Array');
  if (revisions.length !== ends.length) throw new RangeError(`payload.objects.revisions has ${revisions.length} entries for ${ends.length} objects`);
  const out: KubeObject[] = new Array(ends.length);
  let start = 0;
  for (let i = 0; i < ends.length; i++) {
    const end = ends[i]!;
    if (end < start || end > values.byteLength)
      throw new RangeError(`payload.objects.ends[${i}] = ${end} is outside the values (${start}..${values.byteLength})`);
    out[i] = objectFromCodec(values.subarray(start, end), revisions[i]!);
    start = end;
  }
  return out;
}
