// The storage engine's benchmark, every figure a ratio against a baseline measured in the same run:
//   1. durable creates/s through the store on LevelDB (sync, group commit) vs raw classic-level
//      `batch(…, {sync: true})` of the same keys and the same stored bytes, in batches of the same
//      size as the store's concurrency (goal ≥ 0.5×);
//   2. a list of 10,000 objects served by the watch cache, alone and with its JSON body built from
//      the cached per-object encodings, vs JSON.stringify of the same list;
//   3. one change fanned out to 10,000 watchers: delivery latency (p50/p99 from the write call to
//      each watcher's `for await`), bytes per watcher (delivered, and heap held by an idle watcher),
//      and the main-thread cost vs encoding the event once per watcher.
//
//   node --import tsx bench/store.bench.ts            (about half a minute on 2 cores)
//   BENCH_QUICK=1 node --import tsx bench/store.bench.ts   (smaller, a smoke run)
//
// Prints a table per section, then one JSON line (`{"bench":"store",...}`) with every figure.
// (One file over 300 lines: the three sections share the workload and must report in one run.)

import { BENCH_PLC, benchPriorityLevel as plc, table } from './fixtures.ts';
import { ClassicLevel } from 'classic-level';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { realClock } from '../engine/clock.ts';
import { encodeObject } from '../engine/store/codec.ts';
import { createLevelDbBackend } from '../engine/store/leveldb/leveldb-backend.ts';
import { createMemoryBackend } from '../engine/store/memory/memory-backend.ts';
import { createStore, resourcePrefix } from '../engine/store/store.ts';
import type { ListResult, ResourceInfo, Store } from '../engine/store/store-types.ts';
import { objectJsonBytes } from '../engine/store/cached-object.ts';

const QUICK = process.env['BENCH_QUICK'] === '1';
const now = (): number => performance.now();
const median = (xs: number[]): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? Number.NaN;
const percentile = (xs: number[], p: number): number => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor(xs.length * p))] ?? Number.NaN;
const fmt = (x: number, digits = 2): string => (Number.isFinite(x) ? x.toLocaleString('en-US', { maximumFractionDigits: digits }) : String(x));
const results: Record<string, unknown> = { bench: 'store', node: process.version, quick: QUICK };
// A real gc() for the heap-per-watcher figure, without needing --expose-gc on the command line.
setFlagsFromString('--expose-gc');
const gc = runInNewContext('gc') as () => void;

const PLC: ResourceInfo = BENCH_PLC;

async function openStore(backend: ReturnType<typeof createMemoryBackend>): Promise<Store> {
  const store = createStore({ backend, clock: realClock(), bookmarkIntervalMs: 3_600_000, watcherBufferSize: 10_000 });
  await store.open();
  return store;
}

// ---------------------------------------------------------------------------------------------
// 1. Durable creates vs raw synced batches

