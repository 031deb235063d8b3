import { test } from 'uvu';
import * as assert from 'uvu/assert';
import type { KubeObject, ManagedFieldsEntry } from '../resources/types.ts';
import { errorCodeOf } from '../status/errors.ts';
import { API_VERSION, danglingFlowSchema, deltaConfig, deltaCreatedByClientSideApply, LAST_APPLIED, lastAppliedOf, T1, T2, T3 } from './fixtures.ts';
import { updateManagedFields } from './managed-fields.ts';
import { gvkString, printManager, serverSideApply, type ServerSideApplyInput } from './server-side-apply.ts';

const CSA = 'kubectl-client-side-apply';
const PLC = 'PriorityLevelConfiguration' as const;

function withManaged(object: KubeObject, managedFields: ManagedFieldsEntry[]): KubeObject {
  return { ...object, metadata: { ...object.metadata, uid: 'uid-delta', resourceVersion: '7', managedFields } };
}

/** delta as `kubectl apply -f plc-new.yaml` left it (client-side apply, shares 5). */
function clientSideApplied(shares = 5): KubeObject {
  const body = deltaCreatedByClientSideApply(shares);
  return withManaged({ ...body, status: {} }, updateManagedFields(undefined, body, { manager: CSA, time: T1, apiVersion: API_VERSION }));
}

function apply(current: KubeObject | undefined, config: KubeObject, manager: string, options: Partial<ServerSideApplyInput> = {}) {
  return serverSideApply({
    kind: PLC,
    apiVersion: API_VERSION,
    current,
    config: config as Record<string, unknown>,
    manager,
    force: false,
    time: T2,
    ...options,
  });
}

function ok(result: ReturnType<typeof apply>) {
  if ('status' in result) throw new Error(`unexpected status: ${result.status.message}`);
  return result;
}

function failed(result: ReturnType<typeof apply>) {
  if (!('status' in result)) throw new Error('expected a failure');
  return result.status;
}

const entry = (entries: ManagedFieldsEntry[], manager: string) => entries.find((e) => e.manager === manager);
const spec = (object: KubeObject): any => (object as any).spec;

test('create on apply: the object is the configuration, the manager owns what it applied', () => {
  const result = ok(apply(undefined, deltaConfig(5), 'ssa'));
  assert.ok(result.created);
  assert.is(spec(result.object).limited.nominalConcurrencyShares, 5);
  assert.is(
    JSON.stringify(result.managedFields),
    JSON.stringify([
      {
        manager: 'ssa',
        operation: 'Apply',
        apiVersion: API_VERSION,
        time: T2,
        fieldsType: 'FieldsV1',
        fieldsV1: {
          'f:metadata': { 'f:labels': { 'f:a': {} } },
          'f:spec': {
            'f:limited': {
              'f:limitResponse': { 'f:queuing': { 'f:handSize': {}, 'f:queueLengthLimit': {}, 'f:queues': {} }, 'f:type': {} },
              'f:nominalConcurrencyShares': {},
            },
            'f:type': {},
          },
        },
      },
    ]),
  );
  assert.equal(result.object.metadata?.managedFields, result.managedFields);
});

test('a changed field owned by another manager is a 409 worded as kube-apiserver words it', () => {
  const status = failed(apply(clientSideApplied(), deltaConfig(9), 'other'));
  assert.is(
    JSON.stringify(status),
    JSON.stringify({
      kind: 'Status',
      apiVersion: 'v1',
      metadata: {},
      status: 'Failure',
      message: `Apply failed with 1 conflict: conflict with "${CSA}" using ${API_VERSION}: .spec.limited.nominalConcurrencyShares`,
      reason: 'Conflict',
      details: {
        causes: [{ reason: 'FieldManagerConflict', message: `conflict with "${CSA}" using ${API_VERSION}`, field: '.spec.limited.nominalConcurrencyShares' }],
      },
      code: 409,
    }),
  );
  assert.is(errorCodeOf(status), 'FW_ERR_APPLY_CONFLICT');
});

test('several conflicts are grouped by manager, Apply managers shown by name only', () => {
  const live = ok(apply(clientSideApplied(7), deltaConfig(7), 'kubectl')).object; // co-owns the shares, same value
  const config = deltaConfig(9) as any;
  config.spec.limited.limitResponse.queuing.queues = 16;
  const status = failed(apply(live, config, 'other'));
  assert.is(
    status.message,
    // Within a manager, paths come as structured-merge-diff iterates a set: a level's leaves before its subtrees.
    'Apply failed with 4 conflicts: conflicts with "kubectl":\n- .spec.limited.nominalConcurrencyShares\n- .spec.limited.limitResponse.queuing.queues\n' +
      `conflicts with "${CSA}" using ${API_VERSION}:\n- .spec.limited.nominalConcurrencyShares\n- .spec.limited.limitResponse.queuing.queues`,
  );
  assert.is(status.details?.causes?.length, 4);
});

