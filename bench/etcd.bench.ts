// The etcd3 backend's benchmark, against baselines measured in the same run on the same etcd
// (one member started here on loopback, fresh data directory, killed at the end):
//   1. creates/s through the store on the etcd3 backend (codec, compare-and-swap transaction,
//      the watch feeding the cache, read-your-writes) vs bare KV.Put calls of the same bytes under
//      the same kind of keys on the backend's own etcd client (grpc-js channel, protobufjs
//      messages, no store), both with 64 requests in flight (goal ≥ 0.7×);
//   2. one vs two replicas: separate processes, each a store on the same etcd and namespace,
//      creating as fast as they can; aggregate creates/s, and how long until the other replica's
//      cache holds every write.
//
//   node --import tsx bench/etcd.bench.ts              (about a minute on 2 cores)
//   BENCH_QUICK=1 node --import tsx bench/etcd.bench.ts     (smaller, a smoke run)
//
// Prints a table per section, then one JSON line (`{"bench":"etcd",...}`) with every figure.

import { BENCH_PLC, benchPriorityLevel, table } from './fixtures.ts';
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { performance } from 'node:perf_hooks';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { realClock } from '../engine/clock.ts';
import type { KubeObject } from '../engine/resources/types.ts';
import { encodeObject } from '../engine/store/codec.ts';
import { EtcdClient } from '../engine/store/etcd/etcd-client.ts';
import { COMPARE_EQUAL, COMPARE_MOD } from '../engine/store/etcd/etcd-proto.ts';
import { createEtcdBackend } from '../engine/store/etcd/etcd-backend.ts';
import { createStore, resourcePrefix } from '../engine/store/store.ts';
import type { ResourceInfo, Store } from '../engine/store/store-types.ts';
import { EtcdCluster } from '../engine/store/etcd/testing/etcd-process.ts';

const QUICK = process.env['BENCH_QUICK'] === '1';
const IN_FLIGHT = 64;
const now = (): number => performance.now();
const wallNow = (): number => performance.timeOrigin + performance.now();
const median = (xs: number[]): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? Number.NaN;
const fmt = (x: number, digits = 2): string => (Number.isFinite(x) ? x.toLocaleString('en-US', { maximumFractionDigits: digits }) : String(x));

const PLC: ResourceInfo = BENCH_PLC;

async function openStore(endpoints: readonly string[], namespace: string): Promise<Store> {
  const backend = createEtcdBackend({ endpoints, clock: realClock(), namespace, compactionIntervalMs: 0 });
  const store = createStore({ backend, clock: realClock(), bookmarkIntervalMs: 3_600_000 });
  await store.open();
  return store;
}

/** `count` creates through a store, IN_FLIGHT at a time; returns creates/s. */
async function storeCreates(store: Store, count: number, tag: string, first = 0): Promise<{ rate: number; startedAt: number; endedAt: number }> {
  const plcs = store.for(PLC);
  const objects = Array.from({ length: count }, (_, i) => plc(first + i, tag));
  let next = 0;
  const startedAt = wallNow();
  const started = now();
  await Promise.all(
    Array.from({ length: IN_FLIGHT }, async () => {
      while (next < count) await plcs.create(objects[next++]!);
    }),
  );
  return { rate: (count / (now() - started)) * 1000, startedAt, endedAt: wallNow() };
}

/** `count` calls, IN_FLIGHT at a time. */
async function inFlight(count: number, call: (i: number) => PromiseLike<unknown>): Promise<void> {
  let next = 0;
  await Promise.all(
    Array.from({ length: IN_FLIGHT }, async () => {
      while (next < count) await call(next++);
    }),
  );
}

/** No deadline on the baselines' calls (a stalled run shows as a stalled bench). */
const NO_DEADLINE = Infinity;

function put(client: EtcdClient, key: Buffer, value: Buffer): Promise<unknown> {
  return client.put({ key, value }, NO_DEADLINE);
}

/** What the store sends for a create: put if the key does not exist yet. */
function casPut(client: EtcdClient, key: Buffer, value: Buffer): Promise<unknown> {
  return client.txn(
    {
      compare: [{ key, target: COMPARE_MOD, result: COMPARE_EQUAL, modRevision: 0 }],
      success: [{ requestPut: { key, value } }],
      failure: [{ requestRange: { key, keysOnly: true } }],
    },
    NO_DEADLINE,
  );
}

const cpuMicros = (usage: NodeJS.CpuUsage): number => usage.user + usage.system;

/** A process's CPU time so far (Linux /proc, 100 ticks per second). */
function processCpuMicros(pid: number): number {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
  return (Number(fields[11]) + Number(fields[12])) * 10_000;
}

// ---------------------------------------------------------------------------------------------
// Replica mode: `etcd.bench.ts replica <endpoint> <namespace> <tag> <count> <expectTotal>`.
// Opens a store, says "ready", creates on "go", then waits until its cache holds `expectTotal`
// objects (its own and the other replica's), and prints one JSON line.

