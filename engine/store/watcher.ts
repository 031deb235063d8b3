// One watch on the watch cache. The cache pushes (fan-out never waits for a consumer); the client
// pulls with `for await`. Between them sits a bounded buffer: when a watcher already holds
// `bufferSize` undelivered events and another arrives, the watcher drops its buffer, ends with one
// ERROR event (FW_ERR_STORE_WATCH_TOO_SLOW) and leaves the cache, so a slow client costs bounded
// memory and never delays anyone else. The client re-watches from the last resourceVersion it saw.
//
// Initial events (the current state, or a replay from the event window) are not buffered copies:
// they are produced lazily from a snapshot taken when the watch started, ahead of the live buffer.

import type { Clock } from '../clock.ts';
import { Deadlines, type Deadline } from '../deadlines.ts';
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

/** What keeps a watcher: one per resource, shared by its watchers (no closure per watcher). */
export interface WatcherOwner {
  /** Called once when the watcher ends for any reason, so the cache forgets it. */
  watcherEnded(watcher: CacheWatcher): void;
  /** The watcher's timeout is near: time for the bookmark kube-apiserver sends before it. */
  timeoutNear(watcher: CacheWatcher): void;
}

/** How long before its timeout a bookmark watcher gets a last bookmark (kube's cacheWatcher: 1 s). */
export const BOOKMARK_BEFORE_TIMEOUT_MS = 1_000;

export interface CacheWatcherOptions {
  readonly filter: ObjectFilter;
  readonly bufferSize: number;
  readonly bookmarks: boolean;
  /** Changes at or below this revision are already reflected in what the client has (future-RV watches). */
  readonly afterRevision: number;
  readonly owner: WatcherOwner;
}

/** Every watch's timeout (and the bookmark before it) of one cache, on one timer. */
export type WatchDeadlines = Deadlines<CacheWatcher>;

export function watchDeadlines(clock: Clock): WatchDeadlines {
  return new Deadlines(clock, deadlineReached);
}

const deadlineReached = (watcher: CacheWatcher): void => watcher.deadlineReached();

export class CacheWatcher implements Watcher, Deadline {
  readonly filter: ObjectFilter;
  readonly wantsBookmarks: boolean;
  private readonly afterRevision: number;
  private readonly bufferSize: number;
  private readonly owner: WatcherOwner;
  private initial: Iterator<WatchEvent> | undefined = undefined;
  /** Undelivered events from `head` on; made when the first one arrives (most watches wait empty). */
  private queue: (WatchEvent | undefined)[] | undefined = undefined;
  private head = 0;
  /** Pending pulls, oldest first (the iterator protocol allows several); made by the first. */
  private waiters: ((result: IteratorResult<WatchEvent>) => void)[] | undefined = undefined;
  /** No more events will be added. */
  private closed = false;
  private ended = false;
  private consumer: WatchConsumer | undefined = undefined;
  private deadlines: WatchDeadlines | undefined = undefined;
  private timeoutAtMs = Number.POSITIVE_INFINITY;
  private bookmarkAtMs = Number.POSITIVE_INFINITY;
  deadlineMs = Number.POSITIVE_INFINITY;
  deadlineSlot = -1;
  deadlineSeq = 0;

  constructor(options: CacheWatcherOptions) {
    this.filter = options.filter;
    this.wantsBookmarks = options.bookmarks;
    this.afterRevision = options.afterRevision;
    this.bufferSize = options.bufferSize;
    this.owner = options.owner;
  }

  get stopped(): boolean {
    return this.closed;
  }

  get pending(): number {
    return this.queue === undefined ? 0 : this.queue.length - this.head;
  }

  /** Events served before anything live (initial state, replay, the initial-events bookmark). */
  setInitial(events: Iterator<WatchEvent>): void {
    this.initial = events;
  }

