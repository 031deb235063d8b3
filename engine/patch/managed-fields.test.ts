import { test } from 'uvu';
import * as assert from 'uvu/assert';
import fc from 'fast-check';
import type { KubeObject, ManagedFieldsEntry } from '../resources/types.ts';
import { FieldSet, fieldElement } from './field-set.ts';
import { alpha, API_VERSION, deltaCreatedByClientSideApply, T1, T2, T3 } from './fixtures.ts';
import {
  capUpdateManagers,
  decodeManagedFields,
  encodeManagedFields,
  managerIdentifier,
  prefixFromUserAgent,
  updateManagedFields,
  type Managed,
} from './managed-fields.ts';

const CSA = 'kubectl-client-side-apply';
const update = (old: KubeObject | undefined, next: KubeObject, manager: string, time: string, subresource?: string) =>
  updateManagedFields(old, next, { manager, time, apiVersion: API_VERSION, subresource });
const stored = (object: KubeObject, managedFields: ManagedFieldsEntry[]): KubeObject => ({ ...object, metadata: { ...object.metadata, managedFields } });
const fieldsOf = (entries: ManagedFieldsEntry[], manager: string, subresource?: string) =>
  entries.find((entry) => entry.manager === manager && entry.subresource === subresource)?.fieldsV1;

/** The entry §6.7 of the contract shows for `kubectl apply -f plc-new.yaml`, verbatim. */
const CONTRACT_ENTRY =
  '{"manager":"kubectl-client-side-apply","operation":"Update","apiVersion":"flowcontrol.apiserver.k8s.io/v1",' +
  '"time":"2026-11-21T04:14:43Z","fieldsType":"FieldsV1",' +
  '"fieldsV1":{"f:metadata":{"f:annotations":{".":{},"f:kubectl.kubernetes.io/last-applied-configuration":{}},"f:labels":{".":{},"f:a":{}}},' +
  '"f:spec":{"f:limited":{".":{},"f:lendablePercent":{},"f:limitResponse":{".":{},"f:queuing":{".":{},"f:handSize":{},"f:queueLengthLimit":{},' +
  '"f:queues":{}},"f:type":{}},"f:nominalConcurrencyShares":{}},"f:type":{}}}}';

test('create by client-side apply gives exactly the entry of contract §6.7', () => {
  const entries = update(undefined, deltaCreatedByClientSideApply(5), CSA, T1);
  assert.is(entries.length, 1);
  assert.is(JSON.stringify(entries[0]), CONTRACT_ENTRY);
});

test('an update that changes owned fields restamps the entry; a new manager gets its own entry', () => {
  const created = stored(deltaCreatedByClientSideApply(5), update(undefined, deltaCreatedByClientSideApply(5), CSA, T1));
  const next = structuredClone(created) as any;
  next.spec.limited.nominalConcurrencyShares = 7;
  const afterApply = update(created, next, CSA, T2);
  assert.is(afterApply.length, 1);
  assert.is(afterApply[0]!.time, T2);
  assert.equal(afterApply[0]!.fieldsV1, JSON.parse(CONTRACT_ENTRY).fieldsV1, 'it already owned the shares');

  const labelled = structuredClone(stored(next, afterApply)) as any;
  labelled.metadata.labels.x = 'y';
  const afterPatch = update(stored(next, afterApply), labelled, 'kubectl-patch', T3);
  assert.equal(
    afterPatch.map((e) => [e.manager, e.time]),
    [
      [CSA, T2],
      ['kubectl-patch', T3],
    ],
    'ordered by time',
  );
  assert.equal(fieldsOf(afterPatch, 'kubectl-patch'), { 'f:metadata': { 'f:labels': { 'f:x': {} } } });
});

test('an Update takes the fields it changes from their owner; a removed field leaves every owner', () => {
  const created = stored(deltaCreatedByClientSideApply(5), update(undefined, deltaCreatedByClientSideApply(5), CSA, T1));
  const edited = structuredClone(created) as any;
  edited.spec.limited.nominalConcurrencyShares = 42;
  delete edited.metadata.annotations;
  const entries = update(created, edited, 'kubectl-edit', T2);
  const csa = fieldsOf(entries, CSA) as any;
  assert.not.ok('f:nominalConcurrencyShares' in csa['f:spec']['f:limited'], 'moved to kubectl-edit');
  assert.not.ok('f:annotations' in csa['f:metadata'], 'removed: nobody owns it');
  assert.equal(fieldsOf(entries, 'kubectl-edit'), { 'f:spec': { 'f:limited': { 'f:nominalConcurrencyShares': {} } } });
});

