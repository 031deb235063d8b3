// One version of one object as the watch cache holds it: deeply frozen, with
// metadata.resourceVersion set to the revision that wrote it, shared by every list, get and watch
// that returns it. It keeps the object's encoded forms as bytes: the codec bytes it was stored as,
// and its JSON once computed (at most once, however many clients receive it). A worker thread
// rebuilds the very same object from the codec bytes and the revision (`objectFromCodec`), so
// encoding work can leave the main thread as buffers instead of object graphs.
//
// Objects handed out by the store are these frozen objects: callers copy before changing them
// (structuredClone), and an accidental write throws instead of corrupting the cache.

import type { KubeObject } from '../resources/types.ts';
import { setOwn } from '../own-property.ts';
import { decodeObject, encodeObject } from './codec.ts';
import { goJsonText } from './go-json.ts';

/**
 * One object version as the store holds it, with its encodings as bytes: what response encoders
 * reuse, and what crosses to a worker thread instead of the object graph (a CachedObject below).
 */
export interface StoredForm {
  /** Frozen and shared. */
  readonly object: KubeObject;
  /** The revision shown as the object's metadata.resourceVersion. */
  readonly revision: number;
  /** Its codec bytes (codec.ts), without resourceVersion: decoded and given `revision`, they make `object` again. */
  readonly codecBytes: Uint8Array;
  /** Its JSON as kube-apiserver writes it (no trailing newline), once someone has encoded it. */
  jsonBytes: Buffer | undefined;
  /** Its JSON and a newline (a GET's whole body), once a GET has sent it (`objectJsonLine`). */
  jsonLine: Buffer | undefined;
}

export interface CachedObject extends StoredForm {
  readonly key: string;
  readonly name: string;
  /** The revision that wrote this version (compare-and-swap uses it). */
  readonly modRevision: number;
  readonly labels: Readonly<Record<string, string>> | undefined;
  /** Stored with a transformer that is no longer the write transformer: rewrite on next update. */
  readonly stale: boolean;
}

// The cached version behind every object the store hands out, so a response encoder given only the
// object can still reach its encodings.
const formsByObject = new WeakMap<KubeObject, CachedObject>();

/** The stored form of an object the store returned (undefined for any other object). */
export function storedFormOf(object: KubeObject): StoredForm | undefined {
  return formsByObject.get(object);
}

/** A stored form made now (encoded here) for an object the store did not hand out, shown at `revision`. */
export function newStoredForm(object: KubeObject, revision: number): StoredForm {
  return { object, revision, codecBytes: encodeObject(object), jsonBytes: undefined, jsonLine: undefined };
}

function remember(cached: CachedObject): CachedObject {
  formsByObject.set(cached.object, cached);
  return cached;
}

/** Wraps a frozen decoded object (without resourceVersion) as the version written at `modRevision`. */
export function makeCachedObject(key: string, name: string, decoded: KubeObject, modRevision: number, codecBytes: Uint8Array, stale: boolean): CachedObject {
  const object = deepFreeze(withResourceVersion(decoded, String(modRevision)));
  const labels = object.metadata?.labels;
  return remember({
    key,
    name,
    modRevision,
    revision: modRevision,
    object,
    labels: labels ?? undefined,
    codecBytes,
    stale,
    jsonBytes: undefined,
    jsonLine: undefined,
  });
}

/** The same content presented at another revision (a DELETED event carries the deletion revision). */
export function cachedAtRevision(source: CachedObject, revision: number): CachedObject {
  if (revision === source.revision) return source;
  const object = deepFreeze(withResourceVersion(source.object, String(revision)));
  return remember({ ...source, revision, object, jsonBytes: undefined, jsonLine: undefined });
}

// Who else keeps encodings of a version (the API layer: api/handlers/encoded-items.ts,
// engine/protobuf/objects.ts), told when it is past; registered once per module, at its loading.
const releasers: ((form: StoredForm) => void)[] = [];

/** Calls `release` for every version that becomes past (`releaseEncodings`): drop what you keep for it. */
export function onEncodingsReleased(release: (form: StoredForm) => void): void {
  releasers.push(release);
}

/**
 * Drops a version's kept encodings (its JSON, and what `onEncodingsReleased` listeners keep) once a
 * newer version or a deletion has replaced it. The watch cache still holds it for watches and lists
 * at older revisions, which are rare next to the writes that push it out; keeping its encodings
 * would hold two or three more copies of it for as long as the window does. A reader that
 * still wants one makes it again (`objectJsonBytes`).
 */
