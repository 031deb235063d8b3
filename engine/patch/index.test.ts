import { test } from 'uvu';
import * as assert from 'uvu/assert';
import fc from 'fast-check';
import { defaultPriorityLevelConfiguration } from '../resources/defaults.ts';
import type { KubeObject, PriorityLevelConfiguration } from '../resources/types.ts';
import { alpha, API_VERSION, deltaConfig, deltaCreatedByClientSideApply, LAST_APPLIED, lastAppliedOf, T1, T2, T3 } from './fixtures.ts';
import { applyPatch, updateManagedFields, type ApplyPatchInput } from './index.ts';

const PLC = 'PriorityLevelConfiguration' as const;
const CSA = 'kubectl-client-side-apply';
const T4 = '2026-11-21T04:17:00Z';

function patch(input: Partial<ApplyPatchInput> & Pick<ApplyPatchInput, 'contentType' | 'patchBody'>) {
  return applyPatch({ current: alpha() as KubeObject, kind: PLC, nowTime: T1, name: 'alpha', ...input });
}

function ok(result: ReturnType<typeof applyPatch>) {
  if ('status' in result) throw new Error(`unexpected status ${result.status.code}: ${result.status.message}`);
  return result;
}

function failed(result: ReturnType<typeof applyPatch>) {
  if (!('status' in result)) throw new Error('expected a failure');
  return result.status;
}

/** What the store does on write: a new resourceVersion, the rest as handed over. */
function store(object: KubeObject, resourceVersion: string): KubeObject {
  return { ...object, metadata: { ...object.metadata, uid: 'uid-delta', resourceVersion } };
}

test('an unknown Content-Type is 415 listing the four patch types; a charset suffix is fine', () => {
  const status = failed(patch({ contentType: 'application/json', patchBody: '{}' }));
  assert.equal([status.code, status.reason], [415, 'UnsupportedMediaType']);
  assert.is(
    status.message,
    'the body of the request was in an unknown format - accepted media types include: application/json-patch+json, application/merge-patch+json, ' +
      'application/strategic-merge-patch+json, application/apply-patch+yaml',
  );
  assert.ok('object' in patch({ contentType: 'application/merge-patch+json; charset=utf-8', patchBody: '{}' }));
  assert.ok('status' in patch({ contentType: 'Application/Merge-Patch+JSON', patchBody: '{}' }), 'matched exactly, as kube-apiserver does');
});

test('PatchOptions are checked first: force only with apply, apply needs a fieldManager', () => {
  const forced = failed(patch({ contentType: 'application/merge-patch+json', patchBody: '{}', force: false }));
  assert.is(
    JSON.stringify(forced),
    '{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"PatchOptions.meta.k8s.io \\"\\" is invalid: force: Forbidden: ' +
      'may not be specified for non-apply patch","reason":"Invalid","details":{"group":"meta.k8s.io","kind":"PatchOptions",' +
      '"causes":[{"reason":"FieldValueForbidden","message":"Forbidden: may not be specified for non-apply patch","field":"force"}]},"code":422}',
  );
  const anonymous = failed(patch({ contentType: 'application/apply-patch+yaml', patchBody: '{}' }));
  assert.is(anonymous.message, 'PatchOptions.meta.k8s.io "" is invalid: fieldManager: Required value: is required for apply patch');
  assert.match(
    failed(patch({ contentType: 'application/merge-patch+json', patchBody: '{}', fieldManager: 'x'.repeat(129) })).message!,
    /^PatchOptions\.meta\.k8s\.io "" is invalid: fieldManager: Too long/,
  );
  assert.match(
    failed(patch({ contentType: 'application/merge-patch+json', patchBody: '{}', fieldManager: 'a\u0007' })).message!,
    /invalid character U\+0007 \(at position 1\)/,
  );
});

test('a missing object is 404 for every type but apply; apply through /status does not create', () => {
  const missing = failed(patch({ contentType: 'application/strategic-merge-patch+json', patchBody: '{}', current: undefined, name: 'nosuch' }));
  assert.equal([missing.code, missing.message], [404, 'prioritylevelconfigurations.flowcontrol.apiserver.k8s.io "nosuch" not found']);
  const viaStatus = failed(
    patch({ contentType: 'application/apply-patch+yaml', patchBody: '{}', current: undefined, fieldManager: 'm', subresource: 'status' }),
  );
  assert.is(viaStatus.code, 404);
});

