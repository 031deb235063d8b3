// The public face of engine/store: one `Store` per database (one revision sequence, like etcd), and
// a `ResourceStore` per resource with Kubernetes storage semantics for cluster-scoped objects.
//
// Call rules:
// - Every object the store returns is deeply frozen and shared; copy it before changing it.
// - create/update/guaranteedUpdate take over the object they are given: it gets its
//   resourceVersion, is frozen in place and becomes the cached version (no decode of our own
//   writes). Objects must be plain JSON data (what JSON.parse makes); build a new one per write.
// - Objects go in without metadata.resourceVersion on create; on update it is the optimistic-
//   concurrency token (unset = unconditional). The store sets metadata.resourceVersion on
//   everything it returns. uid, creationTimestamp and generation are the caller's, kept as given.
// - Failures reject with a `StoreError` (store-errors.ts); the API edge makes the `Status` (api/engine-errors.ts).
// - A watch never rejects after it starts: problems arrive as one ERROR event, then the end.

import type { KubeObject } from '../resources/types.ts';
import type { StoreError } from './store-errors.ts';
import type { StoredForm } from './cached-object.ts';
import type { ResourceInfo } from './resource-info.ts';
import type { WatchEvent } from './watch-event.ts';

export type { ResourceInfo } from './resource-info.ts';
export type { StoredForm } from './cached-object.ts';

export interface GetOptions {
  /** "" (or unset) = latest, consistent; "0" = any cached version; "N" = at least as new as N. */
  readonly resourceVersion?: string;
}

export interface ListOptions {
  readonly resourceVersion?: string;
  /** "Exact" | "NotOlderThan" | "" (validated; anything else is 422 Invalid). */
  readonly resourceVersionMatch?: string;
  /** Page size; 0 or unset = everything. */
  readonly limit?: number;
  readonly continue?: string | undefined;
  readonly labelSelector?: string | undefined;
  readonly fieldSelector?: string | undefined;
  /** Only so a list that carries it can be refused as kube-apiserver refuses it. */
  readonly sendInitialEvents?: boolean;
}

export interface ListResult {
  readonly items: readonly KubeObject[];
  /** The revision the list was served at; always a revision a watch can start from. */
  readonly resourceVersion: string;
  readonly continue?: string;
  /** Items after this page; only for unfiltered lists that have more. */
  readonly remainingItemCount?: number;
  /** Each item's stored form, in item order: its encodings, cached per object version. */
  readonly forms: readonly StoredForm[];
}

export interface Preconditions {
  readonly uid?: string | undefined;
  readonly resourceVersion?: string | undefined;
}

export interface WriteOptions {
  readonly preconditions?: Preconditions | undefined;
  /** The request's deadline or disconnect: an update still retrying (or waiting its turn) stops, unwritten. */
  readonly signal?: AbortSignal | undefined;
}

/** Computes the new object from the current one; may throw a StoreError (e.g. Conflict) to stop. */
export type TryUpdate = (current: KubeObject) => KubeObject | Promise<KubeObject>;

export interface WatchOptions {
  readonly resourceVersion?: string;
  /** Only with sendInitialEvents, and then it must be "NotOlderThan". */
  readonly resourceVersionMatch?: string;
  /** Start with the current state as ADDED events (default: when resourceVersion is "" or "0"). */
  readonly sendInitialEvents?: boolean;
  readonly allowWatchBookmarks?: boolean;
  readonly labelSelector?: string | undefined;
  readonly fieldSelector?: string | undefined;
  /** End the watch cleanly after this long (timeoutSeconds × 1000); a bookmark comes shortly before. */
  readonly timeoutMs?: number;
}

/**
 * A running watch. Pull events with `for await` (or `next()`); events wait in a bounded buffer, and
 * a watcher that falls further behind gets one ERROR event and ends. `stop()` ends it at once.
 */
export interface Watcher extends AsyncIterableIterator<WatchEvent> {
  stop(): void;
  readonly stopped: boolean;
  /** Events ready to be pulled. */
  readonly pending: number;
  /** Up to `max` events available now, without waiting (initial events first); none at the end. */
  takeReady(max: number): WatchEvent[];
  /** The next event available now, or undefined (at the end, or while waiting: `stopped` says which). */
  takeNext(): WatchEvent | undefined;
  /**
   * The alternative to a pending `next()`: `consumer.watchReady()` is called whenever an event
   * becomes ready or the watcher ends, so a consumer between events keeps no promise or frame.
   * A consumer set while events are ready (or after the end) is called at once.
   */
  setConsumer(consumer: WatchConsumer | undefined): void;
}

export interface WatchConsumer {
  watchReady(): void;
}

export interface ResourceStore {
  readonly resource: ResourceInfo;
  get(name: string, options?: GetOptions): Promise<KubeObject>;
  /**
   * `get` without a promise when the watch cache can answer now: the object, or undefined when the
   * read must wait (the store opening, a consistent read catching up, a resourceVersion the cache
   * has not reached) and the caller must use `get`. Throws what `get` would then (not found, a bad name).
   */
  getNow(name: string, resourceVersion?: string): KubeObject | undefined;
  list(options?: ListOptions): Promise<ListResult>;
  create(object: KubeObject): Promise<KubeObject>;
  /** Replaces the object; metadata.resourceVersion, when set, must be the current one (else Conflict). */
  update(object: KubeObject, options?: WriteOptions): Promise<KubeObject>;
  /** Read-modify-write with retries on concurrent change (PATCH, status updates). */
  guaranteedUpdate(name: string, tryUpdate: TryUpdate, options?: WriteOptions): Promise<KubeObject>;
  /** Deletes and returns the last state, at the deletion's resourceVersion. */
  delete(name: string, options?: WriteOptions): Promise<KubeObject>;
  watch(options?: WatchOptions): Promise<Watcher>;
}

export type StoreState = 'new' | 'opening' | 'open' | 'failed' | 'closing' | 'closed';

export interface Store {
  readonly state: StoreState;
  /** While open: the failed write that writes wait to recover from (they are refused; reads go on). */
  readonly writeOutage: StoreError | undefined;
  /**
   * A LIST at resourceVersion "" is served from the watch cache once it has caught up with the
   * backend (kube's ConsistentListFromCache); APF's LIST work estimate depends on it.
   */
  readonly servesConsistentListsFromCache: boolean;
  /** Opens the backend, recovers, fills the watch cache. Calls made while opening wait for it. */
  open(): Promise<void>;
  /** Ends every watch and closes the backend. */
  close(): Promise<void>;
  /** The newest revision the watch cache has applied. */
  revision(): number;
  /** The per-resource view (cached: the same object for the same group and resource). */
  for(resource: ResourceInfo): ResourceStore;
  /** Plain data about the cache, for /debug and tests. */
  dump(): StoreDump;
}

/**
 * What this resource's LISTs have cost since the cache was made, as kube-apiserver 1.32 counts a
 * LIST its watch cache serves (apiserver_cache_list_*): the objects the cache handed over for the
 * request (every object at the list's revision from where the page starts, a limit's unread tail
 * included, as kube counts its cache's whole answer before paging it), and the objects returned.
 */
export interface ListCounts {
  lists: number;
  fetched: number;
  returned: number;
}

export interface StoreDump {
  readonly state: StoreState;
  readonly backend: string;
  readonly revision: number;
  readonly resources: readonly {
    readonly prefix: string;
    readonly objects: number;
    readonly windowEvents: number;
    readonly windowStartRevision: number;
    readonly watchers: number;
    /** This resource's LISTs so far. */
    readonly lists: Readonly<ListCounts>;
  }[];
}
