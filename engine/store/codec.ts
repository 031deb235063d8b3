// The storage codec: one format byte, then msgpackr with records from the fixed structure set in
// codec-structures.ts. Shared structures make typical objects about a third of their JSON size and
// decode several times faster than JSON.parse (docs/benchmarks.md); because the set is fixed and
// append-only, and every other shape is written inline, the bytes of a value never depend on what
// else was stored before, and any future Fairway can read them. Unknown fields are just more keys,
// so they round-trip untouched.

import { Packr } from 'msgpackr';
import type { KubeObject } from '../resources/types.ts';
import { CODEC_STRUCTURES_V1 } from './codec-structures.ts';

export const CODEC_FORMAT_V1 = 0x01;

function packerFor(structures: readonly (readonly string[])[], freezeData = false): Packr {
  const options: ConstructorParameters<typeof Packr>[0] & { freezeData?: boolean } = {
    structures: structures.map((s) => [...s]),
    maxSharedStructures: structures.length,
    // Never learn new shared structures: that would make bytes depend on write history.
    shouldShareStructure: () => false,
    mapsAsObjects: true,
    useRecords: true,
    // Supported by the unpacker (unpack.js) though missing from msgpackr's type declarations.
    freezeData,
  };
  return new Packr(options);
}

const packerV1 = packerFor(CODEC_STRUCTURES_V1);
// Decoding straight into frozen objects costs nothing extra (the record readers are generated with
// Object.freeze inlined), so the watch cache gets immutable objects without a deep-freeze walk.
const frozenUnpackerV1 = packerFor(CODEC_STRUCTURES_V1, true);

export class CodecError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'CodecError';
  }
}

/** msgpackr's RESERVE_START_SPACE flag, with the number of bytes to leave free in the low byte. */
const RESERVE_FORMAT_BYTE = 2048 | 1;

/**
 * From this size a value gets its own bytes instead of a view of msgpackr's output block: a value
 * that did not fit made msgpackr allocate a block of up to four times its size, which later values
 * fill, and a view pins the whole block as long as any value in it lives (the watch cache holds
 * past versions for minutes). Copying costs little next to packing a value this large.
 */
const OWN_BYTES_FROM = 16 * 1024;

/** Encodes an object for storage. metadata.resourceVersion is dropped: the revision is the truth. */
export function encodeObject(object: KubeObject): Uint8Array {
  // Packed straight after a reserved byte for the format, so a small value is never copied. The
  // result is a view of msgpackr's current output block, which later packs never overwrite.
  const out = packerV1.pack(withoutResourceVersion(object), RESERVE_FORMAT_BYTE);
  out[0] = CODEC_FORMAT_V1;
  if (out.byteLength < OWN_BYTES_FROM) return out;
  const own = Buffer.allocUnsafeSlow(out.byteLength);
  own.set(out);
  return own;
}

/** Decodes stored bytes into a fresh, mutable object (no resourceVersion). */
export function decodeObject(bytes: Uint8Array): KubeObject {
  return decodeWith(packerV1, bytes);
}

/** Decodes stored bytes into a deeply frozen object (no resourceVersion). */
export function decodeFrozenObject(bytes: Uint8Array): KubeObject {
  return decodeWith(frozenUnpackerV1, bytes);
}

function decodeWith(packer: Packr, bytes: Uint8Array): KubeObject {
  if (bytes.length < 2) throw new CodecError(`value too short (${bytes.length} bytes)`);
  if (bytes[0] !== CODEC_FORMAT_V1) throw new CodecError(`unknown codec format byte 0x${bytes[0]!.toString(16).padStart(2, '0')}`);
  let value: unknown;
  try {
    value = packer.unpack(bytes.subarray(1));
  } catch (error) {
    throw new CodecError(`msgpack decode failed: ${(error as Error).message}`, { cause: error });
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) throw new CodecError('stored value is not an object');
  return value as KubeObject;
}

export function withoutResourceVersion(object: KubeObject): KubeObject {
  const meta = object.metadata;
  if (meta === undefined || meta === null || !('resourceVersion' in meta)) return object;
  const { resourceVersion: _dropped, ...rest } = meta;
  return { ...object, metadata: rest };
}

export function bytesEqual(a: Uint8Array, b: Uint8Array): boolean {
  if (a.length !== b.length) return false;
  return Buffer.compare(a, b) === 0;
}
