// The watch cache's state for one resource: the current objects by name, their names in key order,
// the event window, and the watchers. Lists are served from here, at the latest revision or at any
// revision still inside the window: the state at revision R is the current state with every later
// change undone (each name takes the `previous` of its first event after R), so a continue token
// keeps serving the snapshot its first page saw.
//
// The whole latest state in key order (a LIST without selector, limit or continue, and a watch's
// initial events) is one array shared by every such request until the next change: a flood of
// full LISTs allocates nothing per LIST here. Such a request lives as long as its body streams
// (tens to hundreds of milliseconds), long enough for its objects to be promoted to the old
// generation, so a per-request array of thousands of entries is what fills the old generation and
// brings on mark-compact pauses (docs/execution-plane.md, "Garbage").

import { lowerBound } from '../lower-bound.ts';
import { releaseEncodings, type CachedObject } from './cached-object.ts';
import { EventWindow, type CacheEvent } from './event-window.ts';
import type { ListCounts, ResourceInfo } from './store-types.ts';
import { forgetAddedEvent } from './watch-event.ts';
import type { CacheWatcher, ObjectFilter } from './watcher.ts';

export interface ListPage {
  /** Shared when it is the whole latest state: never modify it. */
  readonly items: readonly CachedObject[];
  /** Another matching item follows the page. */
  readonly more: boolean;
  /** How many items (matching or not) follow the page, when asked for and `more`. */
  readonly remaining: number | undefined;
  /** The objects at the page's revision from its start on: what the cache handed over to be filtered and paged. */
  readonly fetched: number;
}

export class ResourceCache {
  info: ResourceInfo | undefined;
  readonly window: EventWindow;
  readonly watchers = new Set<CacheWatcher>();
  private readonly objects = new Map<string, CachedObject>();
  /** Names in key order, built on first use and then kept sorted. */
  private sorted: string[] | undefined;
  /** Every current object in key order, built on first use, dropped (not changed: it is shared) at the next change. */
  private everything: readonly CachedObject[] | undefined;
  readonly listCounts: ListCounts = { lists: 0, fetched: 0, returned: 0 };

  constructor(
    readonly prefix: string,
    window: { capacity: number; maxAgeMs: number; maxBytes?: number | undefined },
    startRevision: number,
  ) {
    this.window = new EventWindow(window.capacity, window.maxAgeMs, startRevision, window.maxBytes);
  }

  get size(): number {
    return this.objects.size;
  }

  get(name: string): CachedObject | undefined {
    return this.objects.get(name);
  }

  /** Loads an object while priming (no event). */
  load(cached: CachedObject): void {
    this.objects.set(cached.name, cached);
    this.sorted = undefined;
    this.everything = undefined;
  }

  /** Seeds the window with a recovered event, already reflected in the loaded state. */
  seed(event: CacheEvent, nowMs: number): void {
    this.window.append(event, nowMs);
  }

  /** Applies one change (current undefined = deleted) and fans it out to the watchers. */
  apply(revision: number, name: string, current: CachedObject | undefined, nowMs: number): CacheEvent {
    const previous = this.objects.get(name);
    this.everything = undefined;
    if (current !== undefined) {
      this.objects.set(name, current);
      if (previous === undefined && this.sorted !== undefined) this.sorted.splice(lowerBound(this.sorted, name), 0, name);
    } else if (previous !== undefined) {
      this.objects.delete(name);
      if (this.sorted !== undefined) this.sorted.splice(lowerBound(this.sorted, name), 1);
    }
    if (previous !== undefined && previous !== current) this.releasePast(previous);
    const event: CacheEvent = { revision, name, current, previous, atMs: nowMs, views: {} };
    this.window.append(event, nowMs);
    for (const watcher of this.watchers) watcher.deliver(event);
    return event;
  }

  /**
   * A version just replaced keeps no encodings (releaseEncodings): neither its own, nor the events
   * that showed it (the one that brought it, if still held, and its initial-listing ADDED).
   */
  private releasePast(version: CachedObject): void {
    releaseEncodings(version);
    forgetAddedEvent(version);
    const brought = this.window.eventBringing(version);
    if (brought !== undefined) for (const view of Object.values(brought.views)) view?.releaseEncodings();
  }

  sortedNames(): readonly string[] {
    if (this.sorted === undefined) this.sorted = [...this.objects.keys()].sort(compareNames);
    return this.sorted;
  }

