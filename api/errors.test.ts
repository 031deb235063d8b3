import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { MAX_FIELD_ERRORS_TEXT, invalid as invalidField, notSupported, required } from '../engine/resources/field-errors.ts';
import {
  API_ERRORS,
  ApiError,
  RETIRED_ERROR_CODES,
  conflict,
  errorCodeOf,
  forbidden,
  internalError,
  invalid,
  isApiError,
  nameMismatch,
  notAcceptable,
  notFound,
  requestEntityTooLarge,
  routeNotFound,
  strictDecoding,
  timeout,
  unauthorized,
  unrecognizedIncludeObject,
  unsupportedMediaType,
  type ApiErrorCode,
} from '../engine/status/errors.ts';
import { errorStatus, EXECUTOR_ERROR_SENT_AS, REGISTRY_ERROR_SENT_AS, STORE_ERROR_STATUS, storeErrorStatus } from './engine-errors.ts';
import { REGISTRY_ERROR_CODES } from '../engine/registry/registry-errors.ts';
import { alreadyExistsError, STORE_ERROR_CODES, StoreError } from '../engine/store/store-errors.ts';
import { EXECUTOR_ERROR_CODES, ExecutorError } from '../workers/executor-errors.ts';

const PLC = { group: 'flowcontrol.apiserver.k8s.io', resource: 'prioritylevelconfigurations' };
const wire = (value: unknown): string => JSON.stringify(value);

const docText = readFileSync(fileURLToPath(new URL('../docs/errors.md', import.meta.url)), 'utf8');
const codes = Object.keys(API_ERRORS) as ApiErrorCode[];

test('every registry code is documented in docs/errors.md, with its reason and HTTP status', () => {
  for (const code of codes) {
    const row = docText.split('\n').find((line) => line.startsWith(`| \`${code}\` |`));
    assert.ok(row, `${code} has no row in docs/errors.md`);
    const cells = row.split('|').map((cell) => cell.trim());
    assert.is(cells[2], API_ERRORS[code].reason, `${code} reason in docs`);
    assert.is(cells[3], String(API_ERRORS[code].httpCode), `${code} HTTP code in docs`);
  }
});

const docRow = (code: string): string[] | undefined =>
  docText
    .split('\n')
    .find((line) => line.startsWith(`| \`${code}\` |`))
    ?.split('|')
    .map((cell) => cell.trim());

test('every store code is documented with the reason and HTTP status the API edge sends it with', () => {
  for (const code of STORE_ERROR_CODES) {
    const cells = docRow(code);
    assert.ok(cells, `${code} has no row in docs/errors.md`);
    const { reason, httpCode } = STORE_ERROR_STATUS[code];
    assert.is(cells[2], reason === '' ? '(none)' : reason, `${code} reason in docs`);
    assert.is(cells[3], String(httpCode), `${code} HTTP code in docs`);
    // The table and what storeErrorStatus really builds agree.
    const status = storeErrorStatus(new StoreError(code, 'x'));
    assert.equal([status.reason ?? '', status.code], [reason, httpCode], code);
  }
});

test('every registry code is documented with the API codes it is sent as', () => {
  for (const code of REGISTRY_ERROR_CODES) {
    const cells = docRow(code);
    assert.ok(cells, `${code} has no row in docs/errors.md`);
    const sentAs = REGISTRY_ERROR_SENT_AS[code];
    for (const api of sentAs) assert.ok(cells[4]?.includes(`\`${api}\``), `${code} is sent as ${api}: its row says so`);
    if (sentAs.length === 1) {
      assert.is(cells[2], API_ERRORS[sentAs[0]!].reason, `${code} reason in docs`);
      assert.is(cells[3], String(API_ERRORS[sentAs[0]!].httpCode), `${code} HTTP code in docs`);
    }
  }
});

test('every execution-plane code is documented as the internal error it is sent as', () => {
  for (const code of EXECUTOR_ERROR_CODES) {
    const cells = docRow(code);
    assert.ok(cells, `${code} has no row in docs/errors.md`);
    const api = API_ERRORS[EXECUTOR_ERROR_SENT_AS[code]];
    assert.equal([cells[2], cells[3]], [api.reason, String(api.httpCode)], code);
    assert.is(errorStatus(new ExecutorError(code, 's', 'boom')).code, api.httpCode, `${code} goes out as documented`);
  }
});

test('every code in docs/errors.md exists in a registry or is retired', () => {
  const documented = new Set(docText.match(/FW_ERR_[A-Z0-9_]+/g) ?? []);
  const known = new Set<string>([...codes, ...STORE_ERROR_CODES, ...REGISTRY_ERROR_CODES, ...EXECUTOR_ERROR_CODES]);
  assert.ok(documented.size >= known.size);
  for (const code of documented) {
    assert.ok(known.has(code) || RETIRED_ERROR_CODES.includes(code), `${code} is documented but in no error registry`);
  }
});

