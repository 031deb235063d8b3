// End to end: two `fairway serve` processes on one etcd (started here on loopback, killed at the
// end). Both start at once, so their bootstrap upkeep races; a write through one replica reaches
// watchers on the other in order; each replica's APF configuration follows the shared objects; and
// killing one replica under write load costs the other's clients nothing: no error, and no
// acknowledged write (through either replica) is lost.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { EtcdCluster } from '../../engine/store/etcd/testing/etcd-process.ts';
import { openStream } from '../testing/http-client.ts';
import { startServerProcess, type ServerProcess } from '../commands/testing/server-process.ts';

const GROUP = 'flowcontrol.apiserver.k8s.io';
const PLCS = `/apis/${GROUP}/v1/prioritylevelconfigurations`;
const FSS = `/apis/${GROUP}/v1/flowschemas`;
let etcd: EtcdCluster;
let a: ServerProcess;
let b: ServerProcess;

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

const plc = (name: string, shares = 5) => ({
  apiVersion: `${GROUP}/v1`,
  kind: 'PriorityLevelConfiguration',
  metadata: { name },
  spec: { type: 'Limited', limited: { nominalConcurrencyShares: shares, limitResponse: { type: 'Reject' } } },
});

interface Item {
  metadata: { name: string; uid: string; resourceVersion: string; generation?: number };
}

async function list(server: ServerProcess, path: string): Promise<{ items: Item[]; resourceVersion: string }> {
  const response = await server.client.get(path);
  assert.is(response.status, 200, response.text);
  const body = response.json();
  return { items: body.items, resourceVersion: body.metadata.resourceVersion };
}

async function within<T>(ms: number, what: string, promise: Promise<T>): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  try {
    return await Promise.race([promise, new Promise<never>((_, reject) => (timer = setTimeout(() => reject(new Error(`${what}: not within ${ms} ms`)), ms)))]);
  } finally {
    clearTimeout(timer);
  }
}

test.before(async () => {
  etcd = await EtcdCluster.start();
  const args = [`--etcd-servers=${etcd.endpoints.join(',')}`];
  // Started together: both run the bootstrap upkeep against the same empty etcd.
  [a, b] = await Promise.all([startServerProcess({ storageBackend: 'etcd3', args }), startServerProcess({ storageBackend: 'etcd3', args })]);
});

test.after(async () => {
  await b?.stop();
  await a?.stop();
  await etcd?.close();
});

test('bootstrap objects exist once, the same on both replicas, and stay put', async () => {
  for (const path of [PLCS, FSS]) {
    const [fromA, fromB] = [await list(a, path), await list(b, path)];
    const names = fromA.items.map((i) => i.metadata.name);
    assert.ok(names.includes('exempt'), `${path} holds the mandatory objects`);
    assert.is(new Set(names).size, names.length);
    assert.equal(
      fromB.items.map((i) => [i.metadata.name, i.metadata.uid, i.metadata.resourceVersion]),
      fromA.items.map((i) => [i.metadata.name, i.metadata.uid, i.metadata.resourceVersion]),
      'both replicas serve the same objects at the same versions',
    );
    // No flapping: neither replica rewrites what the other wrote.
    const watch = openStream(b.url, `${path}?watch=1&resourceVersion=${fromB.resourceVersion}`, { token: b.token, caPem: b.caPem });
    await sleep(1_500);
    watch.close();
    assert.equal(watch.events, [], `no changes after both replicas settled: ${JSON.stringify(watch.events.map((e) => [e.type, e.object?.metadata?.name]))}`);
  }
});

