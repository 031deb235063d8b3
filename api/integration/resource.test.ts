import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { parse as yamlParse } from 'yaml';
import { startInProcessServer, type InProcessServer } from './testing/in-process.ts';

const P = '/apis/flowcontrol.apiserver.k8s.io/v1/prioritylevelconfigurations';
const FS = '/apis/flowcontrol.apiserver.k8s.io/v1/flowschemas';
let server: InProcessServer;

const plc = (name: string, shares = 5, extra: Record<string, unknown> = {}) => ({
  apiVersion: 'flowcontrol.apiserver.k8s.io/v1',
  kind: 'PriorityLevelConfiguration',
  metadata: { name, ...extra },
  spec: { type: 'Limited', limited: { nominalConcurrencyShares: shares, limitResponse: { type: 'Reject' } } },
});

test.before(async () => {
  server = await startInProcessServer();
  await server.ready();
});
test.after(async () => server.close());

test('create sets identity, generation 1 and clears status; a second create is AlreadyExists', async () => {
  const body = { ...plc('t-create'), status: { conditions: [{ type: 'X', status: 'True' }] } };
  const created = await server.client.request('POST', P, { body });
  assert.is(created.status, 201);
  const object = created.json();
  assert.is(object.kind, 'PriorityLevelConfiguration');
  assert.match(object.metadata.uid, /^[0-9a-f-]{36}$/);
  assert.match(object.metadata.creationTimestamp, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);
  assert.is(object.metadata.generation, 1);
  assert.match(object.metadata.resourceVersion, /^[1-9][0-9]*$/);
  assert.equal(object.status, {});
  assert.is(object.spec.limited.lendablePercent, 0, 'defaulted');
  const again = await server.client.request('POST', P, { body });
  assert.is(again.status, 409);
  assert.equal(again.json(), {
    kind: 'Status',
    apiVersion: 'v1',
    metadata: {},
    status: 'Failure',
    message: 'prioritylevelconfigurations.flowcontrol.apiserver.k8s.io "t-create" already exists',
    reason: 'AlreadyExists',
    details: { name: 't-create', group: 'flowcontrol.apiserver.k8s.io', kind: 'prioritylevelconfigurations' },
    code: 409,
  });
});

test('dryRun=All runs everything but stores nothing', async () => {
  const dry = await server.client.request('POST', `${P}?dryRun=All`, { body: plc('t-dry') });
  assert.is(dry.status, 201);
  assert.is(dry.json().metadata.resourceVersion, undefined);
  assert.is((await server.client.get(`${P}/t-dry`)).status, 404);
  const bad = await server.client.request('POST', `${P}?dryRun=Some`, { body: plc('t-dry') });
  assert.is(bad.status, 422);
  assert.match(bad.json().message, /^CreateOptions\.meta\.k8s\.io "" is invalid: dryRun: Unsupported value/);
});

test('fieldValidation: Strict fails, Warn warns per field, Ignore is silent', async () => {
  const withUnknown = (name: string) => ({ ...plc(name), spec: { ...plc(name).spec, bogus: 1 } });
  const strict = await server.client.request('POST', `${P}?fieldValidation=Strict`, { body: withUnknown('t-fv1') });
  assert.is(strict.status, 400);
  assert.is(
    strict.json().message,
    'PriorityLevelConfiguration in version "v1" cannot be handled as a PriorityLevelConfiguration: strict decoding error: unknown field "spec.bogus"',
  );
  const duplicate = await server.client.request('POST', `${P}?fieldValidation=Strict`, {
    body:
      '{"apiVersion":"flowcontrol.apiserver.k8s.io/v1","kind":"PriorityLevelConfiguration","metadata":{"name":"t-fv0"},"spec":{"type":"Exempt",' +
      '"type":"Exempt"}}',
  });
  assert.is(duplicate.status, 400);
  assert.match(duplicate.json().message, /strict decoding error: duplicate field "spec.type"$/);
  const warn = await server.client.request('POST', P, { body: withUnknown('t-fv2') });
  assert.is(warn.status, 201);
  assert.is(warn.headers.warning, '299 - "unknown field \\"spec.bogus\\""');
  assert.is(warn.json().spec.bogus, undefined, 'unknown fields are dropped');
  const ignore = await server.client.request('POST', `${P}?fieldValidation=Ignore`, { body: withUnknown('t-fv3') });
  assert.is(ignore.status, 201);
  assert.is(ignore.headers.warning, undefined);
  const invalidValue = await server.client.request('POST', `${P}?fieldValidation=Loud`, { body: plc('t-fv4') });
  assert.is(invalidValue.status, 422);
});