async function durableCreates(): Promise<void> {
  const count = QUICK ? 4_000 : 20_000;
  // Writers in flight: twice the store's batch size, so one batch can be prepared while another is written.
  const concurrency = 512;
  const batchSize = 256;
  const objects = Array.from({ length: count }, (_, i) => plc(i));
  const root = mkdtempSync(join(tmpdir(), 'fairway-store-bench-'));
  const prefix = resourcePrefix(PLC);
  const entries = objects.map((o) => ({ key: prefix + o.metadata!.name!, value: encodeObject(o) }));
  const storeRates: number[] = [];
  const rawRates: number[] = [];
  const ratios: number[] = [];
  let writesPerBatch = 0;

  const runStore = async (rep: number): Promise<number> => {
    const backend = createLevelDbBackend({ location: join(root, `store-${rep}`) });
    const store = await openStore(backend);
    const plcs = store.for(PLC);
    // Fresh objects each run: the store takes over (freezes) what it is given.
    const fresh = objects.map((o) => structuredClone(o));
    let next = 0;
    const started = now();
    await Promise.all(
      Array.from({ length: concurrency }, async () => {
        while (next < count) await plcs.create(fresh[next++]!);
      }),
    );
    const rate = (count / (now() - started)) * 1000;
    writesPerBatch = count / backend.batchesWritten;
    await store.close();
    return rate;
  };
  // The same keys and stored bytes (codec output; identity transformer), written raw, in sequential
  // synced batches: as a chained batch (the faster way, the baseline for the goal) and as an array.
  const runRaw = async (rep: number, kind: 'chained' | 'array'): Promise<number> => {
    const db = new ClassicLevel<string, Uint8Array>(join(root, `raw-${kind}-${rep}`), { keyEncoding: 'utf8', valueEncoding: 'view' });
    await db.open();
    const started = now();
    for (let i = 0; i < entries.length; i += batchSize) {
      const slice = entries.slice(i, i + batchSize);
      if (kind === 'array') {
        await db.batch(
          slice.map((e) => ({ type: 'put' as const, key: e.key, value: e.value })),
          { sync: true },
        );
      } else {
        const batch = db.batch();
        for (const e of slice) batch.put(e.key, e.value);
        await batch.write({ sync: true });
      }
    }
    const rate = (count / (now() - started)) * 1000;
    await db.close();
    return rate;
  };

  const arrayRates: number[] = [];
  try {
    // Paired runs in rotating order, so drift in machine load affects every side alike.
    for (let rep = 0; rep < (QUICK ? 1 : 5); rep++) {
      const order = rep % 2 === 0 ? (['store', 'chained', 'array'] as const) : (['array', 'chained', 'store'] as const);
      const rates: Record<string, number> = {};
      for (const side of order) rates[side] = side === 'store' ? await runStore(rep) : await runRaw(rep, side);
      storeRates.push(rates.store!);
      rawRates.push(rates.chained!);
      arrayRates.push(rates.array!);
      ratios.push(rates.store! / rates.chained!);
    }
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
  const ratio = median(ratios);
  results.durableCreates = {
    count,
    concurrency,
    rawBatchSize: batchSize,
    storePerSecond: median(storeRates),
    rawChainedPerSecond: median(rawRates),
    rawArrayPerSecond: median(arrayRates),
    ratio,
    ratioVsArrayBatches: median(storeRates) / median(arrayRates),
    writesPerBatch,
  };
  const runs = (xs: number[]): string => xs.map((r) => fmt(r, 0)).join(', ');
  table(`1. durable creates (${fmt(count, 0)} × ~1 KB PLC, ${concurrency} writers in flight, LevelDB sync)`, [
    ['store creates/s', `${fmt(median(storeRates), 0)} (runs: ${runs(storeRates)})`],
    [`raw chained synced batches of ${batchSize}, same bytes`, `${fmt(median(rawRates), 0)} puts/s (runs: ${runs(rawRates)})`],
    [`raw array synced batches of ${batchSize}, same bytes`, `${fmt(median(arrayRates), 0)} puts/s (runs: ${runs(arrayRates)})`],
    ['ratio store / raw chained, median of paired runs (goal ≥ 0.5)', `${fmt(ratio)} (pairs: ${ratios.map((r) => fmt(r)).join(', ')})`],
    ['ratio store / raw array batches', fmt(median(storeRates) / median(arrayRates))],
    ['writes per fsync in the store', fmt(writesPerBatch, 1)],
  ]);
}

// ---------------------------------------------------------------------------------------------
// 2. List of 10k objects vs JSON.stringify of the same list

async function listTenThousand(): Promise<void> {
  const count = 10_000;
  const store = await openStore(createMemoryBackend());
  const plcs = store.for(PLC);
  for (let i = 0; i < count; i++) await plcs.create(plc(i));
  const reps = QUICK ? 5 : 15;
  const listOnly: number[] = [];
  const listBody: number[] = [];
  const stringify: number[] = [];
  let coldBodyMs = 0;
  let bodyBytes = 0;
  const comma = Buffer.from(',');
  const body = (list: ListResult): Buffer => {
    const parts: Buffer[] = [
      Buffer.from(
        '{"kind":"PriorityLevelConfigurationList","apiVersion":"flowcontrol.apiserver.k8s.io/v1","metadata":{"resourceVersion":"' +
          `${list.resourceVersion}"},"items":[`,
      ),
    ];
    list.forms.forEach((form, i) => parts.push(...(i > 0 ? [comma] : []), objectJsonBytes(form)));
    parts.push(Buffer.from(']}'));
    return Buffer.concat(parts);
  };
  {
    const started = now();
    const list = await plcs.list();
    bodyBytes = body(list).length;
    coldBodyMs = now() - started;
  }
  for (let rep = 0; rep < reps; rep++) {
    let started = now();
    const list = await plcs.list();
    listOnly.push(now() - started);
    started = now();
    const again = await plcs.list();
    const text = body(again);
    listBody.push(now() - started);
    started = now();
    const baseline = JSON.stringify({
      kind: 'PriorityLevelConfigurationList',
      apiVersion: PLC.apiVersion,
      metadata: { resourceVersion: list.resourceVersion },
      items: list.items,
    });
    stringify.push(now() - started);
    if (Buffer.byteLength(baseline) !== text.length) throw new Error('list body and JSON.stringify differ');
  }
  await store.close();
  const base = median(stringify);
  results.list = {
    count,
    bodyBytes,
    stringifyMs: base,
    listMs: median(listOnly),
    listWithCachedBodyMs: median(listBody),
    coldListWithBodyMs: coldBodyMs,
    listRatio: median(listOnly) / base,
    listWithBodyRatio: median(listBody) / base,
    coldRatio: coldBodyMs / base,
  };
  table(`2. list of ${fmt(count, 0)} objects (${fmt(bodyBytes / 1e6, 1)} MB of JSON), memory backend, median of ${reps}`, [
    ['baseline: JSON.stringify of the same list', `${fmt(base)} ms`],
    ['store.list() (frozen shared objects)', `${fmt(median(listOnly))} ms = ${fmt(median(listOnly) / base, 3)}×`],
    ['store.list() + body from cached per-object JSON', `${fmt(median(listBody))} ms = ${fmt(median(listBody) / base, 3)}×`],
    ['first list + body (cold: encodes every object once)', `${fmt(coldBodyMs)} ms = ${fmt(coldBodyMs / base, 2)}×`],
  ]);
}

// ---------------------------------------------------------------------------------------------
// 3. Fan-out to 10,000 watchers

async function fanOut(): Promise<void> {
  const watchers = QUICK ? 2_000 : 10_000;
  const events = QUICK ? 10 : 30;
  const store = await openStore(createMemoryBackend());
  const plcs = store.for(PLC);
  await plcs.create(plc(0));
  gc();
  const heapBefore = process.memoryUsage().heapUsed;
  const from = String(store.revision());
  const latencies: number[] = [];
  const bytes = new Array<number>(watchers).fill(0);
  let issuedAt = 0;
  let received = 0;
  let allReceived: (() => void) | undefined;
  const consumers: Promise<void>[] = [];
  const running = [];
  for (let w = 0; w < watchers; w++) running.push(await plcs.watch({ resourceVersion: from }));
  gc();
  const heapPerWatcher = (process.memoryUsage().heapUsed - heapBefore) / watchers;
  for (let w = 0; w < watchers; w++) {
    const watcher = running[w]!;
    consumers.push(
      (async () => {
        for await (const event of watcher) {
          latencies.push(now() - issuedAt);
          bytes[w]! += event.json().length + 1;
          if (++received === watchers) allReceived?.();
        }
      })(),
    );
  }
  let current = await plcs.get(plc(0).metadata!.name!);
  const fanOutMs: number[] = [];
  const warmup = 3;
  for (let e = 0; e < warmup + events; e++) {
    received = 0;
    const done = new Promise<void>((resolve) => (allReceived = resolve));
    if (e === warmup) latencies.length = 0; // the first changes only warm the JIT
    issuedAt = now();
    current = await plcs.update({ ...current, spec: { ...(current.spec as object), round: e } });
    await done;
    if (e >= warmup) fanOutMs.push(now() - issuedAt);
  }
  // Baseline: what encoding the same event once per watcher would cost on the main thread.
  const event = { type: 'MODIFIED', object: current };
  const naiveMs: number[] = [];
  for (let rep = 0; rep < 5; rep++) {
    const started = now();
    let total = 0;
    for (let w = 0; w < watchers; w++) total += JSON.stringify(event).length + 1;
    naiveMs.push(now() - started);
    if (total === 0) throw new Error('unreachable');
  }
  for (const watcher of running) watcher.stop();
  await Promise.all(consumers);
  await store.close();
  const perWatcherBytes = bytes.reduce((a, b) => a + b, 0) / watchers / ((warmup + events) / events);
  const fanOut = median(fanOutMs);
  results.fanOut = {
    watchers,
    events,
    deliveryP50Ms: percentile(latencies, 0.5),
    deliveryP99Ms: percentile(latencies, 0.99),
    deliveryMaxMs: percentile(latencies, 1),
    fanOutMedianMs: fanOut,
    naivePerWatcherEncodeMs: median(naiveMs),
    ratioVsNaive: fanOut / median(naiveMs),
    bytesDeliveredPerWatcherPerEvent: perWatcherBytes / events,
    heapBytesPerIdleWatcher: heapPerWatcher,
  };
  table(`3. fan-out of one change to ${fmt(watchers, 0)} watchers (memory backend, ${events} changes)`, [
    [
      'delivery latency, write call → for-await',
      `p50 ${fmt(percentile(latencies, 0.5))} ms, p99 ${fmt(percentile(latencies, 0.99))} ms, max ${fmt(percentile(latencies, 1))} ms`,
    ],
    ['one change to every watcher (median)', `${fmt(fanOut)} ms = ${fmt((fanOut * 1000) / watchers, 2)} µs per watcher`],
    ['baseline: JSON.stringify of the event per watcher', `${fmt(median(naiveMs))} ms → fan-out costs ${fmt(fanOut / median(naiveMs), 3)}× of it`],
    ['bytes delivered per watcher per event', `${fmt(perWatcherBytes / events, 0)} (one shared encoding, computed once)`],
    ['heap held per idle watcher', `${fmt(heapPerWatcher, 0)} bytes`],
  ]);
}

await durableCreates();
await listTenThousand();
await fanOut();
process.stdout.write(`\n${JSON.stringify(results)}\n`);