test("a write through A reaches a watcher on B in order; B's APF configuration follows it", async () => {
  const start = await list(b, PLCS);
  const watch = openStream(b.url, `${PLCS}?watch=1&resourceVersion=${start.resourceVersion}`, { token: b.token, caPem: b.caPem });
  const expected: string[] = [];
  for (let i = 0; i < 10; i++) {
    const created = await a.client.request('POST', PLCS, { body: plc(`through-a-${i}`) });
    assert.is(created.status, 201, created.text);
    expected.push(`ADDED through-a-${i}@${created.json().metadata.resourceVersion}`);
  }
  const updated = await a.client.request('PUT', `${PLCS}/through-a-3`, { body: { ...plc('through-a-3', 9), metadata: { name: 'through-a-3' } } });
  assert.is(updated.status, 200, updated.text);
  expected.push(`MODIFIED through-a-3@${updated.json().metadata.resourceVersion}`);
  const deleted = await a.client.request('DELETE', `${PLCS}/through-a-5`);
  assert.is(deleted.status, 200, deleted.text);
  await within(
    10_000,
    "B's watcher",
    watch.until((events) => events.length >= expected.length + 1),
  );
  await sleep(200); // nothing more may come
  watch.close();
  const seen = watch.events.map((e) => `${e.type} ${e.object.metadata.name}@${e.object.metadata.resourceVersion}`);
  assert.equal(seen.slice(0, -1), expected);
  // The DELETE answers with a Status; the event carries the deletion's own, next revision.
  assert.is(seen.at(-1), `DELETED through-a-5@${Number(updated.json().metadata.resourceVersion) + 1}`);
  // B's flow controller picked up the level created through A.
  await within(
    10_000,
    "B's APF configuration",
    (async () => {
      for (;;) {
        const dump = await b.client.get('/debug/api_priority_and_fairness/dump_priority_levels');
        if (dump.status === 200 && dump.text.includes('through-a-0')) return;
        await sleep(100);
      }
    })(),
  );
});

test("killing A under write load: B's clients see no error and no acknowledged write is lost", async () => {
  const acked = new Map<string, string>(); // name → resourceVersion
  const errorsOnB: string[] = [];
  let running = true;
  let n = 0;
  const writer = async (server: ServerProcess, onB: boolean) => {
    while (running) {
      const name = `load-${onB ? 'b' : 'a'}-${n++}`;
      try {
        const response = await server.client.request('POST', PLCS, { body: plc(name) });
        if (response.status === 201) acked.set(name, response.json().metadata.resourceVersion);
        else if (onB) errorsOnB.push(`${name}: ${response.status} ${response.text}`);
      } catch (error) {
        if (onB) errorsOnB.push(`${name}: ${(error as Error).message}`);
        else await sleep(20); // A is gone: its clients fail, as they would
      }
    }
  };
  const start = await list(b, PLCS);
  const watch = openStream(b.url, `${PLCS}?watch=1&resourceVersion=${start.resourceVersion}`, { token: b.token, caPem: b.caPem });
  const writers = [writer(a, false), writer(a, false), writer(b, true), writer(b, true)];
  await sleep(800);
  process.kill(a.pid, 'SIGKILL');
  const ackedBeforeKill = acked.size;
  await sleep(800);
  running = false;
  await Promise.all(writers);
  assert.equal(errorsOnB, [], 'B answered every request');
  assert.ok(acked.size > ackedBeforeKill, 'B went on acknowledging writes after A died');
  assert.ok(
    [...acked.keys()].some((k) => k.startsWith('load-a-')),
    'A acknowledged writes before it died',
  );
  const after = await list(b, PLCS);
  const stored = new Map(after.items.map((i) => [i.metadata.name, i.metadata.resourceVersion]));
  const lost = [...acked].filter(([name, rv]) => stored.get(name) !== rv).map(([name]) => name);
  assert.equal(lost, [], 'every acknowledged write is in the store at its resourceVersion');
  // B's watcher saw each acknowledged create once, in resourceVersion order.
  await within(
    10_000,
    "B's watcher",
    watch.until((events) => events.filter((e) => acked.has(e.object.metadata.name)).length >= acked.size),
  );
  watch.close();
  const added = watch.events.filter((e) => e.type === 'ADDED').map((e) => Number(e.object.metadata.resourceVersion));
  assert.equal(
    added,
    [...added].sort((x, y) => x - y),
    'in order',
  );
  assert.is(new Set(added).size, added.length, 'no duplicates');
  const exitCode = await a.stop();
  assert.is(exitCode, null, 'A died by SIGKILL');
});

test.run();
