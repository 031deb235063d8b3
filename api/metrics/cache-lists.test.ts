import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { Registry } from 'prom-client';
import { realClock } from '../../engine/clock.ts';
import { PRIORITY_LEVEL, storeResourceInfo } from '../../engine/resources/kinds.ts';
import { createMemoryBackend } from '../../engine/store/memory/memory-backend.ts';
import { createStore } from '../../engine/store/store.ts';
import { cacheListFamilies, resourcePrefixLabel } from './cache-lists.ts';
import { parseExposition, sampleValue } from './testing/exposition.ts';

test("kube-apiserver 1.32's watch-cache LIST counters, labelled resource_prefix and index: a selector's LIST is handed every object", async () => {
  const store = createStore({ backend: createMemoryBackend(), clock: realClock() });
  await store.open();
  const registry = new Registry();
  for (const family of cacheListFamilies(store)) family.registerIn(registry);
  assert.not.match(await registry.metrics(), /apiserver_cache_list_total\{/, 'no series before the first LIST');

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
  // A watch's initial listing is no LIST.
  (await levels.watch({ sendInitialEvents: true, resourceVersionMatch: 'NotOlderThan', allowWatchBookmarks: true })).stop();
  const text = await registry.metrics();
  const samples = parseExposition(text);
  const indexed = { index: '', resource_prefix: '/prioritylevelconfigurations' };
  assert.equal(
    [
      sampleValue(samples, 'apiserver_cache_list_total', indexed),
      sampleValue(samples, 'apiserver_cache_list_fetched_objects_total', indexed),
      sampleValue(samples, 'apiserver_cache_list_returned_objects_total', { resource_prefix: '/prioritylevelconfigurations' }),
    ],
    [2, 8, 5],
  );
  assert.match(text, 'apiserver_cache_list_total{index="",resource_prefix="/prioritylevelconfigurations"} 2');
  assert.match(text, 'apiserver_cache_list_returned_objects_total{resource_prefix="/prioritylevelconfigurations"} 5');
  assert.match(
    text,
    '# HELP apiserver_cache_list_fetched_objects_total [ALPHA] Number of objects read from watch cache in the course of serving a LIST request',
  );
  assert.match(text, '# TYPE apiserver_cache_list_returned_objects_total counter');
  assert.not.match(text, 'apiserver_storage_list', 'no LIST reaches storage');
  await store.close();
});

test("resource_prefix is kube's storage name for a resource: its plural, whatever its group", () => {
  assert.equal(['flowschemas.flowcontrol.apiserver.k8s.io', 'pods'].map(resourcePrefixLabel), ['/flowschemas', '/pods']);
});

test.run();