test('writes through /status get their own entry, own only status, and never take spec or metadata', () => {
  const fs = alpha() as any;
  const created = stored(fs, update(undefined, fs, 'api-priority-and-fairness-config-consumer-v1', T1));
  const next = structuredClone(created) as any;
  next.status = { conditions: [{ type: 'Dangling', status: 'True', reason: 'NotFound', message: 'm', lastTransitionTime: T2 }] };
  next.spec.limited.nominalConcurrencyShares = 99; // dropped by the status strategy; not owned either
  next.metadata.managedFields = []; // a subresource write cannot set managedFields
  const entries = update(created, next, 'kubectl-patch', T2, 'status');
  const status = entries.find((e) => e.subresource === 'status')!;
  assert.equal([status.manager, status.operation, status.time], ['kubectl-patch', 'Update', T2]);
  assert.equal(status.fieldsV1, {
    'f:status': {
      'f:conditions': {
        '.': {},
        'k:{"type":"Dangling"}': { '.': {}, 'f:lastTransitionTime': {}, 'f:message': {}, 'f:reason': {}, 'f:status': {}, 'f:type': {} },
      },
    },
  });
  assert.equal(
    entries.filter((e) => e.subresource === undefined),
    created.metadata!.managedFields,
    'main-resource entries untouched',
  );

  const viaMain = structuredClone(created) as any;
  viaMain.status = next.status;
  assert.equal(update(created, viaMain, 'kubectl-patch', T3), created.metadata!.managedFields, 'status sent to the main resource is not recorded');
});

test('a no-op write leaves managedFields identical, times included', () => {
  const created = stored(deltaCreatedByClientSideApply(5), update(undefined, deltaCreatedByClientSideApply(5), CSA, T1));
  assert.equal(update(created, structuredClone(created), 'kubectl-edit', T3), created.metadata!.managedFields);
});

test('managedFields sent by the client replace the stored ones; [{}] wipes them; [] keeps them', () => {
  const created = stored(deltaCreatedByClientSideApply(5), update(undefined, deltaCreatedByClientSideApply(5), CSA, T1));
  const written: ManagedFieldsEntry[] = [
    { manager: 'kubectl', operation: 'Apply', apiVersion: API_VERSION, time: T1, fieldsType: 'FieldsV1', fieldsV1: { 'f:spec': { 'f:type': {} } } },
  ];
  const migrated = structuredClone(created) as any;
  migrated.metadata.managedFields = written;
  migrated.metadata.resourceVersion = '108';
  assert.equal(update(created, migrated, 'kubectl', T2), written);

  const wiped = structuredClone(created) as any;
  wiped.metadata.managedFields = [{}];
  assert.equal(update(created, wiped, 'x', T2), []);
  wiped.metadata.labels.fresh = 'v';
  assert.equal(
    update(created, wiped, 'x', T2).map((e) => e.fieldsV1),
    [{ 'f:metadata': { 'f:labels': { 'f:fresh': {} } } }],
    'the write itself is still recorded',
  );

  const empty = structuredClone(created) as any;
  empty.metadata.managedFields = [];
  assert.equal(update(created, empty, 'x', T2), created.metadata!.managedFields);
});

test('garbage managedFields from the client fall back to the stored ones; stored garbage is dropped', () => {
  const created = stored(deltaCreatedByClientSideApply(5), update(undefined, deltaCreatedByClientSideApply(5), CSA, T1));
  const garbage = structuredClone(created) as any;
  garbage.metadata.managedFields = [{ manager: 'x', operation: 'Update', fieldsType: 'FieldsV2', fieldsV1: {} }];
  assert.equal(update(created, garbage, 'y', T2), created.metadata!.managedFields);
  assert.equal(update(garbage, structuredClone(garbage), 'y', T2), []);
  assert.throws(() => decodeManagedFields([{ manager: 'x' }]), /missing fieldsType in managed fields entry 0/);
  assert.throws(() => decodeManagedFields([{ fieldsType: 'FieldsV1', fieldsV1: { 'q:x': {} } }]), /error decoding versioned set/);
});

