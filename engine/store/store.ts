// The abstract store: everything every backend shares, over backends that only commit, read at open
// and stream events (backend.ts). It owns the lifecycle (calls made while opening wait; calls after
// a failed write or close are refused), the codec and transformer chain (swappable at runtime, see
// isStale), recovery (priming the watch cache from the backend's snapshot and event log, deferring a
// resource a KMS outage makes unreadable) and the feed that turns backend events into cache changes
// in revision order. Per-resource semantics live in resource-store.ts.
// (Over 300 lines: the lifecycle, the event feed and the transformer swap share state that a split
// would expose.)

import type { Clock } from '../clock.ts';
import type { KubeObject } from '../resources/types.ts';
import type { BackendEvent, BackendSnapshot, CommitOp, CommitResult, StorageBackend } from './backend.ts';
import { adoptWrittenObject, makeCachedObject, type CachedObject } from './cached-object.ts';
import { CodecError, decodeFrozenObject, encodeObject } from './codec.ts';
import { ResourceStoreImpl, type StoreCore as SharedStoreCore, type WriteHint } from './resource-store.ts';
import { KeyLock } from './key-lock.ts';
import { internalError, isStoreError, isStoreErrorCode, notOpenError, requestTooLargeError, type StoreError } from './store-errors.ts';
import type { ResourceInfo, ResourceStore, Store, StoreDump, StoreState } from './store-types.ts';
import { identityTransformer, type Transformer } from './transformers/transformer.ts';
import { isKmsOutage } from './transformers/transform-error.ts';
import { createTransformerHolder, isTransformerHolder, type TransformerHolder } from './transformer-holder.ts';
import { DeferredResources } from './deferred-resources.ts';
import { recoverWindowEvents } from './log-recovery.ts';
import { WatchCache, type CacheChange } from './watch-cache.ts';
import { errorEvent } from './watch-event.ts';
import { append } from '../append.ts';

export const KEY_PREFIX = '/registry/';

export interface StoreOptions {
  readonly backend: StorageBackend;
  readonly clock: Clock;
  /** A holder (transformer-holder.ts) lets the caller swap the transformer while the store runs. */
  readonly transformer?: Transformer | TransformerHolder | undefined;
  /** Events kept per resource in the watch cache (default 10,000). */
  readonly windowCapacity?: number | undefined;
  /** Events older than this leave the window (default 5 min, etcd's compaction interval in kube). */
  readonly windowMaxAgeMs?: number;
  /** What one resource's window may hold, by the stored size of its events' versions (default 64 MiB, --watch-cache-history-bytes). */
  readonly windowMaxBytes?: number | undefined;
  /** Undelivered events a watcher may hold before it is cut off (default 1,000). */
  readonly watcherBufferSize?: number;
  /** Period of bookmarks to watchers that allow them (default 60 s, as kube). */
  readonly bookmarkIntervalMs?: number;
  /** How long a read waits for a resourceVersion the cache has not reached (default 3 s, as kube). */
  readonly waitTimeoutMs?: number;
  /** The meta API group named in ListOptions errors (default meta.k8s.io). */
  readonly metaGroup?: string;
  /** After a failed write, how often to try to take writes again (default 1 s). */
  readonly writeRetryMs?: number | undefined;
  /** The largest write (key plus stored value) the store takes, as etcd's --max-request-bytes (default 1.5 MiB). */
  readonly maxRequestBytes?: number | undefined;
}

export const STORE_DEFAULTS = {
  windowCapacity: 10_000,
  windowMaxAgeMs: 300_000,
  // Without it, 1 MB objects written a few times a second would hold gigabytes for the 5 minutes.
  windowMaxBytes: 64 * 1024 * 1024,
  watcherBufferSize: 1_000,
  bookmarkIntervalMs: 60_000,
  waitTimeoutMs: 3_000,
  writeRetryMs: 1_000,
  // etcd's default --max-request-bytes: kube-apiserver can store nothing larger.
  maxRequestBytes: 1.5 * 1024 * 1024,
} as const;

export function createStore(options: StoreOptions): Store {
  return new StoreCore(options);
}

/** `/registry/<group>/<resource>/` (core group: `/registry/<resource>/`). */
export function resourcePrefix(resource: Pick<ResourceInfo, 'group' | 'resource'>): string {
  return resource.group === '' ? `${KEY_PREFIX}${resource.resource}/` : `${KEY_PREFIX}${resource.group}/${resource.resource}/`;
}