test('applying the value a field already has is no conflict: the field becomes co-owned', () => {
  const result = ok(apply(clientSideApplied(7), deltaConfig(7), 'other'));
  assert.not.ok(result.changed);
  const other = entry(result.managedFields, 'other')!;
  assert.ok((other.fieldsV1 as any)['f:spec']['f:limited']['f:nominalConcurrencyShares']);
  assert.not.ok('time' in other, 'nothing changed, so the new entry is not stamped');
  assert.ok((entry(result.managedFields, CSA)!.fieldsV1 as any)['f:spec']['f:limited']['f:nominalConcurrencyShares'], 'CSA keeps it too');
  assert.is(result.managedFields[0]!.operation, 'Apply', 'Apply entries sort first');
});

test('force takes the conflicting fields away from their owners', () => {
  const result = ok(apply(clientSideApplied(), deltaConfig(9), 'other', { force: true, time: T3 }));
  assert.is(spec(result.object).limited.nominalConcurrencyShares, 9);
  const csa = entry(result.managedFields, CSA)!.fieldsV1 as any;
  assert.not.ok('f:nominalConcurrencyShares' in csa['f:spec']['f:limited']);
  assert.ok('f:lendablePercent' in csa['f:spec']['f:limited'], 'fields that did not conflict stay with CSA');
  assert.is(entry(result.managedFields, 'other')!.time, T3);
});

test('a field the manager applied before and now leaves out is removed, unless someone else owns it', () => {
  const first = deltaConfig(5) as any;
  first.metadata.labels.extra = 'x';
  first.spec.limited.lendablePercent = 20;
  const created = ok(apply(undefined, first, 'ssa')).object;

  const second = deltaConfig(5);
  const pruned = ok(apply(created, second, 'ssa', { time: T3 }));
  assert.equal(pruned.object.metadata?.labels, { a: 'b' });
  assert.not.ok('lendablePercent' in spec(pruned.object).limited);
  assert.ok(pruned.changed);

  // kubectl-edit rewrites the label: it owns it now, so leaving it out of the apply keeps it.
  const edited = structuredClone(created) as any;
  edited.metadata.labels.extra = 'edited';
  const editedStored = withManaged(edited, updateManagedFields(created, edited, { manager: 'kubectl-edit', time: T2, apiVersion: API_VERSION }));
  const kept = ok(apply(editedStored, second, 'ssa', { time: T3 }));
  assert.equal(kept.object.metadata?.labels, { a: 'b', extra: 'edited' });
  assert.not.ok('lendablePercent' in spec(kept.object).limited, 'unowned leftovers still go');

  // Another applier that applied the same value co-owns it: also kept.
  const coOwned = ok(apply(created, { ...deltaConfig(5), metadata: { name: 'delta', labels: { extra: 'x' } } }, 'other')).object;
  assert.equal(ok(apply(coOwned, second, 'ssa')).object.metadata?.labels, { a: 'b', extra: 'x' });
});

test('re-applying the same configuration is a no-op: same object, same managedFields', () => {
  const created = ok(apply(undefined, deltaConfig(5), 'ssa')).object;
  const again = ok(apply(created, deltaConfig(5), 'ssa', { time: T3 }));
  assert.not.ok(again.changed);
  assert.equal(again.object, created);
});

test('kubectl taking over from client-side apply: unchanged annotated fields do not conflict', () => {
  const live = clientSideApplied(5);
  const result = ok(apply(live, deltaConfig(7), 'kubectl', { time: T3 }));
  assert.is(spec(result.object).limited.nominalConcurrencyShares, 7);
  assert.not.ok('f:nominalConcurrencyShares' in (entry(result.managedFields, CSA)!.fieldsV1 as any)['f:spec']['f:limited']);
  assert.is(result.object.metadata?.annotations?.[LAST_APPLIED], lastAppliedOf(deltaConfig(7)), 'the annotation follows the applied config');
  assert.ok('status' in apply(live, deltaConfig(7), 'other'), 'only the kubectl manager gets this');

  // A field changed since the client-side apply still conflicts.
  const drifted = structuredClone(live) as any;
  drifted.spec.limited.nominalConcurrencyShares = 6;
  const driftedStored = withManaged(drifted, updateManagedFields(live, drifted, { manager: 'kubectl-edit', time: T2, apiVersion: API_VERSION }));
  assert.match(failed(apply(driftedStored, deltaConfig(7), 'kubectl')).message!, /conflict with "kubectl-edit" using/);
});