async function replicaMain(args: string[]): Promise<void> {
  const [endpoint, namespace, tag, countText, totalText] = args;
  const store = await openStore([endpoint!], namespace!);
  process.stdout.write('ready\n');
  await new Promise<void>((resolve) => process.stdin.once('data', () => resolve()));
  const result = await storeCreates(store, Number(countText), tag!);
  // Until this replica's cache has seen every replica's writes.
  const total = Number(totalText);
  while ((await store.for(PLC).list({ resourceVersion: '0', limit: 1 })).remainingItemCount !== total - 1) {
    await new Promise((resolve) => setTimeout(resolve, 2));
  }
  const allSeenAt = wallNow();
  process.stdout.write(`${JSON.stringify({ ...result, allSeenAt })}\n`);
  await store.close();
  process.exit(0);
}

function spawnReplica(endpoint: string, namespace: string, tag: string, count: number, total: number) {
  const child = spawn(
    process.execPath,
    ['--import', 'tsx', fileURLToPath(import.meta.url), 'replica', endpoint, namespace, tag, String(count), String(total)],
    {
      stdio: ['pipe', 'pipe', 'inherit'],
    },
  );
  const lines = createInterface({ input: child.stdout });
  const queue: string[] = [];
  let waiting: ((line: string) => void) | undefined;
  lines.on('line', (line) => {
    if (waiting !== undefined) {
      const w = waiting;
      waiting = undefined;
      w(line);
    } else queue.push(line);
  });
  const nextLine = (): Promise<string> =>
    queue.length > 0
      ? Promise.resolve(queue.shift()!)
      : new Promise((resolve, reject) => {
          waiting = resolve;
          child.once('exit', (code) => reject(new Error(`replica exited (${code})`)));
        });
  return { child, nextLine };
}

// ---------------------------------------------------------------------------------------------

