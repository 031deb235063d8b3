// The etcd3 backend against real etcd (Debian's etcd-server, started here on loopback ports with
// temporary data directories, killed at the end): the compliance suite on one member, each test in
// its own key namespace; then etcd-specific behaviour: compaction surfacing as 410, opening over
// several range pages, the watch resuming after etcd restarts, and a 3-member cluster losing and
// regaining a member under writes.

import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { realClock } from '../../clock.ts';
import type { KubeObject } from '../../resources/types.ts';
import { encodeObject } from '../codec.ts';
import { EtcdClient, prefixRangeEnd } from './etcd-client.ts';
import { createEtcdBackend, ETCD_DEFAULTS, type EtcdBackend, type EtcdBackendOptions } from './etcd-backend.ts';
import { headerRevision } from './etcd-proto.ts';
import { createStore } from '../store.ts';
import { storeSuite } from '../store-suite.ts';
import type { Store, Watcher } from '../store-types.ts';
import { EtcdCluster, etcdAvailable } from './testing/etcd-process.ts';
import { PLC, plc, rejects, rvOf } from '../testing/suite-kit.ts';
import type { WatchEvent } from '../watch-event.ts';

if (!etcdAvailable()) throw new Error("etcd is not on PATH: install Debian's etcd-server (apt-get install etcd-server); .ci/run does");

const clock = realClock();
const single = await EtcdCluster.start();
const raw = new EtcdClient(single.endpoints, clock);
/** A deadline for a raw call made by a test (one attempt, no retries). */
const soon = (): number => clock.now() + 10_000;
const bytes = (text: string): Buffer => Buffer.from(text);
let namespaces = 0;

const compliance = suite('etcd3 backend: compliance suite');
await storeSuite(compliance, {
  name: 'etcd3',
  location: async () => {
    const namespace = `/suite-${++namespaces}`;
    return {
      backend: (options = {}) => createEtcdBackend({ endpoints: single.endpoints, clock, namespace, compactionIntervalMs: 0, ...options }),
      writeRawValue: async (key, value) => {
        await raw.put({ key: bytes(`${namespace}${key}`), value }, soon());
      },
      cleanup: async () => {
        const prefix = bytes(`${namespace}/`);
        await raw.deleteRange({ key: prefix, rangeEnd: prefixRangeEnd(prefix) }, soon());
      },
    };
  },
});
compliance.run();

// ---------------------------------------------------------------------------------------------

const faults = suite('etcd3 backend: etcd behaviour and faults');
const clusters: EtcdCluster[] = [];
const stores: Store[] = [];

async function openStore(options: Partial<EtcdBackendOptions> & { endpoints: readonly string[] }): Promise<{ store: Store; backend: EtcdBackend }> {
  const backend = createEtcdBackend({ clock, compactionIntervalMs: 0, namespace: '/faults', ...options });
  // Watchers here are read only at the end of a burst of writes: let them fall far behind.
  const store = createStore({ backend, clock, watcherBufferSize: 1_000_000 });
  stores.push(store);
  await store.open();
  return { store, backend };
}

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

/** `promise`, or `fallback` after `ms` (the timer does not outlive the race). */
async function within<T, F>(promise: Promise<T>, ms: number, fallback: F): Promise<T | F> {
  let timer: NodeJS.Timeout | undefined;
  const bound = new Promise<F>((resolve) => (timer = setTimeout(() => resolve(fallback), Math.max(0, ms))));
  try {
    return await Promise.race([promise, bound]);
  } finally {
    clearTimeout(timer);
  }
}

/** Pulls events from a watcher with a real-time bound; keeps an unfinished pull for the next call. */
class Reader {
  private pull: Promise<IteratorResult<WatchEvent>> | undefined;
  constructor(readonly watcher: Watcher) {}

  async take(count: number, timeoutMs = 15_000): Promise<WatchEvent[]> {
    const events: WatchEvent[] = [];
    const deadline = Date.now() + timeoutMs;
    while (events.length < count) {
      this.pull ??= this.watcher.next();
      const result = await within(this.pull, deadline - Date.now(), 'timeout' as const);
      if (result === 'timeout') assert.unreachable(`expected ${count} events in ${timeoutMs} ms, got ${events.length}: ${events.map(show).join(', ')}`);
      this.pull = undefined;
      const r = result as IteratorResult<WatchEvent>;
      if (r.done === true) assert.unreachable(`the watch ended after ${events.map(show).join(', ')}`);
      events.push(r.value);
    }
    return events;
  }

