// The store's runtime seams for encryption at rest: a transformer swapped while the store runs
// (each operation uses the one in force; whatever was stored before a swap is rewritten by the next
// update, even a no-op one), and a resource that a KMS outage makes unreadable at open (deferred:
// the others are served, it fails with FW_ERR_STORE_TRANSFORM_FAILED until the plugin is back).
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { SimClock } from '../sim-clock.ts';
import { createMemoryBackend, createMemoryVolume, type MemoryVolume } from './memory/memory-backend.ts';
import { createStore } from './store.ts';
import { isStoreError } from './store-errors.ts';
import { createTransformerHolder } from './transformer-holder.ts';
import type { Transformer } from './transformers/transformer.ts';
import { TransformError } from './transformers/transform-error.ts';
import { FS, PLC, plc } from './testing/suite-kit.ts';

const utf8 = new TextEncoder();
const text = new TextDecoder();
const PLC_KEY = (name: string) => `/registry/${PLC.group}/${PLC.resource}/${name}`;

/** Writes `<tag>:` + data; reads any tag in `reads` (stale unless it is the write tag). */
function tagged(tag: string, reads: readonly string[] = [tag]): Transformer {
  return {
    transformToStorage: async (data) => new Uint8Array([...utf8.encode(`${tag}:`), ...data]),
    async transformFromStorage(data) {
      const head = text.decode(data.subarray(0, 2));
      const found = reads.find((t) => head === `${t}:`);
      if (found === undefined) throw new TransformError('no-matching-prefix', `no matching prefix found (${head})`);
      return { data: data.subarray(2), stale: found !== tag };
    },
  };
}

const rawTag = (volume: MemoryVolume, key: string) => text.decode(volume.data.get(key)!.value.subarray(0, 2));

async function rejectsWith(promise: Promise<unknown>, code: string, pattern: RegExp): Promise<void> {
  try {
    await promise;
  } catch (error) {
    assert.ok(isStoreError(error), String(error));
    assert.is(error.code, code);
    assert.match(error.message, pattern);
    return;
  }
  assert.unreachable(`expected ${code}`);
}

test('a swapped transformer writes from the next operation on; older values are rewritten by a no-op update', async () => {
  const volume = createMemoryVolume();
  const holder = createTransformerHolder(tagged('A'));
  const store = createStore({ backend: createMemoryBackend({ volume }), clock: new SimClock(), transformer: holder });
  await store.open();
  const plcs = store.for(PLC);
  const a = await plcs.create(plc('a'));
  assert.is(rawTag(volume, PLC_KEY('a')), 'A:');
  // Before any swap a no-op update writes nothing.
  const same = await plcs.update(structuredClone(a) as typeof a);
  assert.is(same.metadata?.resourceVersion, a.metadata?.resourceVersion);

  holder.swap(tagged('B', ['B', 'A']));
  await plcs.create(plc('b'));
  assert.is(rawTag(volume, PLC_KEY('b')), 'B:');
  const rewritten = await plcs.update(structuredClone(a) as typeof a);
  assert.is.not(rewritten.metadata?.resourceVersion, a.metadata?.resourceVersion, 'stored before the swap: the no-op update writes');
  assert.is(rawTag(volume, PLC_KEY('a')), 'B:');
  // Written after the swap: a no-op again.
  const again = await plcs.update(structuredClone(rewritten) as typeof rewritten);
  assert.is(again.metadata?.resourceVersion, rewritten.metadata?.resourceVersion);
  await store.close();

  // Reopened without the old transformer: both read; the event log's copy of `a` under A is an
  // unknown version now (it cuts the watch window), not a failed open.
  assert.ok(volume.log.some((e) => e.key === PLC_KEY('a') && e.value !== undefined && text.decode(e.value.subarray(0, 2)) === 'A:'));
  const reopened = createStore({ backend: createMemoryBackend({ volume }), clock: new SimClock(), transformer: tagged('B', ['B']) });
  await reopened.open();
  assert.is((await reopened.for(PLC).list()).items.length, 2);
  await reopened.close();
});

test('a write encoded before a swap but committed after it is still rewritten by the next update', async () => {
  const volume = createMemoryVolume();
  let release: () => void = () => undefined;
  const gate = new Promise<void>((resolve) => (release = resolve));
  const slowA: Transformer = {
    async transformToStorage(data, context) {
      await gate;
      return tagged('A').transformToStorage(data, context);
    },
    transformFromStorage: (data, context) => tagged('A').transformFromStorage(data, context),
  };
  const holder = createTransformerHolder(slowA);
  const store = createStore({ backend: createMemoryBackend({ volume }), clock: new SimClock(), transformer: holder });
  await store.open();
  const plcs = store.for(PLC);
  const pending = plcs.create(plc('slow'));
  await new Promise((resolve) => setImmediate(resolve));
  holder.swap(tagged('B', ['B', 'A']));
  await plcs.create(plc('other'));
  release();
  const slow = await pending;
  assert.is(rawTag(volume, PLC_KEY('slow')), 'A:');
  const rewritten = await plcs.update(structuredClone(slow) as typeof slow);
  assert.is.not(rewritten.metadata?.resourceVersion, slow.metadata?.resourceVersion);
  assert.is(rawTag(volume, PLC_KEY('slow')), 'B:');
  await store.close();
});