test("kubectl's session A.3–A.4 end to end: client-side apply, server-side apply, migration, conflict, force", () => {
  // kubectl apply -f plc-new.yaml: GET 404, then POST with the annotation.
  const posted = defaultPriorityLevelConfiguration(deltaCreatedByClientSideApply(5) as PriorityLevelConfiguration) as KubeObject;
  let live = store(
    { ...posted, metadata: { ...posted.metadata, managedFields: updateManagedFields(undefined, posted, { manager: CSA, time: T1, apiVersion: API_VERSION }) } },
    '101',
  );

  // kubectl apply -f plc-upd.yaml: the 3-way strategic merge patch.
  const csaPatch = JSON.stringify({
    metadata: { annotations: { [LAST_APPLIED]: lastAppliedOf(deltaConfig(7)) } },
    spec: { limited: { nominalConcurrencyShares: 7 } },
  });
  const configured = ok(
    applyPatch({
      contentType: 'application/strategic-merge-patch+json',
      patchBody: csaPatch,
      current: live,
      kind: PLC,
      fieldManager: CSA,
      nowTime: T2,
      name: 'delta',
      fieldValidation: 'Strict',
    }),
  );
  assert.equal(
    configured.managedFields.map((e) => [e.manager, e.operation, e.time]),
    [[CSA, 'Update', T2]],
  );
  live = store(configured.object, '105');

  // kubectl apply --server-side -f plc-upd.yaml
  const ssa = (object: KubeObject, manager: string, body: unknown, force: boolean, nowTime: string) =>
    applyPatch({
      contentType: 'application/apply-patch+yaml',
      patchBody: `${JSON.stringify(body)}\n`,
      current: object,
      kind: PLC,
      fieldManager: manager,
      force,
      nowTime,
      name: 'delta',
      fieldValidation: 'Strict',
    });
  const serverSide = ok(ssa(live, 'kubectl', deltaConfig(7), false, T3));
  assert.equal(
    serverSide.managedFields.map((e) => [e.manager, e.operation]),
    [
      ['kubectl', 'Apply'],
      [CSA, 'Update'],
    ],
  );
  assert.equal(serverSide.object.spec, live.spec, 'nothing to change');
  live = store(serverSide.object, '106');

  // kubectl's follow-up apply of just the annotation, as kubectl-last-applied.
  const annotationOnly = { apiVersion: API_VERSION, kind: PLC, metadata: { name: 'delta', annotations: { [LAST_APPLIED]: lastAppliedOf(deltaConfig(7)) } } };
  const lastApplied = ok(ssa(live, 'kubectl-last-applied', annotationOnly, false, T3));
  assert.equal(
    lastApplied.managedFields.map((e) => e.manager),
    ['kubectl', 'kubectl-last-applied', CSA],
  );
  live = store(lastApplied.object, '108');

  // The migration JSON patch: CSA's fields folded into kubectl's Apply entry, RV as a lock.
  const folded = lastApplied.managedFields
    .filter((e) => e.manager !== CSA)
    .map((e) => (e.manager === 'kubectl' ? { ...e, fieldsV1: configured.managedFields[0]!.fieldsV1 } : e));
  const migration = JSON.stringify([
    { op: 'replace', path: '/metadata/managedFields', value: folded },
    { op: 'replace', path: '/metadata/resourceVersion', value: '108' },
  ]);
  const migrated = ok(
    applyPatch({
      contentType: 'application/json-patch+json',
      patchBody: migration,
      current: live,
      kind: PLC,
      fieldManager: 'kubectl',
      nowTime: T4,
      name: 'delta',
      fieldValidation: 'Strict',
    }),
  );
  assert.equal(migrated.managedFields, folded, 'the client-written managedFields are taken as they are');
  assert.is(migrated.object.metadata?.resourceVersion, '108');
  live = store(migrated.object, '109');

  // kubectl apply --server-side -f plc-ssa2.yaml --field-manager=other: 409, then --force-conflicts.
  const conflict = failed(ssa(live, 'other', deltaConfig(9), false, T4));
  assert.is(conflict.message, 'Apply failed with 1 conflict: conflict with "kubectl": .spec.limited.nominalConcurrencyShares');
  const forced = ok(ssa(live, 'other', deltaConfig(9), true, T4));
  assert.is((forced.object as PriorityLevelConfiguration).spec?.limited?.nominalConcurrencyShares, 9);
  assert.equal(forced.managedFields.find((e) => e.manager === 'other')?.time, T4);
});

test('kubectl patch (A.5): merge adds a label as kubectl-patch; a repeated strategic patch changes nothing', () => {
  const merged = ok(patch({ contentType: 'application/merge-patch+json', patchBody: '{"metadata":{"labels":{"x":"y"}}}', fieldManager: 'kubectl-patch' }));
  assert.equal(merged.object.metadata?.labels, { x: 'y' });
  assert.equal(merged.managedFields, [
    {
      manager: 'kubectl-patch',
      operation: 'Update',
      apiVersion: API_VERSION,
      time: T1,
      fieldsType: 'FieldsV1',
      fieldsV1: { 'f:metadata': { 'f:labels': { '.': {}, 'f:x': {} } } },
    },
  ]);
  const body = '{"spec":{"limited":{"lendablePercent":10}}}';
  const first = ok(patch({ contentType: 'application/strategic-merge-patch+json', patchBody: body, fieldManager: 'kubectl-patch' }));
  const again = ok(
    applyPatch({
      contentType: 'application/strategic-merge-patch+json',
      patchBody: body,
      current: first.object,
      kind: PLC,
      nowTime: T3,
      name: 'alpha',
      fieldManager: 'kubectl-patch',
    }),
  );
  assert.equal(again.object, first.object, 'identical object, managedFields times included: kubectl prints "patched (no change)"');
});

