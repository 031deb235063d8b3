import { test } from 'uvu';
import * as assert from 'uvu/assert';
import fc from 'fast-check';
import { alpha, danglingFlowSchema, deltaConfig, deltaCreatedByClientSideApply, LAST_APPLIED, lastAppliedOf } from './fixtures.ts';
import { applyMergePatch } from './merge-patch.ts';
import { schemaFor } from './schema.ts';
import { applyStrategicMergePatch } from './strategic-merge.ts';

const PLC = schemaFor('PriorityLevelConfiguration');
const FS = schemaFor('FlowSchema');

function smp(document: unknown, patch: unknown, node = FS): any {
  const result = applyStrategicMergePatch(document, typeof patch === 'string' ? patch : JSON.stringify(patch), node);
  if ('status' in result) throw new Error(`unexpected status: ${result.status.message}`);
  return result.value;
}

function smpStatus(document: unknown, patch: unknown, node = FS) {
  const result = applyStrategicMergePatch(document, typeof patch === 'string' ? patch : JSON.stringify(patch), node);
  if (!('status' in result)) throw new Error('expected a failure');
  return result.status;
}

const types = (object: any): string[] => object.status.conditions.map((c: { type: string }) => c.type);

test("kubectl apply's update patch (A.3) changes the shares and the annotation, nothing else", () => {
  const stored = deltaCreatedByClientSideApply(5);
  const annotation = lastAppliedOf(deltaConfig(7));
  const out = smp(stored, { metadata: { annotations: { [LAST_APPLIED]: annotation } }, spec: { limited: { nominalConcurrencyShares: 7 } } }, PLC);
  assert.is(out.spec.limited.nominalConcurrencyShares, 7);
  assert.is(out.metadata.annotations[LAST_APPLIED], annotation);
  assert.equal(out.spec.limited.limitResponse, stored.spec && (stored.spec as any).limited.limitResponse);
  assert.equal(out.metadata.labels, { a: 'b' });
  assert.is((stored.spec as any).limited.nominalConcurrencyShares, 5, 'input untouched');
});

test("kubectl edit's patch (A.9) merges a label and a spec field", () => {
  const out = smp(alpha(), { metadata: { labels: { edited: 'yes' } }, spec: { limited: { nominalConcurrencyShares: 42 } } }, PLC);
  assert.equal([out.metadata.labels, out.spec.limited.nominalConcurrencyShares, out.spec.limited.lendablePercent], [{ edited: 'yes' }, 42, 0]);
});

test('status.conditions merge by type: the matched condition is patched, the others stay in place', () => {
  const out = smp(danglingFlowSchema(), { status: { conditions: [{ type: 'Dangling', status: 'False' }] } });
  assert.equal(types(out), ['Dangling', 'Other']);
  assert.equal(out.status.conditions[0], { ...danglingFlowSchema().status!.conditions![0], status: 'False' });
});

test('a new condition goes before the server-only ones, as Go orders it; $setElementOrder decides when sent', () => {
  assert.equal(types(smp(danglingFlowSchema(), { status: { conditions: [{ type: 'New', status: 'True' }] } })), ['New', 'Dangling', 'Other']);
  const ordered = smp(danglingFlowSchema(), {
    status: { '$setElementOrder/conditions': [{ type: 'Dangling' }, { type: 'New' }, { type: 'Other' }], conditions: [{ type: 'New', status: 'True' }] },
  });
  assert.equal(types(ordered), ['Dangling', 'New', 'Other']);
  assert.equal(types(smp(danglingFlowSchema(), { status: { '$setElementOrder/conditions': [{ type: 'Other' }, { type: 'Dangling' }] } })), [
    'Other',
    'Dangling',
  ]);
  assert.not.ok(JSON.stringify(ordered).includes('$setElementOrder'), 'the directive never reaches the object');
});

test('$patch directives in lists: delete by key, replace the whole list', () => {
  assert.equal(types(smp(danglingFlowSchema(), { status: { conditions: [{ type: 'Other', $patch: 'delete' }] } })), ['Dangling']);
  const replaced = smp(danglingFlowSchema(), { status: { conditions: [{ $patch: 'replace' }, { type: 'X', status: 'True' }] } });
  assert.equal(replaced.status.conditions, [{ type: 'X', status: 'True' }]);
});

test('$patch directives in maps: replace takes the patch as the value, delete empties it', () => {
  const replaced = smp(alpha(), { spec: { limited: { $patch: 'replace', nominalConcurrencyShares: 3, limitResponse: { type: 'Reject' } } } }, PLC);
  assert.equal(replaced.spec.limited, { nominalConcurrencyShares: 3, limitResponse: { type: 'Reject' } });
  assert.equal(smp(danglingFlowSchema(), { spec: { distinguisherMethod: { $patch: 'delete' } } }).spec.distinguisherMethod, {});
});

test('finalizers are a merged set: additions go first, $deleteFromPrimitiveList removes', () => {
  assert.equal(smp(danglingFlowSchema(), { metadata: { finalizers: ['c.example/three', 'a.example/one'] } }).metadata.finalizers, [
    'c.example/three',
    'a.example/one',
    'b.example/two',
  ]);
  assert.equal(smp(danglingFlowSchema(), { metadata: { '$deleteFromPrimitiveList/finalizers': ['a.example/one'] } }).metadata.finalizers, ['b.example/two']);
  assert.equal(
    smp(danglingFlowSchema(), { metadata: { '$deleteFromPrimitiveList/labels': ['x'] } }).metadata.labels,
    undefined,
    'no list to delete from: nothing happens',
  );
});

