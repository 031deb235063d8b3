// End to end: the forms kube-apiserver gives its answers, checked against a running `fairway serve`:
// pretty error Statuses, YAML's repeated keys, RFC 3339 times, deletecollection paging, and the
// managedFields the bootstrap configuration carries. (Protobuf: protobuf.test.ts; deletion through
// kubectl: kubectl.test.ts; Go's words in every error: reliability-bad-input.test.ts.)
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { startServerProcess, type ServerProcess } from '../commands/testing/server-process.ts';

const GROUP = 'flowcontrol.apiserver.k8s.io';
const PLCS = `/apis/${GROUP}/v1/prioritylevelconfigurations`;
const FSS = `/apis/${GROUP}/v1/flowschemas`;
let server: ServerProcess;

const plc = (name: string, labels: Record<string, string> = {}) => ({
  apiVersion: `${GROUP}/v1`,
  kind: 'PriorityLevelConfiguration',
  metadata: { name, labels },
  spec: { type: 'Limited', limited: { nominalConcurrencyShares: 2, limitResponse: { type: 'Reject' } } },
});

test.before(async () => {
  server = await startServerProcess({});
});

test.after(async () => {
  assert.is(await server.stop(), 0, server.stderr());
});

test('error Statuses are pretty-printed when success bodies are: ?pretty=true, curl, and the 401 too', async () => {
  const compact = await server.client.get(`${PLCS}/nosuch`);
  assert.is(compact.status, 404);
  assert.ok(compact.text.startsWith('{"kind":"Status"') && compact.text.endsWith('}\n'), compact.text);
  for (const response of [
    await server.client.get(`${PLCS}/nosuch?pretty=true`),
    await server.client.get(`${PLCS}/nosuch`, { headers: { 'User-Agent': 'curl/8.5.0' } }),
  ]) {
    assert.is(response.status, 404);
    // Go's json.MarshalIndent: two spaces, no newline at the end.
    assert.ok(response.text.startsWith('{\n  "kind": "Status",\n  "apiVersion": "v1",'), response.text);
    assert.ok(response.text.endsWith('"code": 404\n}'), response.text);
  }
  const success = await server.client.get(`${PLCS}/exempt?pretty=true`);
  assert.ok(success.text.startsWith('{\n  "kind": "PriorityLevelConfiguration"'));
  const unauthorized = await server.client.get(PLCS, { token: 'wrong', headers: { 'User-Agent': 'curl/8.5.0' } });
  assert.is(unauthorized.status, 401);
  assert.is(
    unauthorized.text,
    '{\n  "kind": "Status",\n  "apiVersion": "v1",\n  "metadata": {},\n  "status": "Failure",\n  "message": "Unauthorized",\n  "reason": ' +
      '"Unauthorized",\n  "code": 401\n}',
  );
  const yaml = await server.client.get(`${PLCS}/nosuch`, { headers: { Accept: 'application/yaml' } });
  assert.is(yaml.headers['content-type'], 'application/yaml');
  assert.match(yaml.text, /^code: 404$/m);
});

test("YAML bodies: a repeated key is a strict decoding error in go-yaml's words, and a warning under Warn", async () => {
  const body =
    `apiVersion: ${GROUP}/v1\nkind: PriorityLevelConfiguration\nmetadata:\n  name: yaml-dup\n  labels:\n    a: one\n    a: two\nspec:\n  type: ` +
    'Limited\n  limited:\n    limitResponse:\n      type: Reject\n';
  const headers = { 'Content-Type': 'application/yaml' };
  const strict = await server.client.request('POST', `${PLCS}?fieldValidation=Strict`, { body, headers });
  assert.is(strict.status, 400);
  assert.is(
    strict.json().message,
    'PriorityLevelConfiguration in version "v1" cannot be handled as a PriorityLevelConfiguration: strict decoding error: error converting YAML to ' +
      'JSON: yaml: unmarshal errors:\n  line 7: key "a" already set in map',
  );
  const warned = await server.client.request('POST', PLCS, { body, headers });
  assert.is(warned.status, 201, warned.text);
  assert.is(warned.headers.warning, '299 - "error converting YAML to JSON: yaml: unmarshal errors: line 7: key \\"a\\" already set in map"');
  assert.equal(warned.json().metadata.labels, { a: 'two' });
  const ignored = await server.client.request('POST', `${PLCS}?fieldValidation=Ignore&dryRun=All`, { body: body.replace('yaml-dup', 'yaml-dup-2'), headers });
  assert.is(ignored.status, 201);
  assert.is(ignored.headers.warning, undefined);
});

