// How the server wires APF to the rest of itself: what its store does for LISTs, the stored-object
// counts, and the estimator's tunables.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { realClock } from '../../engine/clock.ts';
import type { AdmitOutcome } from '../../engine/flowcontrol/controller.ts';
import { DEFAULT_WORK_ESTIMATOR_CONFIG, type WorkEstimatorConfig } from '../../engine/flowcontrol/work-estimator-config.ts';
import { PRIORITY_LEVEL, storeResourceInfo } from '../../engine/resources/kinds.ts';
import type { KubeObject } from '../../engine/resources/types.ts';
import { createMemoryBackend } from '../../engine/store/memory/memory-backend.ts';
import { createStore } from '../../engine/store/store.ts';
import { createFairwayServer } from './assembled-server.ts';
import { silentLogger } from '../log.ts';
import { testAccessControl } from '../security/testing/access-control.ts';

async function serverWithLevels(count: number, workEstimator?: WorkEstimatorConfig) {
  const store = createStore({ backend: createMemoryBackend(), clock: realClock() });
  await store.open();
  const levels = store.for(storeResourceInfo(PRIORITY_LEVEL));
  for (let i = 0; i < count; i++) {
    await levels.create({
      metadata: { name: `team-${i}` },
      spec: { type: 'Limited', limited: { nominalConcurrencyShares: 0, limitResponse: { type: 'Reject' } } },
    } as KubeObject);
  }
  const fairway = createFairwayServer({
    store,
    logger: silentLogger,
    requestTimeoutMs: 60_000,
    serverConcurrencyLimit: 600,
    enablePriorityAndFairness: true,
    apfEnforce: true,
    accessControl: await testAccessControl(new Map()),
    serverAddress: () => '',
    workEstimator,
  });
  // The bootstrap objects are ensured and digested asynchronously.
  for (let i = 0; i < 500 && !fairway.controller.dump().levels.some((l) => l.name === 'global-default'); i++) await new Promise((r) => setTimeout(r, 10));
  const listSeats = (query: Record<string, string>) => {
    let outcome: AdmitOutcome | undefined;
    const admission = fairway.controller.admit(
      {
        digest: {
          user: { name: 'alice', groups: ['system:authenticated'] },
          requestInfo: {
            isResourceRequest: true,
            path: '/apis/flowcontrol.apiserver.k8s.io/v1/prioritylevelconfigurations',
            verb: 'list',
            apiGroup: 'flowcontrol.apiserver.k8s.io',
            apiVersion: 'v1',
            namespace: '',
            resource: 'prioritylevelconfigurations',
            subresource: '',
            name: '',
          },
        },
        query,
      },
      (o) => (outcome = o),
    );
    assert.is(outcome?.request.priorityLevel, 'global-default');
    admission.finish();
    return outcome!.workEstimate.initialSeats;
  };
  return {
    listSeats,
    async close() {
      fairway.stop();
      await store.close();
    },
  };
}

// request/list_work_estimator.go: with ConsistentListFromCache (on in 1.32) a consistent LIST is
// served from the watch cache and charged every stored object, not 2 × limit. Fairway's store
// serves it from its cache, and the server tells the estimator so.
test('a paginated consistent LIST is priced as the cache serves it: every stored object, not 2 x limit', async () => {
  const server = await serverWithLevels(650);
  try {
    assert.is(server.listSeats({ limit: '100' }), 7, 'ceil(650 / 100) seats; storage pricing would be ceil(200 / 100) = 2');
    assert.is(server.listSeats({ limit: '100', continue: 'x' }), 2, 'a continuation is still priced as a storage read, as upstream');
  } finally {
    await server.close();
  }
});

test('the work estimator config given to the server is the one the estimator uses', async () => {
  const server = await serverWithLevels(650, { ...DEFAULT_WORK_ESTIMATOR_CONFIG, objectsPerSeat: 1000 });
  try {
    assert.is(server.listSeats({ limit: '100' }), 1, 'ceil(650 / 1000)');
  } finally {
    await server.close();
  }
});

test.run();