/** FlowSchemas go through a "KMS" that can be down; everything else is plaintext-tagged. */
function kmsForFlowSchemas(state: { down: boolean; reason?: 'kms-unavailable' | 'decrypt-failed' }): Transformer {
  const plain = tagged('P');
  const kms = tagged('K');
  const isFs = (key: string) => key.includes(`/${FS.resource}/`);
  const outage = () => new TransformError(state.reason ?? 'kms-unavailable', 'failed to decrypt DEK, error: plugin down', { provider: 'kms provider "vault"' });
  return {
    async transformToStorage(data, context) {
      if (!isFs(context.key)) return plain.transformToStorage(data, context);
      if (state.down) throw outage();
      return kms.transformToStorage(data, context);
    },
    async transformFromStorage(data, context) {
      if (!isFs(context.key)) return plain.transformFromStorage(data, context);
      if (state.down) throw outage();
      return kms.transformFromStorage(data, context);
    },
  };
}

test('a KMS outage at open defers that resource: the others serve, it fails naming the provider, then loads', async () => {
  const volume = createMemoryVolume();
  const state = { down: false };
  const first = createStore({ backend: createMemoryBackend({ volume }), clock: new SimClock(), transformer: kmsForFlowSchemas(state) });
  await first.open();
  await first.for(PLC).create(plc('p1'));
  const fs1 = await first.for(FS).create({ apiVersion: FS.apiVersion, kind: FS.kind, metadata: { name: 'f1' }, spec: { marker: 'x' } });
  await first.for(FS).create({ apiVersion: FS.apiVersion, kind: FS.kind, metadata: { name: 'f2' }, spec: {} });
  await first.close();

  state.down = true;
  const store = createStore({ backend: createMemoryBackend({ volume }), clock: new SimClock(), transformer: kmsForFlowSchemas(state) });
  await store.open();
  const plcs = store.for(PLC);
  const flowschemas = store.for(FS);
  assert.is((await plcs.get('p1')).metadata?.name, 'p1');
  await plcs.create(plc('p2'));
  const named = /kms provider "vault": failed to decrypt DEK/;
  await rejectsWith(flowschemas.get('f1'), 'FW_ERR_STORE_TRANSFORM_FAILED', named);
  await rejectsWith(flowschemas.list(), 'FW_ERR_STORE_TRANSFORM_FAILED', named);
  await rejectsWith(flowschemas.watch({}), 'FW_ERR_STORE_TRANSFORM_FAILED', named);
  // Nothing is written while the resource cannot be read: no partial write, nothing lost.
  await rejectsWith(
    flowschemas.create({ apiVersion: FS.apiVersion, kind: FS.kind, metadata: { name: 'f3' }, spec: {} }),
    'FW_ERR_STORE_TRANSFORM_FAILED',
    named,
  );
  await rejectsWith(flowschemas.delete('f2'), 'FW_ERR_STORE_TRANSFORM_FAILED', named);
  assert.ok(!volume.data.has(`/registry/${FS.group}/${FS.resource}/f3`));

  state.down = false;
  const back = await flowschemas.get('f1');
  assert.equal(back.spec, { marker: 'x' });
  assert.is(back.metadata?.resourceVersion, fs1.metadata?.resourceVersion);
  assert.equal(
    (await flowschemas.list()).items.map((i) => i.metadata?.name),
    ['f1', 'f2'],
  );
  // Its earlier history is not in the window: a watch from before the restart must list again.
  const watcher = await flowschemas.watch({ resourceVersion: fs1.metadata!.resourceVersion! });
  const first_ = await watcher.next();
  assert.is((first_.value as { type: string }).type, 'ERROR');
  await flowschemas.create({ apiVersion: FS.apiVersion, kind: FS.kind, metadata: { name: 'f3' }, spec: {} });
  await store.close();
});

test('a wrong key at open is not an outage: the open fails naming the error', async () => {
  const volume = createMemoryVolume();
  const state: { down: boolean; reason: 'kms-unavailable' | 'decrypt-failed' } = { down: false, reason: 'decrypt-failed' };
  const first = createStore({ backend: createMemoryBackend({ volume }), clock: new SimClock(), transformer: kmsForFlowSchemas(state) });
  await first.open();
  await first.for(FS).create({ apiVersion: FS.apiVersion, kind: FS.kind, metadata: { name: 'f1' }, spec: {} });
  await first.close();
  state.down = true;
  const store = createStore({ backend: createMemoryBackend({ volume }), clock: new SimClock(), transformer: kmsForFlowSchemas(state) });
  await rejectsWith(store.open(), 'FW_ERR_STORE_TRANSFORM_FAILED', /kms provider "vault"/);
});

test.run();