test('/status apply: its own entry, conflicts name the subresource, keyed items keep their order', () => {
  const fs = danglingFlowSchema() as KubeObject;
  const byController = structuredClone(fs) as any;
  byController.status.conditions[0].status = 'False';
  const storedFs = withManaged(
    byController,
    updateManagedFields(fs, byController, { manager: 'ctl', time: T1, apiVersion: API_VERSION, subresource: 'status' }),
  );
  const config = {
    apiVersion: API_VERSION,
    kind: 'FlowSchema',
    metadata: { name: 'probes' },
    status: {
      conditions: [
        { type: 'New', status: 'True' },
        { type: 'Dangling', status: 'True' },
      ],
    },
  };
  const status = failed(
    serverSideApply({
      kind: 'FlowSchema',
      apiVersion: API_VERSION,
      current: storedFs,
      config,
      manager: 'other',
      force: false,
      time: T2,
      subresource: 'status',
    }),
  );
  assert.is(
    status.message,
    `Apply failed with 1 conflict: conflict with "ctl" with subresource "status" using ${API_VERSION}: .status.conditions[type="Dangling"].status`,
  );

  const forced = ok(
    serverSideApply({ kind: 'FlowSchema', apiVersion: API_VERSION, current: storedFs, config, manager: 'other', force: true, time: T2, subresource: 'status' }),
  );
  assert.equal(
    (forced.object as any).status.conditions.map((c: { type: string }) => c.type),
    ['New', 'Dangling', 'Other'],
  );
  const mine = entry(forced.managedFields, 'other')!;
  assert.is(mine.subresource, 'status');
  assert.equal(Object.keys(mine.fieldsV1 ?? {}), ['f:status'], 'metadata and spec are not owned through /status');
});

test('bad configurations are refused before any merge, with kube-apiserver messages', () => {
  const withFields = { ...deltaConfig(5), metadata: { name: 'delta', managedFields: [] } };
  assert.equal(
    [failed(apply(undefined, withFields, 'm')).code, failed(apply(undefined, withFields, 'm')).message],
    [400, 'metadata.managedFields must be nil'],
  );
  assert.is(failed(apply(undefined, { ...deltaConfig(5), kind: 'FlowSchema' }, 'm')).message, `invalid object type: ${API_VERSION}, Kind=FlowSchema`);
  assert.is(failed(apply(undefined, { kind: PLC }, 'm')).message, 'invalid object type: /, Kind=PriorityLevelConfiguration');
  const unknown = failed(apply(undefined, { ...deltaConfig(5), spec: { type: 'Limited', bogus: 1 } }, 'm'));
  assert.is(
    JSON.stringify(unknown),
    `{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"failed to create typed patch object (/delta; ${API_VERSION}, ` +
      'Kind=PriorityLevelConfiguration): .spec.bogus: field not declared in schema","reason":"BadRequest","code":400}',
  );
  const duplicate = failed(
    serverSideApply({
      kind: 'FlowSchema',
      apiVersion: API_VERSION,
      current: undefined,
      config: {
        apiVersion: API_VERSION,
        kind: 'FlowSchema',
        metadata: { name: 'x' },
        status: { conditions: [{ type: 'A' }, { type: 'A' }, { status: 'True' }] },
      },
      manager: 'm',
      force: false,
      time: T1,
    }),
  );
  assert.match(
    duplicate.message!,
    new RegExp(
      String.raw`: errors:\n {2}\.status\.conditions: duplicate entries for key \[type="A"\]\n ` +
        String.raw`{2}\.status\.conditions: element 2: associative list with keys has an element that omits key field ` +
        '"type"',
    ),
  );
  const garbage = withManaged(clientSideApplied(), [{ manager: 'x', fieldsType: 'FieldsV1', fieldsV1: { 'z:bad': {} } } as ManagedFieldsEntry]);
  assert.match(failed(apply(garbage, deltaConfig(5), 'm')).message!, /^failed to decode managed fields: /);
});

test('printManager and gvkString', () => {
  assert.is(printManager('{"manager":"kubectl","operation":"Apply"}'), '"kubectl"');
  assert.is(
    printManager(`{"manager":"m","operation":"Update","apiVersion":"${API_VERSION}","subresource":"status"}`),
    `"m" with subresource "status" using ${API_VERSION}`,
  );
  assert.is(gvkString('v1', 'Pod'), '/v1, Kind=Pod');
  assert.is(gvkString('a/b/c', 'K'), '/, Kind=K');
  assert.is(gvkString(5, undefined), '/, Kind=');
});

test.run();
