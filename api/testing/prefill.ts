// A LevelDB data directory holding thousands of FlowSchemas before any server starts, for the
// benchmarks and end-to-end tests that need a large collection. Created through the API one by one,
// each FlowSchema would make the server digest the whole configuration again; stored here with the
// bootstrap configuration and every Dangling condition already in place, a server starting on the
// directory has nothing to write. Every timestamp is fixed, so two copies serve the same bytes.
import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { formatRfc3339, realClock, type Clock } from '../../engine/clock.ts';
import { ensureBootstrapObjects } from '../../engine/flowcontrol/bootstrap-ensurer.ts';
import { danglingCondition } from '../../engine/flowcontrol/classifier.ts';
import type { FlowSchema, KubeObject } from '../../engine/resources/types.ts';
import { createLevelDbBackend } from '../../engine/store/leveldb/leveldb-backend.ts';
import { createStore } from '../../engine/store/store.ts';

const GROUP = 'flowcontrol.apiserver.k8s.io';
/** When every prefilled object was created. */
export const PREFILL_CREATED_MS = Date.parse('2026-01-02T03:04:05Z');
export const BULK_LABEL = 'bench.fairway.io/bulk';

export interface PrefillOptions {
  /** Bulk FlowSchemas, named bulk-00000, bulk-00001, ... */
  count: number;
  /** Bytes of annotation padding per bulk object (default 400: about 1 KB of JSON each). */
  paddingBytes?: number;
  /** More FlowSchemas stored after the bulk ones (with a Dangling condition, like them). */
  extra?: readonly KubeObject[];
}

/** A FlowSchema as the API would have stored it, matching nobody and after global-default (so classifying never scans it). */
export function bulkFlowSchema(i: number, paddingBytes = 400): FlowSchema {
  const fs: FlowSchema = {
    kind: 'FlowSchema',
    apiVersion: `${GROUP}/v1`,
    metadata: {
      name: `bulk-${String(i).padStart(5, '0')}`,
      uid: `5c1f3b0e-0000-4000-8000-${String(i).padStart(12, '0')}`,
      generation: 1,
      creationTimestamp: formatRfc3339(PREFILL_CREATED_MS),
      labels: { [BULK_LABEL]: 'yes', shard: `s${i % 10}` },
      annotations: { 'bench.fairway.io/padding': `<bulk & ${i}>`.padEnd(paddingBytes, '.') },
    },
    spec: {
      priorityLevelConfiguration: { name: 'global-default' },
      matchingPrecedence: 9950,
      distinguisherMethod: { type: 'ByUser' },
      rules: [
        {
          subjects: [{ kind: 'User', user: { name: `nobody-${i}` } }],
          resourceRules: [{ verbs: ['get', 'list'], apiGroups: ['example.com'], resources: ['widgets'], clusterScope: true, namespaces: ['*'] }],
        },
      ],
    },
  };
  fs.status = { conditions: [danglingCondition(fs, true, PREFILL_CREATED_MS)] };
  return fs;
}

export async function prefillFlowSchemas(dataDir: string, options: PrefillOptions): Promise<void> {
  await mkdir(dataDir, { recursive: true, mode: 0o700 });
  const clock: Clock = { ...realClock(), now: () => PREFILL_CREATED_MS };
  const store = createStore({ backend: createLevelDbBackend({ location: join(dataDir, 'store') }), clock: realClock() });
  await store.open();
  try {
    const priorityLevels = store.for({ group: GROUP, resource: 'prioritylevelconfigurations', kind: 'PriorityLevelConfiguration', apiVersion: `${GROUP}/v1` });
    const flowSchemas = store.for({ group: GROUP, resource: 'flowschemas', kind: 'FlowSchema', apiVersion: `${GROUP}/v1` });
    let uid = 0;
    await ensureBootstrapObjects({ priorityLevels, flowSchemas, clock, newUid: () => `0b0075a9-0000-4000-8000-${String(++uid).padStart(12, '0')}` });
    for (const fs of (await flowSchemas.list()).items) {
      await flowSchemas.guaranteedUpdate(fs.metadata!.name!, (current) => ({
        ...current,
        status: { conditions: [danglingCondition(current as FlowSchema, true, PREFILL_CREATED_MS)] },
      }));
    }
    await Promise.all(Array.from({ length: options.count }, (_, i) => flowSchemas.create(bulkFlowSchema(i, options.paddingBytes) as KubeObject)));
    for (const object of options.extra ?? []) await flowSchemas.create(object);
  } finally {
    await store.close();
  }
}
