// The watch cache: every resource's current state and recent events, in memory, fed only from the
// backend's event stream (so it sees other replicas' writes exactly as its own). It tracks the one
// revision it has applied, lets readers wait until it reaches a revision (with a bound, after which
// the read fails as kube's "Too large resource version"), and sends periodic bookmarks to the
// watchers that asked for them, using one timer for all of them.

import type { Cancel, Clock } from '../clock.ts';
import type { CachedObject } from './cached-object.ts';
import { ResourceCache } from './resource-cache.ts';
import { tooLargeResourceVersionError, type StoreError } from './store-errors.ts';
import { bookmarkEvent, type WatchEvent } from './watch-event.ts';
import { watchDeadlines, type CacheWatcher, type WatchDeadlines } from './watcher.ts';

export interface WatchCacheOptions {
  /** Events kept per resource. */
  readonly windowCapacity: number;
  /** Events older than this are dropped. */
  readonly windowMaxAgeMs: number;
  /** What one resource's events may hold, counted by the stored size of their versions (event-window.ts). */
  readonly windowMaxBytes: number;
  readonly bookmarkIntervalMs: number;
  readonly waitTimeoutMs: number;
}

export interface CacheChange {
  readonly revision: number;
  readonly prefix: string;
  readonly name: string;
  /** undefined for a deletion. */
  readonly current: CachedObject | undefined;
}

interface RevisionWaiter {
  readonly revision: number;
  readonly resolve: () => void;
  readonly reject: (error: StoreError) => void;
  readonly cancelTimer: Cancel;
}

export class WatchCache {
  private applied = 0;
  /** Every resource's events above this revision are in its window (see open()). */
  private baseRevision = 0;
  private readonly resources = new Map<string, ResourceCache>();
  private waiters: RevisionWaiter[] = [];
  private bookmarkWatchers = 0;
  private cancelBookmarkTimer: Cancel | undefined;
  readonly deadlines: WatchDeadlines;

  constructor(
    private readonly clock: Clock,
    private readonly options: WatchCacheOptions,
  ) {
    this.deadlines = watchDeadlines(clock);
  }

  get revision(): number {
    return this.applied;
  }

  /** Called once, before anything is loaded: the revision of the snapshot and its log start. */
  start(revision: number, logStartRevision: number): void {
    this.applied = revision;
    this.baseRevision = Math.min(logStartRevision, revision);
  }

  resource(prefix: string): ResourceCache {
    let cache = this.resources.get(prefix);
    if (cache === undefined) {
      // No event of this resource has been seen since the log start, or it would exist already.
      const window = { capacity: this.options.windowCapacity, maxAgeMs: this.options.windowMaxAgeMs, maxBytes: this.options.windowMaxBytes };
      cache = new ResourceCache(prefix, window, this.baseRevision);
      this.resources.set(prefix, cache);
    }
    return cache;
  }

  allResources(): IterableIterator<ResourceCache> {
    return this.resources.values();
  }

  /**
   * Applies changes in revision order, fans them out, and wakes readers waiting for them. A
   * revision's changes (one transaction may change several keys) arrive in one call.
   */
  apply(changes: readonly CacheChange[]): void {
    const nowMs = this.clock.now();
    const before = this.applied;
    for (const change of changes) {
      if (change.revision <= before) continue;
      this.resource(change.prefix).apply(change.revision, change.name, change.current, nowMs);
      this.applied = change.revision;
    }
    this.wake();
  }

  /** The backend has seen everything up to `revision` (progress without events here). */
  advance(revision: number): void {
    if (revision <= this.applied) return;
    this.applied = revision;
    this.wake();
  }

  /** Resolves once the cache has applied `revision`; rejects as "Too large resource version" after the bound. */
  waitFor(revision: number): Promise<void> {
    if (revision <= this.applied) return Promise.resolve();
    return new Promise((resolve, reject) => {
      const waiter: RevisionWaiter = {
        revision,
        resolve,
        reject,
        cancelTimer: this.clock.after(this.options.waitTimeoutMs, () => {
          this.waiters = this.waiters.filter((w) => w !== waiter);
          reject(tooLargeResourceVersionError(revision, this.applied));
        }),
      };
      this.waiters.push(waiter);
    });
  }

  /** Rejects every waiter (store closing or failed). */
  failWaiters(error: StoreError): void {
    const waiters = this.waiters;
    this.waiters = [];
    for (const w of waiters) {
      w.cancelTimer();
      w.reject(error);
    }
  }

  addWatcher(cache: ResourceCache, watcher: CacheWatcher): void {
    cache.watchers.add(watcher);
    if (watcher.wantsBookmarks && this.bookmarkWatchers++ === 0) this.scheduleBookmarks();
  }

  removeWatcher(cache: ResourceCache, watcher: CacheWatcher): void {
    if (!cache.watchers.delete(watcher)) return;
    if (watcher.wantsBookmarks && --this.bookmarkWatchers === 0) {
      this.cancelBookmarkTimer?.();
      this.cancelBookmarkTimer = undefined;
    }
  }

  /** Drops window events past the age bound everywhere (reads call this; time alone expires events). */
  prune(): void {
    const nowMs = this.clock.now();
    for (const cache of this.resources.values()) cache.window.prune(nowMs);
  }

  /** A bookmark at the current revision to every bookmark watcher of one resource. */
  sendBookmarks(cache: ResourceCache): void {
    if (cache.info === undefined) return;
    let bookmark;
    for (const watcher of cache.watchers) {
      if (!watcher.wantsBookmarks) continue;
      bookmark ??= bookmarkEvent(cache.info, this.applied);
      watcher.offerBookmark(bookmark, this.applied);
    }
  }

  /** Ends every watch (after their queued events, then `last` if given) and stops the timer. */
  closeWatchers(last?: WatchEvent): void {
    for (const cache of this.resources.values()) for (const watcher of [...cache.watchers]) watcher.finish(last);
    this.cancelBookmarkTimer?.();
    this.cancelBookmarkTimer = undefined;
  }

  private scheduleBookmarks(): void {
    this.cancelBookmarkTimer = this.clock.after(this.options.bookmarkIntervalMs, () => {
      this.cancelBookmarkTimer = undefined;
      for (const cache of this.resources.values()) this.sendBookmarks(cache);
      if (this.bookmarkWatchers > 0) this.scheduleBookmarks();
    });
  }

  private wake(): void {
    if (this.waiters.length === 0) return;
    const ready = this.waiters.filter((w) => w.revision <= this.applied);
    if (ready.length === 0) return;
    this.waiters = this.waiters.filter((w) => w.revision > this.applied);
    for (const w of ready) {
      w.cancelTimer();
      w.resolve();
    }
  }
}
