// Kubernetes storage semantics for one cluster-scoped resource, over the shared StoreCore:
// resourceVersion rules for get/list/watch, paging with snapshot continue tokens, selectors,
// optimistic concurrency and preconditions, and watches with initial events and bookmarks.
// Reads are served by the watch cache; writes go to the backend as compare-and-swap commits and
// come back to the cache through the backend's event stream.
//
// "Fresh" below means the cache has been confirmed to hold every acknowledged write. A read that
// finds the cache disagreeing with the caller (a precondition, a stale resourceVersion, a missing
// object) confirms freshness once and retries before it reports the failure, because the caller may
// know of a write (here or on another replica) the cache has not applied yet.
// (Over 300 lines on purpose: the seven verbs of one resource read best side by side.)

import type { KubeObject } from '../resources/types.ts';
import { cachedAtRevision, type CachedObject } from './cached-object.ts';
import { bytesEqual } from './codec.ts';
import { continueAfter, decodeContinueToken, encodeContinueToken } from './continue-token.ts';
import { parseResourceVersion, parseSelection, validateListOptions, validateWatchOptions } from './list-options.ts';
import type { ResourceCache } from './resource-cache.ts';
import type { Clock } from '../clock.ts';
import type { CommitOp, CommitResult } from './backend.ts';
import type { KeyLock } from './key-lock.ts';
import type { WatchCache } from './watch-cache.ts';
import {
  alreadyExistsError,
  badRequestError,
  conflictError,
  continueExpiredError,
  internalError,
  isStoreErrorCode,
  listTooOldError,
  notFoundError,
  preconditionError,
  tooOldResourceVersionError,
} from './store-errors.ts';
import type {
  GetOptions,
  ListOptions,
  ListResult,
  Preconditions,
  ResourceInfo,
  ResourceStore,
  TryUpdate,
  WatchOptions,
  Watcher,
  WriteOptions,
} from './store-types.ts';
import { addedEventFor, bookmarkEvent, errorEvent, type WatchEvent } from './watch-event.ts';
import { CacheWatcher, eventViewFor, type ObjectFilter, type WatcherOwner } from './watcher.ts';
import type { CacheEvent } from './event-window.ts';

/** What the store knows about its own write; it travels with the commit as the op's `origin`. */
export interface WriteHint {
  readonly key: string;
  readonly name: string;
  /** The object as the caller passed it; adopted (given its resourceVersion, frozen) when cached. */
  readonly object: KubeObject;
  readonly codecBytes: Uint8Array;
  /** The transformer generation that encoded the value. */
  readonly generation: number;
  cached: CachedObject | undefined;
}

/** What every resource store shares: the one store of the database (store.ts's StoreCore). */
export interface StoreCore {
  readonly clock: Clock;
  readonly cache: WatchCache;
  readonly watcherBufferSize: number;
  readonly metaGroup: string | undefined;
  /** Read-modify-writes of one key take turns (key-lock.ts). */
  readonly writers: KeyLock;
  isStale(cached: CachedObject): boolean;
  ready(prefix?: string): Promise<void> | undefined;
  /** Whether `ready(prefix)` would return undefined (without starting anything). */
  isReady(prefix: string): boolean;
  prepareWrite(key: string, name: string, object: KubeObject): Promise<{ stored: Uint8Array; hint: WriteHint }>;
  commit(ops: readonly CommitOp[]): Promise<CommitResult>;
  writtenObject(hint: WriteHint, revision: number): CachedObject;
  waitFresh(): Promise<void> | undefined;
  /** Whether `waitFresh()` would return undefined (without asking the backend). */
  isFresh(): boolean;
}

export class ResourceStoreImpl implements ResourceStore, WatcherOwner {
  constructor(
    private readonly core: StoreCore,
    readonly resource: ResourceInfo,
    private readonly prefix: string,
  ) {}

  private get cache(): ResourceCache {
    return this.core.cache.resource(this.prefix);
  }

  watcherEnded(watcher: CacheWatcher): void {
    this.core.cache.removeWatcher(this.cache, watcher);
  }

  /** A bookmark shortly before the watch's timeout, so the client resumes from a recent version. */
  timeoutNear(watcher: CacheWatcher): void {
    const revision = this.core.cache.revision;
    watcher.offerBookmark(bookmarkEvent(this.resource, revision), revision);
  }

