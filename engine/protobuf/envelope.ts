// The frame around every Kubernetes protobuf object: the 4 magic bytes `k8s\0`, then a
// runtime.Unknown {typeMeta {apiVersion, kind}, raw (the object's own message), contentEncoding,
// contentType}. Go writes the two empty strings too, so the frame is byte-for-byte Go's.
import { decodeMessage, encodeMessage, ProtobufError } from './codec.ts';
import { MESSAGE_PREFIX } from './go-types.ts';

export const PROTOBUF_MEDIA_TYPE = 'application/vnd.kubernetes.protobuf';
const MAGIC = Buffer.from([0x6b, 0x38, 0x73, 0x00]);
const UNKNOWN = `${MESSAGE_PREFIX.runtime}Unknown`;

export interface Envelope {
  apiVersion: string;
  kind: string;
  raw: Uint8Array;
}

/** `k8s\0` + Unknown around `raw`. */
export function encodeEnvelope(apiVersion: string, kind: string, raw: Uint8Array): Buffer {
  const unknown = encodeMessage(UNKNOWN, { typeMeta: { apiVersion, kind }, raw, contentEncoding: '', contentType: '' });
  return Buffer.concat([MAGIC, unknown]);
}

/**
 * The envelope's bytes before and after a `raw` of `rawLength` bytes (at least 1: a list's raw
 * always holds its ListMeta field), for a body sent as parts (a LIST's items) without copying them
 * into one buffer. Taken from an envelope written around a one-byte raw: Unknown's fields come in
 * field order, typeMeta (1) first, so the head is up to raw's tag, and the tail is what follows
 * raw's byte.
 */
export function envelopeAround(apiVersion: string, kind: string, rawLength: number): { head: Buffer; tail: Buffer } {
  const probe = encodeMessage(UNKNOWN, { typeMeta: { apiVersion, kind }, raw: PROBE_RAW, contentEncoding: '', contentType: '' });
  // typeMeta's field: its tag, its length as a varint, its bytes.
  let at = 1;
  let length = 0;
  for (let shift = 0; ; shift += 7) {
    const byte = probe[at++]!;
    length += (byte & 0x7f) * 2 ** shift;
    if (byte < 0x80) break;
  }
  const rawAt = at + length;
  if (probe[rawAt] !== 0x12 || probe[rawAt + 1] !== 1 || probe[rawAt + 2] !== PROBE_RAW[0]) throw new Error('envelopeAround: raw is not the second field');
  return { head: Buffer.concat([MAGIC, probe.subarray(0, rawAt), fieldHeader(2, rawLength)]), tail: Buffer.from(probe.subarray(rawAt + 3)) };
}

const PROBE_RAW = new Uint8Array([0xab]);

/** The tag (wire type 2) and length of field `number` holding `length` bytes. */
export function fieldHeader(number: number, length: number): Buffer {
  const header: number[] = [];
  for (let value = (number << 3) | 2; ; ) {
    if (value < 0x80) {
      header.push(value);
      break;
    }
    header.push((value & 0x7f) | 0x80);
    value >>>= 7;
  }
  for (let value = length; ; ) {
    if (value < 0x80) {
      header.push(value);
      break;
    }
    header.push((value & 0x7f) | 0x80);
    value = Math.floor(value / 128);
  }
  return Buffer.from(header);
}

/** Unwraps a body; the error texts are those of apimachinery's protobuf serializer. */
export function decodeEnvelope(body: Uint8Array): { ok: true; envelope: Envelope } | { ok: false; error: string } {
  if (body.length === 0) return { ok: false, error: 'empty data' };
  if (body.length < MAGIC.length || MAGIC.some((byte, i) => body[i] !== byte)) return { ok: false, error: 'provided value is not protobuf' };
  if (body.length === MAGIC.length) return { ok: false, error: 'empty body' };
  try {
    const unknown = decodeMessage(UNKNOWN, body.subarray(MAGIC.length));
    const typeMeta = (unknown.typeMeta ?? {}) as { apiVersion?: string; kind?: string };
    const encoding = (unknown.contentEncoding as string | undefined) ?? '';
    if (encoding !== '') return { ok: false, error: `unsupported content encoding ${JSON.stringify(encoding)}` };
    return {
      ok: true,
      envelope: { apiVersion: typeMeta.apiVersion ?? '', kind: typeMeta.kind ?? '', raw: (unknown.raw as Uint8Array | undefined) ?? new Uint8Array() },
    };
  } catch (error) {
    if (error instanceof ProtobufError) return { ok: false, error: error.message };
    throw error;
  }
}