test('a patch without fieldManager is recorded under the User-Agent prefix', () => {
  const result = ok(
    patch({
      contentType: 'application/merge-patch+json',
      patchBody: '{"metadata":{"labels":{"x":"y"}}}',
      userAgent: 'node-fetch/1.0 (+https://github.com/bitinn/node-fetch)',
    }),
  );
  assert.is(result.managedFields[0]!.manager, 'node-fetch');
});

test('status patches: own entry, client-written managedFields ignored', () => {
  const body = JSON.stringify({ metadata: { managedFields: [{}] }, status: { conditions: [{ type: 'X', status: 'True' }] } });
  const result = ok(patch({ contentType: 'application/merge-patch+json', patchBody: body, fieldManager: 'kubectl-patch', subresource: 'status' }));
  assert.equal(
    result.managedFields.map((e) => [e.manager, e.subresource]),
    [['kubectl-patch', 'status']],
  );
});

test('fieldValidation: Strict refuses unknown fields with 422, Warn drops them with a warning, Ignore drops them silently', () => {
  const body = '{"spec":{"bogus":1,"limited":{"lendablePercent":5}}}';
  const strict = failed(patch({ contentType: 'application/merge-patch+json', patchBody: body, fieldValidation: 'Strict' }));
  assert.equal([strict.code, strict.reason], [422, 'Invalid']);
  assert.match(strict.message!, /^ "" is invalid: patch: Invalid value: "\{.*\}": strict decoding error: unknown field "spec\.bogus"$/);
  const warn = ok(patch({ contentType: 'application/merge-patch+json', patchBody: body }));
  assert.equal(warn.warnings, ['unknown field "spec.bogus"']);
  assert.not.ok('bogus' in (warn.object as any).spec);
  assert.is((warn.object as any).spec.limited.lendablePercent, 5);
  const ignore = ok(patch({ contentType: 'application/merge-patch+json', patchBody: body, fieldValidation: 'Ignore' }));
  assert.equal(ignore.warnings, []);
  const smp = failed(
    patch({ contentType: 'application/strategic-merge-patch+json', patchBody: '{"spec":{"type":"Limited","type":"Limited"}}', fieldValidation: 'Strict' }),
  );
  assert.is(smp.message, ' "" is invalid: patch: Invalid value: "map[spec:map[type:Limited]]": strict decoding error: duplicate field "spec.type"');
});

test('apply bodies: YAML works, duplicate keys follow fieldValidation, syntax errors are 400', () => {
  const yaml = `apiVersion: ${API_VERSION}\nkind: ${PLC}\nmetadata:\n  name: alpha\n  labels:\n    team: a\n    team: b\n`;
  const warn = ok(patch({ contentType: 'application/apply-patch+yaml', patchBody: yaml, fieldManager: 'm' }));
  assert.equal(warn.object.metadata?.labels, { team: 'b' });
  assert.equal(warn.warnings, ['error converting YAML to JSON: yaml: unmarshal errors:\n  line 7: key "team" already set in map']);
  const strict = failed(patch({ contentType: 'application/apply-patch+yaml', patchBody: yaml, fieldManager: 'm', fieldValidation: 'Strict' }));
  assert.equal(
    [strict.code, strict.message],
    [400, 'error strict decoding YAML: error converting YAML to JSON: yaml: unmarshal errors:\n  line 7: key "team" already set in map'],
  );
  const broken = failed(patch({ contentType: 'application/apply-patch+yaml', patchBody: 'metadata: [1, 2\nx: 1', fieldManager: 'm' }));
  assert.is(broken.code, 400);
  assert.match(broken.message!, /^error decoding YAML: error converting YAML to JSON: yaml: line \d+: /);
  assert.match(
    failed(patch({ contentType: 'application/apply-patch+yaml', patchBody: '- a', fieldManager: 'm' })).message!,
    /cannot unmarshal array into Go value of type map\[string\]interface \{\}$/,
  );
  assert.is(failed(patch({ contentType: 'application/apply-patch+yaml', patchBody: 'a: *nowhere', fieldManager: 'm' })).code, 400, 'an unknown alias');
  const laughs = [
    'a: &a [x, x, x, x, x, x, x, x, x]',
    ...Array.from({ length: 8 }, (_, i) => `${'bcdefghi'[i]}: &${'bcdefghi'[i]} [${Array(9).fill(`*${'abcdefgh'[i]}`).join(', ')}]`),
  ].join('\n');
  assert.is(failed(patch({ contentType: 'application/apply-patch+yaml', patchBody: laughs, fieldManager: 'm' })).code, 400, 'alias expansion is bounded');
});