test('codes follow FW_ERR_<AREA>_<WHAT> and no retired code is back in use', () => {
  for (const code of [...codes, ...STORE_ERROR_CODES, ...REGISTRY_ERROR_CODES, ...EXECUTOR_ERROR_CODES]) assert.match(code, /^FW_ERR_[A-Z0-9]+_[A-Z0-9_]+$/);
  for (const code of RETIRED_ERROR_CODES) assert.not.ok(Object.hasOwn(API_ERRORS, code), `${code} was retired`);
});

test('NotFound is byte-identical to kube-apiserver, with the plural as details.kind', () => {
  assert.is(
    wire(notFound(PLC, 'foo')),
    '{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"prioritylevelconfigurations.flowcontrol.apiserver.k8s.io ' +
      '\\"foo\\" not found","reason":"NotFound","details":{"name":"foo","group":"flowcontrol.apiserver.k8s.io","kind":"prioritylevelconfigurations"},' +
      '"code":404}',
  );
  assert.is(
    wire(routeNotFound()),
    '{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"the server could not find the requested resource",' +
      '"reason":"NotFound","details":{},"code":404}',
  );
});

test('Unauthorized is the exact body kubectl expects, without details', () => {
  assert.is(
    wire(unauthorized()),
    '{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"Unauthorized","reason":"Unauthorized","code":401}',
  );
});

test('AlreadyExists and Conflict', () => {
  const exists = storeErrorStatus(alreadyExistsError({ ...PLC, kind: 'PriorityLevelConfiguration' }, 'a'));
  assert.is(
    wire(exists),
    '{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"prioritylevelconfigurations.flowcontrol.apiserver.k8s.io \\"a\\" ' +
      'already exists","reason":"AlreadyExists","details":{"name":"a","group":"flowcontrol.apiserver.k8s.io","kind":"prioritylevelconfigurations"},' +
      '"code":409}',
  );
  const stale = conflict(PLC, 'alpha');
  assert.is(
    stale.message,
    'Operation cannot be fulfilled on prioritylevelconfigurations.flowcontrol.apiserver.k8s.io "alpha": the object has been modified; please apply ' +
      'your changes to the latest version and try again',
  );
  assert.equal(stale.details, { name: 'alpha', group: PLC.group, kind: PLC.resource });
});

test('Invalid lists each distinct message once, keeps every cause, and names the Kind', () => {
  const errors = [notSupported('spec.type', 'Weird', ['Exempt', 'Limited']), required('spec.limited'), required('spec.limited')];
  const status = invalid({ group: PLC.group, kind: 'PriorityLevelConfiguration' }, 'delta', errors);
  assert.is(
    status.message,
    'PriorityLevelConfiguration.flowcontrol.apiserver.k8s.io "delta" is invalid: [spec.type: Unsupported value: "Weird": supported values: "Exempt", ' +
      '"Limited", spec.limited: Required value]',
  );
  assert.equal(status.details, {
    name: 'delta',
    group: PLC.group,
    kind: 'PriorityLevelConfiguration',
    causes: [
      { reason: 'FieldValueNotSupported', message: 'Unsupported value: "Weird": supported values: "Exempt", "Limited"', field: 'spec.type' },
      { reason: 'FieldValueRequired', message: 'Required value', field: 'spec.limited' },
      { reason: 'FieldValueRequired', message: 'Required value', field: 'spec.limited' },
    ],
  });
  assert.is(status.code, 422);
  const one = invalid({ group: PLC.group, kind: 'PriorityLevelConfiguration' }, 'x', [
    invalidField('spec.limited.lendablePercent', 101, 'must be between 0 and 100, inclusive'),
  ]);
  assert.is(
    one.message,
    'PriorityLevelConfiguration.flowcontrol.apiserver.k8s.io "x" is invalid: spec.limited.lendablePercent: Invalid value: 101: must be between 0 and ' +
      '100, inclusive',
  );
});

test('Forbidden follows the authorization filter: named, collection, subresource, namespace, path, reason', () => {
  const base = { user: 'probe', verb: 'delete', group: PLC.group, resource: PLC.resource };
  const named = forbidden({ ...base, name: 'beta' });
  assert.is(
    named.message,
    'prioritylevelconfigurations.flowcontrol.apiserver.k8s.io "beta" is forbidden: User "probe" cannot delete resource "prioritylevelconfigurations" ' +
      'in API group "flowcontrol.apiserver.k8s.io" at the cluster scope',
  );
  assert.equal(named.details, { name: 'beta', group: PLC.group, kind: PLC.resource });
  assert.is(
    forbidden({ ...base, verb: 'list' }).message,
    'prioritylevelconfigurations.flowcontrol.apiserver.k8s.io is forbidden: User "probe" cannot list resource "prioritylevelconfigurations" in API ' +
      'group "flowcontrol.apiserver.k8s.io" at the cluster scope',
  );
  const status = forbidden({ ...base, verb: 'update', subresource: 'status', name: 'x', reason: 'no RBAC policy matched' });
  assert.match(status.message!, /cannot update resource "prioritylevelconfigurations\/status" in API group .* at the cluster scope: no RBAC policy matched$/);
  assert.is(status.details?.kind, 'prioritylevelconfigurations');
  assert.match(forbidden({ user: 'u', verb: 'get', group: '', resource: 'pods', namespace: 'ns' }).message!, /^pods is forbidden: .* in the namespace "ns"$/);
  const path = forbidden({ user: 'u', verb: 'get', path: '/metrics' });
  assert.is(
    wire(path),
    '{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"forbidden: User \\"u\\" cannot get path \\"/metrics\\"",' +
      '"reason":"Forbidden","details":{},"code":403}',
  );
  assert.is(errorCodeOf(path), 'FW_ERR_AUTHZ_FORBIDDEN_PATH');
});

