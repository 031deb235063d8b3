// Objects, lists and watch events as `application/vnd.kubernetes.protobuf`: which message each kind
// is, the envelope around it, and the bytes kept per stored object version so that a LIST or a
// watch fan-out encodes each object once (as the JSON path does with its cached text).
import type { KubeObject } from '../resources/types.ts';
import { onEncodingsReleased } from '../store/cached-object.ts';
import { decodeMessage, encodeMessage, ProtobufError } from './codec.ts';
import { decodeEnvelope, encodeEnvelope, envelopeAround, fieldHeader, PROTOBUF_MEDIA_TYPE } from './envelope.ts';
import { MESSAGE_PREFIX } from './go-types.ts';

export { PROTOBUF_MEDIA_TYPE, ProtobufError };

const { flowcontrol: FC, authorization: AUTHZ, authentication: AUTHN, meta: META } = MESSAGE_PREFIX;

/** Kind → message. Kinds are unique among what Fairway serves, so the group is not needed to pick one. */
const MESSAGES: ReadonlyMap<string, string> = new Map([
  ['PriorityLevelConfiguration', `${FC}PriorityLevelConfiguration`],
  ['PriorityLevelConfigurationList', `${FC}PriorityLevelConfigurationList`],
  ['FlowSchema', `${FC}FlowSchema`],
  ['FlowSchemaList', `${FC}FlowSchemaList`],
  ['SelfSubjectAccessReview', `${AUTHZ}SelfSubjectAccessReview`],
  ['SelfSubjectRulesReview', `${AUTHZ}SelfSubjectRulesReview`],
  ['SelfSubjectReview', `${AUTHN}SelfSubjectReview`],
  ['Status', `${META}Status`],
  ['DeleteOptions', `${META}DeleteOptions`],
  ['PartialObjectMetadata', `${META}PartialObjectMetadata`],
  ['PartialObjectMetadataList', `${META}PartialObjectMetadataList`],
]);

function messageFor(kind: string): string {
  const name = MESSAGES.get(kind);
  if (name === undefined) throw new ProtobufError(`object of kind ${JSON.stringify(kind)} has no protobuf message`);
  return name;
}

interface Typed {
  kind?: unknown;
  apiVersion?: unknown;
}

const messageBytes = new WeakMap<object, Uint8Array>();
// A past version keeps no message (engine/store/cached-object.ts, releaseEncodings).
onEncodingsReleased((form) => messageBytes.delete(form.object));

/** The message bytes kept for a stored object, if any. */
export function keptObjectMessage(object: KubeObject): Uint8Array | undefined {
  return messageBytes.get(object);
}

/** Keeps a stored object's message bytes (made on a worker: api/handlers/encoded-items.ts). */
export function keepObjectMessage(object: KubeObject, bytes: Uint8Array): void {
  messageBytes.set(object, bytes);
}

/** The message bytes (no envelope) of an object of a known kind; cached for frozen (stored) objects. */
export function objectMessage(object: KubeObject): Uint8Array {
  let bytes = messageBytes.get(object);
  if (bytes === undefined) {
    bytes = encodeMessage(messageFor(String(object.kind)), object);
    if (Object.isFrozen(object)) messageBytes.set(object, bytes);
  }
  return bytes;
}

/** A whole protobuf body: envelope (with the object's own apiVersion and kind) around its message. */
export function encodeObject(object: unknown): Buffer {
  const typed = object as Typed;
  return encodeEnvelope(String(typed.apiVersion ?? ''), String(typed.kind ?? ''), objectMessage(object as KubeObject));
}

/**
 * A list body built from its items' cached messages: `metadata` (ListMeta, field 1), then each item
 * (field 2), exactly what Go writes for FooList.
 */
export function encodeList(listKind: string, apiVersion: string, metadata: unknown, items: readonly KubeObject[]): Buffer {
  return encodeListOfMessages(listKind, apiVersion, metadata, items.map(objectMessage));
}

/** The same, from the items' message bytes. */
export function encodeListOfMessages(listKind: string, apiVersion: string, metadata: unknown, messages: readonly Uint8Array[]): Buffer {
  return Buffer.concat(listBodyParts(listKind, apiVersion, metadata, messages));
}

/**
 * The list body as parts, the items' messages among them as they are (no copy): the envelope's
 * head, ListMeta (field 1), each item's field header (field 2) and message, the envelope's tail.
 */
export function listBodyParts(listKind: string, apiVersion: string, metadata: unknown, messages: readonly Uint8Array[]): Uint8Array[] {
  messageFor(listKind);
  const parts: Uint8Array[] = [Buffer.alloc(0), lengthDelimited(1, encodeMessage(`${META}ListMeta`, metadata))];
  let rawLength = parts[1]!.length;
  for (const message of messages) {
    const header = fieldHeader(2, message.length);
    parts.push(header, message);
    rawLength += header.length + message.length;
  }
  const { head, tail } = envelopeAround(apiVersion, listKind, rawLength);
  parts[0] = head;
  parts.push(tail);
  return parts;
}

/** One frame of a `;stream=watch` body: a 4-byte big-endian length, then WatchEvent {type, object {raw: the object's body}}. */
export function watchFrame(type: string, objectBody: Uint8Array): Buffer {
  const event = Buffer.concat([lengthDelimited(1, Buffer.from(type, 'utf8')), lengthDelimited(2, lengthDelimited(1, objectBody))]);
  const frame = Buffer.allocUnsafe(4 + event.length);
  frame.writeUInt32BE(event.length, 0);
  event.copy(frame, 4);
  return frame;
}

/** A field `number` of wire type 2 holding `payload`. */
function lengthDelimited(number: number, payload: Uint8Array): Buffer {
  return Buffer.concat([fieldHeader(number, payload.length), payload]);
}

export interface DecodedBody {
  apiVersion: string;
  kind: string;
  /** The object in its JSON form, with apiVersion and kind from the envelope when it gave them. */
  value: Record<string, unknown>;
}

/**
 * A protobuf request body as the object it carries. `defaultKind` is used when the envelope names
 * none (as Go's decoder falls back on the endpoint's kind). Errors carry Go's wording; the kind is
 * left to the caller to check (an unknown one comes back as type meta only).
 */
export function decodeBody(
  body: Uint8Array,
  defaultKind: string,
): { ok: true; decoded: DecodedBody } | { ok: false; error: string /** Set once the envelope was read. */; typeMeta?: { apiVersion: string; kind: string } } {
  const unwrapped = decodeEnvelope(body);
  if (!unwrapped.ok) return unwrapped;
  const { apiVersion, kind, raw } = unwrapped.envelope;
  const effectiveKind = kind === '' ? defaultKind : kind;
  const message = MESSAGES.get(effectiveKind);
  // A kind without a message here is none the endpoint takes: its type meta alone lets the caller
  // refuse it in the words it uses for a JSON body of that kind.
  if (message === undefined) return { ok: true, decoded: { apiVersion, kind: effectiveKind, value: { apiVersion, kind: effectiveKind } } };
  try {
    const value = decodeMessage(message, raw);
    if (apiVersion !== '') value.apiVersion = apiVersion;
    if (kind !== '') value.kind = kind;
    return { ok: true, decoded: { apiVersion, kind: effectiveKind, value } };
  } catch (error) {
    if (error instanceof ProtobufError) return { ok: false, error: error.message, typeMeta: { apiVersion, kind: effectiveKind } };
    throw error;
  }
}
