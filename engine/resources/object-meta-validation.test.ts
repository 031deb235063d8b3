import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { formatFieldError } from './field-errors.ts';
import type { FieldError } from './field-errors.ts';
import {
  isDns1123Label,
  isDns1123Subdomain,
  isQualifiedName,
  isValidLabelValue,
  nameIsDnsSubdomain,
  validateObjectMeta,
  validateObjectMetaUpdate,
} from './object-meta-validation.ts';

// The texts kube-apiserver prints (apimachinery util/validation), spelled out independently.
const SUBDOMAIN_REGEX = String.raw`[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*`;
const SUBDOMAIN_MESSAGE =
  "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character " +
  `(e.g. 'example.com', regex used for validation is '${SUBDOMAIN_REGEX}')`;
const LABEL_MESSAGE =
  "a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character " +
  "(e.g. 'my-name',  or '123-abc', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')";
const QUALIFIED_NAME_MESSAGE =
  "must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character " +
  "(e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')";
const LABEL_VALUE_MESSAGE =
  "a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character " +
  "(e.g. 'MyValue',  or 'my_value',  or '12345', regex used for validation is '(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')";

const lines = (errors: FieldError[]): string[] => errors.map(formatFieldError);

test('DNS-1123 subdomain: lowercase, dots allowed, at most 253 bytes', () => {
  for (const ok of ['a', 'example.com', 'catch-all', '0.1-2', 'a'.repeat(253)]) assert.equal(isDns1123Subdomain(ok), [], ok);
  for (const bad of ['', 'Example', 'a_b', '-a', 'a-', 'a..b', '.a']) assert.equal(isDns1123Subdomain(bad), [SUBDOMAIN_MESSAGE], bad);
  assert.equal(isDns1123Subdomain('a'.repeat(254)), ['must be no more than 253 characters']);
  assert.equal(isDns1123Subdomain('A'.repeat(254)), ['must be no more than 253 characters', SUBDOMAIN_MESSAGE]);
});

test('DNS-1123 label: no dots, at most 63 bytes, a subdomain-shaped value is told about its dots', () => {
  for (const ok of ['a', 'kube-system', '123-abc', 'a'.repeat(63)]) assert.equal(isDns1123Label(ok), [], ok);
  assert.equal(isDns1123Label('-foo'), [LABEL_MESSAGE]);
  assert.equal(isDns1123Label('Kube'), [LABEL_MESSAGE]);
  assert.equal(isDns1123Label('kube.system'), ['must not contain dots']);
  assert.equal(isDns1123Label('a'.repeat(64)), ['must be no more than 63 characters']);
});

test('qualified names and label values', () => {
  for (const ok of ['a', 'MyName', 'my.name', 'example.com/My_Name', 'apf.kubernetes.io/autoupdate-spec']) assert.equal(isQualifiedName(ok), [], ok);
  assert.equal(isQualifiedName('bad key'), [`name part ${QUALIFIED_NAME_MESSAGE}`]);
  assert.equal(isQualifiedName('/a'), ['prefix part must be non-empty']);
  assert.equal(isQualifiedName('Bad.Prefix/a'), [`prefix part ${SUBDOMAIN_MESSAGE}`]);
  assert.equal(isQualifiedName('a/'), ['name part must be non-empty', `name part ${QUALIFIED_NAME_MESSAGE}`]);
  assert.equal(isQualifiedName('a'.repeat(64)), ['name part must be no more than 63 characters']);
  assert.equal(isQualifiedName('a/b/c'), [
    `a qualified name ${QUALIFIED_NAME_MESSAGE} with an optional DNS subdomain prefix and '/' (e.g. 'example.com/MyName')`,
  ]);
  for (const ok of ['', 'MyValue', 'my_value', '12345']) assert.equal(isValidLabelValue(ok), [], ok);
  assert.equal(isValidLabelValue('-x'), [LABEL_VALUE_MESSAGE]);
  assert.equal(isValidLabelValue('x'.repeat(64)), ['must be no more than 63 characters']);
});

test('generateName may end in a dash', () => {
  assert.equal(nameIsDnsSubdomain('flow-', true), []);
  assert.equal(nameIsDnsSubdomain('flow-', false), [SUBDOMAIN_MESSAGE]);
  const errors = validateObjectMeta({ name: 'x', generateName: 'Flow-' });
  assert.equal(lines(errors), [`metadata.generateName: Invalid value: "Flow-": ${SUBDOMAIN_MESSAGE}`]);
});

test('a valid cluster-scoped ObjectMeta passes', () => {
  const meta = {
    name: 'global-default',
    labels: { 'app.kubernetes.io/name': 'fairway', tier: '' },
    annotations: { 'apf.kubernetes.io/autoupdate-spec': 'true', 'Example.COM/Note': 'free text' },
    finalizers: ['example.com/cleanup', 'kubernetes'],
  };
  assert.equal(validateObjectMeta(meta, 'metadata'), []);
});

test('name: required, then a DNS subdomain with one error per message', () => {
  assert.equal(lines(validateObjectMeta({})), ['metadata.name: Required value: name or generateName is required']);
  assert.equal(lines(validateObjectMeta(undefined)), ['metadata.name: Required value: name or generateName is required']);
  assert.equal(lines(validateObjectMeta({ name: 'Bad_Name' })), [`metadata.name: Invalid value: "Bad_Name": ${SUBDOMAIN_MESSAGE}`]);
  const tooLong = 'X'.repeat(254);
  assert.equal(lines(validateObjectMeta({ name: tooLong })), [
    `metadata.name: Invalid value: "${tooLong}": must be no more than 253 characters`,
    `metadata.name: Invalid value: "${tooLong}": ${SUBDOMAIN_MESSAGE}`,
  ]);
});