test('negotiation and size errors carry the kube wording', () => {
  assert.is(notAcceptable(['application/json', 'application/yaml']).message, 'only the following media types are accepted: application/json, application/yaml');
  assert.is(notAcceptable([]).code, 406);
  const media = unsupportedMediaType(['application/json']);
  assert.equal([media.reason, media.code, media.details], ['UnsupportedMediaType', 415, undefined]);
  assert.is(requestEntityTooLarge().message, 'Request entity too large: limit is 3145728');
});

test('a strict decoding error lists the unknown fields that fit in 8 KiB, then how many it left out', () => {
  const problems = Array.from({ length: 5_000 }, (_, i) => `unknown field "spec.unknown${i}"`);
  const message = strictDecoding('PriorityLevelConfiguration', 'v1', problems).message ?? '';
  assert.ok(message.length < MAX_FIELD_ERRORS_TEXT + 300, `${message.length} characters`);
  const shown = message.split(', unknown field').length;
  assert.ok(message.includes('strict decoding error: unknown field "spec.unknown0", unknown field "spec.unknown1", '), message.slice(0, 200));
  assert.ok(message.endsWith(`, and ${5_000 - shown} more errors`), message.slice(-80));
  const long = strictDecoding('PriorityLevelConfiguration', 'v1', [`unknown field "spec.${'k'.repeat(1_000_000)}"`]).message ?? '';
  assert.ok(long.length < MAX_FIELD_ERRORS_TEXT + 300 && long.endsWith('kkk...'), `${long.length} characters`);
});

test('quoted user input is quoted as Go quotes it', () => {
  assert.is(unrecognizedIncludeObject('a"b\n').message, 'unrecognized includeObject value: "a\\"b\\n"');
  assert.is(nameMismatch('x', 'y').message, 'the name of the object (x) does not match the name on the URL (y)');
  assert.is(
    strictDecoding('PriorityLevelConfiguration', 'v1', ['unknown field "spec.bogus"', 'duplicate field "spec.type"']).message,
    'PriorityLevelConfiguration in version "v1" cannot be handled as a PriorityLevelConfiguration: strict decoding error: unknown field "spec.bogus",' +
      ' duplicate field "spec.type"',
  );
});

test('500 and 504 set details as the Go constructors do', () => {
  const internal = internalError(new Error('disk on fire'));
  assert.equal([internal.message, internal.details], ['Internal error occurred: disk on fire', { causes: [{ message: 'disk on fire' }] }]);
  assert.is(
    wire(timeout()),
    '{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"Timeout: request did not complete within requested timeout - ' +
      'context deadline exceeded","reason":"Timeout","details":{},"code":504}',
  );
});

test('every builder stamps a code whose reason and HTTP status match its Status', () => {
  const all = [notFound(PLC, 'a'), unauthorized(), timeout(), internalError('x'), forbidden({ user: 'u', verb: 'get', ...PLC })];
  for (const status of all) {
    const code = errorCodeOf(status);
    assert.ok(code, `no code on ${status.reason}`);
    assert.is(status.reason, API_ERRORS[code].reason);
    assert.is(status.code, API_ERRORS[code].httpCode);
    assert.not.match(JSON.stringify(status), /FW_ERR/);
  }
});

test('ApiError carries the status, the code and the cause, and is recognised by code', () => {
  const cause = new Error('leveldb: closed');
  const error = new ApiError(internalError(cause), { cause });
  assert.is(error.code, 'FW_ERR_SERVER_INTERNAL');
  assert.is(error.cause, cause);
  assert.is(error.message, 'Internal error occurred: leveldb: closed');
  assert.ok(isApiError(error));
  assert.ok(isApiError({ code: 'FW_ERR_RESOURCE_NOT_FOUND', status: {} }));
  assert.not.ok(isApiError(new Error('x')));
  assert.not.ok(isApiError({ code: 'ENOENT', status: {} }));
  assert.not.ok(isApiError(null));
});

test.run();
