// The read commands of the store model run (get, paged and Exact lists, watches from any revision,
// informers) and reopen. Each computes from the model's history what the store must answer.

import * as assert from 'uvu/assert';
import type { KubeObject } from '../../engine/resources/types.ts';
import type { ListResult } from '../../engine/store/store-types.ts';
import type { WatchEvent } from '../../engine/store/watch-event.ts';
import { Probe } from '../../engine/store/testing/suite-kit.ts';
import { attempt, expectFailure, expectObject, isBadName, type Command } from './store-command-kit.ts';
import {
  SELECTORS,
  describeSelector,
  eventsAfter,
  expected,
  listed,
  observed,
  selectorOptions,
  sorted,
  stateAt,
  windowStart,
  type Kind,
  type ModelObject,
  type StoreModel,
} from './store-model.ts';
import { Informer, type InformerMode, type RealStore } from './store-real.ts';

type ReadOutcome = Parameters<typeof expectObject>[0];

export class Get implements Command {
  /** `at`: a fraction of the current revision, for "at least as new as N". */
  constructor(
    readonly kind: Kind,
    readonly name: string,
    readonly rvMode: '' | '0' | 'N',
    readonly at: number,
  ) {}
  check = () => true;
  async run(m: StoreModel, r: RealStore): Promise<void> {
    const rv = this.rvMode === 'N' && m.revision > 0 ? String(Math.max(1, Math.ceil(this.at * m.revision))) : this.rvMode === 'N' ? '' : this.rvMode;
    const store = r.resources[this.kind];
    // The read without a promise answers as `get` does, unless it says to wait (undefined).
    const now = await attempt(async () => store.getNow(this.name, rv));
    if (!now.ok || now.value !== undefined) this.expect(m, now as ReadOutcome, rv, 'getNow');
    this.expect(m, await attempt(() => store.get(this.name, { resourceVersion: rv })), rv, 'get');
  }
  private expect(m: StoreModel, outcome: ReadOutcome, rv: string, read: string): void {
    const what = `${this} (${read})`;
    if (isBadName(this.name)) return expectFailure(outcome, 'FW_ERR_STORE_BAD_NAME', what);
    const current = m.objects[this.kind].get(this.name);
    if (current === undefined) return expectFailure(outcome, 'FW_ERR_STORE_NOT_FOUND', what);
    expectObject(outcome, current, `${what} (rv "${rv}")`);
  }
  toString = () => `get ${this.kind}/${this.name} rv=${this.rvMode}${this.rvMode === 'N' ? `@${this.at.toFixed(2)}` : ''}`;
}

/** Checks one page against the snapshot it must come from; returns the names it held. */
function checkPage(page: ListResult, want: ModelObject[], after: string, limit: number, revision: number, selector: number, what: string): string {
  const rest = want.filter((o) => o.name > after);
  const expectedItems = limit > 0 ? rest.slice(0, limit) : rest;
  assert.equal(page.items.map(observed), expectedItems.map(expected), `${what}: items after "${after}"`);
  assert.is(page.resourceVersion, String(revision), `${what}: resourceVersion`);
  const more = rest.length > expectedItems.length;
  assert.is(page.continue !== undefined, more, `${what}: continue token present`);
  const remaining =
    more && SELECTORS[selector]!.labelSelector === undefined && SELECTORS[selector]!.fieldSelector === undefined
      ? rest.length - expectedItems.length
      : undefined;
  assert.is(page.remainingItemCount, remaining, `${what}: remainingItemCount`);
  return expectedItems[expectedItems.length - 1]?.name ?? after;
}

export class ListAll implements Command {
  constructor(
    readonly kind: Kind,
    readonly selector: number,
    readonly limit: number,
  ) {}
  check = () => true;
  async run(m: StoreModel, r: RealStore): Promise<void> {
    const want = listed(m.objects[this.kind], this.selector);
    let after = '';
    let token: string | undefined;
    let pages = 0;
    do {
      const page = await r.resources[this.kind].list({
        ...selectorOptions(this.selector),
        limit: this.limit,
        continue: token,
      });
      after = checkPage(page, want, after, this.limit, m.revision, this.selector, `${this} page ${++pages}`);
      token = page.continue;
      assert.ok(pages <= want.length + 1, `${this}: more pages than items`);
    } while (token !== undefined);
  }
  toString = () => `list ${this.kind} ${describeSelector(this.selector)} limit=${this.limit}`;
}

export class StartPaging implements Command {
  constructor(
    readonly kind: Kind,
    readonly selector: number,
    readonly limit: number,
  ) {}
  check = (m: Readonly<StoreModel>) => m.paging === undefined || m.paging.done;
  async run(m: StoreModel, r: RealStore): Promise<void> {
    const page = await r.resources[this.kind].list({ ...selectorOptions(this.selector), limit: this.limit });
    const lastName = checkPage(page, listed(m.objects[this.kind], this.selector), '', this.limit, m.revision, this.selector, String(this));
    m.paging = { kind: this.kind, selector: this.selector, limit: this.limit, revision: m.revision, lastName, done: page.continue === undefined };
    r.pageToken = page.continue;
  }
  toString = () => `first page of ${this.kind} ${describeSelector(this.selector)} limit=${this.limit}`;
}