async function main(): Promise<void> {
  const etcd = await EtcdCluster.start({ flags: ['--auto-compaction-mode', 'revision', '--auto-compaction-retention', '10000'] });
  const endpoints = etcd.endpoints;
  const results: Record<string, unknown> = { bench: 'etcd', node: process.version, quick: QUICK };
  const raw = new EtcdClient(endpoints, realClock());
  try {
    // 1. Store creates vs raw puts (and raw compare-and-put transactions) of the same bytes, in
    // rotating order; with the CPU each side costs in this process and in etcd, per write.
    const count = QUICK ? 1_000 : 6_000;
    const reps = QUICK ? 1 : 5;
    const etcdPid = etcd.member(0).pid!;
    const sides = ['store', 'put', 'txn'] as const;
    type Side = (typeof sides)[number];
    const rates: Record<Side, number[]> = { store: [], put: [], txn: [] };
    const clientCpu: Record<Side, number[]> = { store: [], put: [], txn: [] };
    const etcdCpu: Record<Side, number[]> = { store: [], put: [], txn: [] };
    const ratios: number[] = [];
    // Warm every path (JIT, connections) before timing: the first thousands of calls are slow.
    const warm = await openStore(endpoints, '/warm');
    await storeCreates(warm, QUICK ? 500 : 3_000, 'w');
    await warm.close();
    const warmValue = Buffer.from(encodeObject(plc(0, 'w')));
    await inFlight(QUICK ? 500 : 3_000, (i) => put(raw, Buffer.from(`/warm-raw/${i}`), warmValue));
    await inFlight(QUICK ? 500 : 3_000, (i) => casPut(raw, Buffer.from(`/warm-txn/${i}`), warmValue));
    for (let rep = 0; rep < reps; rep++) {
      const order = [...sides.slice(rep % 3), ...sides.slice(0, rep % 3)];
      const repRates: Partial<Record<Side, number>> = {};
      for (const side of order) {
        const etcdBefore = processCpuMicros(etcdPid);
        if (side === 'store') {
          const store = await openStore(endpoints, `/store-${rep}`);
          const cpuOpen = process.cpuUsage();
          repRates.store = (await storeCreates(store, count, 'o')).rate;
          clientCpu.store.push(cpuMicros(process.cpuUsage(cpuOpen)) / count);
          await store.close();
        } else {
          const prefix = `/${side}-${rep}${resourcePrefix(PLC)}`;
          const entries = Array.from({ length: count }, (_, i) => ({
            key: Buffer.from(prefix + plc(i, 'o').metadata!.name!),
            value: Buffer.from(encodeObject(plc(i, 'o'))),
          }));
          const cpuStart = process.cpuUsage();
          const started = now();
          if (side === 'put') await inFlight(count, (i) => put(raw, entries[i]!.key, entries[i]!.value));
          else await inFlight(count, (i) => casPut(raw, entries[i]!.key, entries[i]!.value));
          repRates[side] = (count / (now() - started)) * 1000;
          clientCpu[side].push(cpuMicros(process.cpuUsage(cpuStart)) / count);
        }
        etcdCpu[side].push((processCpuMicros(etcdPid) - etcdBefore) / count);
      }
      for (const side of sides) rates[side].push(repRates[side]!);
      ratios.push(repRates.store! / repRates.put!);
    }
    const m = (xs: number[]): number => median(xs);
    results.creates = {
      count,
      inFlight: IN_FLIGHT,
      storePerSecond: m(rates.store),
      rawPutPerSecond: m(rates.put),
      rawTxnPerSecond: m(rates.txn),
      ratio: m(ratios),
      ratios,
      ratioVsTxn: m(rates.store) / m(rates.txn),
      cpuMicrosPerWrite: Object.fromEntries(sides.map((side) => [side, { client: m(clientCpu[side]), etcd: m(etcdCpu[side]) }])),
    };
    const runs = (xs: number[]): string => xs.map((r) => fmt(r, 0)).join(', ');
    const cpu = (side: Side): string => `client ${fmt(m(clientCpu[side]), 0)} µs + etcd ${fmt(m(etcdCpu[side]), 0)} µs`;
    table(`1. creates (${fmt(count, 0)} × ~1 KB PLC, ${IN_FLIGHT} in flight, etcd 3.4 single member on loopback)`, [
      ['store on etcd3 creates/s', `${fmt(m(rates.store), 0)} (runs: ${runs(rates.store)})`],
      ['bare KV.Put calls/s, same bytes', `${fmt(m(rates.put), 0)} (runs: ${runs(rates.put)})`],
      ['bare compare-and-put KV.Txn calls/s, same bytes', `${fmt(m(rates.txn), 0)} (runs: ${runs(rates.txn)})`],
      ['ratio store / raw put, median of runs (goal ≥ 0.7)', `${fmt(m(ratios))} (runs: ${ratios.map((r) => fmt(r)).join(', ')})`],
      ['ratio store / raw txn', fmt(m(rates.store) / m(rates.txn))],
      ['CPU per write: store', cpu('store')],
      ['CPU per write: raw put', cpu('put')],
      ['CPU per write: raw txn', cpu('txn')],
    ]);

    // 2. One vs two replicas (separate processes), the same total number of creates.
    const total = QUICK ? 1_000 : 6_000;
    const replicaRuns: Record<string, { rate: number; seenAllMs: number }[]> = { one: [], two: [] };
    for (let rep = 0; rep < (QUICK ? 1 : 3); rep++) {
      for (const replicas of rep % 2 === 0 ? [1, 2] : [2, 1]) {
        const namespace = `/replicas-${replicas}-${rep}`;
        const spawned = Array.from({ length: replicas }, (_, r) => spawnReplica(endpoints[0]!, namespace, `r${r}`, total / replicas, total));
        for (const s of spawned) if ((await s.nextLine()) !== 'ready') throw new Error('replica did not start');
        for (const s of spawned) s.child.stdin.write('go\n');
        const reports = (await Promise.all(spawned.map((s) => s.nextLine()))).map(
          (line) => JSON.parse(line) as { startedAt: number; endedAt: number; allSeenAt: number },
        );
        const start = Math.min(...reports.map((r) => r.startedAt));
        const end = Math.max(...reports.map((r) => r.endedAt));
        const seenAll = Math.max(...reports.map((r) => r.allSeenAt));
        replicaRuns[replicas === 1 ? 'one' : 'two']!.push({ rate: (total / (end - start)) * 1000, seenAllMs: seenAll - end });
      }
    }
    const rate = (k: string) => median(replicaRuns[k]!.map((r) => r.rate));
    const lag = (k: string) => median(replicaRuns[k]!.map((r) => r.seenAllMs));
    results.replicas = { total, inFlightPerReplica: IN_FLIGHT, one: replicaRuns.one, two: replicaRuns.two, ratio: rate('two') / rate('one') };
    table(`2. one vs two replicas (separate processes, ${fmt(total, 0)} creates in all, ${IN_FLIGHT} in flight each)`, [
      ['one replica creates/s', `${fmt(rate('one'), 0)} (runs: ${runs(replicaRuns.one!.map((r) => r.rate))})`],
      ['two replicas, aggregate creates/s', `${fmt(rate('two'), 0)} (runs: ${runs(replicaRuns.two!.map((r) => r.rate))})`],
      ['ratio two / one', fmt(rate('two') / rate('one'))],
      ['after the last create: until every replica holds all writes', `one ${fmt(lag('one'))} ms, two ${fmt(lag('two'))} ms`],
    ]);
  } finally {
    raw.close();
    await etcd.close();
  }
  process.stdout.write(`\n${JSON.stringify(results)}\n`);
}

if (process.argv[2] === 'replica') await replicaMain(process.argv.slice(3));
else await main();

function plc(i: number, tag: string): KubeObject {
  return benchPriorityLevel(i, tag);
}