  /** Nothing more arrives within `ms`. */
  async quiet(ms = 200): Promise<void> {
    this.pull ??= this.watcher.next();
    const result = await within(this.pull, ms, 'quiet' as const);
    if (result !== 'quiet') assert.unreachable(`expected no more events, got ${show((result as IteratorResult<WatchEvent>).value)}`);
  }
}

const show = (e: WatchEvent | undefined): string =>
  e === undefined
    ? 'the end'
    : e.type === 'ERROR'
      ? `ERROR ${JSON.stringify(e.object)}`
      : `${e.type} ${(e.object as KubeObject).metadata?.name ?? ''}@${e.resourceVersion ?? ''}`;

faults('compaction: versions below it are 410 Expired; the compactor compacts one round behind', async () => {
  const writer = await openStore({ endpoints: single.endpoints, namespace: '/compaction' });
  const plcs = writer.store.for(PLC);
  const a = await plcs.create(plc('a'));
  const a2 = await plcs.update({ ...a, spec: { type: 'Exempt' } });
  const a3 = await plcs.update({ ...a2, spec: { type: 'Limited' } });
  await raw.compact({ revision: rvOf(a3), physical: true }, soon());
  const reader = await openStore({ endpoints: single.endpoints, namespace: '/compaction' });
  const readerPlcs = reader.store.for(PLC);
  const old = new Reader(await readerPlcs.watch({ resourceVersion: String(rvOf(a)) }));
  const [error] = await old.take(1);
  assert.is(error!.type, 'ERROR');
  assert.is(error!.error?.code, 'FW_ERR_STORE_EXPIRED');
  assert.match((error!.object as { message?: string }).message ?? '', new RegExp(`^too old resource version: ${rvOf(a)} \\(\\d+\\)$`));
  await rejects(readerPlcs.list({ resourceVersion: String(rvOf(a2)), resourceVersionMatch: 'Exact' }), 'FW_ERR_STORE_EXPIRED');
  // From the compaction revision on, watches work and see later writes from the other store.
  const fresh = new Reader(await readerPlcs.watch({ resourceVersion: String(rvOf(a3)) }));
  const a4 = await plcs.update({ ...a3, metadata: { ...a3.metadata, labels: { x: '1' } } });
  assert.equal((await fresh.take(1)).map(show), [`MODIFIED a@${rvOf(a4)}`]);

  const compactor = writer.backend.compaction!;
  const first = await compactor.round();
  assert.is(first.compacted, 0, 'the first round only records a revision');
  await plcs.update({ ...a4, spec: { type: 'Exempt' } });
  const second = await compactor.round();
  assert.is(second.compacted, first.recorded, 'the second round compacts what the first recorded');
  const probeAt = (revision: number) => raw.range({ key: bytes('/compaction/registry/'), revision }, soon());
  await probeAt(first.recorded); // the compaction revision itself is still readable
  try {
    await probeAt(first.recorded - 1);
    assert.unreachable('history below the compaction should be gone');
  } catch (e) {
    assert.match(String((e as Error).message), /compacted/);
  }
  // A second store's compactor on the same etcd loses the round instead of compacting again.
  const third = await reader.backend.compaction!.round();
  assert.is(third.compacted, 0);
});

faults('opening reads every key a page at a time at one revision; keys beside the prefix are not read', async () => {
  const prefix = '/paging/registry/flowcontrol.apiserver.k8s.io/prioritylevelconfigurations/';
  const names = Array.from({ length: 2 * ETCD_DEFAULTS.pageSize + 7 }, (_, i) => `p-${String(i).padStart(5, '0')}`);
  for (let from = 0; from < names.length; from += 64) {
    await Promise.all(names.slice(from, from + 64).map((name) => raw.put({ key: bytes(prefix + name), value: encodedPlc(name) }, soon())));
  }
  // Just past the store's prefix ('/registry0' sorts right after '/registry/'), and just before it.
  await raw.put({ key: bytes('/paging/registry0'), value: bytes('not ours') }, soon());
  const last = await raw.put({ key: bytes('/paging/registry.'), value: bytes('not ours') }, soon());
  const { store } = await openStore({ endpoints: single.endpoints, namespace: '/paging' });
  assert.is(store.revision(), headerRevision(last));
  const listed = await store.for(PLC).list();
  assert.equal(
    listed.items.map((item) => item.metadata?.name),
    names,
  );
});

