import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { Registry } from 'prom-client';
import { realClock } from '../../engine/clock.ts';
import { PRIORITY_LEVEL, storeResourceInfo } from '../../engine/resources/kinds.ts';
import { createMemoryBackend } from '../../engine/store/memory/memory-backend.ts';
import { createStore } from '../../engine/store/store.ts';
import { storageListFamilies } from './storage-lists.ts';
import { parseExposition, sampleValue } from './testing/exposition.ts';

test("kube-apiserver's storage LIST counters, labelled resource.group: a selector's LIST tests every object and returns its matches", async () => {
  const store = createStore({ backend: createMemoryBackend(), clock: realClock() });
  await store.open();
  const registry = new Registry();
  for (const family of storageListFamilies(store)) family.registerIn(registry);
  assert.not.match(await registry.metrics(), /apiserver_storage_list_total\{/, 'no series before the first LIST');

  const levels = store.for(storeResourceInfo(PRIORITY_LEVEL));
  for (const [name, team] of [
    ['a', 'x'],
    ['b', 'y'],
    ['c', 'y'],
    ['d', 'y'],
  ] as const) {
    await levels.create({
      apiVersion: 'flowcontrol.apiserver.k8s.io/v1',
      kind: 'PriorityLevelConfiguration',
      metadata: { name, labels: { team } },
      spec: { type: 'Exempt', exempt: {} },
    });
  }
  await levels.list();
  assert.is((await levels.list({ labelSelector: 'team=x' })).items.length, 1);
  const text = await registry.metrics();
  const samples = parseExposition(text);
  const resource = { resource: 'prioritylevelconfigurations.flowcontrol.apiserver.k8s.io' };
  assert.equal(
    ['total', 'fetched_objects_total', 'evaluated_objects_total', 'returned_objects_total'].map((s) =>
      sampleValue(samples, `apiserver_storage_list_${s}`, resource),
    ),
    [2, 8, 8, 5],
  );
  assert.match(
    text,
    '# HELP apiserver_storage_list_evaluated_objects_total [ALPHA] Number of objects tested in the course of serving a LIST request from storage',
  );
  assert.match(text, '# TYPE apiserver_storage_list_returned_objects_total counter');
  await store.close();
});

test.run();