  async get(name: string, options: GetOptions = {}): Promise<KubeObject> {
    const opening = this.core.ready(this.prefix);
    if (opening !== undefined) await opening;
    const resourceVersion = options.resourceVersion ?? '';
    if (!this.cacheCanAnswer(name, resourceVersion)) {
      await (resourceVersion === '' ? this.core.waitFresh() : this.core.cache.waitFor(parseResourceVersion(resourceVersion)));
    }
    return this.cachedObject(name);
  }

  /** The same checks as `get` in the same order, each a question instead of a wait. */
  getNow(name: string, resourceVersion = ''): KubeObject | undefined {
    if (!this.core.isReady(this.prefix) || !this.cacheCanAnswer(name, resourceVersion)) return undefined;
    return this.cachedObject(name);
  }

  /**
   * The checks a read by name makes once the store serves (the name, then the resourceVersion), and
   * whether the cache is already as fresh as asked: "" a consistent read, "0" any, "N" at least N.
   */
  private cacheCanAnswer(name: string, resourceVersion: string): boolean {
    checkName(name);
    const wanted = parseResourceVersion(resourceVersion);
    return resourceVersion === '' ? this.core.isFresh() : wanted <= this.core.cache.revision;
  }

  /** The read itself, once the cache is as fresh as the caller asked. */
  private cachedObject(name: string): KubeObject {
    const cached = this.cache.get(name);
    if (cached === undefined) throw notFoundError(this.resource, name);
    return cached.object;
  }

  async list(options: ListOptions = {}): Promise<ListResult> {
    const opening = this.core.ready(this.prefix);
    if (opening !== undefined) await opening;
    validateListOptions(options, this.core.metaGroup);
    const selection = parseSelection(options.labelSelector, options.fieldSelector);
    const limit = options.limit !== undefined && options.limit > 0 ? Math.floor(options.limit) : 0;
    const cacheRoot = this.core.cache;
    let startName = '';
    let revision: number;
    if ((options.continue ?? '') !== '') {
      const position = decodeContinueToken(options.continue!);
      startName = position.startName;
      if (position.revision < 0) {
        await this.core.waitFresh();
        revision = cacheRoot.revision;
      } else {
        revision = position.revision;
        await cacheRoot.waitFor(revision);
        cacheRoot.prune();
        if (revision < this.cache.window.startRevision) throw continueExpiredError(encodeContinueToken(startName, -1));
      }
    } else {
      const text = options.resourceVersion ?? '';
      const wanted = parseResourceVersion(text);
      if (text === '') await this.core.waitFresh();
      else if (wanted > 0) await cacheRoot.waitFor(wanted);
      revision = cacheRoot.revision;
      if (options.resourceVersionMatch === 'Exact') {
        cacheRoot.prune();
        if (wanted < this.cache.window.startRevision) throw listTooOldError();
        revision = wanted;
      }
    }
    const at = revision >= cacheRoot.revision ? 'latest' : revision;
    const countRemaining = selection.filter === undefined;
    const named = selection.fields.requiredName;
    const page =
      named !== undefined
        ? this.cache.namedPage(at, named, startName, selection.filter)
        : this.cache.page(at, startName, limit, selection.filter, countRemaining);
    this.cache.recordList(page);
    const last = page.items[page.items.length - 1];
    return new CachedList(
      page.items,
      String(revision),
      page.more && last !== undefined ? continueAfter(last.name, revision) : undefined,
      page.more && countRemaining ? page.remaining : undefined,
    );
  }

  async create(object: KubeObject): Promise<KubeObject> {
    const opening = this.core.ready(this.prefix);
    if (opening !== undefined) await opening;
    const name = object.metadata?.name ?? '';
    const key = this.keyFor(name);
    const given = object.metadata?.resourceVersion ?? '';
    if (given !== '' && given !== '0') {
      throw internalError('FW_ERR_STORE_RESOURCE_VERSION_ON_CREATE', 'resourceVersion should not be set on objects to be created');
    }
    const { stored, hint } = await this.core.prepareWrite(key, name, object);
    const result = await this.core.commit([{ type: 'put', key, value: stored, expectedModRevision: 0, origin: hint }]);
    if (!result.ok) throw alreadyExistsError(this.resource, name);
    return this.core.writtenObject(hint, result.revision).object;
  }

  update(object: KubeObject, options: WriteOptions = {}): Promise<KubeObject> {
    const name = object.metadata?.name ?? '';
    const given = object.metadata?.resourceVersion ?? '';
    let expected: number;
    try {
      expected = parseResourceVersion(given);
    } catch (error) {
      return Promise.reject(error);
    }
    return this.guaranteedUpdate(
      name,
      (current) => {
        // 0 (unset) is an unconditional update, as these kinds allow.
        if (expected !== 0 && String(expected) !== current.metadata?.resourceVersion) throw conflictError(this.resource, name);
        return object;
      },
      options,
    );
  }