/** The next page of the paged list, whatever was written since: still the first page's snapshot. */
export class ContinuePaging implements Command {
  check = (m: Readonly<StoreModel>) => m.paging !== undefined && !m.paging.done;
  async run(m: StoreModel, r: RealStore): Promise<void> {
    const paging = m.paging!;
    const options = { ...selectorOptions(paging.selector), limit: paging.limit };
    const outcome = await attempt(() => r.resources[paging.kind].list({ ...options, continue: r.pageToken! }));
    let page: ListResult;
    if (paging.revision < windowStart(m, paging.kind)) {
      expectFailure(outcome, 'FW_ERR_STORE_CONTINUE_EXPIRED', `${this} (snapshot ${paging.revision} left the window)`);
      // The 410 carries a token that continues after the same name at the latest state.
      const fresh = outcome.ok ? undefined : outcome.error.continueToken;
      assert.ok(fresh !== undefined, `${this}: the 410 has no fresh token`);
      page = await r.resources[paging.kind].list({ ...options, continue: fresh });
      paging.revision = m.revision;
    } else {
      assert.ok(outcome.ok, `${this}: failed with ${outcome.ok ? '' : outcome.code}`);
      page = (outcome as { value: ListResult }).value;
    }
    const snapshot = listed(stateAt(m, paging.kind, paging.revision), paging.selector);
    paging.lastName = checkPage(page, snapshot, paging.lastName, paging.limit, paging.revision, paging.selector, String(this));
    paging.done = page.continue === undefined;
    r.pageToken = page.continue;
  }
  toString = () => 'continue the paged list';
}

export class ListExact implements Command {
  constructor(
    readonly kind: Kind,
    readonly selector: number,
    readonly at: number,
  ) {}
  check = (m: Readonly<StoreModel>) => m.revision > 0;
  async run(m: StoreModel, r: RealStore): Promise<void> {
    const revision = Math.max(1, Math.ceil(this.at * m.revision));
    const outcome = await attempt(() =>
      r.resources[this.kind].list({ ...selectorOptions(this.selector), resourceVersion: String(revision), resourceVersionMatch: 'Exact' }),
    );
    const what = `${this} (N=${revision})`;
    if (revision < windowStart(m, this.kind)) return expectFailure(outcome, 'FW_ERR_STORE_EXPIRED', what);
    assert.ok(outcome.ok, `${what}: failed with ${outcome.ok ? '' : outcome.code}`);
    checkPage((outcome as { value: ListResult }).value, listed(stateAt(m, this.kind, revision), this.selector), '', 0, revision, this.selector, what);
  }
  toString = () => `list ${this.kind} ${describeSelector(this.selector)} Exact @${this.at.toFixed(2)}`;
}

/** A watch from N replays exactly the committed changes after N, in order, then waits. */
export class WatchFrom implements Command {
  constructor(
    readonly kind: Kind,
    readonly selector: number,
    readonly at: number,
  ) {}
  check = () => true;
  async run(m: StoreModel, r: RealStore): Promise<void> {
    const revision = Math.min(m.revision, Math.floor(this.at * (m.revision + 1)));
    const what = `${this} (N=${revision})`;
    const watcher = await r.resources[this.kind].watch({ ...selectorOptions(this.selector), resourceVersion: String(revision) });
    const probe = new Probe(watcher);
    try {
      const got: WatchEvent[] = [];
      for (let event = await probe.next(); event !== undefined && event !== 'done'; event = await probe.next()) got.push(event);
      if (revision > 0 && revision < windowStart(m, this.kind)) {
        assert.equal(
          got.map((e) => [e.type, e.error?.code]),
          [['ERROR', 'FW_ERR_STORE_EXPIRED']],
          `${what}: too old`,
        );
        return;
      }
      // N = 0 is "the current state as ADDED events, then changes".
      const want =
        revision === 0
          ? sorted(m.objects[this.kind].values())
              .filter((o) => SELECTORS[this.selector]!.matches(o))
              .map((object) => ({ type: 'ADDED', object }))
          : eventsAfter(m, this.kind, revision, this.selector);
      assert.equal(
        got.map((e) => ({ type: e.type, object: observed(e.object as KubeObject) })),
        want.map((e) => ({ type: e.type, object: expected(e.object) })),
        what,
      );
    } finally {
      watcher.stop();
    }
  }
  toString = () => `watch ${this.kind} ${describeSelector(this.selector)} from @${this.at.toFixed(2)}`;
}

const MAX_INFORMERS = 3;

export class StartInformer implements Command {
  constructor(
    readonly kind: Kind,
    readonly selector: number,
    readonly mode: InformerMode,
  ) {}
  check = (m: Readonly<StoreModel>) => m.informers < MAX_INFORMERS;
  async run(m: StoreModel, r: RealStore): Promise<void> {
    r.informers.push(await Informer.start(r.resources[this.kind], this.kind, this.selector, this.mode));
    m.informers++;
  }
  toString = () => `start ${this.mode} informer on ${this.kind} (${describeSelector(this.selector)})`;
}

export class SyncInformers implements Command {
  check = (m: Readonly<StoreModel>) => m.informers > 0;
  run = (m: StoreModel, r: RealStore) => r.syncInformers(m);
  toString = () => 'sync informers';
}

/** Close and reopen on the same data: informers are checked first, then end with the store. */
export class Reopen implements Command {
  check = () => true;
  async run(m: StoreModel, r: RealStore): Promise<void> {
    await r.syncInformers(m);
    await r.reopen();
    m.informers = 0;
    assert.is(r.store.revision(), m.revision, 'revision after reopen');
  }
  toString = () => 'reopen';
}
