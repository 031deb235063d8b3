// Encryption at rest through the store (no HTTP), per provider, every figure a ratio against the
// identity provider measured in the same run, rounds interleaved so drift hits every provider alike:
//   create   objects created/s (codec + transformToStorage + commit), 64 in flight;
//   open     objects decoded/s while a store reopens (transformFromStorage of every value: the
//            only store read path that decrypts, since gets and lists are served by the cache);
//   get      gets/s from the watch cache (no decryption: shows reads do not pay for encryption);
//   large    main-thread time to encrypt and decrypt one value of 1 KiB, 64 KiB and 1 MiB per
//            static-key provider: whether a large value would pass the execution plane's 0.5 ms
//            rule (docs/execution-plane.md).
// The memory backend keeps disk time out of it; kms-v2 talks gRPC to the real test plugin process.
//
//   node --import tsx bench/encryption.bench.ts             (about half a minute on 2 cores)
//   BENCH_QUICK=1 node --import tsx bench/encryption.bench.ts   (a smoke run)
//
// Prints a table, then one JSON line (`{"bench":"encryption",...}`).

import { performance } from 'node:perf_hooks';
import { realClock } from '../engine/clock.ts';
import { parseEncryptionConfig } from '../engine/config/encryption-config.ts';
import { startKmsPlugin } from '../engine/kms/testing/plugin-process.ts';
import type { KubeObject } from '../engine/resources/types.ts';
import { createMemoryBackend, createMemoryVolume } from '../engine/store/memory/memory-backend.ts';
import { createStore } from '../engine/store/store.ts';
import type { ResourceInfo } from '../engine/store/store-types.ts';
import { createResourceTransformers, routeByStorageKey } from '../engine/store/transformers/resource-transformers.ts';

const QUICK = process.env['BENCH_QUICK'] === '1';
const COUNT = QUICK ? 500 : 5_000;
const ROUNDS = QUICK ? 1 : 5;
const IN_FLIGHT = 64;
/** Cached gets are fast: several passes so a GC pause does not decide the figure. */
const GET_PASSES = 10;
const now = (): number => performance.now();
const median = (xs: number[]): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? Number.NaN;
const fmt = (x: number, digits = 0): string => (Number.isFinite(x) ? x.toLocaleString('en-US', { maximumFractionDigits: digits }) : String(x));

const PLC: ResourceInfo = {
  group: 'flowcontrol.apiserver.k8s.io',
  resource: 'prioritylevelconfigurations',
  kind: 'PriorityLevelConfiguration',
  apiVersion: 'flowcontrol.apiserver.k8s.io/v1',
};
const RESOURCES = [{ group: PLC.group, resource: PLC.resource }];

/** About 1 KB of JSON, as the storage benchmark's objects. */
function plc(i: number): KubeObject {
  return {
    apiVersion: PLC.apiVersion,
    kind: PLC.kind,
    metadata: {
      name: `level-${String(i).padStart(6, '0')}`,
      uid: `3f0c7a5e-0000-4000-8000-${String(i).padStart(12, '0')}`,
      generation: 1,
      creationTimestamp: '2026-11-21T05:11:26Z',
      labels: { team: `team-${i % 7}` },
      annotations: { note: `bench object ${i} `.repeat(24) },
    },
    spec: {
      type: 'Limited',
      limited: {
        nominalConcurrencyShares: 30,
        limitResponse: { type: 'Queue', queuing: { queues: 64, handSize: 6, queueLengthLimit: 50 } },
        lendablePercent: 33,
      },
    },
  };
}

const key = (fill: number) => Buffer.alloc(32, fill).toString('base64');
const plugin = await startKmsPlugin();
const PROVIDERS: Record<string, string> = {
  identity: '{identity: {}}',
  aescbc: `{aescbc: {keys: [{name: k1, secret: "${key(1)}"}]}}`,
  aesgcm: `{aesgcm: {keys: [{name: k1, secret: "${key(2)}"}]}}`,
  secretbox: `{secretbox: {keys: [{name: k1, secret: "${key(3)}"}]}}`,
  'kms-v2': `{kms: {apiVersion: v2, name: bench, endpoint: "${plugin.endpoint}", timeout: 3s}}`,
};

function config(provider: string) {
  const text = `apiVersion: apiserver.config.k8s.io/v1\nkind: EncryptionConfiguration\nresources:\n  - resources: ["*.*"]\n    providers: [${provider}]\n`;
  const loaded = parseEncryptionConfig(new TextEncoder().encode(text), 'bench.yaml');
  if (!loaded.ok) throw new Error(loaded.error.message);
  return loaded.value;
}

interface Sample {
  createPerS: number;
  openPerS: number;
  getPerS: number;
}