  async guaranteedUpdate(name: string, tryUpdate: TryUpdate, options: WriteOptions = {}): Promise<KubeObject> {
    const opening = this.core.ready(this.prefix);
    if (opening !== undefined) await opening;
    const key = this.keyFor(name);
    return this.core.writers.run(key, () => this.updateLoop(key, name, tryUpdate, options), options.signal);
  }

  /**
   * kube's GuaranteedUpdate: compute the update from the cached version, write it if that version is
   * still current, else start over from the version that won. There is no retry count (kube-apiserver
   * has none since 1.11); the loop ends with a write, an error, or the caller's deadline.
   */
  private async updateLoop(key: string, name: string, tryUpdate: TryUpdate, options: WriteOptions): Promise<KubeObject> {
    let fresh = false;
    for (;;) {
      options.signal?.throwIfAborted();
      const current = this.cache.get(name);
      let next: KubeObject;
      try {
        if (current === undefined) throw notFoundError(this.resource, name);
        this.checkPreconditions(key, current, options.preconditions);
        next = await tryUpdate(current.object);
      } catch (error) {
        if (!fresh && (isStoreErrorCode(error, 'FW_ERR_STORE_NOT_FOUND') || isConflict(error))) {
          fresh = true;
          await this.core.waitFresh();
          continue;
        }
        throw error;
      }
      const nextName = next.metadata?.name ?? '';
      if (nextName !== name) {
        throw badRequestError('FW_ERR_STORE_BAD_NAME', `the name of the object (${nextName}) does not match the name on the URL (${name})`);
      }
      const { stored, hint } = await this.core.prepareWrite(key, name, next);
      // An update that changes nothing writes nothing: no new resourceVersion, no event.
      if (!this.core.isStale(current) && current.codecBytes !== undefined && bytesEqual(hint.codecBytes, current.codecBytes)) return current.object;
      options.signal?.throwIfAborted();
      const result = await this.core.commit([{ type: 'put', key, value: stored, expectedModRevision: current.modRevision, origin: hint }]);
      if (result.ok) return this.core.writtenObject(hint, result.revision).object;
      // Someone else wrote it first: let the cache catch up with that write, then try again.
      fresh = true;
      await this.core.cache.waitFor(result.revision);
    }
  }

  async delete(name: string, options: WriteOptions = {}): Promise<KubeObject> {
    const opening = this.core.ready(this.prefix);
    if (opening !== undefined) await opening;
    const key = this.keyFor(name);
    let fresh = false;
    for (;;) {
      const current = this.cache.get(name);
      try {
        if (current === undefined) throw notFoundError(this.resource, name);
        this.checkPreconditions(key, current, options.preconditions);
      } catch (error) {
        if (!fresh) {
          fresh = true;
          await this.core.waitFresh();
          continue;
        }
        throw error;
      }
      const result = await this.core.commit([{ type: 'delete', key, expectedModRevision: current.modRevision }]);
      if (result.ok) return cachedAtRevision(current, result.revision).object;
      fresh = true;
      await this.core.cache.waitFor(result.revision);
    }
  }

  async watch(options: WatchOptions = {}): Promise<Watcher> {
    const opening = this.core.ready(this.prefix);
    if (opening !== undefined) await opening;
    validateWatchOptions(options, this.core.metaGroup);
    const selection = parseSelection(options.labelSelector, options.fieldSelector);
    const text = options.resourceVersion ?? '';
    const wanted = parseResourceVersion(text);
    const initial = options.sendInitialEvents ?? (text === '' || text === '0');
    if (text === '') await this.core.waitFresh();
    else if (initial && wanted > 0) await this.core.cache.waitFor(wanted);
    const cacheRoot = this.core.cache;
    cacheRoot.prune();
    const cache = this.cache;
    const bookmarks = options.allowWatchBookmarks === true;
    const startRevision = initial || wanted === 0 ? cacheRoot.revision : wanted;
    if (!initial && wanted > 0 && wanted < cache.window.startRevision) {
      return endedWatcher(errorEvent(tooOldResourceVersionError(wanted, cache.window.startRevision)));
    }
    const watcher = new CacheWatcher({
      filter: selection.filter,
      bufferSize: this.core.watcherBufferSize,
      bookmarks,
      afterRevision: startRevision,
      owner: this,
    });
    if (initial) {
      const objects = cache.page('latest', '', 0, selection.filter, false).items;
      const end = options.sendInitialEvents === true && bookmarks ? bookmarkEvent(this.resource, startRevision, true) : undefined;
      watcher.setInitial(initialEvents(objects, end));
    } else if (startRevision < cacheRoot.revision) {
      watcher.setInitial(replayEvents(cache.window.since(startRevision), selection.filter));
    }
    cacheRoot.addWatcher(cache, watcher);
    if (options.timeoutMs !== undefined) watcher.endAfter(cacheRoot.deadlines, this.core.clock.now(), Math.max(0, options.timeoutMs));
    return watcher;
  }

