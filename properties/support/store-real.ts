// The system under test of the store model run: one Store on a backend (memory volume or LevelDB
// directory) on a virtual clock, plus the long-lived watches ("informers") the commands start. An
// informer is what client-go builds: a list, then a watch from the list's resourceVersion (or one
// watch with sendInitialEvents); applying its events to its state must give the store's state.

import * as assert from 'uvu/assert';
import { SimClock } from '../../engine/sim-clock.ts';
import type { StorageBackend } from '../../engine/store/backend.ts';
import { createStore } from '../../engine/store/store.ts';
import type { ResourceStore, Store } from '../../engine/store/store-types.ts';
import { INITIAL_EVENTS_END_ANNOTATION, type WatchEvent } from '../../engine/store/watch-event.ts';
import { Probe } from '../../engine/store/testing/suite-kit.ts';
import type { KubeObject } from '../../engine/resources/types.ts';
import { FLOWCONTROL_KINDS, storeResourceInfo } from '../../engine/resources/kinds.ts';
import { describeSelector, expected, listed, observed, selectorOptions, type Kind, type StoreModel } from './store-model.ts';

export interface StoreLocation {
  readonly name: string;
  /** A backend on the location; called again to reopen after a close. */
  backend(): StorageBackend;
  cleanup(): Promise<void>;
}

export type StoreWrapper = (store: ResourceStore) => ResourceStore;

export type InformerMode = 'list-watch' | 'watch-list';

export class Informer {
  readonly state = new Map<string, KubeObject>();
  private lastRv: number;
  private synced: boolean;

  constructor(
    readonly kind: Kind,
    readonly selector: number,
    readonly mode: InformerMode,
    private readonly probe: Probe,
    listRv: number,
  ) {
    this.lastRv = listRv;
    this.synced = mode === 'list-watch';
  }

  static async start(resources: ResourceStore, kind: Kind, selector: number, mode: InformerMode): Promise<Informer> {
    const selection = selectorOptions(selector);
    if (mode === 'watch-list') {
      const watcher = await resources.watch({ ...selection, sendInitialEvents: true, resourceVersionMatch: 'NotOlderThan', allowWatchBookmarks: true });
      return new Informer(kind, selector, mode, new Probe(watcher), 0);
    }
    const list = await resources.list(selection);
    const watcher = await resources.watch({ ...selection, resourceVersion: list.resourceVersion });
    const informer = new Informer(kind, selector, mode, new Probe(watcher), Number(list.resourceVersion));
    for (const item of list.items) informer.state.set(item.metadata!.name!, item);
    return informer;
  }

  /** Applies every event that is ready, checking each against the state it changes. */
  async catchUp(): Promise<void> {
    for (;;) {
      const event = await this.probe.next();
      if (event === undefined) return;
      if (event === 'done') assert.unreachable(`${this} ended`);
      this.apply(event as WatchEvent);
    }
  }

  private apply(event: WatchEvent): void {
    const object = event.object as KubeObject;
    const rv = Number(event.resourceVersion);
    if (event.type === 'BOOKMARK') {
      assert.is(this.mode, 'watch-list', `${this}: unexpected bookmark`);
      assert.is(object.metadata?.annotations?.[INITIAL_EVENTS_END_ANNOTATION], 'true', `${this}: a bookmark that is not the initial-events end`);
      assert.not.ok(this.synced, `${this}: a second initial-events bookmark`);
      this.synced = true;
      this.lastRv = rv;
      return;
    }
    assert.is.not(event.type, 'ERROR', `${this}: ERROR ${JSON.stringify(object)}`);
    const name = object.metadata!.name!;
    // Initial events carry each object's own version; only changes after them are ordered.
    if (this.synced) {
      assert.ok(rv > this.lastRv, `${this}: ${event.type} ${name}@${rv} after ${this.lastRv}`);
      this.lastRv = rv;
    } else {
      assert.is(event.type, 'ADDED', `${this}: initial ${event.type}`);
    }
    const present = this.state.has(name);
    if (event.type === 'ADDED') assert.not.ok(present, `${this}: ADDED ${name}@${rv}, which it already holds`);
    else assert.ok(present, `${this}: ${event.type} ${name}@${rv}, which it does not hold`);
    if (event.type === 'DELETED') this.state.delete(name);
    else this.state.set(name, object);
  }

  /** After catching up, the informer's state is the store's state under its selector. */
  assertMatches(model: StoreModel): void {
    assert.ok(this.synced, `${this}: never saw its initial-events bookmark`);
    const want = listed(model.objects[this.kind], this.selector).map(expected);
    const have = [...this.state.values()].map(observed).sort((a, b) => (a.name < b.name ? -1 : 1));
    assert.equal(have, want, `${this} state`);
  }

  stop(): void {
    this.probe.watcher.stop();
  }

  toString(): string {
    return `${this.mode} informer on ${this.kind} (${describeSelector(this.selector)})`;
  }
}

export class RealStore {
  store!: Store;
  resources!: Record<Kind, ResourceStore>;
  informers: Informer[] = [];
  /** The continue token of the paged list in progress. */
  pageToken: string | undefined;
  readonly clock = new SimClock(1_000_000);

  private constructor(
    readonly location: StoreLocation,
    private readonly windowCapacity: number,
    private readonly wrap: StoreWrapper,
  ) {}

  /** `wrap` lets a control put a deliberately faulty layer in front of each ResourceStore. */
  static async open(location: StoreLocation, windowCapacity: number, wrap: StoreWrapper = (s) => s): Promise<RealStore> {
    const real = new RealStore(location, windowCapacity, wrap);
    await real.openStore();
    return real;
  }

  private async openStore(): Promise<void> {
    this.store = createStore({ backend: this.location.backend(), clock: this.clock, windowCapacity: this.windowCapacity });
    await this.store.open();
    this.resources = {
      plc: this.wrap(this.store.for(storeResourceInfo(FLOWCONTROL_KINDS[0]))),
      fs: this.wrap(this.store.for(storeResourceInfo(FLOWCONTROL_KINDS[1]))),
    };
  }

  /** Waits until the cache holds every acknowledged write (a consistent read does). */
  async caughtUp(): Promise<void> {
    await this.resources.plc.list({ limit: 1 });
  }

  async syncInformers(model: StoreModel): Promise<void> {
    await this.caughtUp();
    for (const informer of this.informers) {
      await informer.catchUp();
      informer.assertMatches(model);
    }
  }

  async reopen(): Promise<void> {
    for (const informer of this.informers.splice(0)) informer.stop();
    await this.store.close();
    await this.openStore();
  }

  async close(): Promise<void> {
    for (const informer of this.informers.splice(0)) informer.stop();
    if (this.store.state !== 'closed') await this.store.close();
    await this.location.cleanup();
  }
}
