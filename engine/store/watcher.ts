// One watch on the watch cache. The cache pushes (fan-out never waits for a consumer); the client
// pulls with `for await`. Between them sits a bounded buffer: when a watcher already holds
// `bufferSize` undelivered events and another arrives, the watcher drops its buffer, ends with one
// ERROR event (FW_ERR_STORE_WATCH_TOO_SLOW) and leaves the cache, so a slow client costs bounded
// memory and never delays anyone else. The client re-watches from the last resourceVersion it saw.
//
// Initial events (the current state, or a replay from the event window) are not buffered copies:
// they are produced lazily from a snapshot taken when the watch started, ahead of the live buffer.

import { cachedAtRevision, type CachedObject } from './cached-object.ts';
import type { CacheEvent } from './event-window.ts';
import { watchTooSlowError } from './store-errors.ts';
import type { WatchConsumer, Watcher } from './store-types.ts';
import { errorEvent, objectEvent, type WatchEvent } from './watch-event.ts';

export type ObjectFilter = ((cached: CachedObject) => boolean) | undefined;

/** How one watcher sees a change, by the previous/current match rule of kube's cacheWatcher. */
export function eventViewFor(event: CacheEvent, filter: ObjectFilter): WatchEvent | undefined {
  const currentPasses = event.current !== undefined && (filter === undefined || filter(event.current));
  const previousPasses = event.previous !== undefined && (filter === undefined || filter(event.previous));
  if (currentPasses) return previousPasses ? view(event, 'MODIFIED') : view(event, 'ADDED');
  if (previousPasses) return view(event, 'DELETED');
  return undefined;
}

function view(event: CacheEvent, type: 'ADDED' | 'MODIFIED' | 'DELETED'): WatchEvent {
  let shared = event.views[type];
  if (shared === undefined) {
    // DELETED shows the last matching state at the revision of the change that removed it.
    shared = type === 'DELETED' ? objectEvent(type, cachedAtRevision(event.previous!, event.revision)) : objectEvent(type, event.current!);
    event.views[type] = shared;
  }
  return shared;
}

export interface CacheWatcherOptions {
  readonly filter: ObjectFilter;
  readonly bufferSize: number;
  readonly bookmarks: boolean;
  /** Changes at or below this revision are already reflected in what the client has (future-RV watches). */
  readonly afterRevision: number;
  /** Called once when the watcher ends for any reason, so the cache forgets it. */
  readonly onEnd: (watcher: CacheWatcher) => void;
}

export class CacheWatcher implements Watcher {
  readonly filter: ObjectFilter;
  readonly wantsBookmarks: boolean;
  private readonly afterRevision: number;
  private readonly bufferSize: number;
  private readonly onEnd: (watcher: CacheWatcher) => void;
  private initial: Iterator<WatchEvent> | undefined;
  private queue: (WatchEvent | undefined)[] = [];
  private head = 0;
  /** Pending pulls, oldest first (the iterator protocol allows several). */
  private waiters: ((result: IteratorResult<WatchEvent>) => void)[] = [];
  /** No more events will be added. */
  private closed = false;
  private ended = false;
  private readonly cleanups: (() => void)[] = [];
  private consumer: WatchConsumer | undefined = undefined;

  constructor(options: CacheWatcherOptions) {
    this.filter = options.filter;
    this.wantsBookmarks = options.bookmarks;
    this.afterRevision = options.afterRevision;
    this.bufferSize = options.bufferSize;
    this.onEnd = options.onEnd;
  }

  get stopped(): boolean {
    return this.closed;
  }

  get pending(): number {
    return this.queue.length - this.head;
  }

  /** Events served before anything live (initial state, replay, the initial-events bookmark). */
  setInitial(events: Iterator<WatchEvent>): void {
    this.initial = events;
  }

  /** Runs when the watcher ends (timers to cancel). */
  onCleanup(cleanup: () => void): void {
    this.cleanups.push(cleanup);
  }

  setConsumer(consumer: WatchConsumer | undefined): void {
    this.consumer = consumer;
  }

  /** A change from the cache: filtered, then queued (or handed straight to a waiting consumer). */
  deliver(event: CacheEvent): void {
    if (this.closed || event.revision <= this.afterRevision) return;
    const shown = eventViewFor(event, this.filter);
    if (shown === undefined) return;
    if (this.pending >= this.bufferSize) {
      this.queue = [];
      this.head = 0;
      this.finish(errorEvent(watchTooSlowError(this.bufferSize)));
      return;
    }
    this.push(shown);
  }

  /** A bookmark is skipped rather than counted against a full buffer. */
  offerBookmark(bookmark: WatchEvent, revision: number): void {
    if (this.closed || !this.wantsBookmarks || this.pending >= this.bufferSize || revision < this.afterRevision) return;
    this.push(bookmark);
  }

  /** Ends the stream after what is queued, optionally with one last event (an ERROR). */
  finish(last?: WatchEvent): void {
    if (this.closed) return;
    if (last !== undefined) this.push(last);
    this.closed = true;
    for (const cleanup of this.cleanups.splice(0)) cleanup();
    this.onEnd(this);
    if (this.waiters.length > 0 && this.pending === 0) this.resolveDone();
    this.consumer?.watchReady();
  }

  stop(): void {
    this.queue = [];
    this.head = 0;
    this.initial = undefined;
    this.finish();
    this.resolveDone();
  }

  next(): Promise<IteratorResult<WatchEvent>> {
    const ready = this.pullNow();
    if (ready !== undefined) return Promise.resolve(ready);
    return new Promise((resolve) => {
      this.waiters.push(resolve);
    });
  }

  takeReady(max: number): WatchEvent[] {
    const events: WatchEvent[] = [];
    while (events.length < max) {
      const ready = this.pullNow();
      if (ready === undefined || ready.done === true) break;
      events.push(ready.value);
    }
    return events;
  }

  /** The next result if one is there without waiting (an event, or the end). */
  private pullNow(): IteratorResult<WatchEvent> | undefined {
    if (this.ended) return { done: true, value: undefined };
    if (this.initial !== undefined) {
      const item = this.initial.next();
      if (item.done !== true) return { done: false, value: item.value };
      this.initial = undefined;
    }
    if (this.head < this.queue.length) {
      const value = this.queue[this.head]!;
      this.queue[this.head] = undefined;
      this.head++;
      if (this.head === this.queue.length) {
        this.queue = [];
        this.head = 0;
      }
      return { done: false, value };
    }
    if (this.closed) {
      this.ended = true;
      return { done: true, value: undefined };
    }
    return undefined;
  }

  return(): Promise<IteratorResult<WatchEvent>> {
    this.stop();
    return Promise.resolve({ done: true, value: undefined });
  }

  [Symbol.asyncIterator](): this {
    return this;
  }

  private push(event: WatchEvent): void {
    if (this.waiters.length > 0 && this.initial === undefined && this.pending === 0) {
      this.waiters.shift()!({ done: false, value: event });
      return;
    }
    this.queue.push(event);
    if (this.pending === 1) this.consumer?.watchReady();
  }

  private resolveDone(): void {
    this.ended = true;
    for (const waiter of this.waiters.splice(0)) waiter({ done: true, value: undefined });
  }
}