async function measure(provider: string): Promise<Sample> {
  const clock = realClock();
  const loaded = config(PROVIDERS[provider]!);
  const volume = createMemoryVolume(provider);
  const objects = Array.from({ length: COUNT }, (_, i) => plc(i));

  const writers = await createResourceTransformers(loaded, { clock });
  const store = createStore({ backend: createMemoryBackend({ volume }), clock, transformer: routeByStorageKey(writers, RESOURCES) });
  await store.open();
  const plcs = store.for(PLC);
  let next = 0;
  const createStart = now();
  await Promise.all(
    Array.from({ length: IN_FLIGHT }, async () => {
      while (next < COUNT) await plcs.create(objects[next++]!);
    }),
  );
  const createMs = now() - createStart;
  const getStart = now();
  for (let pass = 0; pass < GET_PASSES; pass++) for (let i = 0; i < COUNT; i++) await plcs.get(objects[i]!.metadata!.name!, { resourceVersion: '0' });
  const getMs = (now() - getStart) / GET_PASSES;
  await store.close();
  writers.close();

  // A new set of transformers, as after a restart: KMS v2 has to ask the plugin for the seed once.
  const readers = await createResourceTransformers(loaded, { clock });
  const reopened = createStore({ backend: createMemoryBackend({ volume }), clock, transformer: routeByStorageKey(readers, RESOURCES) });
  const openStart = now();
  await reopened.open();
  const openMs = now() - openStart;
  if (reopened.dump().resources[0]?.objects !== COUNT) throw new Error(`${provider}: reopened with ${reopened.dump().resources[0]?.objects} objects`);
  await reopened.close();
  readers.close();
  return { createPerS: (COUNT * 1000) / createMs, openPerS: (COUNT * 1000) / openMs, getPerS: (COUNT * 1000) / getMs };
}

/** Milliseconds per transformToStorage and transformFromStorage of one `size`-byte value (medians). */
async function largeValue(provider: string, size: number): Promise<{ encryptMs: number; decryptMs: number }> {
  const transformers = await createResourceTransformers(config(PROVIDERS[provider]!), { clock: realClock() });
  try {
    const transformer = routeByStorageKey(transformers, RESOURCES);
    const context = { key: `/registry/${PLC.group}/${PLC.resource}/large` };
    const value = new Uint8Array(size).map((_, i) => (i * 31) & 0xff);
    const reps = size >= 1 << 20 ? (QUICK ? 3 : 9) : QUICK ? 20 : 200;
    const encrypt: number[] = [];
    const decrypt: number[] = [];
    let stored = await transformer.transformToStorage(value, context);
    for (let i = 0; i < reps; i++) {
      let t = now();
      stored = await transformer.transformToStorage(value, context);
      encrypt.push(now() - t);
      t = now();
      await transformer.transformFromStorage(stored, context);
      decrypt.push(now() - t);
    }
    return { encryptMs: median(encrypt), decryptMs: median(decrypt) };
  } finally {
    transformers.close();
  }
}

const samples = new Map<string, Sample[]>(Object.keys(PROVIDERS).map((p) => [p, []]));
const LARGE_PROVIDERS = ['identity', 'aescbc', 'aesgcm', 'secretbox'];
const LARGE_SIZES = [1 << 10, 64 << 10, 1 << 20];
const large: Record<string, Record<string, { encryptMs: number; decryptMs: number }>> = {};
try {
  await measure('identity'); // warm-up: JIT, codec structures
  for (let round = 0; round < ROUNDS; round++) for (const provider of Object.keys(PROVIDERS)) samples.get(provider)!.push(await measure(provider));
  for (const provider of LARGE_PROVIDERS) {
    large[provider] = {};
    for (const size of LARGE_SIZES) large[provider]![String(size)] = await largeValue(provider, size);
  }
} finally {
  await plugin.stop();
}

const medianOf = (provider: string, field: keyof Sample) => median(samples.get(provider)!.map((s) => s[field]));
const results: Record<string, unknown> = {
  bench: 'encryption',
  node: process.version,
  quick: QUICK,
  objects: COUNT,
  rounds: ROUNDS,
  inFlight: IN_FLIGHT,
  providers: {},
};
const base = { create: medianOf('identity', 'createPerS'), open: medianOf('identity', 'openPerS'), get: medianOf('identity', 'getPerS') };
const rows: string[][] = [['provider', 'creates/s', '× identity', 'decoded at open/s', '× identity', 'cached gets/s', '× identity']];
for (const provider of Object.keys(PROVIDERS)) {
  const create = medianOf(provider, 'createPerS');
  const open = medianOf(provider, 'openPerS');
  const get = medianOf(provider, 'getPerS');
  (results.providers as Record<string, unknown>)[provider] = {
    createPerS: create,
    createRatio: create / base.create,
    openDecodePerS: open,
    openRatio: open / base.open,
    cachedGetPerS: get,
    getRatio: get / base.get,
  };
  rows.push([provider, fmt(create), fmt(create / base.create, 2), fmt(open), fmt(open / base.open, 2), fmt(get), fmt(get / base.get, 2)]);
}
const widths = rows[0]!.map((_, i) => Math.max(...rows.map((r) => r[i]!.length)));
process.stdout.write(`\nencryption at rest through the store: ${fmt(COUNT)} objects of ~1 KB, medians of ${ROUNDS} interleaved rounds\n`);
for (const row of rows) process.stdout.write(`  ${row.map((cell, i) => (i === 0 ? cell.padEnd(widths[i]!) : cell.padStart(widths[i]!))).join('  ')}\n`);
results.large = large;
process.stdout.write("\nmain-thread ms to encrypt / decrypt one value (medians; the execution plane's rule is 0.5 ms)\n");
process.stdout.write(
  `  ${'provider'.padEnd(10)}${LARGE_SIZES.map((size) => `${size >= 1 << 20 ? `${size >> 20} MiB` : `${size >> 10} KiB`}`.padStart(18)).join('')}\n`,
);
for (const provider of LARGE_PROVIDERS) {
  const cells = LARGE_SIZES.map((size) => {
    const r = large[provider]![String(size)]!;
    return `${r.encryptMs.toFixed(3)} / ${r.decryptMs.toFixed(3)}`.padStart(18);
  });
  process.stdout.write(`  ${provider.padEnd(10)}${cells.join('')}\n`);
}
process.stdout.write(`\n${JSON.stringify(results)}\n`);