test('more than ten Update entries: the oldest fold into ancient-changes, stamped with the newest folded time', () => {
  const managed: Managed = new Map();
  for (let i = 0; i < 12; i++) {
    const info = { manager: `m${String(i).padStart(2, '0')}`, operation: 'Update' as const, apiVersion: API_VERSION, subresource: '' };
    managed.set(managerIdentifier(info), {
      ...info,
      time: `2026-11-21T04:00:${String(i).padStart(2, '0')}Z`,
      set: FieldSet.of([[fieldElement('spec'), fieldElement(`f${i}`)]]),
    });
  }
  const applyInfo = { manager: 'kubectl', operation: 'Apply' as const, apiVersion: API_VERSION, subresource: '' };
  managed.set(managerIdentifier(applyInfo), { ...applyInfo, set: FieldSet.of([[fieldElement('x')]]) });
  const entries = encodeManagedFields(capUpdateManagers(managed));
  assert.is(entries.filter((e) => e.operation === 'Update').length, 10);
  assert.is(entries[0]!.manager, 'kubectl', 'Apply entries sort first');
  const ancient = entries.find((e) => e.manager === 'ancient-changes')!;
  assert.equal(ancient.fieldsV1, { 'f:spec': { 'f:f0': {}, 'f:f1': {}, 'f:f2': {} } });
  assert.is(ancient.time, '2026-11-21T04:00:02Z');
  assert.not.ok(entries.some((e) => ['m00', 'm01', 'm02'].includes(e.manager ?? '')));
});

test('the default manager is the User-Agent up to its first slash, printable, at most 128 bytes', () => {
  assert.is(prefixFromUserAgent('kubectl/v1.32.4 (linux/amd64) kubernetes/4cb5f07'), 'kubectl');
  assert.is(prefixFromUserAgent('node-fetch'), 'node-fetch');
  assert.is(prefixFromUserAgent('we\u0007ird\tone/1'), 'weirdone');
  assert.is(prefixFromUserAgent(`${'é'.repeat(70)}/x`), 'é'.repeat(64));
  const created = update(undefined, alpha() as KubeObject, '', T1);
  assert.equal(
    created.map((e) => Object.hasOwn(e, 'manager')),
    [false],
    'an empty manager is omitted, as Go omits it',
  );
  const byAgent = updateManagedFields(undefined, alpha() as KubeObject, { userAgent: 'node-fetch/1.0', time: T1, apiVersion: API_VERSION });
  assert.is(byAgent[0]!.manager, 'node-fetch');
});

// ---------------------------------------------------------------------------------------------
// Property: after any sequence of label edits, each label is owned by exactly the manager that
// last changed it, and a label that no longer exists is owned by nobody.

const edit = fc.record({
  manager: fc.constantFrom('alice', 'bob', 'carol'),
  labels: fc.dictionary(fc.constantFrom('a', 'b', 'c', 'd'), fc.constantFrom('1', '2'), { maxKeys: 4 }),
});

test('property: label ownership follows the last writer of each label', () => {
  fc.assert(
    fc.property(fc.array(edit, { minLength: 1, maxLength: 6 }), (edits) => {
      let object = alpha() as KubeObject;
      const lastWriter = new Map<string, string>();
      edits.forEach(({ manager, labels }, i) => {
        const before = (object.metadata?.labels ?? {}) as Record<string, string>;
        const next = structuredClone(object);
        next.metadata = { ...next.metadata, labels: { ...labels } };
        for (const key of Object.keys(labels)) if (before[key] !== labels[key]) lastWriter.set(key, manager);
        for (const key of Object.keys(before)) if (!(key in labels)) lastWriter.delete(key);
        const entries = update(object, next, manager, `2026-11-21T05:00:${String(i).padStart(2, '0')}Z`);
        object = stored(next, entries);
      });
      const owners = new Map<string, string[]>();
      for (const entry of object.metadata?.managedFields ?? []) {
        const labels = ((entry.fieldsV1 as any)?.['f:metadata']?.['f:labels'] ?? {}) as Record<string, unknown>;
        for (const key of Object.keys(labels).filter((k) => k.startsWith('f:')))
          owners.set(key.slice(2), [...(owners.get(key.slice(2)) ?? []), entry.manager!]);
      }
      for (const [label, writer] of lastWriter) assert.equal(owners.get(label), [writer], `label ${label}`);
      for (const label of owners.keys()) assert.ok(lastWriter.has(label), `nobody should own ${label}`);
    }),
  );
});

test.run();