export function releaseEncodings(form: StoredForm): void {
  form.jsonBytes = undefined;
  form.jsonLine = undefined;
  for (const release of releasers) release(form);
}

/** The object's JSON (Go's encoding, no trailing newline), computed once per version. */
export function objectJsonBytes(form: StoredForm): Buffer {
  let bytes = form.jsonBytes;
  if (bytes === undefined) {
    bytes = Buffer.from(goJsonText(form.object), 'utf8');
    form.jsonBytes = bytes;
  }
  return bytes;
}

const NEWLINE = 0x0a;

/**
 * The object's JSON followed by a newline, as a GET sends it (json.Encoder's framing), made once per
 * version from its JSON (`objectJsonBytes`), so a GET writes the cached bytes as they are instead of
 * joining them per request. The JSON then becomes a view of the same bytes, so the version keeps one copy.
 */
export function objectJsonLine(form: StoredForm): Buffer {
  let line = form.jsonLine;
  if (line === undefined) {
    const json = objectJsonBytes(form);
    line = Buffer.allocUnsafeSlow(json.byteLength + 1);
    line.set(json, 0);
    line[json.byteLength] = NEWLINE;
    form.jsonLine = line;
    form.jsonBytes = line.subarray(0, json.byteLength);
  }
  return line;
}

/** The object a stored form holds, rebuilt from its codec bytes (in any thread): equal, key order included. */
export function objectFromCodec(codecBytes: Uint8Array, revision: number): KubeObject {
  return withResourceVersion(decodeObject(codecBytes), String(revision));
}

// Go's ObjectMeta declares these before resourceVersion; every other field comes after it.
const BEFORE_RESOURCE_VERSION: ReadonlySet<string> = new Set(['name', 'generateName', 'namespace', 'selfLink', 'uid']);

/**
 * A shallow copy whose metadata (a new object) carries `resourceVersion` where Go's
 * ObjectMeta field order has it, whatever the metadata held before: one placement for every cached
 * version, so the JSON of an object does not depend on how it reached the cache.
 */
export function withResourceVersion(object: KubeObject, resourceVersion: string): KubeObject {
  return { ...object, metadata: metadataWithResourceVersion(object.metadata ?? {}, resourceVersion) };
}

function metadataWithResourceVersion(meta: object, resourceVersion: string): Record<string, unknown> {
  const ordered: Record<string, unknown> = {};
  let placed = false;
  for (const key of Object.keys(meta)) {
    if (key === 'resourceVersion') continue;
    if (!placed && !BEFORE_RESOURCE_VERSION.has(key)) {
      ordered.resourceVersion = resourceVersion;
      placed = true;
    }
    setOwn(ordered, key, (meta as Record<string, unknown>)[key]);
  }
  if (!placed) ordered.resourceVersion = resourceVersion;
  return ordered;
}

/** Freezes a value and everything reachable from it. */
export function deepFreeze<T>(value: T): T {
  if (typeof value === 'object' && value !== null && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const key in value) deepFreeze((value as Record<string, unknown>)[key]);
  }
  return value;
}

/**
 * Makes a written object the cached version without decoding its bytes: the caller hands it over
 * (store-types.ts), so it gets its resourceVersion and is frozen in place, all the way down; only
 * its metadata is replaced (by a copy with the resourceVersion placed), and a frozen top level
 * (shared with a cached version, as in `{...current, spec}`) is copied. Sound for plain JSON data,
 * which is what the API layer stores: such objects encode and decode to an equal value, so the
 * cache still shows what is on disk.
 */
export function adoptWrittenObject(key: string, name: string, object: KubeObject, modRevision: number, codecBytes: Uint8Array): CachedObject {
  let top = object;
  if (Object.isFrozen(top)) top = { ...top };
  const metadata = metadataWithResourceVersion(top.metadata ?? {}, String(modRevision));
  top.metadata = metadata;
  deepFreeze(top);
  const labels = (metadata.labels ?? undefined) as Readonly<Record<string, string>> | undefined;
  return remember({ key, name, modRevision, revision: modRevision, object: top, labels, codecBytes, stale: false, jsonBytes: undefined, jsonLine: undefined });
}