  /**
   * One page of the state at `at` ('latest' or a revision inside the window), from `startName`
   * (inclusive), with at most `limit` matching items (0 = no limit).
   */
  page(at: 'latest' | number, startName: string, limit: number, filter: ObjectFilter, countRemaining: boolean): ListPage {
    if (at === 'latest' && startName === '' && limit === 0 && filter === undefined) {
      const items = this.latest();
      return { items, more: false, remaining: undefined, fetched: items.length };
    }
    const names = this.sortedNames();
    let overrides: Map<string, CachedObject | undefined> | undefined;
    let goneNames: string[] = [];
    if (at !== 'latest') {
      const later = this.window.since(at);
      if (later.length > 0) {
        overrides = new Map();
        for (const event of later) if (!overrides.has(event.name)) overrides.set(event.name, event.previous);
        goneNames = [...overrides.keys()].filter((n) => !this.objects.has(n)).sort(compareNames);
      }
    }
    const lookup = (name: string): CachedObject | undefined => (overrides?.has(name) === true ? overrides.get(name) : this.objects.get(name));
    const fetched = this.countFrom(names, startName, overrides);

    const items: CachedObject[] = [];
    let i = lowerBound(names, startName);
    let j = lowerBound(goneNames, startName);
    while (i < names.length || j < goneNames.length) {
      const takeGone = j < goneNames.length && (i >= names.length || goneNames[j]! < names[i]!);
      const name = takeGone ? goneNames[j++]! : names[i++]!;
      const cached = lookup(name);
      if (cached === undefined) continue;
      if (filter !== undefined && !filter(cached)) continue;
      if (limit > 0 && items.length === limit) {
        // `name` is the first item after the page.
        let remaining: number | undefined;
        if (countRemaining) {
          if (overrides === undefined) remaining = names.length - i + 1;
          else {
            remaining = 1;
            while (i < names.length) if (lookup(names[i++]!) !== undefined) remaining++;
            while (j < goneNames.length) if (lookup(goneNames[j++]!) !== undefined) remaining++;
          }
        }
        return { items, more: true, remaining, fetched };
      }
      items.push(cached);
    }
    return { items, more: false, remaining: undefined, fetched };
  }

  /**
   * The page of a LIST narrowed to one name (a field selector requiring metadata.name): kube-apiserver
   * reads that one key, not the resource, so it fetches one object or none. Nothing else can match,
   * so there is never more; a name before `startName` is already behind the page.
   */
  namedPage(at: 'latest' | number, name: string, startName: string, filter: ObjectFilter): ListPage {
    const cached = compareNames(name, startName) < 0 ? undefined : this.objectAt(at, name);
    const items = cached !== undefined && (filter === undefined || filter(cached)) ? [cached] : [];
    return { items, more: false, remaining: undefined, fetched: cached === undefined ? 0 : 1 };
  }

  /** The object `name` at `at`: the version its first change since replaced, else the current one. */
  private objectAt(at: 'latest' | number, name: string): CachedObject | undefined {
    if (at !== 'latest') for (const event of this.window.since(at)) if (event.name === name) return event.previous;
    return this.objects.get(name);
  }

  /** Counts a LIST served from this cache (a watch's initial listing is not one). */
  recordList(page: ListPage): void {
    this.listCounts.lists++;
    this.listCounts.fetched += page.fetched;
    this.listCounts.returned += page.items.length;
  }

  /**
   * The objects at the page's revision from `startName` on: the current ones, corrected by each
   * name changed since (it counts if it existed then, not if it exists now), so O(changes), not O(objects).
   */
  private countFrom(names: readonly string[], startName: string, overrides: ReadonlyMap<string, CachedObject | undefined> | undefined): number {
    let count = names.length - lowerBound(names, startName);
    if (overrides !== undefined) {
      for (const [name, then] of overrides) {
        if (compareNames(name, startName) < 0) continue;
        count += (then !== undefined ? 1 : 0) - (this.objects.has(name) ? 1 : 0);
      }
    }
    return count;
  }

  /** Every current object in key order; shared until the next change. */
  private latest(): readonly CachedObject[] {
    if (this.everything === undefined) {
      const names = this.sortedNames();
      const items = new Array<CachedObject>(names.length);
      for (let i = 0; i < names.length; i++) items[i] = this.objects.get(names[i]!)!;
      this.everything = items;
    }
    return this.everything;
  }
}

/** Key order. Names are ASCII in practice, where UTF-16 order equals the byte order of the keys. */
export function compareNames(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
