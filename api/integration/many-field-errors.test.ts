// An object with thousands of field errors, through each way a body reaches validation (JSON,
// protobuf, server-side apply, strategic merge patch, a /status PUT): the answer is kube's 422
// Invalid, with the causes that fit in MAX_FIELD_ERRORS_TEXT and a message that says how many
// errors it left out. Before, every error was a cause (thousands of them; a 52 MB Status for
// 150,000 empty conditions), and ~125,000 of them were a 500 "Maximum call stack size exceeded".
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { MAX_FIELD_ERRORS_TEXT } from '../../engine/resources/field-errors.ts';
import { encodeObject } from '../../engine/protobuf/objects.ts';
import { startInProcessServer, type InProcessServer } from './testing/in-process.ts';
import type { TestResponse } from '../testing/http-client.ts';

const GROUP = 'flowcontrol.apiserver.k8s.io';
const FS = `/apis/${GROUP}/v1/flowschemas`;
const PLC = `/apis/${GROUP}/v1/prioritylevelconfigurations`;
const N = 1_000;
/** A Status of causes within MAX_FIELD_ERRORS_TEXT, the same errors again in its message, and JSON around them. */
const MAX_STATUS_BYTES = 2 * MAX_FIELD_ERRORS_TEXT + 8 * 1024;

let server: InProcessServer;
test.before(async () => {
  server = await startInProcessServer();
  await server.ready();
});
test.after(async () => server.close());

const schema = (name: string, rules: unknown[]) => ({
  apiVersion: `${GROUP}/v1`,
  kind: 'FlowSchema',
  metadata: { name },
  spec: { matchingPrecedence: 500, priorityLevelConfiguration: { name: 'global-default' }, rules },
});

const level = (name: string) => ({
  apiVersion: `${GROUP}/v1`,
  kind: 'PriorityLevelConfiguration',
  metadata: { name },
  spec: { type: 'Limited', limited: { limitResponse: { type: 'Reject' } } },
});

/** kube's 422 for `kind "name"`, its causes within the bound, and `total` errors in all between causes and message. */
function assertCapped(response: TestResponse, kind: string, name: string, total: number): void {
  assert.is(response.status, 422, response.text.slice(0, 300));
  assert.ok(response.bytes.length <= MAX_STATUS_BYTES, `a Status of ${response.bytes.length} bytes`);
  const status = response.json();
  assert.equal([status.reason, status.code, status.details.kind, status.details.name], ['Invalid', 422, kind, name]);
  const causes: { field: string; message: string }[] = status.details.causes;
  const text = causes.reduce((sum, c) => sum + c.field.length + 2 + c.message.length, 0);
  assert.ok(causes.length > 0 && text <= MAX_FIELD_ERRORS_TEXT, `${causes.length} causes, ${text} characters`);
  assert.ok(status.message.startsWith(`${kind}.${GROUP} "${name}" is invalid: [${causes[0]!.field}: ${causes[0]!.message}, `), status.message.slice(0, 200));
  assert.ok(status.message.endsWith(`, and ${total - causes.length} more errors]`), status.message.slice(-100));
}

test('JSON: 150,000 empty rules are a bounded 422, not a 500', async () => {
  const response = await server.client.request('POST', FS, { body: schema('json-rules', Array(150_000).fill({})) });
  assertCapped(response, 'FlowSchema', 'json-rules', 300_000);
});

test('protobuf: a FlowSchema of empty rules is a bounded 422', async () => {
  const body = encodeObject(schema('pb-rules', Array(N).fill({})));
  const response = await server.client.request('POST', FS, { body, headers: { 'Content-Type': 'application/vnd.kubernetes.protobuf' } });
  assertCapped(response, 'FlowSchema', 'pb-rules', 2 * N);
});

test('server-side apply: creating a FlowSchema of empty rules is a bounded 422', async () => {
  const body = JSON.stringify(schema('apply-rules', Array(N).fill({})));
  const response = await server.client.request('PATCH', `${FS}/apply-rules?fieldManager=many`, {
    body,
    headers: { 'Content-Type': 'application/apply-patch+yaml' },
  });
  assertCapped(response, 'FlowSchema', 'apply-rules', 2 * N);
});

test('strategic merge patch: bad finalizers are a bounded 422', async () => {
  assert.is((await server.client.request('POST', PLC, { body: level('smp-finalizers') })).status, 201);
  const finalizers = Array.from({ length: N }, (_, i) => `-bad${i}`);
  const response = await server.client.request('PATCH', `${PLC}/smp-finalizers`, {
    body: { metadata: { finalizers } },
    headers: { 'Content-Type': 'application/strategic-merge-patch+json' },
  });
  // Each bad finalizer is reported on the list and on its item.
  assertCapped(response, 'PriorityLevelConfiguration', 'smp-finalizers', 2 * N);
});

test('a /status PUT of empty conditions is a bounded 422', async () => {
  const created = await server.client.request('POST', PLC, { body: level('status-conditions') });
  assert.is(created.status, 201);
  const body = { ...created.json(), status: { conditions: Array(N).fill({}) } };
  const response = await server.client.request('PUT', `${PLC}/status-conditions/status`, { body });
  // Each lacks a type, and each after the first repeats the empty one.
  assertCapped(response, 'PriorityLevelConfiguration', 'status-conditions', 2 * N - 1);
});

test('5,000 unknown fields under fieldValidation=Warn: 4 Ki characters of Warning headers, as kube-apiserver sends', async () => {
  const extra = Object.fromEntries(Array.from({ length: 5_000 }, (_, i) => [`unknown${i}`, 1]));
  const body = { ...level('warned'), spec: { ...level('warned').spec, ...extra } };
  const response = await server.client.request('POST', `${PLC}?fieldValidation=Warn`, { body });
  assert.is(response.status, 201, response.text.slice(0, 200));
  // Node joins the Warning headers with ', '; each is `299 - "<text, quotes escaped>"`.
  const texts = [...String(response.headers.warning ?? '').matchAll(/299 - "((?:[^"\\]|\\.)*)"/g)].map((m) => m[1]!.replace(/\\(.)/g, '$1'));
  assert.equal(texts.slice(0, 2), ['unknown field "spec.unknown0"', 'unknown field "spec.unknown1"']);
  const total = texts.reduce((sum, t) => sum + t.length, 0);
  assert.ok(total <= 4 * 1024 && total > 4 * 1024 - 64, `${texts.length} warnings, ${total} characters`);
});

test.run();
