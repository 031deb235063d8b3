import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { SimClock } from '../sim-clock.ts';
import { FLOW_SCHEMA, PRIORITY_LEVEL, storeResourceInfo } from '../resources/kinds.ts';
import type { FlowSchema, KubeObject } from '../resources/types.ts';
import { createMemoryBackend } from '../store/memory/memory-backend.ts';
import { createStore } from '../store/store.ts';
import { ensureBootstrapObjects } from './bootstrap-ensurer.ts';
import { watchFlowcontrolConfig } from './config-stream.ts';
import { CONFIG_DIGEST_MIN_INTERVAL_MS } from './config-work-queue.ts';
import { FlowController } from './controller.ts';
import { danglingUpdates, startDanglingStatusWriter } from './dangling-status.ts';
import type { ResourceStore } from '../store/store-types.ts';

/** Lets the store's promises run and the controller's digests (due on the virtual clock) happen. */
const settle = async (clock: SimClock, until: () => Promise<boolean>) => {
  for (let i = 0; i < 200; i++) {
    if (await until()) return;
    await new Promise((r) => setImmediate(r));
    clock.advance(CONFIG_DIGEST_MIN_INTERVAL_MS);
  }
};

function follow(clock: SimClock, plcs: ResourceStore, fss: ResourceStore) {
  const controller = new FlowController({
    clock,
    serverConcurrencyLimit: 600,
    defaultWaitLimitMs: 15_000,
    estimator: { objectCount: () => 'not-found', watchCount: () => 0 },
  });
  controller.start(watchFlowcontrolConfig(plcs, fss));
  const writer = startDanglingStatusWriter(controller.digested$, { flowSchemas: fss, clock });
  return { controller, stop: () => (writer.unsubscribe(), controller.stop()) };
}

const dangling = (fs: KubeObject) => (fs as FlowSchema).status?.conditions?.find((c) => c.type === 'Dangling');

test('every FlowSchema gets Dangling=False/Found; one pointing at a missing level gets True/NotFound; nothing is rewritten when unchanged', async () => {
  const clock = new SimClock(Date.UTC(2026, 10, 21));
  const store = createStore({ backend: createMemoryBackend(), clock });
  await store.open();
  const plcs = store.for(storeResourceInfo(PRIORITY_LEVEL));
  const fss = store.for(storeResourceInfo(FLOW_SCHEMA));
  let uid = 0;
  await ensureBootstrapObjects({ priorityLevels: plcs, flowSchemas: fss, clock, newUid: () => `u${++uid}` });
  await fss.create({
    metadata: { name: 'orphan', uid: 'o' },
    spec: { priorityLevelConfiguration: { name: 'nowhere' }, matchingPrecedence: 500, rules: [] },
  } as KubeObject);
  const writer = follow(clock, plcs, fss);
  await settle(clock, async () => (await fss.list()).items.every((f) => dangling(f) !== undefined));

  const exempt = dangling(await fss.get('exempt'))!;
  assert.equal(
    [exempt.status, exempt.reason, exempt.message],
    ['False', 'Found', 'This FlowSchema references the PriorityLevelConfiguration object named "exempt" and it exists'],
  );
  assert.match(exempt.lastTransitionTime ?? '', /^2026-11-21T00:00:0\d/);
  const orphan = dangling(await fss.get('orphan'))!;
  assert.equal([orphan.status, orphan.reason], ['True', 'NotFound']);
  assert.is(orphan.message, 'This FlowSchema references the PriorityLevelConfiguration object named "nowhere" but there is no such object');

  const revision = store.revision();
  await settle(clock, async () => false);
  assert.is(store.revision(), revision, 'no writes once every condition is right');
  writer.stop();
  await store.close();
});

test('danglingUpdates lists only the schemas whose condition must change', () => {
  const fs = (name: string, level: string, status?: 'True' | 'False'): FlowSchema => ({
    metadata: { name },
    spec: { priorityLevelConfiguration: { name: level }, matchingPrecedence: 100 },
    ...(status
      ? {
          status: {
            conditions: [
              {
                type: 'Dangling',
                status,
                reason: status === 'True' ? 'NotFound' : 'Found',
                message:
                  `This FlowSchema references the PriorityLevelConfiguration object named "${level}" ` +
                  `${status === 'True' ? 'but there is no such object' : 'and it exists'}`,
              },
            ],
          },
        }
      : {}),
  });
  const plc = {
    metadata: { name: 'a' },
    spec: { type: 'Limited', limited: { nominalConcurrencyShares: 1, lendablePercent: 0, limitResponse: { type: 'Reject' } } },
  };
  const updates = danglingUpdates({ priorityLevels: [plc], flowSchemas: [fs('ok', 'a', 'False'), fs('new', 'a'), fs('lost', 'b', 'False')] }, 0);
  assert.equal(
    updates.map((u) => [u.name, u.condition.status]),
    [
      ['new', 'False'],
      ['lost', 'True'],
    ],
  );
});

test.run();
