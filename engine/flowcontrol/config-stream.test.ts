import { test } from 'uvu';
import * as assert from 'uvu/assert';
import type { Subscription } from 'rxjs';
import { SimClock } from '../sim-clock.ts';
import { FLOW_SCHEMA, PRIORITY_LEVEL, storeResourceInfo } from '../resources/kinds.ts';
import type { KubeObject } from '../resources/types.ts';
import { createMemoryBackend } from '../store/memory/memory-backend.ts';
import { createStore } from '../store/store.ts';
import { watchFlowcontrolConfig } from './config-stream.ts';
import { FlowController, type FlowcontrolConfig } from './controller.ts';

const settle = async (until: () => boolean) => {
  for (let i = 0; i < 200 && !until(); i++) await new Promise((r) => setImmediate(r));
};

const level = (name: string, shares: number, labels: Record<string, string> = {}): KubeObject =>
  ({
    kind: 'PriorityLevelConfiguration',
    metadata: { name, labels },
    spec: { type: 'Limited', limited: { nominalConcurrencyShares: shares, limitResponse: { type: 'Reject' } } },
  }) as KubeObject;

// apf_controller.go's informer handlers add the config key for a PriorityLevelConfiguration only
// when its spec changed (a FlowSchema: spec or status), and for every addition or deletion.
test('every change is emitted with its object; one APF does not read (metadata only) is not digested', async () => {
  const clock = new SimClock(0);
  const store = createStore({ backend: createMemoryBackend(), clock });
  await store.open();
  const plcs = store.for(storeResourceInfo(PRIORITY_LEVEL));
  const fss = store.for(storeResourceInfo(FLOW_SCHEMA));
  await plcs.create(level('team', 10));
  const config$ = watchFlowcontrolConfig(plcs, fss);
  const seen: FlowcontrolConfig[] = [];
  const subscription: Subscription = config$.subscribe((c) => seen.push(c));
  const controller = new FlowController({
    clock,
    serverConcurrencyLimit: 600,
    defaultWaitLimitMs: 15_000,
    estimator: { objectCount: () => 'not-found', watchCount: () => 0 },
  });
  controller.start(config$);
  await settle(() => seen.length > 0);
  assert.is(seen[0]!.change, undefined, 'the first emission follows a list');
  clock.advance(1000);
  const digests = controller.configDigests;

  const current = await plcs.get('team');
  await plcs.update({ ...level('team', 10, { owner: 'me' }), metadata: { ...current.metadata, labels: { owner: 'me' } } });
  await settle(() => seen.length > 1);
  assert.equal([seen[1]!.change?.type, seen[1]!.change?.of, seen[1]!.change?.apfRelevant], ['MODIFIED', 'priorityLevels', false]);
  assert.equal(seen[1]!.priorityLevels[0]!.metadata?.labels, { owner: 'me' }, 'the view still shows the new object');
  clock.advance(1000);
  assert.is(controller.configDigests, digests, 'not digested');

  const labelled = await plcs.get('team');
  await plcs.update({ ...labelled, spec: level('team', 20).spec } as KubeObject);
  await settle(() => seen.length > 2);
  assert.is(seen[2]!.change?.apfRelevant, true);
  clock.advance(1000);
  assert.is(controller.configDigests, digests + 1, 'a spec change is');
  assert.is(controller.dump().levels.find((l) => l.name === 'team')?.limits.nominalCL, Math.ceil((600 * 20) / 25));

  subscription.unsubscribe();
  controller.stop();
  await store.close();
});

test.run();