test('cluster-scoped objects forbid a namespace; namespaced ones require a DNS label', () => {
  assert.equal(lines(validateObjectMeta({ name: 'a', namespace: 'default' })), ['metadata.namespace: Forbidden: not allowed on this type']);
  assert.equal(validateObjectMeta({ name: 'a', namespace: '' }), []);
  assert.equal(lines(validateObjectMeta({ name: 'a' }, 'metadata', { namespaced: true })), ['metadata.namespace: Required value']);
  assert.equal(lines(validateObjectMeta({ name: 'a', namespace: 'a.b' }, 'metadata', { namespaced: true })), [
    'metadata.namespace: Invalid value: "a.b": must not contain dots',
  ]);
});

test('labels: keys are qualified names, values label values, reported at metadata.labels', () => {
  const errors = validateObjectMeta({ name: 'a', labels: { 'bad key': 'ok', good: '-bad-' } });
  assert.equal(lines(errors), [
    `metadata.labels: Invalid value: "bad key": name part ${QUALIFIED_NAME_MESSAGE}`,
    `metadata.labels: Invalid value: "-bad-": ${LABEL_VALUE_MESSAGE}`,
  ]);
});

test('annotations: keys are case-insensitive qualified names; the total is at most 256 KiB', () => {
  const badKey = validateObjectMeta({ name: 'a', annotations: { 'Has Space': 'x' } });
  assert.equal(lines(badKey), [`metadata.annotations: Invalid value: "Has Space": name part ${QUALIFIED_NAME_MESSAGE}`]);

  const atLimit = { k: 'v'.repeat(256 * 1024 - 1) };
  assert.equal(validateObjectMeta({ name: 'a', annotations: atLimit }), []);
  const overLimit = validateObjectMeta({ name: 'a', annotations: { k: 'v'.repeat(256 * 1024) } });
  assert.is(overLimit.length, 1);
  assert.is(overLimit[0]!.field, 'metadata.annotations');
  assert.is(overLimit[0]!.type, 'FieldValueTooLong');
  assert.match(overLimit[0]!.detail, /262144/);
});

test('generation may not be negative; finalizers must be qualified and standard when bare', () => {
  assert.equal(lines(validateObjectMeta({ name: 'a', generation: -1 })), ['metadata.generation: Invalid value: -1: must be greater than or equal to 0']);
  assert.equal(lines(validateObjectMeta({ name: 'a', finalizers: ['custom'] })), [
    'metadata.finalizers[0]: Invalid value: "custom": name is neither a standard finalizer name nor is it fully qualified',
  ]);
  const both = validateObjectMeta({ name: 'a', finalizers: ['orphan', 'foregroundDeletion'] });
  assert.equal(
    both.map((e) => [e.field, e.type, e.detail]),
    [['metadata.finalizers', 'FieldValueInvalid', 'finalizer orphan and foregroundDeletion cannot be both set']],
  );
});

test('owner references need a version, kind, name and uid', () => {
  const errors = validateObjectMeta({ name: 'a', ownerReferences: [{ apiVersion: '', kind: '', name: '', uid: '' }] });
  assert.equal(lines(errors), [
    'metadata.ownerReferences.apiVersion: Invalid value: "": version must not be empty',
    'metadata.ownerReferences.kind: Invalid value: "": must not be empty',
    'metadata.ownerReferences.name: Invalid value: "": must not be empty',
    'metadata.ownerReferences.uid: Invalid value: "": must not be empty',
  ]);
  assert.equal(validateObjectMeta({ name: 'a', ownerReferences: [{ apiVersion: 'v1', kind: 'ConfigMap', name: 'c', uid: 'u' }] }), []);
});

test('update: name, uid and creationTimestamp are immutable', () => {
  const old = { name: 'a', uid: 'u-1', creationTimestamp: '2024-01-01T00:00:00Z', resourceVersion: '5' };
  assert.equal(validateObjectMetaUpdate({ ...old, resourceVersion: '6', labels: { x: 'y' } }, old), []);
  // The same instant written another way is the same time.
  assert.equal(validateObjectMetaUpdate({ ...old, creationTimestamp: '2024-01-01T01:00:00+01:00' }, old), []);
  assert.equal(lines(validateObjectMetaUpdate({ ...old, name: 'b' }, old)), ['metadata.name: Invalid value: "b": field is immutable']);
  assert.equal(lines(validateObjectMetaUpdate({ ...old, uid: 'u-2' }, old)), ['metadata.uid: Invalid value: "u-2": field is immutable']);
  assert.equal(lines(validateObjectMetaUpdate({ ...old, creationTimestamp: '2025-01-01T00:00:00Z' }, old)), [
    'metadata.creationTimestamp: Invalid value: "2025-01-01T00:00:00Z": field is immutable',
  ]);
  assert.equal(lines(validateObjectMetaUpdate({ ...old, namespace: 'x' }, old)), ['metadata.namespace: Invalid value: "x": field is immutable']);
});

test('update: no new finalizers once deletion started; labels are still checked', () => {
  const old = { name: 'a', deletionTimestamp: '2024-01-01T00:00:00Z', finalizers: ['example.com/a'] };
  assert.equal(lines(validateObjectMetaUpdate({ ...old, finalizers: ['example.com/a', 'example.com/b'] }, old)), [
    'metadata.finalizers: Forbidden: no new finalizers can be added if the object is being deleted, found new finalizers []string{"example.com/b"}',
  ]);
  assert.equal(validateObjectMetaUpdate({ ...old, finalizers: [] }, old), []);
  assert.equal(lines(validateObjectMetaUpdate({ name: 'a', labels: { k: '-' } }, { name: 'a' })), [
    `metadata.labels: Invalid value: "-": ${LABEL_VALUE_MESSAGE}`,
  ]);
});

test.run();