export class StoreCore implements Store, SharedStoreCore {
  /** `waitFresh` reads the backend's revision and serves from the cache once it is there. */
  readonly servesConsistentListsFromCache = true;
  readonly backend: StorageBackend;
  readonly clock: Clock;
  readonly transformers: TransformerHolder;
  readonly cache: WatchCache;
  readonly watcherBufferSize: number;
  readonly metaGroup: string | undefined;
  private readonly maxRequestBytes: number;
  /** Read-modify-writes of one key take turns (key-lock.ts). */
  readonly writers = new KeyLock();
  private currentState: StoreState = 'new';
  private opening: Promise<void> | undefined;
  private failure: StoreError | undefined;
  /** Why writes are refused while reads go on (a failed write the backend is recovering from). */
  private outage: StoreError | undefined;
  private cancelRetry: (() => void) | undefined;
  private readonly writeRetryMs: number;
  private feedChain: Promise<void> = Promise.resolve();
  private feedsQueued = 0;
  private heldEvents: BackendEvent[] | undefined = [];
  private heldProgress = 0;
  private readonly views = new Map<string, ResourceStoreImpl>();
  /** Versions at or below this revision may predate the transformer in force (see isStale). */
  private staleThroughRevision = 0;
  private seenGeneration = 0;
  private newestCommitRevision = 0;
  /** Resources a KMS plugin that was down at open could not decrypt (deferred-resources.ts). */
  private readonly unreadable = new DeferredResources();

  constructor(options: StoreOptions) {
    this.backend = options.backend;
    this.clock = options.clock;
    const transformer = options.transformer ?? identityTransformer;
    this.transformers = isTransformerHolder(transformer) ? transformer : createTransformerHolder(transformer);
    this.seenGeneration = this.transformers.generation;
    this.watcherBufferSize = options.watcherBufferSize ?? STORE_DEFAULTS.watcherBufferSize;
    this.metaGroup = options.metaGroup;
    this.writeRetryMs = options.writeRetryMs ?? STORE_DEFAULTS.writeRetryMs;
    this.maxRequestBytes = options.maxRequestBytes ?? STORE_DEFAULTS.maxRequestBytes;
    this.cache = new WatchCache(options.clock, {
      windowCapacity: options.windowCapacity ?? STORE_DEFAULTS.windowCapacity,
      windowMaxAgeMs: options.windowMaxAgeMs ?? STORE_DEFAULTS.windowMaxAgeMs,
      windowMaxBytes: options.windowMaxBytes ?? STORE_DEFAULTS.windowMaxBytes,
      bookmarkIntervalMs: options.bookmarkIntervalMs ?? STORE_DEFAULTS.bookmarkIntervalMs,
      waitTimeoutMs: options.waitTimeoutMs ?? STORE_DEFAULTS.waitTimeoutMs,
    });
  }

  get state(): StoreState {
    return this.currentState;
  }

  get writeOutage(): StoreError | undefined {
    return this.currentState === 'open' ? this.outage : undefined;
  }

  /** The transformer in force (read once per operation). */
  get transformer(): Transformer {
    return this.transformers.current;
  }

  /**
   * An update must write this version even when nothing changed: it was stored with a provider or
   * key that is no longer the write one, or before a transformer swap (its format is then unknown).
   */
  isStale(cached: CachedObject): boolean {
    this.noticeSwap();
    return cached.stale || cached.modRevision <= this.staleThroughRevision;
  }

  /** After a swap, everything written or read so far is suspect; returns the generation in force. */
  private noticeSwap(): number {
    const generation = this.transformers.generation;
    if (generation !== this.seenGeneration) {
      this.seenGeneration = generation;
      this.staleThroughRevision = Math.max(this.staleThroughRevision, this.newestCommitRevision, this.cache.revision);
    }
    return generation;
  }

  /** A version encoded by an older generation than the one in force is stale too. */
  private markIfOlder(generation: number, revision: number): void {
    if (generation !== this.noticeSwap()) this.staleThroughRevision = Math.max(this.staleThroughRevision, revision);
  }

  open(): Promise<void> {
    if (this.currentState !== 'new') return this.opening ?? Promise.reject(notOpenError(this.currentState));
    this.currentState = 'opening';
    this.opening = this.recover().then(
      () => {
        if (this.currentState === 'opening') this.currentState = 'open';
      },
      (error: unknown) => {
        this.currentState = 'failed';
        this.failure = asStoreError(error, 'FW_ERR_STORE_OPEN_FAILED', `opening ${this.backend.location} failed`);
        void this.backend._close().catch(() => undefined);
        throw this.failure;
      },
    );
    return this.opening;
  }