  /** The storage key for a name, refusing names kube's key function refuses. */
  private keyFor(name: string): string {
    checkName(name);
    return this.prefix + name;
  }

  private checkPreconditions(key: string, current: CachedObject, preconditions: Preconditions | undefined): void {
    if (preconditions === undefined) return;
    const meta = current.object.metadata ?? {};
    if (preconditions.uid !== undefined && preconditions.uid !== (meta.uid ?? '')) {
      throw preconditionError(this.resource, current.name, key, 'UID', preconditions.uid, meta.uid ?? '');
    }
    if (preconditions.resourceVersion !== undefined && preconditions.resourceVersion !== (meta.resourceVersion ?? '')) {
      throw preconditionError(this.resource, current.name, key, 'ResourceVersion', preconditions.resourceVersion, meta.resourceVersion ?? '');
    }
  }
}

/** Refuses names kube's key function refuses (a read checks the name without building the key). */
function checkName(name: string): void {
  if (name.length === 0) throw badRequestError('FW_ERR_STORE_BAD_NAME', 'Name parameter required.');
  // Two scans rather than a regular expression: every read by name asks this.
  if (!name.includes('/') && !name.includes('%') && name !== '.' && name !== '..') return;
  const problems = name === '.' || name === '..' ? [`may not be '${name}'`] : ['/', '%'].filter((c) => name.includes(c)).map((c) => `may not contain '${c}'`);
  if (problems.length > 0) throw badRequestError('FW_ERR_STORE_BAD_NAME', `Name parameter invalid: ${JSON.stringify(name)}: ${problems.join(';')}`);
}

function isConflict(error: unknown): boolean {
  return isStoreErrorCode(error, 'FW_ERR_STORE_CONFLICT') || isStoreErrorCode(error, 'FW_ERR_STORE_PRECONDITION_FAILED');
}

/**
 * A LIST result over the watch cache's objects. `items` (the objects alone) is made when first
 * read: the API writes a list from `forms`, and an array of thousands of entries per LIST, alive
 * while the body streams, is old-generation garbage (resource-cache.ts).
 */
class CachedList implements ListResult {
  private objects: KubeObject[] | undefined;
  readonly continue?: string;
  readonly remainingItemCount?: number;

  constructor(
    readonly forms: readonly CachedObject[],
    readonly resourceVersion: string,
    continueToken: string | undefined,
    remaining: number | undefined,
  ) {
    if (continueToken !== undefined) this.continue = continueToken;
    if (remaining !== undefined) this.remainingItemCount = remaining;
  }

  get items(): readonly KubeObject[] {
    this.objects ??= this.forms.map((c) => c.object);
    return this.objects;
  }
}

function* initialEvents(objects: readonly CachedObject[], end: WatchEvent | undefined): Generator<WatchEvent> {
  for (const cached of objects) yield addedEventFor(cached);
  if (end !== undefined) yield end;
}

function* replayEvents(events: readonly CacheEvent[], filter: ObjectFilter): Generator<WatchEvent> {
  for (const event of events) {
    const shown = eventViewFor(event, filter);
    if (shown !== undefined) yield shown;
  }
}

/** The owner of a watcher that is never in the cache. */
const UNOWNED: WatcherOwner = { watcherEnded: () => undefined, timeoutNear: () => undefined };

/** A watcher that delivers one event (an ERROR) and ends, as kube's errWatcher. */
function endedWatcher(event: WatchEvent): Watcher {
  const watcher = new CacheWatcher({ filter: undefined, bufferSize: 1, bookmarks: false, afterRevision: 0, owner: UNOWNED });
  watcher.setInitial([event][Symbol.iterator]());
  watcher.finish();
  return watcher;
}
