// The watch cache's memory of recent changes for one resource: the last `capacity` events, none
// older than `maxAgeMs`, holding at most `maxBytes` of object versions (each event counted by the
// stored size of the version it brought, `eventBytes`; the newest event is kept whatever its size,
// so a client that listed just before it can still watch). Time alone bounds nothing while 1 MB
// objects are written several times a second. `startRevision` is the promise it keeps: every event of this resource with
// a revision above it is held. A watch or snapshot list from a revision below it gets 410 Expired
// ("too old resource version: N (startRevision)"); anything at or above it can be served. Dropping
// events only ever raises startRevision to the last dropped revision, which is never above the
// newest revision, so the revision a list returns can always be watched from.

import type { CachedObject } from './cached-object.ts';
import type { WatchEvent } from './watch-event.ts';

export interface CacheEvent {
  readonly revision: number;
  readonly name: string;
  /** The object after the change; undefined for a deletion. */
  readonly current: CachedObject | undefined;
  /** The object before the change; undefined for a creation. */
  readonly previous: CachedObject | undefined;
  readonly atMs: number;
  /** Shared per-type views, built on first use. */
  views: { ADDED?: WatchEvent; MODIFIED?: WatchEvent; DELETED?: WatchEvent };
}

/** What an event counts against the byte bound: the stored (codec) size of the version it brought, or of the one a deletion removed. */
export function eventBytes(event: CacheEvent): number {
  return (event.current ?? event.previous)?.codecBytes.byteLength ?? 0;
}

export class EventWindow {
  private events: CacheEvent[] = [];
  private head = 0;
  private start: number;
  private held = 0;

  constructor(
    readonly capacity: number,
    readonly maxAgeMs: number,
    startRevision: number,
    readonly maxBytes: number = Number.POSITIVE_INFINITY,
  ) {
    if (!(capacity >= 1)) throw new Error(`event window capacity must be at least 1, got ${capacity}`);
    if (!(maxBytes >= 0)) throw new Error(`event window byte bound must not be negative, got ${maxBytes}`);
    this.start = startRevision;
  }

  /** What the held events count against `maxBytes`. */
  get bytes(): number {
    return this.held;
  }

  get startRevision(): number {
    return this.start;
  }

  get size(): number {
    return this.events.length - this.head;
  }

  append(event: CacheEvent, nowMs: number): void {
    const last = this.events[this.events.length - 1];
    // Equal revisions are allowed: one transaction may change several objects of a resource.
    if (last !== undefined && this.head < this.events.length && event.revision < last.revision) {
      throw new Error(`event window: revision ${event.revision} after ${last.revision}`);
    }
    this.events.push(event);
    this.held += eventBytes(event);
    this.prune(nowMs);
  }

  /** Drops events beyond the count or byte bound, or older than the age bound. */
  prune(nowMs: number): void {
    const oldestAllowedMs = nowMs - this.maxAgeMs;
    while (this.size > 0) {
      const oldest = this.events[this.head]!;
      if (this.size <= this.capacity && oldest.atMs >= oldestAllowedMs && (this.held <= this.maxBytes || this.size === 1)) break;
      this.start = oldest.revision;
      this.held -= eventBytes(oldest);
      this.events[this.head] = undefined as unknown as CacheEvent;
      this.head++;
    }
    if (this.head > 1024 && this.head * 2 > this.events.length) {
      this.events = this.events.slice(this.head);
      this.head = 0;
    }
  }

  /**
   * Forgets every event and promises nothing before `revision`: a resource whose objects were
   * loaded late (store.ts, a KMS plugin down at open) cannot replay what happened before.
   */
  restartAt(revision: number): void {
    this.events = [];
    this.head = 0;
    this.held = 0;
    this.start = Math.max(this.start, revision);
  }

  /** The held event that brought `version` (found by its revision), if it is still held. */
  eventBringing(version: CachedObject): CacheEvent | undefined {
    for (let i = this.lowerBound(version.modRevision - 1); i < this.events.length; i++) {
      const event = this.events[i]!;
      if (event.revision !== version.modRevision) return undefined;
      if (event.current === version) return event;
    }
    return undefined;
  }

  /** Events with revision above `after`, oldest first (a copy; cheap, it holds references). */
  since(after: number): CacheEvent[] {
    return this.events.slice(this.lowerBound(after));
  }

  /** The index of the first held event with revision above `after`. */
  private lowerBound(after: number): number {
    let lo = this.head;
    let hi = this.events.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (this.events[mid]!.revision <= after) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  }
}