test('ownerReferences merge by uid; spec.rules (atomic) is replaced whole', () => {
  const owned = {
    ...danglingFlowSchema(),
    metadata: { ...danglingFlowSchema().metadata, ownerReferences: [{ apiVersion: 'v1', kind: 'ConfigMap', name: 'a', uid: 'u-a' }] },
  };
  const out = smp(owned, {
    metadata: {
      ownerReferences: [
        { apiVersion: 'v1', kind: 'ConfigMap', name: 'b', uid: 'u-b' },
        { uid: 'u-a', controller: true },
      ],
    },
  });
  assert.equal(out.metadata.ownerReferences, [
    { apiVersion: 'v1', kind: 'ConfigMap', name: 'b', uid: 'u-b' },
    { apiVersion: 'v1', kind: 'ConfigMap', name: 'a', uid: 'u-a', controller: true },
  ]);
  const rules = [
    { subjects: [{ kind: 'User', user: { name: 'bob' } }], resourceRules: [{ verbs: ['*'], apiGroups: ['*'], resources: ['*'], clusterScope: true }] },
  ];
  assert.equal(smp(danglingFlowSchema(), { spec: { rules } }).spec.rules, rules);
});

test('$retainKeys clears the keys it does not list, and refuses a patch key it does not list', () => {
  const out = smp(danglingFlowSchema(), { spec: { $retainKeys: ['priorityLevelConfiguration', 'matchingPrecedence'], matchingPrecedence: 5 } });
  assert.equal(out.spec, { priorityLevelConfiguration: { name: 'gone' }, matchingPrecedence: 5 });
  const status = smpStatus(danglingFlowSchema(), { spec: { $retainKeys: ['matchingPrecedence'], rules: [] } });
  assert.equal([status.code, status.reason, status.message], [400, 'BadRequest', 'invalid patch format of retainKeys']);
});

test('null deletes a field, also inside a merged list item', () => {
  const out = smp(danglingFlowSchema(), { spec: { distinguisherMethod: null }, status: { conditions: [{ type: 'Dangling', message: null }] } });
  assert.not.ok('distinguisherMethod' in out.spec);
  assert.not.ok('message' in out.status.conditions[0]);
  assert.equal(
    smp({ spec: {} }, { spec: { limited: { lendablePercent: null, nominalConcurrencyShares: 1 } } }, PLC).spec.limited,
    { nominalConcurrencyShares: 1 },
    'unmatched nulls are dropped',
  );
});

test('failures are classified: 400 or 422 (never the bare 500 kube-apiserver sends for some)', () => {
  const unknown = smpStatus(danglingFlowSchema(), { spec: { distinguisherMethod: { $patch: 'bogus', a: 1 } } });
  assert.is(
    JSON.stringify(unknown),
    '{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"unknown patch type: bogus in map: map[$patch:bogus a:1]",' +
      '"reason":"BadRequest","code":400}',
  );
  const lists = smpStatus(alpha(), { metadata: { finalizers: [['x']] } });
  assert.equal([lists.code, lists.reason, lists.message], [422, 'Invalid', 'lists of lists are not supported']);
  assert.is(
    smpStatus(danglingFlowSchema(), { metadata: { finalizers: [['x']] } }).message,
    'list element types are not identical: [[a.example/one b.example/two] [[x]]]',
  );
  assert.is(smpStatus(danglingFlowSchema(), { metadata: { $deleteFromPrimitiveListfinalizers: ['x'] } }).message, 'invalid patch format of primitive list');
  assert.is(
    smpStatus(danglingFlowSchema(), { status: { conditions: [{ status: 'True' }] } }).message,
    'map: map[status:True] does not contain declared merge key: type',
  );
  assert.is(smpStatus({}, '[1]').message, 'json: cannot unmarshal array into Go value of type map[string]interface {}');
  assert.is(smpStatus({}, '{"a" 1}').message, "invalid character '1' after object key");
});

// ---------------------------------------------------------------------------------------------
// Property: under `spec` (no merged lists, no directives) a strategic merge patch is a merge patch.

const leaf = fc.oneof(fc.integer({ min: 0, max: 100 }), fc.constantFrom('Limited', 'Exempt', 'Queue', 'Reject'));
const specPatch: fc.Arbitrary<unknown> = fc.letrec((tie) => ({
  value: fc.oneof({ depthSize: 'small' }, leaf, fc.constant(null), fc.array(leaf, { maxLength: 2 }), tie('object')),
  object: fc.dictionary(fc.constantFrom('type', 'limited', 'exempt', 'limitResponse', 'queuing', 'queues', 'lendablePercent'), tie('value'), { maxKeys: 3 }),
})).object;

test('property: for spec-only patches the strategic result equals the JSON merge patch result', () => {
  fc.assert(
    fc.property(specPatch, (spec) => {
      const body = JSON.stringify({ spec });
      const merged = applyMergePatch(alpha(), body);
      assert.ok('value' in merged);
      assert.equal(smp(alpha(), body, PLC), merged.value);
    }),
  );
});

test.run();