  /**
   * Ends the watch `timeoutMs` from `nowMs` (a bookmark watcher gets a last bookmark shortly
   * before), on the cache's shared deadlines.
   */
  endAfter(deadlines: WatchDeadlines, nowMs: number, timeoutMs: number): void {
    if (this.closed) return;
    this.deadlines = deadlines;
    this.timeoutAtMs = nowMs + timeoutMs;
    if (this.wantsBookmarks && timeoutMs > BOOKMARK_BEFORE_TIMEOUT_MS) this.bookmarkAtMs = this.timeoutAtMs - BOOKMARK_BEFORE_TIMEOUT_MS;
    this.deadlineMs = Math.min(this.timeoutAtMs, this.bookmarkAtMs);
    deadlines.add(this);
  }

  deadlineReached(): void {
    if (this.closed) return;
    if (this.deadlineMs === this.bookmarkAtMs && this.bookmarkAtMs < this.timeoutAtMs) {
      this.bookmarkAtMs = Number.POSITIVE_INFINITY;
      this.owner.timeoutNear(this);
      this.deadlineMs = this.timeoutAtMs;
      this.deadlines?.add(this);
      return;
    }
    this.finish();
  }

  setConsumer(consumer: WatchConsumer | undefined): void {
    this.consumer = consumer;
    // Events (or the end) that came while nobody listened would otherwise wait for the next one.
    if (consumer !== undefined && (this.pending > 0 || this.closed)) consumer.watchReady();
  }

  /** A change from the cache: filtered, then queued (or handed straight to a waiting consumer). */
  deliver(event: CacheEvent): void {
    if (this.closed || event.revision <= this.afterRevision) return;
    const shown = eventViewFor(event, this.filter);
    if (shown === undefined) return;
    if (this.pending >= this.bufferSize) {
      this.queue = undefined;
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
    this.deadlines?.delete(this);
    this.deadlines = undefined;
    this.owner.watcherEnded(this);
    if (this.waiters !== undefined && this.waiters.length > 0 && this.pending === 0) this.resolveDone();
    this.consumer?.watchReady();
  }

  stop(): void {
    this.queue = undefined;
    this.head = 0;
    this.initial = undefined;
    this.finish();
    this.resolveDone();
  }

  next(): Promise<IteratorResult<WatchEvent>> {
    const ready = this.pullNow();
    if (ready !== undefined) return Promise.resolve(ready);
    return new Promise((resolve) => {
      (this.waiters ??= []).push(resolve);
    });
  }

  takeReady(max: number): WatchEvent[] {
    const events: WatchEvent[] = [];
    while (events.length < max) {
      const event = this.takeNext();
      if (event === undefined) break;
      events.push(event);
    }
    return events;
  }

  takeNext(): WatchEvent | undefined {
    if (this.ended) return undefined;
    if (this.initial !== undefined) {
      const item = this.initial.next();
      if (item.done !== true) return item.value;
      this.initial = undefined;
    }
    const queue = this.queue;
    if (queue !== undefined && this.head < queue.length) {
      const value = queue[this.head]!;
      queue[this.head] = undefined;
      this.head++;
      if (this.head === queue.length) {
        this.queue = undefined;
        this.head = 0;
      }
      return value;
    }
    if (this.closed) this.ended = true;
    return undefined;
  }

  /** The next result if one is there without waiting (an event, or the end). */
  private pullNow(): IteratorResult<WatchEvent> | undefined {
    const value = this.takeNext();
    if (value !== undefined) return { done: false, value };
    return this.ended ? { done: true, value: undefined } : undefined;
  }

  return(): Promise<IteratorResult<WatchEvent>> {
    this.stop();
    return Promise.resolve({ done: true, value: undefined });
  }

  [Symbol.asyncIterator](): this {
    return this;
  }

  private push(event: WatchEvent): void {
    const waiters = this.waiters;
    if (waiters !== undefined && waiters.length > 0 && this.initial === undefined && this.pending === 0) {
      waiters.shift()!({ done: false, value: event });
      return;
    }
    (this.queue ??= []).push(event);
    if (this.pending === 1) this.consumer?.watchReady();
  }

  private resolveDone(): void {
    this.ended = true;
    const waiters = this.waiters;
    if (waiters === undefined) return;
    this.waiters = undefined;
    for (const waiter of waiters) waiter({ done: true, value: undefined });
  }
}