test('the defaulter runs before ownership is recorded, so defaulted fields belong to the writer', () => {
  const body = JSON.stringify({ spec: { type: 'Limited', exempt: null, limited: { limitResponse: { type: 'Reject' } } } });
  const stored = { ...alpha(), spec: { type: 'Exempt', exempt: { nominalConcurrencyShares: 0, lendablePercent: 0 } } } as KubeObject;
  const result = ok(
    patch({
      contentType: 'application/merge-patch+json',
      patchBody: body,
      current: stored,
      fieldManager: 'kubectl-patch',
      defaulter: (object) => defaultPriorityLevelConfiguration(object as PriorityLevelConfiguration) as KubeObject,
    }),
  );
  assert.is((result.object as PriorityLevelConfiguration).spec?.limited?.nominalConcurrencyShares, 30);
  const owned = (result.managedFields[0]!.fieldsV1 as any)['f:spec']['f:limited'];
  assert.ok('f:nominalConcurrencyShares' in owned && 'f:lendablePercent' in owned);
});

test('a patch may not rename the object; apply may not invent a uid for a new object', () => {
  const renamed = failed(patch({ contentType: 'application/merge-patch+json', patchBody: '{"metadata":{"name":"other"}}' }));
  assert.equal([renamed.code, renamed.message], [400, 'the name of the object (other) does not match the name on the URL (alpha)']);
  const config = { ...deltaConfig(5), metadata: { name: 'delta', uid: 'made-up' } };
  const uid = failed(
    applyPatch({
      contentType: 'application/apply-patch+yaml',
      patchBody: JSON.stringify(config),
      current: undefined,
      kind: PLC,
      fieldManager: 'm',
      nowTime: T1,
      name: 'delta',
    }),
  );
  assert.equal(
    [uid.code, uid.message],
    [
      409,
      'Operation cannot be fulfilled on prioritylevelconfigurations.flowcontrol.apiserver.k8s.io "delta": uid mismatch: the provided object ' +
        'specified uid made-up, and no existing object was found',
    ],
  );
  const created = ok(
    applyPatch({
      contentType: 'application/apply-patch+yaml',
      patchBody: JSON.stringify(deltaConfig(5)),
      current: undefined,
      kind: PLC,
      fieldManager: 'm',
      nowTime: T1,
      name: 'delta',
    }),
  );
  assert.ok(created.created);
});

// ---------------------------------------------------------------------------------------------
// Property: no body, however odd, makes the patch code throw; it answers with an object or a Status.

const keys = fc.constantFrom(
  '$patch',
  '$retainKeys',
  '$setElementOrder/conditions',
  '$deleteFromPrimitiveList/finalizers',
  'metadata',
  'finalizers',
  'labels',
  'status',
  'conditions',
  'spec',
  'limited',
  'type',
  'name',
  'apiVersion',
  'kind',
  'op',
  'path',
  'value',
  'from',
);
const odd: fc.Arbitrary<unknown> = fc.letrec((tie) => ({
  value: fc.oneof(
    { depthSize: 'small' },
    fc.constantFrom(null, 'delete', 'replace', 'merge', 'x', '/spec/type', '/metadata/labels/-', 0, -1, true),
    tie('list'),
    tie('object'),
  ),
  list: fc.array(tie('value'), { maxLength: 3 }),
  object: fc.dictionary(keys, tie('value'), { maxKeys: 4 }),
})).value;

test('property: any body under any patch type gives an object or a Status, never an exception', () => {
  const types = ['application/json-patch+json', 'application/merge-patch+json', 'application/strategic-merge-patch+json', 'application/apply-patch+yaml'];
  fc.assert(
    fc.property(
      fc.constantFrom(...types),
      fc.oneof(
        odd.map((v) => JSON.stringify(v) ?? ''),
        fc.string({ maxLength: 20 }),
      ),
      fc.boolean(),
      (contentType, patchBody, onStatus) => {
        const current = onStatus ? (structuredClone(alpha()) as KubeObject) : (deltaCreatedByClientSideApply(5) as KubeObject);
        const result = applyPatch({
          contentType,
          patchBody,
          current,
          kind: PLC,
          nowTime: T1,
          fieldManager: 'm',
          ...(onStatus ? { subresource: 'status' } : {}),
        });
        if ('status' in result) assert.ok(typeof result.status.code === 'number' && result.status.code >= 400);
        else assert.type(result.object, 'object');
      },
    ),
    { numRuns: 300 },
  );
});

test.run();