  async close(): Promise<void> {
    if (this.currentState === 'closed' || this.currentState === 'closing') return;
    if (this.currentState === 'opening') await this.opening?.catch(() => undefined);
    this.currentState = 'closing';
    this.cancelRetry?.();
    this.cache.closeWatchers();
    this.cache.failWaiters(notOpenError('closing'));
    await this.feedChain.catch(() => undefined);
    await this.backend._close();
    this.currentState = 'closed';
  }

  revision(): number {
    return this.cache.revision;
  }

  for(resource: ResourceInfo): ResourceStore {
    const prefix = resourcePrefix(resource);
    let view = this.views.get(prefix);
    if (view === undefined) {
      view = new ResourceStoreImpl(this, resource, prefix);
      this.views.set(prefix, view);
      this.cache.resource(prefix).info = resource;
    }
    return view;
  }

  dump(): StoreDump {
    return {
      state: this.currentState,
      backend: this.backend.manifest.name,
      revision: this.cache.revision,
      resources: [...this.cache.allResources()].map((r) => ({
        prefix: r.prefix,
        objects: r.size,
        windowEvents: r.window.size,
        windowStartRevision: r.window.startRevision,
        watchers: r.watchers.size,
        lists: { ...r.listCounts },
      })),
    };
  }

  /**
   * Resolves when the store can serve (with a prefix: that resource, loading it if it was deferred);
   * rejects when it cannot (not opened, failed, closed; the resource's values still unreadable).
   */
  ready(prefix?: string): Promise<void> | undefined {
    if (this.isReady(prefix)) return undefined;
    if (this.currentState === 'open') return this.loadDeferred(prefix!);
    if (this.currentState === 'opening') return this.opening!.then(() => this.ready(prefix));
    if (this.currentState === 'failed' && this.failure !== undefined) return Promise.reject(this.failure);
    return Promise.reject(notOpenError(this.currentState));
  }

  /** Codec + transformer for one write; remembers the result so the feed need not decode it again. */
  async prepareWrite(key: string, name: string, object: KubeObject): Promise<{ stored: Uint8Array; hint: WriteHint }> {
    const codecBytes = encodeObject(object);
    // Transformers only add bytes, so a value already too large is refused before encrypting it.
    this.checkRequestSize(key, codecBytes);
    const generation = this.noticeSwap();
    let stored: Uint8Array;
    try {
      stored = await this.transformers.current.transformToStorage(codecBytes, { key });
    } catch (error) {
      throw internalError('FW_ERR_STORE_TRANSFORM_FAILED', `transforming ${key} for storage failed: ${(error as Error).message}`, error);
    }
    this.checkRequestSize(key, stored);
    return { stored, hint: { key, name, object, codecBytes, generation, cached: undefined } };
  }

  /** etcd refuses a request over its limit whatever the backend; so does every backend here. */
  private checkRequestSize(key: string, value: Uint8Array): void {
    if (Buffer.byteLength(key) + value.byteLength > this.maxRequestBytes) throw requestTooLargeError();
  }

  commit(ops: readonly CommitOp[]): Promise<CommitResult> {
    let pending: Promise<CommitResult>;
    try {
      pending = this.backend._commit(ops);
    } catch (error) {
      pending = Promise.reject(error);
    }
    return pending.then(
      (result) => {
        if (result.ok) this.newestCommitRevision = Math.max(this.newestCommitRevision, result.revision);
        return result;
      },
      (error: unknown) => {
        throw asStoreError(error, 'FW_ERR_STORE_WRITE_FAILED', `writing ${ops[0]?.key ?? ''} failed`);
      },
    );
  }

  /** The cache's version of our own write at `revision` (decoding it if the feed has not yet). */
  writtenObject(hint: WriteHint, revision: number): CachedObject {
    this.markIfOlder(hint.generation, revision);
    if (hint.cached === undefined || hint.cached.modRevision !== revision) {
      // The first time: adopt the caller's object. Again (a retried commit never reuses a hint, so
      // only if asked twice for different revisions): present the adopted content at the new one.
      hint.cached =
        hint.cached === undefined
          ? adoptWrittenObject(hint.key, hint.name, hint.object, revision, hint.codecBytes)
          : makeCachedObject(hint.key, hint.name, hint.cached.object, revision, hint.codecBytes, false);
    }
    return hint.cached;
  }

  /** Whether `ready(prefix)` would return undefined: the store serves, nothing deferred to load. */
  isReady(prefix?: string): boolean {
    return this.currentState === 'open' && (prefix === undefined || this.unreadable.size === 0);
  }

  /**
   * Waits until the cache holds every acknowledged write (a consistent read); undefined when it
   * already does and the backend can tell without being asked (no promise on the hot path).
   */
  waitFresh(): Promise<void> | undefined {
    return this.isFresh() ? undefined : this.waitFreshAsync();
  }