test('times are RFC 3339: an invalid one is a 400 in Go’s words, a valid one is stored as UTC seconds', async () => {
  const created = (await server.client.request('POST', PLCS, { body: plc('timed') })).json();
  const withCondition = (lastTransitionTime: string) => ({
    ...created,
    status: { conditions: [{ type: 'Checked', status: 'True', lastTransitionTime, reason: 'Test', message: 'm' }] },
  });
  const invalid = await server.client.request('PUT', `${PLCS}/timed/status`, { body: withCondition('2024-13-01T00:00:00Z') });
  assert.is(invalid.status, 400);
  assert.is(
    invalid.json().message,
    'PriorityLevelConfiguration in version "v1" cannot be handled as a PriorityLevelConfiguration: parsing time "2024-13-01T00:00:00Z": month out of range',
  );
  const garbled = await server.client.request('PUT', `${PLCS}/timed/status`, { body: withCondition('next tuesday') });
  assert.is(
    garbled.json().message,
    'PriorityLevelConfiguration in version "v1" cannot be handled as a PriorityLevelConfiguration: parsing time "next tuesday" as ' +
      '"2006-01-02T15:04:05Z07:00": cannot parse "next tuesday" as "2006"',
  );
  const stored = await server.client.request('PUT', `${PLCS}/timed/status`, { body: withCondition('2024-05-01T12:30:15.123456+02:00') });
  assert.is(stored.status, 200, stored.text);
  assert.is(stored.json().status.conditions[0].lastTransitionTime, '2024-05-01T10:30:15Z');
  const patched = await server.client.request('PATCH', `${PLCS}/timed/status`, {
    body: { status: { conditions: [{ type: 'Checked', status: 'False', lastTransitionTime: '2024-05-02T00:00:00-05:00' }] } },
    headers: { 'Content-Type': 'application/merge-patch+json' },
  });
  assert.is(patched.status, 200, patched.text);
  assert.is(patched.json().status.conditions[0].lastTransitionTime, '2024-05-02T05:00:00Z');
});

test('deletecollection with limit deletes one page and answers it with continue and remainingItemCount', async () => {
  for (const name of ['page-a', 'page-b', 'page-c']) assert.is((await server.client.request('POST', PLCS, { body: plc(name, { page: 'yes' }) })).status, 201);
  const first = await server.client.request('DELETE', `${PLCS}?limit=2&labelSelector=page%3Dyes`);
  assert.is(first.status, 200, first.text);
  const page = first.json();
  assert.is(page.kind, 'PriorityLevelConfigurationList');
  assert.equal(
    page.items.map((i: { metadata: { name: string } }) => i.metadata.name),
    ['page-a', 'page-b'],
  );
  assert.ok(typeof page.metadata.continue === 'string' && page.metadata.continue.length > 0);
  const left = (await server.client.get(`${PLCS}?labelSelector=page%3Dyes`)).json();
  assert.equal(
    left.items.map((i: { metadata: { name: string } }) => i.metadata.name),
    ['page-c'],
  );
  // Unfiltered, the page also says how many are left.
  for (const name of ['rest-a', 'rest-b']) await server.client.request('POST', PLCS, { body: plc(name) });
  const total = (await server.client.get(PLCS)).json().items.length;
  const unfiltered = (await server.client.request('DELETE', `${PLCS}?limit=1&dryRun=All`)).json();
  assert.is(unfiltered.items.length, 1);
  assert.is(unfiltered.metadata.remainingItemCount, total - 1);
  assert.is((await server.client.get(PLCS)).json().items.length, total, 'dry run deleted nothing');
});

test('the bootstrap objects carry the Update entry of the configuration producer', async () => {
  let objects = 0;
  for (const path of [PLCS, FSS]) {
    for (const item of (await server.client.get(path)).json().items) {
      if (item.metadata.annotations?.['apf.kubernetes.io/autoupdate-spec'] !== 'true') continue;
      const producer = item.metadata.managedFields.find((m: { manager: string }) => m.manager === 'api-priority-and-fairness-config-producer-v1');
      assert.ok(producer, `${item.metadata.name} has the producer's entry`);
      assert.equal([producer.operation, producer.apiVersion, producer.fieldsType, producer.subresource], ['Update', `${GROUP}/v1`, 'FieldsV1', undefined]);
      assert.equal(producer.fieldsV1['f:metadata'], { 'f:annotations': { '.': {}, 'f:apf.kubernetes.io/autoupdate-spec': {} } });
      assert.ok(producer.fieldsV1['f:spec']['f:type'] !== undefined || producer.fieldsV1['f:spec']['f:priorityLevelConfiguration'] !== undefined);
      objects++;
    }
  }
  assert.ok(objects >= 20, `${objects} bootstrap objects`);
  const exempt = (await server.client.get(`${PLCS}/exempt`)).json();
  assert.equal(exempt.metadata.managedFields[0].fieldsV1, {
    'f:metadata': { 'f:annotations': { '.': {}, 'f:apf.kubernetes.io/autoupdate-spec': {} } },
    'f:spec': { 'f:exempt': { '.': {}, 'f:lendablePercent': {}, 'f:nominalConcurrencyShares': {} }, 'f:type': {} },
  });
});

test.run();