test('validation failures are 422 Invalid with causes; resourceVersion on create is a 400', async () => {
  const invalid = await server.client.request('POST', P, { body: { ...plc('t-bad'), spec: { type: 'Weird' } } });
  assert.is(invalid.status, 422);
  const status = invalid.json();
  assert.is(status.reason, 'Invalid');
  assert.is(status.details.kind, 'PriorityLevelConfiguration');
  assert.ok(status.details.causes.some((c: { field: string }) => c.field === 'spec.type'));
  assert.match(status.message, /^PriorityLevelConfiguration\.flowcontrol\.apiserver\.k8s\.io "t-bad" is invalid: /);
  const withRv = await server.client.request('POST', P, { body: plc('t-rv', 5, { resourceVersion: '5' }) });
  assert.is(withRv.status, 400);
  assert.is(withRv.json().message, 'resourceVersion should not be set on objects to be created');
  const malformed = await server.client.request('POST', P, { body: '{"metadata":' });
  assert.is(malformed.status, 400);
  const wrongType = await server.client.request('POST', P, {
    body: { ...plc('t-type'), spec: { type: 'Limited', limited: { nominalConcurrencyShares: 'x' } } },
  });
  assert.is(wrongType.status, 400);
  const wrongKind = await server.client.request('POST', P, { body: { ...plc('t-kind'), kind: 'FlowSchema' } });
  assert.is(wrongKind.status, 400);
});