faults('the watch resumes after etcd restarts: no change made meanwhile is missed or repeated', async () => {
  const etcd = await EtcdCluster.start();
  clusters.push(etcd);
  const { store, backend } = await openStore({ endpoints: etcd.endpoints });
  const other = new EtcdClient(etcd.endpoints, clock);
  try {
    const plcs = store.for(PLC);
    const w = new Reader(await plcs.watch({ resourceVersion: String(store.revision()) }));
    const a = await plcs.create(plc('a'));
    await etcd.member(0).stop();
    await etcd.member(0).start();
    // Written by someone else before our watch is back, then by us (the store retries until etcd answers).
    await etcd.member(0).waitHealthy();
    await other.put({ key: bytes('/faults/registry/flowcontrol.apiserver.k8s.io/prioritylevelconfigurations/b'), value: encodedPlc('b') }, soon());
    const c = await plcs.create(plc('c'));
    const events = await w.take(3);
    assert.equal(
      events.map((e) => `${e.type} ${(e.object as KubeObject).metadata?.name}`),
      ['ADDED a', 'ADDED b', 'ADDED c'],
    );
    const rvs = events.map((e) => Number(e.resourceVersion));
    assert.equal(rvs, [rvOf(a), rvOf(a) + 1, rvOf(c)], 'one revision after another, none skipped');
    await w.quiet();
    assert.ok(backend.watchReconnects >= 1, 'the backend watch had to reconnect');
    assert.equal((await plcs.get('b')).spec, { type: 'Limited' });
  } finally {
    other.close();
  }
});

faults('3 members: one stopped and restarted under writes; writes continue, watchers see each write once, in order', async () => {
  const etcd = await EtcdCluster.start({ size: 3 });
  clusters.push(etcd);
  // A writes through every member; B talks only to member 0, so its watch must resume after the restart.
  const a = await openStore({ endpoints: etcd.endpoints });
  const b = await openStore({ endpoints: [etcd.member(0).clientUrl] });
  const from = String(Math.max(a.store.revision(), b.store.revision()));
  const watchA = new Reader(await a.store.for(PLC).watch({ resourceVersion: from }));
  const watchB = new Reader(await b.store.for(PLC).watch({ resourceVersion: from }));
  const acked: number[] = [];
  let writing = true;
  let count = 0;
  const writer = async (): Promise<void> => {
    while (writing) {
      const created = await a.store.for(PLC).create(plc(`o${count++}`));
      acked.push(rvOf(created));
    }
  };
  const writers = [writer(), writer(), writer()];
  await sleep(300);
  await etcd.member(0).stop();
  const duringStop = acked.length;
  await sleep(700);
  assert.ok(acked.length > duringStop, 'writes went on while a member was down');
  await etcd.member(0).start();
  await etcd.member(0).waitHealthy();
  await sleep(300);
  writing = false;
  await Promise.all(writers);
  acked.sort((x, y) => x - y);
  for (const [name, reader] of [
    ['A', watchA],
    ['B', watchB],
  ] as const) {
    const rvs = (await reader.take(acked.length)).map((e) => Number(e.resourceVersion));
    assert.equal(rvs, acked, `watcher on ${name} saw every acknowledged write once, in order`);
    await reader.quiet(100);
  }
  assert.ok(b.backend.watchReconnects >= 1, 'B lost its member and resumed');

  // Member 0 down again; meanwhile others change and delete objects and etcd compacts past B's
  // position. B resynchronises when it is back: its cache and watcher end at the same state as A's.
  await etcd.member(0).stop();
  const plcsA = a.store.for(PLC);
  const o1 = await plcsA.get('o1');
  const changed = await plcsA.update({ ...o1, spec: { type: 'Exempt' } });
  const gone = await plcsA.delete('o2');
  const added = await plcsA.create(plc('late'));
  const compactAt = rvOf(added);
  const survivor = new EtcdClient(etcd.endpoints.slice(1), clock);
  try {
    await survivor.compact({ revision: compactAt, physical: true }, soon());
  } finally {
    survivor.close();
  }
  await etcd.member(0).start();
  await etcd.member(0).waitHealthy();
  const resynced = (await watchB.take(3)).map(show).sort();
  assert.equal(resynced, [`ADDED late@${rvOf(added)}`, `DELETED o2@${compactAt}`, `MODIFIED o1@${rvOf(changed)}`].sort());
  assert.ok(rvOf(gone) <= compactAt);
  const listA = await plcsA.list();
  const listB = await b.store.for(PLC).list();
  assert.equal(listB.items, listA.items);
});

faults.after(async () => {
  for (const store of stores) await store.close().catch(() => undefined);
  raw.close();
  for (const cluster of clusters) await cluster.close();
  await single.close();
});

faults.run();

/** A PLC's stored bytes as another Fairway would write them (the codec, identity transformer). */
function encodedPlc(name: string): Uint8Array {
  return encodeObject(plc(name));
}
