// Compliance suite, part 3: watch — starting points, replay from the window, 410 paths, selector
// transitions, bookmarks, initial events, slow watchers, shared encodings, timeouts.

import * as assert from 'uvu/assert';
import type { Test } from 'uvu';
import type { KubeObject, Status } from '../../resources/types.ts';
import { INITIAL_EVENTS_END_ANNOTATION } from '../watch-event.ts';
import { errorFacts, plc, probe, rejects, rvOf, summary, withStore, type SuiteHarness } from './suite-kit.ts';

export function watchTests(test: Test, harness: SuiteHarness): void {
  test('a watch from a list resourceVersion sees every later change, in order', () =>
    withStore(harness, {}, async ({ plcs }) => {
      await plcs.create(plc('a'));
      const list = await plcs.list();
      const w = probe(await plcs.watch({ resourceVersion: list.resourceVersion }));
      const b = await plcs.create(plc('b', { x: '1' }));
      const b2 = await plcs.update({ ...b, spec: { type: 'Exempt' } });
      const gone = await plcs.delete('a');
      const events = await w.take(3);
      assert.equal(events.map(summary), [`ADDED b@${rvOf(b)}`, `MODIFIED b@${rvOf(b2)}`, `DELETED a@${rvOf(gone)}`]);
      assert.equal(events[1]!.object, b2);
      assert.equal((events[2]!.object as KubeObject).spec, { type: 'Limited' }, 'DELETED carries the last state');
      await w.quiet();
      w.watcher.stop();
      await w.done();
    }));

  test('a watch from "" or "0" starts with ADDED for the current state', () =>
    withStore(harness, {}, async ({ plcs, store }) => {
      await plcs.create(plc('b'));
      await plcs.create(plc('a'));
      for (const resourceVersion of [undefined, '0']) {
        const w = probe(await plcs.watch(resourceVersion === undefined ? {} : { resourceVersion }));
        assert.equal((await w.take(2)).map(summary), [`ADDED a@${store.revision()}`, `ADDED b@${store.revision() - 1}`]);
        await w.quiet();
        w.watcher.stop();
      }
      const none = probe(await plcs.watch({ sendInitialEvents: false, resourceVersionMatch: 'NotOlderThan' }));
      await none.quiet();
      await plcs.create(plc('c'));
      assert.equal((await none.take(1)).map(summary), [`ADDED c@${store.revision()}`]);
      none.watcher.stop();
    }));

  test('a watch from an older resourceVersion replays the window; one older than the window is a 410 ERROR', () =>
    withStore(harness, { windowCapacity: 3 }, async ({ plcs }) => {
      const a = await plcs.create(plc('a'));
      await plcs.create(plc('b'));
      await plcs.delete('a');
      const replay = probe(await plcs.watch({ resourceVersion: a.metadata!.resourceVersion! }));
      assert.equal((await replay.take(2)).map(summary), [`ADDED b@${rvOf(a) + 1}`, `DELETED a@${rvOf(a) + 2}`]);
      replay.watcher.stop();
      for (const name of ['c', 'd', 'e']) await plcs.create(plc(name));
      const old = probe(await plcs.watch({ resourceVersion: a.metadata!.resourceVersion! }));
      const [error] = await old.take(1);
      assert.is(error!.type, 'ERROR');
      assert.is(error!.error?.code, 'FW_ERR_STORE_EXPIRED');
      assert.equal(errorFacts(error!.error!), {
        code: 'FW_ERR_STORE_EXPIRED',
        message: `too old resource version: ${rvOf(a)} (${rvOf(a) + 2})`, // oldest kept is a+3; kube prints it minus one
        details: undefined,
        continueToken: undefined,
      });
      await old.done();
    }));

  test('an object that stops matching arrives as DELETED, one that starts matching as ADDED', () =>
    withStore(harness, {}, async ({ plcs }) => {
      const a = await plcs.create(plc('a', { tier: 'gold' }));
      const w = probe(await plcs.watch({ resourceVersion: a.metadata!.resourceVersion!, labelSelector: 'tier=gold' }));
      const silver = await plcs.update({ ...a, metadata: { ...a.metadata, labels: { tier: 'silver' } } });
      const gold = await plcs.update({ ...silver, metadata: { ...silver.metadata, labels: { tier: 'gold' } } });
      await plcs.create(plc('b', { tier: 'bronze' }));
      const gold2 = await plcs.update({ ...gold, spec: { type: 'Exempt' } });
      const events = await w.take(3);
      assert.equal(events.map(summary), [`DELETED a@${rvOf(silver)}`, `ADDED a@${rvOf(gold)}`, `MODIFIED a@${rvOf(gold2)}`]);
      assert.equal((events[0]!.object as KubeObject).metadata?.labels, { tier: 'gold' }, 'DELETED shows the last matching state');
      await w.quiet();
      w.watcher.stop();
      const byName = probe(await plcs.watch({ resourceVersion: '0', fieldSelector: 'metadata.name=b' }));
      assert.equal((await byName.take(1)).map(summary), [`ADDED b@${rvOf(gold) + 1}`]);
      await plcs.delete('a');
      await byName.quiet();
      byName.watcher.stop();
    }));

  test('bookmarks come periodically when allowed, carrying the current revision', () =>
    withStore(harness, { bookmarkIntervalMs: 60_000 }, async ({ plcs, clock, store }) => {
      await plcs.create(plc('a'));
      const withMarks = probe(await plcs.watch({ resourceVersion: String(store.revision()), allowWatchBookmarks: true }));
      const without = probe(await plcs.watch({ resourceVersion: String(store.revision()) }));
      clock.advance(60_000);
      const [bookmark] = await withMarks.take(1);
      assert.is(bookmark!.type, 'BOOKMARK');
      assert.equal(bookmark!.object, {
        kind: 'PriorityLevelConfiguration',
        apiVersion: 'flowcontrol.apiserver.k8s.io/v1',
        metadata: { resourceVersion: String(store.revision()), creationTimestamp: null },
        spec: {},
        status: {},
      });
      await without.quiet();
      await plcs.create(plc('b'));
      clock.advance(60_000);
      assert.equal(
        (await withMarks.take(2)).map((e) => `${e.type}@${e.resourceVersion}`),
        [`ADDED@${store.revision()}`, `BOOKMARK@${store.revision()}`],
      );
      withMarks.watcher.stop();
      without.watcher.stop();
    }));

  test('sendInitialEvents sends the state, then the initial-events-end bookmark, then changes', () =>
    withStore(harness, {}, async ({ plcs, store }) => {
      await plcs.create(plc('b'));
      await plcs.create(plc('a'));
      const stateRv = store.revision();
      const w = probe(await plcs.watch({ sendInitialEvents: true, resourceVersionMatch: 'NotOlderThan', allowWatchBookmarks: true }));
      const initial = await w.take(3);
      assert.equal(initial.map(summary), [`ADDED a@${stateRv}`, `ADDED b@${stateRv - 1}`, `BOOKMARK @${stateRv}`]);
      assert.equal((initial[2]!.object as KubeObject).metadata?.annotations, { [INITIAL_EVENTS_END_ANNOTATION]: 'true' });
      await plcs.create(plc('c'));
      assert.equal((await w.take(1)).map(summary), [`ADDED c@${stateRv + 1}`]);
      w.watcher.stop();
      await rejects(
        plcs.watch({ sendInitialEvents: true }),
        'FW_ERR_STORE_INVALID_LIST_OPTIONS',
        'ListOptions.meta.k8s.io "" is invalid: resourceVersionMatch: Forbidden: sendInitialEvents requires setting resourceVersionMatch to NotOlderThan',
      );
      await rejects(
        plcs.watch({ resourceVersionMatch: 'NotOlderThan' }),
        'FW_ERR_STORE_INVALID_LIST_OPTIONS',
        'ListOptions.meta.k8s.io "" is invalid: resourceVersionMatch: Forbidden: resourceVersionMatch is forbidden for watch unless ' +
          'sendInitialEvents is provided',
      );
    }));

  test('a slow watcher is cut off with an ERROR after its buffer fills; others get everything', () =>
    withStore(harness, { watcherBufferSize: 3 }, async ({ plcs, store }) => {
      const from = String(store.revision());
      const slow = probe(await plcs.watch({ resourceVersion: from }));
      const fast = probe(await plcs.watch({ resourceVersion: from }));
      const seen: string[] = [];
      for (let i = 0; i < 6; i++) {
        await plcs.create(plc(`o${i}`));
        seen.push(...(await fast.take(1)).map(summary));
      }
      assert.is(seen.length, 6);
      const [error] = await slow.take(1);
      assert.is(error!.type, 'ERROR');
      assert.is(error!.error?.code, 'FW_ERR_STORE_WATCH_TOO_SLOW');
      assert.is(error!.error?.message, 'watch closed: the client fell 3 events behind; watch again from the last resourceVersion it received');
      assert.match((error!.object as Status).message ?? '', /fell 3 events behind/);
      await slow.done();
      assert.is(store.dump().resources.find((r) => r.prefix.endsWith('/prioritylevelconfigurations/'))?.watchers, 1);
      fast.watcher.stop();
    }));

  test('watchers share one event object and one JSON encoding per event', () =>
    withStore(harness, {}, async ({ plcs, store }) => {
      const from = String(store.revision());
      const one = probe(await plcs.watch({ resourceVersion: from }));
      const two = probe(await plcs.watch({ resourceVersion: from }));
      const created = await plcs.create(plc('a'));
      const [e1] = await one.take(1);
      const [e2] = await two.take(1);
      assert.ok(e1 === e2, 'the same event object');
      assert.ok(e1!.json() === e2!.json());
      assert.is(e1!.json(), JSON.stringify({ type: 'ADDED', object: created }));
      let calls = 0;
      const yamlish = (e: { type: string }) => `${e.type}:${++calls}`;
      assert.is(e1!.encode(yamlish), 'ADDED:1');
      assert.is(e2!.encode(yamlish), 'ADDED:1');
      one.watcher.stop();
      two.watcher.stop();
    }));

  test('timeoutMs ends a watch cleanly, with a bookmark just before', () =>
    withStore(harness, {}, async ({ plcs, clock, store }) => {
      const w = probe(await plcs.watch({ resourceVersion: String(store.revision()), allowWatchBookmarks: true, timeoutMs: 30_000 }));
      clock.advance(28_999);
      await w.quiet();
      clock.advance(1);
      assert.is((await w.take(1))[0]!.type, 'BOOKMARK');
      clock.advance(1_000);
      await w.done();
    }));

  test('a watch from a future resourceVersion skips changes up to it', () =>
    withStore(harness, {}, async ({ plcs, store }) => {
      const future = store.revision() + 2;
      const w = probe(await plcs.watch({ resourceVersion: String(future) }));
      await plcs.create(plc('a'));
      await plcs.create(plc('b'));
      await plcs.create(plc('c'));
      assert.equal((await w.take(1)).map(summary), [`ADDED c@${future + 1}`]);
      w.watcher.stop();
    }));

  test('for-await iteration ends when the watcher is stopped', () =>
    withStore(harness, {}, async ({ plcs }) => {
      await plcs.create(plc('a'));
      await plcs.create(plc('b'));
      const watcher = await plcs.watch({ resourceVersion: '0' });
      const names: string[] = [];
      for await (const event of watcher) {
        names.push((event.object as KubeObject).metadata?.name ?? '');
        if (names.length === 2) break; // break calls return(), which stops the watcher
      }
      assert.equal(names, ['a', 'b']);
      assert.ok(watcher.stopped);
    }));
}
