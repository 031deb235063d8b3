// One version of one object as the watch cache holds it: deeply frozen, with
// metadata.resourceVersion set to the revision that wrote it, shared by every list, get and watch
// that returns it. Its JSON text is computed at most once, however many clients receive it.
//
// Objects handed out by the store are these frozen objects: callers copy before changing them
// (structuredClone), and an accidental write throws instead of corrupting the cache.

import type { KubeObject } from '../resources/types.ts';

export interface CachedObject {
  readonly key: string;
  readonly name: string;
  readonly modRevision: number;
  readonly object: KubeObject;
  readonly labels: Readonly<Record<string, string>> | undefined;
  /** The codec bytes of this version (before the transformer), for no-op update detection. */
  readonly codecBytes: Uint8Array | undefined;
  /** Stored with a transformer that is no longer the write transformer: rewrite on next update. */
  readonly stale: boolean;
  /** Cached `JSON.stringify(object)`. */
  json: string | undefined;
}

/** Wraps a frozen decoded object (without resourceVersion) as the version written at `modRevision`. */
export function makeCachedObject(
  key: string,
  name: string,
  decoded: KubeObject,
  modRevision: number,
  codecBytes: Uint8Array | undefined,
  stale: boolean,
): CachedObject {
  const object = withResourceVersion(decoded, modRevision);
  const labels = object.metadata?.labels;
  return { key, name, modRevision, object, labels: labels ?? undefined, codecBytes, stale, json: undefined };
}

/** The same content presented at another revision (a DELETED event carries the deletion revision). */
export function cachedAtRevision(source: CachedObject, revision: number): CachedObject {
  if (revision === source.modRevision) return source;
  return { ...source, object: withResourceVersion(source.object, revision), json: undefined };
}

export function objectJson(cached: CachedObject): string {
  if (cached.json === undefined) cached.json = JSON.stringify(cached.object);
  return cached.json;
}

/** A frozen shallow copy whose metadata carries `resourceVersion`; nested values are shared. */
function withResourceVersion(object: KubeObject, revision: number): KubeObject {
  const metadata = Object.freeze({ ...(object.metadata ?? {}), resourceVersion: String(revision) });
  return Object.freeze({ ...object, metadata });
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
 * (store-types.ts), so it gets its resourceVersion and is frozen in place, all the way down. Only a
 * top level or metadata that is already frozen (shared with a cached version, as in
 * `{...current, spec}`) is copied. Sound for plain JSON data, which is what the API layer stores:
 * such objects encode and decode to an equal value, so the cache still shows what is on disk.
 */
export function adoptWrittenObject(key: string, name: string, object: KubeObject, modRevision: number, codecBytes: Uint8Array): CachedObject {
  let top = object;
  if (Object.isFrozen(top)) top = { ...top };
  let metadata = (top.metadata ?? {}) as Record<string, unknown>;
  if (Object.isFrozen(metadata)) metadata = { ...metadata };
  metadata.resourceVersion = String(modRevision);
  top.metadata = metadata;
  deepFreeze(top);
  const labels = (metadata.labels ?? undefined) as Readonly<Record<string, string>> | undefined;
  return { key, name, modRevision, object: top, labels, codecBytes, stale: false, json: undefined };
}
