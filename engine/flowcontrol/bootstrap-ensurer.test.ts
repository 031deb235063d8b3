import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { firstValueFrom, filter } from 'rxjs';
import { SimClock } from '../sim-clock.ts';
import { FLOW_SCHEMA, PRIORITY_LEVEL, storeResourceInfo } from '../resources/kinds.ts';
import type { KubeObject, PriorityLevelConfiguration } from '../resources/types.ts';
import { createMemoryBackend, createMemoryVolume } from '../store/memory/memory-backend.ts';
import { createStore } from '../store/store.ts';
import { ensureBootstrapObjects, startBootstrapEnsurer } from './bootstrap-ensurer.ts';
import { watchFlowcontrolConfig } from './config-stream.ts';

async function openStore(volume = createMemoryVolume(), clock = new SimClock()) {
  const store = createStore({ backend: createMemoryBackend({ volume }), clock });
  await store.open();
  return { store, clock, plcs: store.for(storeResourceInfo(PRIORITY_LEVEL)), fss: store.for(storeResourceInfo(FLOW_SCHEMA)) };
}

let uids = 0;
const newUid = () => `uid-${++uids}`;

test('a first round creates the 8 PLCs and 13 FlowSchemas; a second round changes nothing', async () => {
  const { store, clock, plcs, fss } = await openStore();
  const first = await ensureBootstrapObjects({ priorityLevels: plcs, flowSchemas: fss, clock, newUid });
  assert.is(first.created.length, 21);
  assert.is((await plcs.list()).items.length, 8);
  assert.is((await fss.list()).items.length, 13);
  const exempt = await plcs.get('exempt');
  assert.is(exempt.metadata?.generation, 1);
  assert.ok(exempt.metadata?.uid?.startsWith('uid-'));
  const second = await ensureBootstrapObjects({ priorityLevels: plcs, flowSchemas: fss, clock, newUid });
  assert.equal(second, { created: [], updated: [], deleted: [] });
  await store.close();
});

test('a deleted mandatory object comes back; a changed one is restored; an unwanted auto-update object goes', async () => {
  const { store, clock, plcs, fss } = await openStore();
  const deps = { priorityLevels: plcs, flowSchemas: fss, clock, newUid };
  await ensureBootstrapObjects(deps);
  await fss.delete('catch-all');
  const catchAll = (await plcs.get('catch-all')) as PriorityLevelConfiguration;
  const changed = structuredClone(catchAll) as PriorityLevelConfiguration;
  changed.spec!.limited!.nominalConcurrencyShares = 50;
  await plcs.update(changed as KubeObject);
  await plcs.create({
    metadata: { name: 'leftover', annotations: { 'apf.kubernetes.io/autoupdate-spec': 'true' } },
    spec: { type: 'Limited', limited: { nominalConcurrencyShares: 1, lendablePercent: 0, limitResponse: { type: 'Reject' } } },
  } as KubeObject);
  await plcs.create({
    metadata: { name: 'mine' },
    spec: { type: 'Limited', limited: { nominalConcurrencyShares: 1, lendablePercent: 0, limitResponse: { type: 'Reject' } } },
  } as KubeObject);
  const report = await ensureBootstrapObjects(deps);
  assert.equal(report.created, ['FlowSchema/catch-all']);
  assert.equal(report.updated, ['PriorityLevelConfiguration/catch-all']);
  assert.equal(report.deleted, ['PriorityLevelConfiguration/leftover']);
  assert.is(((await plcs.get('catch-all')) as PriorityLevelConfiguration).spec?.limited?.nominalConcurrencyShares, 5);
  assert.is((await plcs.get('mine')).metadata?.name, 'mine', 'objects without the annotation are kept');
  await store.close();
});

test('two ensurers racing on one store converge without duplicates or errors', async () => {
  const { store, clock, plcs, fss } = await openStore();
  const deps = { priorityLevels: plcs, flowSchemas: fss, clock, newUid };
  const results = await Promise.all([ensureBootstrapObjects(deps), ensureBootstrapObjects(deps)]);
  assert.is(results[0].created.length + results[1].created.length, 21);
  assert.is((await plcs.list()).items.length, 8);
  assert.is((await fss.list()).items.length, 13);
  await store.close();
});

test('the scheduled ensurer runs at start and again every minute on the injected clock', async () => {
  const { store, clock, plcs, fss } = await openStore();
  const rounds: number[] = [];
  const settle = () => new Promise((r) => setImmediate(r));
  const subscription = startBootstrapEnsurer({ priorityLevels: plcs, flowSchemas: fss, clock, newUid }, () => rounds.push(clock.now()));
  clock.advance(0);
  for (let i = 0; i < 50 && rounds.length === 0; i++) await settle();
  assert.equal(rounds, [0]);
  await fss.delete('exempt');
  clock.advance(60_000);
  for (let i = 0; i < 50 && rounds.length === 1; i++) await settle();
  assert.equal(rounds, [0, 60_000]);
  assert.is((await fss.get('exempt')).metadata?.name, 'exempt');
  subscription.unsubscribe();
  await store.close();
});

test('the config stream emits a snapshot once both kinds are listed, then on every change', async () => {
  const { store, clock, plcs, fss } = await openStore();
  await ensureBootstrapObjects({ priorityLevels: plcs, flowSchemas: fss, clock, newUid });
  const config$ = watchFlowcontrolConfig(plcs, fss);
  const initial = await firstValueFrom(config$);
  assert.is(initial.priorityLevels.length, 8);
  assert.is(initial.flowSchemas.length, 13);
  const afterDelete = firstValueFrom(config$.pipe(filter((c) => c.flowSchemas.length === 12)));
  await fss.delete('global-default');
  const seen = await afterDelete;
  assert.not.ok(seen.flowSchemas.some((f) => f.metadata?.name === 'global-default'));
  await store.close();
});

test.run();
