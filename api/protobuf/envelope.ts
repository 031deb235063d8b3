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
