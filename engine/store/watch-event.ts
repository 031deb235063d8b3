// Watch events as every watcher receives them. One event object is shared by all the watchers that
// see it the same way, and its encodings are computed once: the line the HTTP layer writes
// (`{"type":"ADDED","object":{…}}`) is `prefix`, the object's own cached JSON bytes and `}`, copied
// straight into the response (`json()` is the same line as text); `encode(encoder)` caches any other
// format (Table, YAML, …) per encoder function. So fanning one change out to 10,000 watchers
// serialises it once per format.

import type { KubeObject, Status } from '../resources/types.ts';
import { objectJsonBytes, type CachedObject, type StoredForm } from './cached-object.ts';
import { goJsonText } from './go-json.ts';
import type { ResourceInfo } from './resource-info.ts';
import type { StoreError } from './store-errors.ts';

export type WatchEventType = 'ADDED' | 'MODIFIED' | 'DELETED' | 'BOOKMARK' | 'ERROR';

/** The annotation on the bookmark that ends the initial events of a sendInitialEvents watch. */
export const INITIAL_EVENTS_END_ANNOTATION = 'k8s.io/initial-events-end';

export class WatchEvent {
  readonly type: WatchEventType;
  /** Frozen; for ERROR a Status. */
  readonly object: KubeObject | Status;
  /** The cache version behind the object, whose encodings are reused. */
  readonly form: StoredForm | undefined;
  /** For ERROR: why the store ended the watch. */
  readonly error: StoreError | undefined;
  private jsonText: string | undefined;
  private ownBytes: Buffer | undefined;
  private encodings: Map<(event: WatchEvent) => unknown, unknown> | undefined;

  constructor(type: WatchEventType, object: KubeObject | Status, form?: StoredForm, error?: StoreError) {
    this.type = type;
    this.object = object;
    this.form = form;
    this.error = error;
  }

  /** The object's resourceVersion (every non-ERROR event has one). */
  get resourceVersion(): string | undefined {
    return (this.object as KubeObject).metadata?.resourceVersion;
  }

  /** The opening bytes of this event's JSON line, before the object: `{"type":"ADDED","object":`. */
  get prefix(): Buffer {
    return EVENT_PREFIXES[this.type];
  }

  /** The object's JSON bytes (cached on its stored form when it has one). */
  objectBytes(): Buffer {
    if (this.form !== undefined) return objectJsonBytes(this.form);
    this.ownBytes ??= Buffer.from(goJsonText(this.object), 'utf8');
    return this.ownBytes;
  }

  /** The event's line without its newline: `prefix`, `objectBytes()`, then `}`. */
  json(): string {
    this.jsonText ??= `${this.prefix.toString('latin1')}${this.objectBytes().toString('utf8')}}`;
    return this.jsonText;
  }

  /** Forgets its encodings (its object's version is past: cached-object.ts, releaseEncodings); they are made again if asked for. */
  releaseEncodings(): void {
    this.jsonText = undefined;
    this.ownBytes = undefined;
    this.encodings = undefined;
  }

  /** `encoder(this)`, computed once per event and encoder. */
  encode<T>(encoder: (event: WatchEvent) => T): T {
    this.encodings ??= new Map();
    if (!this.encodings.has(encoder)) this.encodings.set(encoder, encoder(this));
    return this.encodings.get(encoder) as T;
  }
}

const EVENT_PREFIXES: Readonly<Record<WatchEventType, Buffer>> = {
  ADDED: Buffer.from('{"type":"ADDED","object":'),
  MODIFIED: Buffer.from('{"type":"MODIFIED","object":'),
  DELETED: Buffer.from('{"type":"DELETED","object":'),
  BOOKMARK: Buffer.from('{"type":"BOOKMARK","object":'),
  ERROR: Buffer.from('{"type":"ERROR","object":'),
};

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

/** Forgets the shared initial-listing event of a version that is past, with its encodings. */
export function forgetAddedEvent(cached: CachedObject): void {
  addedEvents.delete(cached);
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

/**
 * The event that ends a watch the store cut off. It carries the store's error; its object is the
 * failure as far as the store can word it (message only). The API edge sends it as the Status
 * kube-apiserver would send for the error (reason, code, details), built from `error`.
 */
export function errorEvent(error: StoreError): WatchEvent {
  const status: Status = { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', message: error.message };
  return new WatchEvent('ERROR', Object.freeze(status), undefined, error);
}
