// Watch events as every watcher receives them. One event object is shared by all the watchers that
// see it the same way, and its encodings are computed once: `json()` is the exact line the HTTP
// layer writes (`{"type":"ADDED","object":{…}}`, newline not included), built from the object's own
// cached JSON; `encode(encoder)` caches any other format (Table, YAML, …) per encoder function. So
// fanning one change out to 10,000 watchers serialises it once per format.

import type { KubeObject, Status } from '../resources/types.ts';
import { objectJson, type CachedObject } from './cached-object.ts';
import type { ResourceInfo } from './store-types.ts';

export type WatchEventType = 'ADDED' | 'MODIFIED' | 'DELETED' | 'BOOKMARK' | 'ERROR';

/** The annotation on the bookmark that ends the initial events of a sendInitialEvents watch. */
export const INITIAL_EVENTS_END_ANNOTATION = 'k8s.io/initial-events-end';

export class WatchEvent {
  readonly type: WatchEventType;
  /** Frozen; for ERROR a Status. */
  readonly object: KubeObject | Status;
  /** The cache version behind the object, whose JSON text is reused. */
  private readonly source: CachedObject | undefined;
  private jsonText: string | undefined;
  private encodings: Map<(event: WatchEvent) => unknown, unknown> | undefined;

  constructor(type: WatchEventType, object: KubeObject | Status, source?: CachedObject) {
    this.type = type;
    this.object = object;
    this.source = source;
  }

  /** The object's resourceVersion (every non-ERROR event has one). */
  get resourceVersion(): string | undefined {
    return (this.object as KubeObject).metadata?.resourceVersion;
  }

  json(): string {
    if (this.jsonText === undefined) {
      const objectText = this.source !== undefined ? objectJson(this.source) : JSON.stringify(this.object);
      this.jsonText = `{"type":"${this.type}","object":${objectText}}`;
    }
    return this.jsonText;
  }

  /** `encoder(this)`, computed once per event and encoder. */
  encode<T>(encoder: (event: WatchEvent) => T): T {
    this.encodings ??= new Map();
    if (!this.encodings.has(encoder)) this.encodings.set(encoder, encoder(this));
    return this.encodings.get(encoder) as T;
  }
}

export function objectEvent(type: 'ADDED' | 'MODIFIED' | 'DELETED', cached: CachedObject): WatchEvent {
  return new WatchEvent(type, cached.object, cached);
}

const addedEvents = new WeakMap<CachedObject, WatchEvent>();

/** The ADDED event for an object's initial listing, shared by every watch that starts while it is current. */
export function addedEventFor(cached: CachedObject): WatchEvent {
  let event = addedEvents.get(cached);
  if (event === undefined) {
    event = objectEvent('ADDED', cached);
    addedEvents.set(cached, event);
  }
  return event;
}

/**
 * A bookmark: an empty object of the watched kind carrying only the revision (and, for the end of
 * initial events, the annotation), shaped as kube-apiserver sends it.
 */
export function bookmarkEvent(resource: ResourceInfo, revision: number, initialEventsEnd = false): WatchEvent {
  const metadata: Record<string, unknown> = { resourceVersion: String(revision), creationTimestamp: null };
  if (initialEventsEnd) metadata.annotations = Object.freeze({ [INITIAL_EVENTS_END_ANNOTATION]: 'true' });
  const object: KubeObject = Object.freeze({
    kind: resource.kind,
    apiVersion: resource.apiVersion,
    metadata: Object.freeze(metadata),
    ...(resource.bookmarkFields ?? {}),
  });
  return new WatchEvent('BOOKMARK', object);
}

export function errorEvent(status: Status): WatchEvent {
  return new WatchEvent('ERROR', Object.freeze(status));
}