test('bodies may be YAML; pretty=true indents the answer', async () => {
  const yaml =
    'apiVersion: flowcontrol.apiserver.k8s.io/v1\nkind: PriorityLevelConfiguration\nmetadata:\n  name: t-yaml\nspec:\n  type: Limited\n  limited:\n  ' +
    '  limitResponse:\n      type: Reject\n';
  const created = await server.client.request('POST', `${P}?pretty=true`, { body: yaml, headers: { 'Content-Type': 'application/yaml' } });
  assert.is(created.status, 201);
  assert.match(created.text, /^\{\n {2}"kind": "PriorityLevelConfiguration",\n/);
  assert.is(created.json().spec.limited.nominalConcurrencyShares, 30, 'defaulted');
  const broken = await server.client.request('POST', P, { body: 'metadata: [unclosed', headers: { 'Content-Type': 'application/yaml' } });
  assert.is(broken.status, 400);
});

test('generateName appends five characters', async () => {
  const created = await server.client.request('POST', P, { body: { ...plc(''), metadata: { generateName: 'gen-' } } });
  assert.is(created.status, 201);
  assert.match(created.json().metadata.name, /^gen-[bcdfghjklmnpqrstvwxz2456789]{5}$/);
});

test('GET: JSON, YAML and Table; 404 in Kubernetes words', async () => {
  await server.client.request('POST', P, { body: plc('t-get') });
  const json = await server.client.get(`${P}/t-get`);
  assert.is(json.status, 200);
  assert.is(json.headers['content-type'], 'application/json');
  const yaml = await server.client.get(`${P}/t-get`, { headers: { Accept: 'application/yaml' } });
  assert.is(yaml.headers['content-type'], 'application/yaml');
  assert.is(yamlParse(yaml.text).metadata.name, 't-get');
  const table = await server.client.get(`${P}/t-get`, { headers: { Accept: 'application/json;as=Table;v=v1;g=meta.k8s.io,application/json' } });
  const t = table.json();
  assert.is(t.kind, 'Table');
  assert.equal(t.rows[0].cells.slice(0, 6), ['t-get', 'Limited', 5, '<none>', '<none>', '<none>']);
  assert.is(t.rows[0].object.kind, 'PartialObjectMetadata');
  const missing = await server.client.get(`${P}/nosuch`);
  assert.is(missing.status, 404);
  assert.is(missing.json().message, 'prioritylevelconfigurations.flowcontrol.apiserver.k8s.io "nosuch" not found');
  const badInclude = await server.client.get(`${P}/t-get?includeObject=All`, { headers: { Accept: 'application/json;as=Table;v=v1;g=meta.k8s.io' } });
  assert.is(badInclude.status, 400);
  const protobuf = await server.client.get(`${P}/t-get`, { headers: { Accept: 'application/vnd.kubernetes.protobuf' } });
  assert.is(protobuf.status, 200);
  assert.is(protobuf.headers['content-type'], 'application/vnd.kubernetes.protobuf');
  // Kubernetes has no protobuf Table: with nothing else acceptable that is a 406, its Status indented JSON.
  const notAcceptable = await server.client.get(`${P}/t-get`, { headers: { Accept: 'application/vnd.kubernetes.protobuf;as=Table;v=v1;g=meta.k8s.io' } });
  assert.is(notAcceptable.status, 406);
  assert.is(
    notAcceptable.json().message,
    'only the following media types are accepted: application/json, application/yaml, application/vnd.kubernetes.protobuf',
  );
  assert.ok(notAcceptable.text.startsWith('{\n  "kind": "Status"'));
});

test('PUT: generation moves only with the spec, status is kept, a stale resourceVersion conflicts', async () => {
  const created = (await server.client.request('POST', P, { body: plc('t-put') })).json();
  const labelled = { ...created, metadata: { ...created.metadata, labels: { a: 'b' } }, status: { conditions: [{ type: 'X', status: 'True' }] } };
  const first = await server.client.request('PUT', `${P}/t-put`, { body: labelled });
  assert.is(first.status, 200);
  assert.is(first.json().metadata.generation, 1);
  assert.equal(first.json().status, {});
  assert.ok(Number(first.json().metadata.resourceVersion) > Number(created.metadata.resourceVersion));
  const stale = await server.client.request('PUT', `${P}/t-put`, { body: { ...labelled, spec: plc('t-put', 9).spec } });
  assert.is(stale.status, 409);
  assert.is(
    stale.json().message,
    'Operation cannot be fulfilled on prioritylevelconfigurations.flowcontrol.apiserver.k8s.io "t-put": the object has been modified; please apply ' +
      'your changes to the latest version and try again',
  );
  const current = first.json();
  const bumped = await server.client.request('PUT', `${P}/t-put`, { body: { ...current, spec: plc('t-put', 9).spec } });
  assert.is(bumped.json().metadata.generation, 2);
  const same = await server.client.request('PUT', `${P}/t-put`, { body: bumped.json() });
  assert.is(same.json().metadata.resourceVersion, bumped.json().metadata.resourceVersion, 'a no-op update writes nothing');
  const mismatch = await server.client.request('PUT', `${P}/t-put`, { body: { ...current, metadata: { ...current.metadata, name: 'other' } } });
  assert.is(mismatch.status, 400);
  assert.is(mismatch.json().message, 'the name of the object (other) does not match the name on the URL (t-put)');
  const missing = await server.client.request('PUT', `${P}/t-none`, { body: plc('t-none') });
  assert.is(missing.status, 404);
});

test('PUT /status changes only the status', async () => {
  const created = (await server.client.request('POST', P, { body: plc('t-status') })).json();
  const body = {
    ...created,
    metadata: { ...created.metadata, labels: { dropped: 'yes' } },
    spec: plc('t-status', 77).spec,
    status: { conditions: [{ type: 'ConcurrencyShared', status: 'True', lastTransitionTime: '2026-01-01T00:00:00Z', reason: 'r', message: 'm' }] },
  };
  const updated = await server.client.request('PUT', `${P}/t-status/status`, { body });
  assert.is(updated.status, 200);
  const object = updated.json();
  assert.is(object.status.conditions[0].type, 'ConcurrencyShared');
  assert.is(object.spec.limited.nominalConcurrencyShares, 5);
  assert.is(object.metadata.labels, undefined);
  assert.is(object.metadata.generation, 1);
  const status = await server.client.get(`${P}/t-status/status`);
  assert.is(status.json().status.conditions.length, 1);
});

test('DELETE answers a success Status; with finalizers it marks the object and returns it', async () => {
  const created = (await server.client.request('POST', P, { body: plc('t-del') })).json();
  const deleted = await server.client.request('DELETE', `${P}/t-del`, { body: { propagationPolicy: 'Background' } });
  assert.is(deleted.status, 200);
  assert.equal(deleted.json(), {
    kind: 'Status',
    apiVersion: 'v1',
    metadata: {},
    status: 'Success',
    details: { name: 't-del', group: 'flowcontrol.apiserver.k8s.io', kind: 'prioritylevelconfigurations', uid: created.metadata.uid },
  });
  assert.is((await server.client.get(`${P}/t-del`)).status, 404);
  assert.is((await server.client.request('DELETE', `${P}/t-del`)).status, 404);

  await server.client.request('POST', P, { body: plc('t-fin', 5, { finalizers: ['example.com/hold'] }) });
  const marked = await server.client.request('DELETE', `${P}/t-fin`);
  assert.is(marked.status, 200);
  assert.ok(marked.json().metadata.deletionTimestamp);
  assert.is(marked.json().metadata.deletionGracePeriodSeconds, 0);
  const again = await server.client.request('DELETE', `${P}/t-fin`);
  assert.is(again.json().metadata.deletionTimestamp, marked.json().metadata.deletionTimestamp);
  const released = { ...marked.json(), metadata: { ...marked.json().metadata, finalizers: [] } };
  assert.is((await server.client.request('PUT', `${P}/t-fin`, { body: released })).status, 200);
  assert.is((await server.client.get(`${P}/t-fin`)).status, 404, 'removing the last finalizer completes the deletion');
});

test('DELETE options: preconditions, dryRun, invalid values', async () => {
  await server.client.request('POST', P, { body: plc('t-pre') });
  const wrongUid = await server.client.request('DELETE', `${P}/t-pre`, { body: { preconditions: { uid: 'nope' } } });
  assert.is(wrongUid.status, 409);
  assert.match(wrongUid.json().message, /Precondition failed: UID in precondition: nope, UID in object meta: /);
  const dry = await server.client.request('DELETE', `${P}/t-pre?dryRun=All`);
  assert.is(dry.status, 200);
  assert.is((await server.client.get(`${P}/t-pre`)).status, 200);
  const bad = await server.client.request('DELETE', `${P}/t-pre?propagationPolicy=Sometimes`);
  assert.is(bad.status, 422);
  assert.match(bad.json().message, /^DeleteOptions\.meta\.k8s\.io "" is invalid: propagationPolicy: Unsupported value: "Sometimes"/);
  const badGrace = await server.client.request('DELETE', `${P}/t-pre?gracePeriodSeconds=soon`);
  assert.is(badGrace.status, 400);
});

test('deletecollection deletes what the selector matches and answers the list of them', async () => {
  for (const name of ['t-dc1', 't-dc2']) await server.client.request('POST', P, { body: plc(name, 5, { labels: { tier: 'dc' } }) });
  await server.client.request('POST', P, { body: plc('t-dc3') });
  const response = await server.client.request('DELETE', `${P}?labelSelector=tier%3Ddc`);
  assert.is(response.status, 200);
  const list = response.json();
  assert.is(list.kind, 'PriorityLevelConfigurationList');
  assert.equal(
    list.items.map((i: { metadata: { name: string } }) => i.metadata.name),
    ['t-dc1', 't-dc2'],
  );
  assert.is((await server.client.get(`${P}/t-dc1`)).status, 404);
  assert.is((await server.client.get(`${P}/t-dc3`)).status, 200);
});

test('LIST: paging with continue, selectors, bad parameters are 400', async () => {
  for (const name of ['t-l1', 't-l2', 't-l3'])
    await server.client.request('POST', FS, {
      body: {
        apiVersion: 'flowcontrol.apiserver.k8s.io/v1',
        kind: 'FlowSchema',
        metadata: { name, labels: { page: 'yes' } },
        spec: { priorityLevelConfiguration: { name: 'global-default' }, matchingPrecedence: 5000 },
      },
    });
  const first = (await server.client.get(`${FS}?labelSelector=page&limit=2`)).json();
  assert.is(first.kind, 'FlowSchemaList');
  assert.is(first.items.length, 2);
  assert.ok(first.metadata.continue);
  assert.is(first.metadata.remainingItemCount, undefined, 'not counted for filtered lists');
  const second = (await server.client.get(`${FS}?labelSelector=page&limit=2&continue=${encodeURIComponent(first.metadata.continue)}`)).json();
  assert.equal(
    second.items.map((i: { metadata: { name: string } }) => i.metadata.name),
    ['t-l3'],
  );
  const unfiltered = (await server.client.get(`${FS}?limit=1`)).json();
  assert.ok(unfiltered.metadata.remainingItemCount > 0);
  const byName = (await server.client.get(`${FS}?fieldSelector=metadata.name%3Dt-l2`)).json();
  assert.equal(
    byName.items.map((i: { metadata: { name: string } }) => i.metadata.name),
    ['t-l2'],
  );
  const badField = await server.client.get(`${FS}?fieldSelector=spec.x%3D1`);
  assert.is(badField.status, 400);
  assert.is(badField.json().message, '"spec.x" is not a known field selector: only "metadata.name", "metadata.namespace"');
  assert.is((await server.client.get(`${FS}?limit=ten`)).status, 400);
  assert.is((await server.client.get(`${FS}?resourceVersion=abc`)).status, 400);
  assert.is((await server.client.get(`${FS}?labelSelector=a%20in%20(`)).status, 400);
  const table = (await server.client.get(`${FS}?labelSelector=page`, { headers: { Accept: 'application/json;as=Table;v=v1;g=meta.k8s.io' } })).json();
  assert.equal(
    table.columnDefinitions.map((c: { name: string }) => c.name),
    ['Name', 'PriorityLevel', 'MatchingPrecedence', 'DistinguisherMethod', 'Age', 'MissingPL'],
  );
});

const patchAs = (contentType: string, path: string, body: unknown) =>
  server.client.request('PATCH', path, { body: typeof body === 'string' ? body : JSON.stringify(body), headers: { 'Content-Type': contentType } });

test('PATCH: the three patch types, options checks, 415 for anything else', async () => {
  await server.client.request('POST', P, { body: plc('t-patch') });
  const merged = await patchAs('application/merge-patch+json', `${P}/t-patch?fieldManager=tester`, { metadata: { labels: { m: '1' } } });
  assert.is(merged.status, 200);
  assert.is(merged.json().metadata.labels.m, '1');
  assert.ok(merged.json().metadata.managedFields.some((m: { manager: string }) => m.manager === 'tester'));
  const json = await patchAs('application/json-patch+json', `${P}/t-patch`, [{ op: 'replace', path: '/spec/limited/nominalConcurrencyShares', value: 12 }]);
  assert.is(json.json().spec.limited.nominalConcurrencyShares, 12);
  assert.is(json.json().metadata.generation, 2);
  const failedTest = await patchAs('application/json-patch+json', `${P}/t-patch`, [{ op: 'test', path: '/spec/type', value: 'Exempt' }]);
  assert.is(failedTest.status, 422);
  const staleLock = await patchAs('application/json-patch+json', `${P}/t-patch`, [{ op: 'replace', path: '/metadata/resourceVersion', value: '1' }]);
  assert.is(staleLock.status, 409, 'a resourceVersion set by the patch is a precondition');
  const strategic = await patchAs('application/strategic-merge-patch+json', `${P}/t-patch`, { spec: { limited: { lendablePercent: 10 } } });
  assert.is(strategic.json().spec.limited.lendablePercent, 10);
  const again = await patchAs('application/strategic-merge-patch+json', `${P}/t-patch`, { spec: { limited: { lendablePercent: 10 } } });
  assert.is(again.json().metadata.resourceVersion, strategic.json().metadata.resourceVersion, 'a no-op patch writes nothing');
  const forced = await patchAs('application/merge-patch+json', `${P}/t-patch?force=true`, {});
  assert.is(forced.status, 422);
  assert.match(forced.json().message, /force: Forbidden: may not be specified for non-apply patch/);
  const unknown = await patchAs('application/xml', `${P}/t-patch`, '<x/>');
  assert.is(unknown.status, 415);
  const missing = await patchAs('application/merge-patch+json', `${P}/t-nopatch`, {});
  assert.is(missing.status, 404);
});

test('PATCH /status merges conditions by type and leaves the spec alone', async () => {
  await server.client.request('POST', P, { body: plc('t-pstatus') });
  const condition = (type: string, status: string) => ({ type, status, lastTransitionTime: '2026-01-01T00:00:00Z', reason: 'r', message: 'm' });
  await patchAs('application/merge-patch+json', `${P}/t-pstatus/status`, { status: { conditions: [condition('A', 'True')] }, spec: { type: 'Exempt' } });
  const both = await patchAs('application/strategic-merge-patch+json', `${P}/t-pstatus/status`, { status: { conditions: [condition('B', 'False')] } });
  assert.is(both.status, 200);
  // Strategic merge puts patch items not in the stored order first (apimachinery's mergeSortedSlice).
  assert.equal(
    both.json().status.conditions.map((c: { type: string }) => c.type),
    ['B', 'A'],
  );
  assert.is(both.json().spec.type, 'Limited');
});

test('server-side apply creates, owns fields, reports conflicts and takes them with force', async () => {
  const applied = await patchAs('application/apply-patch+yaml', `${P}/t-ssa?fieldManager=first`, plc('t-ssa', 5));
  assert.is(applied.status, 201);
  assert.ok(applied.json().metadata.managedFields.some((m: { manager: string; operation: string }) => m.manager === 'first' && m.operation === 'Apply'));
  const conflict = await patchAs('application/apply-patch+yaml', `${P}/t-ssa?fieldManager=second`, plc('t-ssa', 6));
  assert.is(conflict.status, 409);
  const status = conflict.json();
  assert.is(status.reason, 'Conflict');
  assert.match(status.message, /^Apply failed with 1 conflict: conflict with "first": \.spec\.limited\.nominalConcurrencyShares$/);
  assert.equal(status.details.causes[0].field, '.spec.limited.nominalConcurrencyShares');
  const forced = await patchAs('application/apply-patch+yaml', `${P}/t-ssa?fieldManager=second&force=true`, plc('t-ssa', 6));
  assert.is(forced.status, 200);
  assert.is(forced.json().spec.limited.nominalConcurrencyShares, 6);
  const noManager = await patchAs('application/apply-patch+yaml', `${P}/t-ssa`, plc('t-ssa', 6));
  assert.is(noManager.status, 422);
  assert.match(noManager.json().message, /fieldManager: Required value: is required for apply patch/);
  const dry = await patchAs('application/apply-patch+yaml', `${P}/t-ssa-dry?fieldManager=first&dryRun=All`, plc('t-ssa-dry', 5));
  assert.is(dry.status, 201);
  assert.is((await server.client.get(`${P}/t-ssa-dry`)).status, 404);
});

test('malformed client input is never answered with a 5xx', async () => {
  const bodies = [
    '',
    'null',
    '[]',
    '"x"',
    '42',
    '{',
    '{"metadata":null}',
    '{"metadata":{"name":5}}',
    '{"metadata":{"name":"a/b"}}',
    '{"metadata":{"name":"x","resourceVersion":"abc"}}',
    '{"spec":[]}',
    '{"status":"x"}',
    '{"metadata":{"labels":{"a":1}}}',
    '{"metadata":{"managedFields":"x","name":"m"}}',
    '\u0000\u0001',
  ];
  const queries = [
    '',
    '?dryRun=x',
    '?fieldManager=%00',
    '?fieldValidation=x',
    '?force=x',
    '?pretty=x',
    '?limit=x',
    '?resourceVersion=-1',
    '?timeout=x',
    '?timeout=1constructor',
    '?gracePeriodSeconds=x',
    '?propagationPolicy=x',
    '?continue=%ff',
  ];
  const types = [
    'application/json',
    'application/yaml',
    'application/merge-patch+json',
    'application/json-patch+json',
    'application/strategic-merge-patch+json',
    'application/apply-patch+yaml',
    'text/plain',
  ];
  const seen = new Set<number>();
  for (const method of ['POST', 'PUT', 'PATCH', 'DELETE']) {
    for (const body of bodies) {
      for (const query of queries) {
        const type = types[(body.length + query.length + method.length) % types.length]!;
        const path = method === 'POST' ? P : `${P}/exempt`;
        const response = await server.client.request(method, `${path}${query}`, { body, headers: { 'Content-Type': type } });
        seen.add(response.status);
        assert.ok(response.status < 500, `${method} ${query} ${type} ${JSON.stringify(body)} → ${response.status} ${response.text}`);
      }
    }
  }
  assert.ok(seen.has(400) && seen.has(422), 'the inputs reach both decoding and validation');
});

test('limits and routing: 413, 415, 405, 404, 401', async () => {
  const huge = await server.client.request('POST', P, { body: 'x'.repeat(3 * 1024 * 1024 + 1) });
  assert.is(huge.status, 413);
  assert.is(huge.json().message, 'Request entity too large: limit is 3145728');
  const protobuf = await server.client.request('POST', P, { body: 'k8s\u0000', headers: { 'Content-Type': 'application/vnd.kubernetes.protobuf' } });
  assert.is(protobuf.status, 400);
  assert.is(protobuf.json().message, 'the object provided is unrecognized (must be of type PriorityLevelConfiguration): empty body (6b387300)');
  const text = await server.client.request('POST', P, { body: 'x', headers: { 'Content-Type': 'text/plain' } });
  assert.is(text.status, 415);
  assert.is(
    text.json().message,
    'the body of the request was in an unknown format - accepted media types include: application/json, application/yaml, application/vnd.kubernetes.protobuf',
  );
  assert.is((await server.client.request('POST', `${P}/x`, { body: plc('x') })).status, 405);
  assert.is((await server.client.get('/apis/flowcontrol.apiserver.k8s.io/v1/widgets')).status, 404);
  const anonymous = await server.client.get(P, { token: null });
  assert.is(anonymous.status, 401);
  assert.is(
    anonymous.text,
    '{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"Unauthorized","reason":"Unauthorized","code":401}\n',
  );
  assert.is((await server.client.get(P, { token: 'wrong' })).status, 401);
  assert.is((await server.client.get('/healthz', { token: null })).text, 'ok');
  assert.is((await server.client.get('/version', { token: null })).status, 401);
});

test.run();