  /** Whether `waitFresh()` would return undefined; asks nothing of the backend. */
  isFresh(): boolean {
    const known = this.backend._knownRevision?.();
    return known !== undefined && this.cache.revision >= known;
  }

  private async waitFreshAsync(): Promise<void> {
    let revision: number;
    try {
      revision = await this.backend._currentRevision();
    } catch (error) {
      throw asStoreError(error, 'FW_ERR_STORE_OPEN_FAILED', `reading the revision of ${this.backend.location} failed`);
    }
    await this.cache.waitFor(revision);
  }

  private async recover(): Promise<void> {
    const snapshot: BackendSnapshot = await this.backend._open(KEY_PREFIX, {
      onEvents: (events) => this.onBackendEvents(events),
      onProgress: (revision) => this.onBackendProgress(revision),
      onFailure: (error) => this.fail(error),
      onWriteOutage: (error) => this.beginOutage(error),
    });
    const loaded = new Map<string, CachedObject>();
    const deferred = new Set<string>();
    for (const record of snapshot.records) {
      if (deferred.has(prefixOf(record.key))) continue;
      try {
        loaded.set(`${record.modRevision}@${record.key}`, await this.decodeStored(record.key, record.value, record.modRevision));
      } catch (error) {
        // A KMS plugin that is down must not take the other resources down with it.
        if (!isStoreErrorCode(error, 'FW_ERR_STORE_TRANSFORM_FAILED') || !isKmsOutage(error.cause)) throw error;
        deferred.add(prefixOf(record.key));
      }
    }
    for (const record of snapshot.records) {
      const prefix = prefixOf(record.key);
      if (!deferred.has(prefix)) continue;
      loaded.delete(`${record.modRevision}@${record.key}`);
      this.unreadable.hold(prefix, record);
    }
    const readable = deferred.size === 0 ? snapshot : { ...snapshot, log: snapshot.log.filter((e) => !deferred.has(prefixOf(e.key))) };
    // A logged version under a key since retired from the configuration is unknown, not an error.
    const seeds = await recoverWindowEvents(readable, loaded, KEY_PREFIX, (key, value, modRevision) =>
      this.decodeStored(key, value, modRevision).catch((error: unknown) => {
        if (isStoreErrorCode(error, 'FW_ERR_STORE_TRANSFORM_FAILED')) return undefined;
        throw error;
      }),
    );
    this.cache.start(snapshot.revision, seeds.startRevision);
    for (const cached of loaded.values()) this.cache.resource(prefixOf(cached.key)).load(cached);
    const nowMs = this.clock.now();
    for (const seed of seeds.events) {
      this.cache.resource(seed.prefix).seed({ ...seed.event, atMs: nowMs, views: {} }, nowMs);
    }
    // Events that arrived while we were reading (remote backends), past the snapshot: through the
    // feed like any later event, so that one arriving meanwhile cannot overtake them.
    const held = this.heldEvents ?? [];
    this.heldEvents = undefined;
    const later = held.filter((e) => e.modRevision > snapshot.revision);
    if (later.length > 0) this.onBackendEvents(later);
    if (this.heldProgress > snapshot.revision) this.onBackendProgress(this.heldProgress);
    await this.feedChain;
  }

  /** Progress must not overtake events still being decoded, or the cache would skip them. */
  private onBackendProgress(revision: number): void {
    if (this.heldEvents !== undefined) {
      this.heldProgress = Math.max(this.heldProgress, revision);
      return;
    }
    if (this.feedsQueued === 0) {
      this.cache.advance(revision);
      return;
    }
    this.feedsQueued++;
    this.feedChain = this.feedChain.then(() => this.cache.advance(revision)).finally(() => this.feedsQueued--);
  }

  private onBackendEvents(events: readonly BackendEvent[]): void {
    if (this.heldEvents !== undefined) {
      append(this.heldEvents, events);
      return;
    }
    if (this.feedsQueued === 0) {
      const changes = this.changesFromHints(events);
      if (changes !== undefined) {
        this.cache.apply(changes);
        return;
      }
    }
    this.feedsQueued++;
    this.feedChain = this.feedChain
      .then(async () => {
        this.cache.apply(await this.decodeEvents(events));
        // Events of deferred resources made no change here, but the cache has seen them.
        const last = events[events.length - 1];
        if (last !== undefined) this.cache.advance(last.modRevision);
      })
      .catch((error: unknown) => this.fail(asStoreError(error, 'FW_ERR_STORE_CORRUPT', 'decoding a watch event failed')))
      .finally(() => this.feedsQueued--);
  }

