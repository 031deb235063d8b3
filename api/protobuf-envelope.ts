// The protobuf requests Fairway must read: kubectl POSTs its self reviews (`auth can-i`,
// `auth can-i --list`, `auth whoami`) as `application/vnd.kubernetes.protobuf` and does not retry
// as JSON. The body is the 4-byte magic
// `k8s\0` followed by a `runtime.Unknown` {1 typeMeta {1 apiVersion, 2 kind}, 2 raw, 3
// contentEncoding, 4 contentType} whose `raw` is the message itself. A ~50-line wire-format reader
// covers it (varints and length-delimited fields; docs/dependencies.md says why not protobufjs).
// Malformed input is an error value, never an exception.
import type { SelectorAttributes, SubjectAccessReviewSpec } from '../engine/auth/subject-access-review.ts';

export const PROTOBUF_MEDIA_TYPE = 'application/vnd.kubernetes.protobuf';
const MAGIC = [0x6b, 0x38, 0x73, 0x00];

interface Field {
  number: number;
  /** Wire type 0: the varint (as a number; Fairway only needs small ones). */
  varint?: number;
  /** Wire type 2: the bytes. */
  bytes?: Uint8Array;
}

/** All top-level fields of a message; throws only inside, callers get an error value. */
function readFields(buffer: Uint8Array): Field[] {
  const fields: Field[] = [];
  let offset = 0;
  const varint = (): number => {
    let result = 0;
    let shift = 0;
    for (;;) {
      if (offset >= buffer.length) throw new Error('truncated varint');
      const byte = buffer[offset++]!;
      if (shift < 53) result += (byte & 0x7f) * 2 ** shift;
      if ((byte & 0x80) === 0) return result;
      shift += 7;
      if (shift > 63) throw new Error('varint too long');
    }
  };
  while (offset < buffer.length) {
    const key = varint();
    const number = Math.floor(key / 8);
    const wireType = key % 8;
    if (number === 0) throw new Error('field number 0');
    if (wireType === 0) fields.push({ number, varint: varint() });
    else if (wireType === 2) {
      const length = varint();
      if (offset + length > buffer.length) throw new Error('truncated length-delimited field');
      fields.push({ number, bytes: buffer.subarray(offset, offset + length) });
      offset += length;
    } else if (wireType === 1) offset += 8;
    else if (wireType === 5) offset += 4;
    else throw new Error(`unsupported wire type ${wireType}`);
    if (offset > buffer.length) throw new Error('truncated field');
  }
  return fields;
}

const text = (bytes: Uint8Array | undefined): string => (bytes === undefined ? '' : new TextDecoder('utf-8', { fatal: true }).decode(bytes));
const first = (fields: Field[], number: number): Field | undefined => fields.find((f) => f.number === number);

export interface Envelope {
  apiVersion: string;
  kind: string;
  raw: Uint8Array;
}

/** Unwraps `k8s\0` + runtime.Unknown. */
export function decodeEnvelope(body: Uint8Array): { ok: true; envelope: Envelope } | { ok: false; error: string } {
  if (body.length < MAGIC.length || MAGIC.some((byte, i) => body[i] !== byte)) return { ok: false, error: 'provided value is not protobuf: missing the k8s protobuf prefix' };
  try {
    const unknown = readFields(body.subarray(MAGIC.length));
    const typeMeta = readFields(first(unknown, 1)?.bytes ?? new Uint8Array());
    const encoding = text(first(unknown, 3)?.bytes);
    if (encoding !== '') return { ok: false, error: `unsupported content encoding ${JSON.stringify(encoding)}` };
    return { ok: true, envelope: { apiVersion: text(first(typeMeta, 1)?.bytes), kind: text(first(typeMeta, 2)?.bytes), raw: first(unknown, 2)?.bytes ?? new Uint8Array() } };
  } catch (error) {
    return { ok: false, error: `invalid protobuf: ${(error as Error).message}` };
  }
}

/** SelfSubjectAccessReview {1 metadata, 2 spec {1 resourceAttributes, 2 nonResourceAttributes}, 3 status}. */
export function decodeSelfSubjectAccessReviewSpec(raw: Uint8Array): { ok: true; spec: SubjectAccessReviewSpec } | { ok: false; error: string } {
  try {
    const review = readFields(raw);
    const specFields = readFields(first(review, 2)?.bytes ?? new Uint8Array());
    const spec: SubjectAccessReviewSpec = {};
    const resource = first(specFields, 1)?.bytes;
    if (resource !== undefined) {
      const f = readFields(resource);
      const s = (n: number) => text(first(f, n)?.bytes);
      spec.resourceAttributes = { namespace: s(1), verb: s(2), group: s(3), version: s(4), resource: s(5), subresource: s(6), name: s(7) };
      const fieldSelector = first(f, 8)?.bytes;
      if (fieldSelector !== undefined) spec.resourceAttributes.fieldSelector = selector(fieldSelector);
      const labelSelector = first(f, 9)?.bytes;
      if (labelSelector !== undefined) spec.resourceAttributes.labelSelector = selector(labelSelector);
    }
    const nonResource = first(specFields, 2)?.bytes;
    if (nonResource !== undefined) {
      const f = readFields(nonResource);
      spec.nonResourceAttributes = { path: text(first(f, 1)?.bytes), verb: text(first(f, 2)?.bytes) };
    }
    return { ok: true, spec };
  } catch (error) {
    return { ok: false, error: `invalid protobuf: ${(error as Error).message}` };
  }
}

/** SelfSubjectRulesReview {1 metadata, 2 spec {1 namespace}, 3 status}: the namespace. */
export function decodeSelfSubjectRulesReviewNamespace(raw: Uint8Array): { ok: true; namespace: string } | { ok: false; error: string } {
  try {
    const spec = readFields(first(readFields(raw), 2)?.bytes ?? new Uint8Array());
    return { ok: true, namespace: text(first(spec, 1)?.bytes) };
  } catch (error) {
    return { ok: false, error: `invalid protobuf: ${(error as Error).message}` };
  }
}

/** {1 rawSelector, 2 requirements {1 key, 2 operator, 3 values}}. */
function selector(bytes: Uint8Array): SelectorAttributes {
  const fields = readFields(bytes);
  const out: SelectorAttributes = {};
  const raw = text(first(fields, 1)?.bytes);
  if (raw !== '') out.rawSelector = raw;
  const requirements = fields.filter((f) => f.number === 2 && f.bytes !== undefined).map((f) => readFields(f.bytes!));
  if (requirements.length > 0) {
    out.requirements = requirements.map((r) => ({
      key: text(first(r, 1)?.bytes),
      operator: text(first(r, 2)?.bytes) as 'In' | 'NotIn' | 'Exists' | 'DoesNotExist',
      values: r.filter((v) => v.number === 3).map((v) => text(v.bytes)),
    }));
  }
  return out;
}
