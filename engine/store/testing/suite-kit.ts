// Shared pieces of the store compliance suite: the harness a backend provides, a store fixture on a
// virtual clock, object builders and watch helpers. Lives under testing/ because it drives real
// processes' event loops (setImmediate) to let pending I/O settle.

import * as assert from 'uvu/assert';
import { SimClock } from '../../sim-clock.ts';
import type { KubeObject } from '../../resources/types.ts';
import type { StorageBackend } from '../backend.ts';
import { createStore, type StoreOptions } from '../store.ts';
import { isStoreError, type StoreErrorCode, type StoreError } from '../store-errors.ts';
import type { ResourceInfo, ResourceStore, Store, Watcher } from '../store-types.ts';
import type { WatchEvent } from '../watch-event.ts';

export interface SuiteLocation {
  /** A new backend on this location (for reopen tests, call again after closing the previous store). */
  backend(options?: { eventLogCapacity?: number | undefined }): StorageBackend;
  /** Replaces a stored value with bytes while nothing has the location open. */
  writeRawValue?(key: string, value: Uint8Array): Promise<void>;
  /** Damages the database's own files so that opening fails. */
  corruptFiles?(): Promise<void>;
  cleanup(): Promise<void>;
}

export interface SuiteHarness {
  readonly name: string;
  /** A fresh, empty storage location (on a shared etcd its revisions do not start at 1). */
  location(): Promise<SuiteLocation>;
}

export const PLC: ResourceInfo = {
  group: 'flowcontrol.apiserver.k8s.io',
  resource: 'prioritylevelconfigurations',
  kind: 'PriorityLevelConfiguration',
  apiVersion: 'flowcontrol.apiserver.k8s.io/v1',
  bookmarkFields: { spec: {}, status: {} },
};

export const FS: ResourceInfo = {
  group: 'flowcontrol.apiserver.k8s.io',
  resource: 'flowschemas',
  kind: 'FlowSchema',
  apiVersion: 'flowcontrol.apiserver.k8s.io/v1',
};

export function plc(name: string, labels?: Record<string, string>, spec: Record<string, unknown> = { type: 'Limited' }): KubeObject {
  return {
    apiVersion: PLC.apiVersion,
    kind: PLC.kind,
    metadata: { name, uid: `uid-${name}`, generation: 1, creationTimestamp: '2026-11-21T05:00:00Z', ...(labels ? { labels } : {}) },
    spec,
  };
}

export interface Fixture {
  readonly clock: SimClock;
  readonly location: SuiteLocation;
  store: Store;
  plcs: ResourceStore;
  flowschemas: ResourceStore;
  /** Closes the store and opens a new one on the same location. */
  reopen(options?: Partial<StoreOptions>): Promise<void>;
}

export type FixtureOptions = Partial<Omit<StoreOptions, 'backend' | 'clock'>> & { eventLogCapacity?: number };

/** Runs `body` against a freshly opened store; always closes and cleans up. */
export async function withStore(harness: SuiteHarness, options: FixtureOptions, body: (f: Fixture) => Promise<void>): Promise<void> {
  const location = await harness.location();
  const clock = new SimClock(1_000_000);
  const open = async (extra: Partial<StoreOptions> = {}): Promise<Store> => {
    const backend = location.backend({ eventLogCapacity: options.eventLogCapacity });
    const store = createStore({ ...options, ...extra, backend, clock });
    await store.open();
    return store;
  };
  const store = await open();
  const fixture: Fixture = {
    clock,
    location,
    store,
    plcs: store.for(PLC),
    flowschemas: store.for(FS),
    async reopen(extra) {
      await fixture.store.close();
      fixture.store = await open(extra);
      fixture.plcs = fixture.store.for(PLC);
      fixture.flowschemas = fixture.store.for(FS);
    },
  };
  try {
    await body(fixture);
  } finally {
    await fixture.store.close();
    await location.cleanup();
  }
}

/** Lets queued I/O callbacks and microtasks run. */
export function settle(): Promise<void> {
  return new Promise((resolve) => setImmediate(resolve));
}

const NOTHING = Symbol('nothing');

/** Reads a watcher without ever blocking a test: "nothing ready" is an answer, not a hang. */
export class Probe {
  private pull: Promise<IteratorResult<WatchEvent>> | undefined;

  constructor(readonly watcher: Watcher) {}

  /** The next event, 'done' at the end, or undefined when nothing is ready after I/O settles. */
  async next(): Promise<WatchEvent | 'done' | undefined> {
    this.pull ??= this.watcher.next();
    const result = await Promise.race([
      this.pull,
      settle()
        .then(settle)
        .then(() => NOTHING),
    ]);
    if (result === NOTHING) return undefined;
    this.pull = undefined;
    const r = result as IteratorResult<WatchEvent>;
    return r.done === true ? 'done' : r.value;
  }

  /** Exactly `count` events, failing if the watcher runs dry or ends first. */
  async take(count: number): Promise<WatchEvent[]> {
    const events: WatchEvent[] = [];
    while (events.length < count) {
      const event = await this.next();
      if (event === undefined || event === 'done') {
        assert.unreachable(`expected ${count} events, got [${events.map(summary).join(', ')}] then ${event ?? 'nothing'}`);
      }
      events.push(event as WatchEvent);
    }
    return events;
  }

  async quiet(): Promise<void> {
    const event = await this.next();
    if (event !== undefined) assert.unreachable(`expected no event, got ${event === 'done' ? 'the end' : summary(event)}`);
  }

  async done(): Promise<void> {
    const event = await this.next();
    assert.is(event, 'done', `expected the end, got ${event === undefined ? 'nothing' : event === 'done' ? 'done' : summary(event)}`);
  }
}

export const probe = (watcher: Watcher): Probe => new Probe(watcher);

/** Awaits a rejection and checks its store error code (and message, when given). */
export async function rejects(promise: Promise<unknown>, code: StoreErrorCode, message?: string | RegExp): Promise<StoreError> {
  try {
    await promise;
  } catch (error) {
    if (!isStoreError(error)) throw error;
    assert.is(error.code, code, `code (message: ${error.message})`);
    if (typeof message === 'string') assert.is(error.message, message);
    else if (message !== undefined) assert.match(error.message, message);
    return error;
  }
  assert.unreachable(`expected ${code}`);
  throw new Error('unreachable');
}

/** What a store error tells its caller: the code, the words and the facts (the API edge makes its Status from these alone). */
export const errorFacts = (error: StoreError) => ({ code: error.code, message: error.message, details: error.details, continueToken: error.continueToken });

export const rvOf = (object: KubeObject | undefined): number => Number(object?.metadata?.resourceVersion);
export const namesOf = (items: readonly KubeObject[]): string[] => items.map((o) => o.metadata?.name ?? '');
export const summary = (e: WatchEvent): string => `${e.type} ${(e.object as KubeObject).metadata?.name ?? ''}@${e.resourceVersion ?? ''}`;