  /** The synchronous path: every put is one of our own writes, so nothing needs decoding. */
  private changesFromHints(events: readonly BackendEvent[]): CacheChange[] | undefined {
    const changes: CacheChange[] = [];
    for (const e of events) {
      if (!e.key.startsWith(KEY_PREFIX)) continue;
      let current: CachedObject | undefined;
      if (e.type === 'put') {
        const hint = e.origin as WriteHint | undefined;
        if (hint === undefined) return undefined;
        current = this.writtenObject(hint, e.modRevision);
      }
      changes.push({ revision: e.modRevision, prefix: prefixOf(e.key), name: nameOf(e.key), current });
    }
    return changes;
  }

  private async decodeEvents(events: readonly BackendEvent[]): Promise<CacheChange[]> {
    const changes: CacheChange[] = [];
    for (const e of events) {
      if (!e.key.startsWith(KEY_PREFIX)) {
        this.cache.advance(e.modRevision);
        continue;
      }
      if (this.unreadable.size > 0 && this.unreadable.absorb(prefixOf(e.key), e)) continue;
      let current: CachedObject | undefined;
      if (e.type === 'put') {
        const hint = e.origin as WriteHint | undefined;
        current = hint !== undefined ? this.writtenObject(hint, e.modRevision) : await this.decodeStored(e.key, e.value!, e.modRevision);
      }
      changes.push({ revision: e.modRevision, prefix: prefixOf(e.key), name: nameOf(e.key), current });
    }
    return changes;
  }

  private async decodeStored(key: string, value: Uint8Array, modRevision: number): Promise<CachedObject> {
    let data: Uint8Array;
    let stale: boolean;
    const generation = this.noticeSwap();
    try {
      ({ data, stale } = await this.transformers.current.transformFromStorage(value, { key }));
    } catch (error) {
      throw internalError('FW_ERR_STORE_TRANSFORM_FAILED', `reading ${key} from ${this.backend.location}: ${(error as Error).message}`, error);
    }
    this.markIfOlder(generation, modRevision);
    try {
      return makeCachedObject(key, nameOf(key), decodeFrozenObject(data), modRevision, data, stale);
    } catch (error) {
      const why = error instanceof CodecError ? error.message : String(error);
      throw internalError('FW_ERR_STORE_CORRUPT', `stored value of ${key} in ${this.backend.location} is corrupt: ${why}`, error);
    }
  }

  private loadDeferred(prefix: string): Promise<void> | undefined {
    return this.unreadable.load(
      prefix,
      (record) => this.decodeStored(record.key, record.value, record.modRevision),
      (decoded) => {
        const cache = this.cache.resource(prefix);
        // Its history before now was never in the window: a watch from before must list again.
        cache.window.restartAt(this.cache.revision);
        for (const cached of decoded) cache.load(cached);
      },
    );
  }

  /** Reads go on; the backend refuses commits until a retry of `_restoreWrites` succeeds. */
  private beginOutage(error: StoreError): void {
    if (this.backend._restoreWrites === undefined) return this.fail(error);
    this.outage = error;
    if (this.cancelRetry === undefined) this.scheduleRestore();
  }

  private scheduleRestore(): void {
    this.cancelRetry = this.clock.after(this.writeRetryMs, () => {
      const seen = this.outage;
      this.backend._restoreWrites!().then(
        () => {
          // A write that failed again since the restore began is a new outage: keep retrying.
          if (this.outage === seen) {
            this.cancelRetry = undefined;
            this.outage = undefined;
          } else this.scheduleRestore();
        },
        () => {
          if (this.currentState === 'open' || this.currentState === 'opening') this.scheduleRestore();
          else this.cancelRetry = undefined;
        },
      );
    });
  }

  private fail(error: StoreError): void {
    if (this.currentState === 'closed' || this.currentState === 'closing') return;
    this.cancelRetry?.();
    this.cancelRetry = undefined;
    this.failure = error;
    this.currentState = 'failed';
    this.cache.closeWatchers(errorEvent(error));
    this.cache.failWaiters(error);
  }
}

export function prefixOf(key: string): string {
  return key.slice(0, key.lastIndexOf('/') + 1);
}

export function nameOf(key: string): string {
  return key.slice(key.lastIndexOf('/') + 1);
}

function asStoreError(error: unknown, code: 'FW_ERR_STORE_WRITE_FAILED' | 'FW_ERR_STORE_OPEN_FAILED' | 'FW_ERR_STORE_CORRUPT', what: string): StoreError {
  if (isStoreError(error)) return error;
  return internalError(code, `${what}: ${(error as Error)?.message ?? String(error)}`, error);
}
