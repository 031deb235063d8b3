import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { SimClock } from '../sim-clock.ts';
import { FLOW_SCHEMA, PRIORITY_LEVEL, storeResourceInfo } from '../resources/kinds.ts';
import type { KubeObject } from '../resources/types.ts';
import { createMemoryBackend } from '../store/memory/memory-backend.ts';
import { createStore } from '../store/store.ts';
import { watchFlowcontrolConfig } from './config-stream.ts';
import { startGarbageCollector } from './garbage-collector.ts';

const settle = async (until: () => Promise<boolean>) => {
  for (let i = 0; i < 200; i++) {
    if (await until()) return;
    await new Promise((r) => setImmediate(r));
  }
};

const flowSchema = (name: string, metadata: Record<string, unknown>): KubeObject =>
  ({
    metadata: { name, uid: `uid-${name}`, ...metadata },
    spec: { priorityLevelConfiguration: { name: 'global-default' }, matchingPrecedence: 500, rules: [] },
  }) as KubeObject;

test("objects being deleted lose the collector's finalizers: gone when none is left, kept with the others", async () => {
  const store = createStore({ backend: createMemoryBackend(), clock: new SimClock() });
  await store.open();
  const plcs = store.for(storeResourceInfo(PRIORITY_LEVEL));
  const fss = store.for(storeResourceInfo(FLOW_SCHEMA));
  const deleting = { deletionTimestamp: '2026-01-01T00:00:00Z', deletionGracePeriodSeconds: 0 };
  await fss.create(flowSchema('foreground', { ...deleting, finalizers: ['foregroundDeletion'] }));
  await fss.create(flowSchema('orphan', { ...deleting, finalizers: ['orphan'] }));
  await fss.create(flowSchema('custom', { ...deleting, finalizers: ['example.com/keep', 'orphan'] }));
  await fss.create(flowSchema('not-deleting', { finalizers: ['foregroundDeletion'] }));
  const watcher = await fss.watch({ resourceVersion: String(store.revision()) });
  const collector = startGarbageCollector(watchFlowcontrolConfig(plcs, fss), { priorityLevels: plcs, flowSchemas: fss });
  await settle(async () => (await fss.list()).items.length === 2 && (await fss.get('custom')).metadata?.finalizers?.length === 1);
  collector.unsubscribe();

  const left = (await fss.list()).items.map((o) => [o.metadata?.name, o.metadata?.finalizers]);
  assert.equal(left, [
    ['custom', ['example.com/keep']],
    ['not-deleting', ['foregroundDeletion']],
  ]);
  const events: string[] = [];
  for (let i = 0; i < 3; i++) {
    const next = await watcher.next();
    if (next.done) break;
    events.push(`${next.value.type} ${(next.value.object as KubeObject).metadata?.name}`);
  }
  watcher.stop();
  // The last finalizer going is one DELETED event, not a MODIFIED before it.
  assert.equal(events.sort(), ['DELETED foreground', 'DELETED orphan', 'MODIFIED custom']);
  await store.close();
});

test.run();
