// Compliance suite, part 4: lifecycle and durability — not open yet, close, recovery on reopen,
// the persisted event log, locking, corruption, and the transformer chain. Gated by the manifest.

import * as assert from 'uvu/assert';
import type { Test } from 'uvu';
import { SimClock } from '../../sim-clock.ts';
import type { BackendManifest } from '../backend.ts';
import { createStore } from '../store.ts';
import type { Transformer } from '../transformers/transformer.ts';
import { PLC, plc, probe, rejects, rvOf, summary, withStore, type SuiteHarness } from './suite-kit.ts';

const KEY_A = '/registry/flowcontrol.apiserver.k8s.io/prioritylevelconfigurations/a';

export function lifecycleTests(test: Test, harness: SuiteHarness, manifest: BackendManifest): void {
  test('calls before open are refused; calls while opening wait for it; calls after close are refused', async () => {
    const location = await harness.location();
    try {
      const store = createStore({ backend: location.backend(), clock: new SimClock() });
      const plcs = store.for(PLC);
      await rejects(plcs.get('a'), 'FW_ERR_STORE_NOT_OPEN', 'storage is not open (state: new)');
      assert.is(plcs.getNow('a', '0'), undefined, 'not open: get says why');
      const opening = store.open();
      const early = plcs.create(plc('a'));
      assert.is(plcs.getNow('a', '0'), undefined, 'opening: get waits');
      await opening;
      const created = await early;
      assert.is(rvOf(created), store.revision());
      assert.equal(plcs.getNow('a', '0'), created);
      const watcher = probe(await plcs.watch({ resourceVersion: '0' }));
      assert.equal((await watcher.take(1)).map(summary), [`ADDED a@${rvOf(created)}`]);
      await store.close();
      await watcher.done();
      await rejects(plcs.get('a'), 'FW_ERR_STORE_NOT_OPEN', 'storage is not open (state: closed)');
      assert.is(plcs.getNow('a', '0'), undefined, 'closed: get says why');
    } finally {
      await location.cleanup();
    }
  });

  if (manifest.persistent) {
    test('reopening recovers every object and continues the revision sequence', () =>
      withStore(harness, {}, async (f) => {
        const a = await f.plcs.create(plc('a', { tier: 'gold' }));
        await f.plcs.create(plc('b'));
        await f.flowschemas.create({ kind: 'FlowSchema', metadata: { name: 'f', uid: 'u-f' }, spec: { matchingPrecedence: 7 } });
        const a2 = await f.plcs.update({ ...a, spec: { type: 'Exempt' } });
        await f.plcs.delete('b');
        const before = f.store.revision();
        await f.reopen();
        assert.is(f.store.revision(), before);
        assert.equal(await f.plcs.get('a'), a2);
        await rejects(f.plcs.get('b'), 'FW_ERR_STORE_NOT_FOUND');
        assert.equal((await f.flowschemas.get('f')).spec, { matchingPrecedence: 7 });
        const c = await f.plcs.create(plc('c'));
        assert.is(rvOf(c), before + 1);
      }));
  }

  if (manifest.persistentEventLog) {
    test('a watch from before a restart resumes from the persisted event log', () =>
      withStore(harness, {}, async (f) => {
        const a = await f.plcs.create(plc('a', { tier: 'gold' }));
        const a2 = await f.plcs.update({ ...a, metadata: { ...a.metadata, labels: { tier: 'silver' } } });
        const gone = await f.plcs.delete('a');
        await f.reopen();
        const w = probe(await f.plcs.watch({ resourceVersion: a.metadata!.resourceVersion!, labelSelector: 'tier=gold' }));
        assert.equal((await w.take(1)).map(summary), [`DELETED a@${rvOf(a2)}`]);
        await w.quiet();
        const all = probe(await f.plcs.watch({ resourceVersion: a.metadata!.resourceVersion! }));
        assert.equal((await all.take(2)).map(summary), [`MODIFIED a@${rvOf(a2)}`, `DELETED a@${rvOf(gone)}`]);
        w.watcher.stop();
        all.watcher.stop();
      }));

    test('the persisted log is bounded: older resourceVersions are Expired after a restart', () =>
      withStore(harness, { eventLogCapacity: 2 }, async (f) => {
        const base = f.store.revision(); // 0 on a fresh location; a shared etcd is further on
        for (const name of ['a', 'b', 'c', 'd', 'e', 'f']) await f.plcs.create(plc(name));
        await f.reopen();
        const w = probe(await f.plcs.watch({ resourceVersion: String(base + 1) }));
        const [error] = await w.take(1);
        assert.is(error!.type, 'ERROR');
        assert.match(JSON.stringify(error!.object), new RegExp(`too old resource version: ${base + 1} \\(\\d+\\)`));
        const recent = probe(await f.plcs.watch({ resourceVersion: String(base + 5) }));
        assert.equal((await recent.take(1)).map(summary), [`ADDED f@${base + 6}`]);
        recent.watcher.stop();
      }));
  }

  if (manifest.exclusive) {
    test('a location already open elsewhere fails to open with a clear error naming it', () =>
      withStore(harness, {}, async (f) => {
        const second = createStore({ backend: f.location.backend(), clock: new SimClock() });
        const error = await rejects(second.open(), 'FW_ERR_STORE_LOCKED');
        assert.ok(error.message.includes(f.location.backend().location), error.message);
        assert.is(second.state, 'failed');
        await rejects(second.for(PLC).get('a'), 'FW_ERR_STORE_LOCKED');
        await f.plcs.create(plc('still-works'));
      }));
  }

  test('a stored value that does not decode fails the open with the key named', async () => {
    const location = await harness.location();
    try {
      if (location.writeRawValue === undefined) return;
      const store = createStore({ backend: location.backend(), clock: new SimClock() });
      await store.open();
      await store.for(PLC).create(plc('a'));
      await store.close();
      await location.writeRawValue(KEY_A, new Uint8Array([1, 0xc1, 0xff, 0x00]));
      const reopened = createStore({ backend: location.backend(), clock: new SimClock() });
      const error = await rejects(reopened.open(), 'FW_ERR_STORE_CORRUPT');
      assert.ok(error.message.includes(KEY_A), error.message);
      await location.writeRawValue(KEY_A, new TextEncoder().encode('k8s:enc:aescbc:v1:key1:xxxx'));
      const encrypted = createStore({ backend: location.backend(), clock: new SimClock() });
      await rejects(encrypted.open(), 'FW_ERR_STORE_TRANSFORM_FAILED', /identity transformer tried to read encrypted data/);
    } finally {
      await location.cleanup();
    }
  });

  test('damaged database files fail the open with a clear error', async () => {
    const location = await harness.location();
    try {
      if (location.corruptFiles === undefined) return;
      const store = createStore({ backend: location.backend(), clock: new SimClock() });
      await store.open();
      await store.for(PLC).create(plc('a'));
      await store.close();
      await location.corruptFiles();
      const reopened = createStore({ backend: location.backend(), clock: new SimClock() });
      const error = await rejects(reopened.open(), 'FW_ERR_STORE_CORRUPT');
      assert.ok(error.message.includes(location.backend().location), error.message);
    } finally {
      await location.cleanup();
    }
  });

  test('values pass through the transformer; a stale value is rewritten by an unchanged update', () =>
    withStore(harness, {}, async (f) => {
      const seen: string[] = [];
      const v1 = tagTransformer('t1:', [], seen);
      await f.reopen({ transformer: v1 });
      const a = await f.plcs.create(plc('a'));
      assert.equal(seen, [`to t1: ${KEY_A}`]);
      const v2 = tagTransformer('t2:', ['t1:'], seen);
      await f.reopen({ transformer: v2 });
      assert.equal(await f.plcs.get('a'), a, 'reads back through the old tag');
      const rewritten = await f.plcs.update(a);
      assert.is(rvOf(rewritten), rvOf(a) + 1, 'a stale value is rewritten even without changes');
      const again = await f.plcs.update(rewritten);
      assert.is(rvOf(again), rvOf(rewritten), 'after the rewrite, an unchanged update is a no-op');
      assert.ok(seen.includes(`to t2: ${KEY_A}`));
    }));
}

/** Writes `tag` + bytes XOR 0x5a; reads its own tag, or an old tag (then stale). */
function tagTransformer(tag: string, oldTags: string[], seen: string[]): Transformer {
  const mask = (data: Uint8Array): Uint8Array => data.map((b) => b ^ 0x5a);
  const bytes = (text: string): Uint8Array => new TextEncoder().encode(text);
  return {
    async transformToStorage(data, { key }) {
      seen.push(`to ${tag} ${key}`);
      return new Uint8Array([...bytes(tag), ...mask(data)]);
    },
    async transformFromStorage(data, { key }) {
      const text = new TextDecoder().decode(data.subarray(0, 3));
      if (text === tag) return { data: mask(data.subarray(3)), stale: false };
      if (oldTags.includes(text)) return { data: mask(data.subarray(3)), stale: true };
      throw new Error(`no transformer for ${key}: prefix ${JSON.stringify(text)}`);
    },
  };
}
