import { test } from 'uvu';
import * as assert from 'uvu/assert';
import type { FlowSchema, FlowSchemaSpec, PolicyRulesWithSubjects, Subject } from './types.ts';
import type { FieldError } from './field-errors.ts';
import { formatFieldError } from './field-errors.ts';
import { validateFlowSchema, validateFlowSchemaStatusUpdate, validateFlowSchemaUpdate } from './flow-schema-validation.ts';
import { defaultFlowSchema } from './defaults.ts';
import { mandatoryFlowSchemas } from './bootstrap.ts';

const SUBDOMAIN_MESSAGE =
  "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character " +
  String.raw`(e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')`;
const LABEL_MESSAGE =
  "a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character " +
  "(e.g. 'my-name',  or '123-abc', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')";
const VERBS = 'supported values: "create", "delete", "deletecollection", "get", "list", "patch", "proxy", "update", "watch"';
const RULE = 'spec.rules[0]';
const SUBJECT = `${RULE}.subjects[0]`;
const RESOURCE_RULE = `${RULE}.resourceRules[0]`;
const NON_RESOURCE_RULE = `${RULE}.nonResourceRules[0]`;

/** A valid schema; `change` edits a copy of its spec. */
function schema(change: (spec: FlowSchemaSpec & { rules: PolicyRulesWithSubjects[] }) => void = () => {}, name = 'system-foo'): FlowSchema {
  const spec = {
    priorityLevelConfiguration: { name: 'system-bar' },
    matchingPrecedence: 50,
    rules: [
      {
        subjects: [{ kind: 'User', user: { name: 'noxu' } }] as Subject[],
        resourceRules: [{ verbs: ['*'], apiGroups: ['*'], resources: ['*'], clusterScope: true, namespaces: ['*'] }],
      },
    ] as PolicyRulesWithSubjects[],
  };
  change(spec);
  return { metadata: { name }, spec };
}
const rule0 = (spec: { rules: PolicyRulesWithSubjects[] }): PolicyRulesWithSubjects => spec.rules[0]!;
const withSubject = (subject: Record<string, unknown>): FlowSchema => schema((s) => (rule0(s).subjects = [subject as Subject]));
const withResourceRule = (r: Record<string, unknown>): FlowSchema => schema((s) => (rule0(s).resourceRules = [r]));
const withNonResourceRule = (r: Record<string, unknown>): FlowSchema =>
  schema((s) => {
    delete rule0(s).resourceRules;
    rule0(s).nonResourceRules = [r];
  });

const lines = (errors: FieldError[]): string[] => errors.map(formatFieldError);
const check = (fs: FlowSchema): string[] => lines(validateFlowSchema(fs));
const triples = (errors: FieldError[]): [string, string, string][] => errors.map((e) => [e.field, e.type, e.detail]);

test('a well-formed schema passes', () => {
  assert.equal(check(schema()), []);
  assert.equal(check(withNonResourceRule({ verbs: ['get', 'list'], nonResourceURLs: ['/', '/foo', '/apis/', '/healthz/*'] })), []);
});

test('F1–F3: matchingPrecedence in [1, 10000], and 1 only for exempt', () => {
  assert.equal(check(schema((s) => (s.matchingPrecedence = -1))), ['spec.matchingPrecedence: Invalid value: -1: must be a positive value']);
  assert.equal(check(schema((s) => (s.matchingPrecedence = 0))), ['spec.matchingPrecedence: Invalid value: 0: must be a positive value']);
  assert.equal(check(schema((s) => (s.matchingPrecedence = 10001))), ['spec.matchingPrecedence: Invalid value: 10001: must not be greater than 10000']);
  assert.equal(check(schema((s) => (s.matchingPrecedence = 10000))), []);
  assert.equal(check(schema((s) => (s.matchingPrecedence = 1))), [
    "spec.matchingPrecedence: Invalid value: 1: only the schema named 'exempt' may have matchingPrecedence 1",
  ]);
  assert.equal(check(schema((s) => (s.matchingPrecedence = 2))), []);
  // A client that leaves the precedence out gets 1000 from defaulting, which is valid.
  assert.equal(check(defaultFlowSchema(schema((s) => delete s.matchingPrecedence))), []);
});

test('F4: distinguisherMethod.type must be ByNamespace or ByUser; the bad value is the method', () => {
  for (const type of ['ByUser', 'ByNamespace']) assert.equal(check(schema((s) => (s.distinguisherMethod = { type }))), []);
  const errors = validateFlowSchema(schema((s) => (s.distinguisherMethod = { type: 'ByGroup' })));
  assert.equal(triples(errors), [['spec.distinguisherMethod.type', 'FieldValueNotSupported', 'supported values: "ByNamespace", "ByUser"']]);
  assert.equal(errors[0]!.value, { type: 'ByGroup' });
});

test('F5–F6: the priority level name is required and a DNS subdomain, one error per message', () => {
  assert.equal(check(schema((s) => (s.priorityLevelConfiguration = { name: '' }))), [
    'spec.priorityLevelConfiguration.name: Required value: must reference a priority level',
  ]);
  assert.equal(check(schema((s) => delete s.priorityLevelConfiguration)), [
    'spec.priorityLevelConfiguration.name: Required value: must reference a priority level',
  ]);
  assert.equal(check(schema((s) => (s.priorityLevelConfiguration = { name: 'system_bar' }))), [
    `spec.priorityLevelConfiguration.name: Invalid value: "system_bar": ${SUBDOMAIN_MESSAGE}`,
  ]);
  const long = `A${'a'.repeat(253)}`;
  assert.equal(check(schema((s) => (s.priorityLevelConfiguration = { name: long }))), [
    `spec.priorityLevelConfiguration.name: Invalid value: "${long}": must be no more than 253 characters`,
    `spec.priorityLevelConfiguration.name: Invalid value: "${long}": ${SUBDOMAIN_MESSAGE}`,
  ]);
});

test('F7–F8: a rule needs subjects and at least one kind of rule', () => {
  assert.equal(check(schema((s) => (rule0(s).subjects = []))), [`${RULE}.subjects: Required value: subjects must contain at least one value`]);
  assert.equal(check(schema((s) => (s.rules = [{ subjects: [{ kind: 'Group', group: { name: 'g' } }], resourceRules: [], nonResourceRules: [] }]))), [
    `${RULE}: Required value: at least one of resourceRules and nonResourceRules has to be non-empty`,
  ]);
  assert.equal(check(schema((s) => (s.rules = []))), [], 'a schema with no rules is valid (it matches nothing)');
});

test('S1–S5: service account subjects', () => {
  assert.equal(check(withSubject({ kind: 'ServiceAccount', serviceAccount: { namespace: 'kube-system', name: '*' } })), []);
  assert.equal(check(withSubject({ kind: 'ServiceAccount', serviceAccount: { namespace: 'ns', name: 'builder' } })), []);
  assert.equal(check(withSubject({ kind: 'ServiceAccount' })), [
    `${SUBJECT}.serviceAccount: Required value: serviceAccount is required when subject kind is 'ServiceAccount'`,
  ]);
  assert.equal(check(withSubject({ kind: 'ServiceAccount', serviceAccount: { namespace: 'ns', name: '' } })), [
    `${SUBJECT}.serviceAccount.name: Required value`,
  ]);
  assert.equal(check(withSubject({ kind: 'ServiceAccount', serviceAccount: { namespace: 'ns', name: 'Bad' } })), [
    `${SUBJECT}.serviceAccount.name: Invalid value: "Bad": ${SUBDOMAIN_MESSAGE}`,
  ]);
  assert.equal(check(withSubject({ kind: 'ServiceAccount', serviceAccount: { name: 'sa' } })), [
    `${SUBJECT}.serviceAccount.namespace: Required value: must specify namespace for service account`,
  ]);
  assert.equal(check(withSubject({ kind: 'ServiceAccount', serviceAccount: { namespace: 'kube.system', name: 'sa' } })), [
    `${SUBJECT}.serviceAccount.namespace: Invalid value: "kube.system": must not contain dots`,
  ]);
  assert.equal(check(withSubject({ kind: 'ServiceAccount', serviceAccount: { namespace: '-ns', name: 'sa' } })), [
    `${SUBJECT}.serviceAccount.namespace: Invalid value: "-ns": ${LABEL_MESSAGE}`,
  ]);
});

test('S6–S9: user and group subjects need their member and a name', () => {
  assert.equal(check(withSubject({ kind: 'User', user: { name: '*' } })), []);
  assert.equal(check(withSubject({ kind: 'Group', group: { name: 'system:authenticated' } })), []);
  assert.equal(check(withSubject({ kind: 'User' })), [`${SUBJECT}.user: Required value: user is required when subject kind is 'User'`]);
  assert.equal(check(withSubject({ kind: 'User', user: { name: '' } })), [`${SUBJECT}.user.name: Required value`]);
  assert.equal(check(withSubject({ kind: 'Group', group: null })), [`${SUBJECT}.group: Required value: group is required when subject kind is 'Group'`]);
  assert.equal(check(withSubject({ kind: 'Group', group: {} })), [`${SUBJECT}.group.name: Required value`]);
});

test('S10: members of other kinds are forbidden', () => {
  assert.equal(check(withSubject({ kind: 'User', user: { name: 'u' }, group: { name: 'g' }, serviceAccount: { namespace: 'n', name: 's' } })), [
    `${SUBJECT}.serviceAccount: Forbidden: serviceAccount is forbidden when subject kind is not 'ServiceAccount'`,
    `${SUBJECT}.group: Forbidden: group is forbidden when subject kind is not 'Group'`,
  ]);
  assert.equal(check(withSubject({ kind: 'Group', group: { name: 'g' }, user: { name: 'u' } })), [
    `${SUBJECT}.user: Forbidden: user is forbidden when subject kind is not 'User'`,
  ]);
  assert.equal(check(withSubject({ kind: 'ServiceAccount', serviceAccount: { namespace: 'n', name: 's' }, group: { name: 'g' } })), [
    `${SUBJECT}.group: Forbidden: group is forbidden when subject kind is not 'Group'`,
  ]);
});

test('S11: an unknown subject kind', () => {
  assert.equal(check(withSubject({ kind: 'Robot', user: { name: 'u' } })), [
    `${SUBJECT}.kind: Unsupported value: "Robot": supported values: "Group", "ServiceAccount", "User"`,
  ]);
});

test('R1–R3: resource rule verbs', () => {
  assert.equal(check(withResourceRule({ verbs: ['get', 'watch', 'proxy'], apiGroups: [''], resources: ['pods'], namespaces: ['*'] })), []);
  assert.equal(check(withResourceRule({ verbs: [], apiGroups: ['*'], resources: ['*'], clusterScope: true })), [
    `${RESOURCE_RULE}.verbs: Required value: verbs must contain at least one value`,
  ]);
  assert.equal(triples(validateFlowSchema(withResourceRule({ verbs: ['*', 'get'], apiGroups: ['*'], resources: ['*'], clusterScope: true }))), [
    [`${RESOURCE_RULE}.verbs`, 'FieldValueInvalid', "if '*' is present, must not specify other verbs"],
  ]);
  const unsupported = validateFlowSchema(withResourceRule({ verbs: ['get', 'post'], apiGroups: ['*'], resources: ['*'], clusterScope: true }));
  assert.equal(triples(unsupported), [[`${RESOURCE_RULE}.verbs`, 'FieldValueNotSupported', VERBS]]);
  assert.equal(unsupported[0]!.value, ['get', 'post']);
});

test('R4–R7: api groups and resources', () => {
  assert.equal(check(withResourceRule({ verbs: ['*'], apiGroups: ['', 'apps'], resources: ['pods', 'pods/log'], namespaces: ['*'] })), []);
  assert.equal(check(withResourceRule({ verbs: ['*'], resources: ['*'], clusterScope: true })), [
    `${RESOURCE_RULE}.apiGroups: Required value: resource rules must supply at least one api group`,
  ]);
  assert.equal(triples(validateFlowSchema(withResourceRule({ verbs: ['*'], apiGroups: ['apps', '*'], resources: ['*'], clusterScope: true }))), [
    [`${RESOURCE_RULE}.apiGroups`, 'FieldValueInvalid', "if '*' is present, must not specify other api groups"],
  ]);
  assert.equal(check(withResourceRule({ verbs: ['*'], apiGroups: ['*'], resources: [], clusterScope: true })), [
    `${RESOURCE_RULE}.resources: Required value: resource rules must supply at least one resource`,
  ]);
  assert.equal(triples(validateFlowSchema(withResourceRule({ verbs: ['*'], apiGroups: ['*'], resources: ['*', 'pods'], clusterScope: true }))), [
    [`${RESOURCE_RULE}.resources`, 'FieldValueInvalid', "if '*' is present, must not specify other resources"],
  ]);
});

test('R8–R10: namespaces', () => {
  assert.equal(check(withResourceRule({ verbs: ['*'], apiGroups: ['*'], resources: ['*'], clusterScope: true })), [], 'cluster scope needs no namespace');
  assert.equal(check(withResourceRule({ verbs: ['*'], apiGroups: ['*'], resources: ['*'], namespaces: ['default', 'kube-system'] })), []);
  assert.equal(check(withResourceRule({ verbs: ['*'], apiGroups: ['*'], resources: ['*'] })), [
    `${RESOURCE_RULE}.namespaces: Required value: resource rules that are not cluster scoped must supply at least one namespace`,
  ]);
  assert.equal(triples(validateFlowSchema(withResourceRule({ verbs: ['*'], apiGroups: ['*'], resources: ['*'], namespaces: ['foo', '*'] }))), [
    [`${RESOURCE_RULE}.namespaces`, 'FieldValueInvalid', "if '*' is present, must not specify other namespaces"],
  ]);
  assert.equal(check(withResourceRule({ verbs: ['*'], apiGroups: ['*'], resources: ['*'], namespaces: ['ok', '-foo'] })), [
    `${RESOURCE_RULE}.namespaces[1]: Invalid value: "-foo": each member of this list must be '*' or a DNS-1123 label; ${LABEL_MESSAGE}`,
  ]);
});

test('N1: non-resource verbs follow the resource verb rules', () => {
  assert.equal(check(withNonResourceRule({ verbs: [], nonResourceURLs: ['/x'] })), [
    `${NON_RESOURCE_RULE}.verbs: Required value: verbs must contain at least one value`,
  ]);
  assert.equal(triples(validateFlowSchema(withNonResourceRule({ verbs: ['*', 'get'], nonResourceURLs: ['/x'] }))), [
    [`${NON_RESOURCE_RULE}.verbs`, 'FieldValueInvalid', "if '*' is present, must not specify other verbs"],
  ]);
  assert.equal(triples(validateFlowSchema(withNonResourceRule({ verbs: ['post'], nonResourceURLs: ['/x'] }))), [
    [`${NON_RESOURCE_RULE}.verbs`, 'FieldValueNotSupported', VERBS],
  ]);
  assert.equal(check(withNonResourceRule({ verbs: ['*'], nonResourceURLs: ['/x'] })), []);
});

test('N2–N3: the URL list', () => {
  assert.equal(check(withNonResourceRule({ verbs: ['*'], nonResourceURLs: [] })), [
    `${NON_RESOURCE_RULE}.nonResourceURLs: Required value: nonResourceURLs must contain at least one value`,
  ]);
  assert.equal(triples(validateFlowSchema(withNonResourceRule({ verbs: ['*'], nonResourceURLs: ['*', '/x'] }))), [
    [`${NON_RESOURCE_RULE}.nonResourceURLs`, 'FieldValueInvalid', "if '*' is present, must not specify other non-resource URLs"],
  ]);
  assert.equal(check(withNonResourceRule({ verbs: ['*'], nonResourceURLs: ['*'] })), []);
});

test('N4–N8: each URL, with the fact sheet examples', () => {
  const urlError = (url: string): string[] => check(withNonResourceRule({ verbs: ['get'], nonResourceURLs: [url] }));
  for (const ok of ['/', '/foo', '/apis/', '/healthz/*']) assert.equal(urlError(ok), [], ok);
  const at = `${NON_RESOURCE_RULE}.nonResourceURLs[0]`;
  assert.equal(urlError(''), [`${at}: Invalid value: "": must not be empty`]);
  assert.equal(urlError('foo'), [`${at}: Invalid value: "foo": must start with slash`]);
  assert.equal(urlError('/healthz/foo bar'), [`${at}: Invalid value: "/healthz/foo bar": must not contain white-space`]);
  for (const bad of ['//', '/////']) assert.equal(urlError(bad), [`${at}: Invalid value: "${bad}": must not contain double slash`]);
  for (const bad of ['/healthz/*/foo', '/health*', '/health*/foo', '/*/*']) {
    assert.equal(urlError(bad), [`${at}: Invalid value: "${bad}": wildcard can only do suffix matching`], bad);
  }
});

test('M1: the mandatory schemas must keep their fixed spec; other names may change freely', () => {
  for (const fs of mandatoryFlowSchemas()) assert.equal(check(defaultFlowSchema(fs)), [], fs.metadata?.name);
  const exempt = defaultFlowSchema(mandatoryFlowSchemas()[0]!);
  exempt.spec!.distinguisherMethod = { type: 'ByUser' };
  assert.equal(triples(validateFlowSchema(exempt)), [['spec', 'FieldValueInvalid', "spec of 'exempt' must equal the fixed value"]]);
  const catchAll = defaultFlowSchema(mandatoryFlowSchemas()[1]!);
  catchAll.spec!.matchingPrecedence = 9999;
  assert.equal(triples(validateFlowSchema(catchAll)), [['spec', 'FieldValueInvalid', "spec of 'catch-all' must equal the fixed value"]]);
  // Semantically equal is enough: a null pointer equals a missing one, key order does not matter.
  const same = defaultFlowSchema(mandatoryFlowSchemas()[0]!);
  same.spec!.distinguisherMethod = null;
  same.spec!.rules![0]!.nonResourceRules![0] = { nonResourceURLs: ['*'], verbs: ['*'] };
  assert.equal(check(same), []);
});

test('ST1–ST2: status conditions need a type, and types do not repeat', () => {
  const withConditions = (conditions: object[]): FlowSchema => ({ ...schema(), status: { conditions } });
  assert.equal(
    check(
      withConditions([
        { type: 'Dangling', status: 'False' },
        { type: 'Other', status: 'True' },
      ]),
    ),
    [],
  );
  assert.equal(check(withConditions([{ status: 'True' }])), ['status.conditions[0].type: Required value: must not be empty']);
  assert.equal(check(withConditions([{ type: 'Dangling' }, { type: 'Dangling' }])), ['status.conditions[1].type: Duplicate value: "Dangling"']);
});

test('evaluation order: metadata, spec, mandatory check, status', () => {
  const fs: FlowSchema = {
    metadata: { name: 'exempt', namespace: 'ns' },
    spec: { matchingPrecedence: 20000, priorityLevelConfiguration: { name: '' }, rules: [{ subjects: [] }] },
    status: { conditions: [{ type: '' }] },
  };
  assert.equal(
    validateFlowSchema(fs).map((e) => e.field),
    [
      'metadata.namespace',
      'spec.matchingPrecedence',
      'spec.priorityLevelConfiguration.name',
      'spec.rules[0].subjects',
      'spec.rules[0]',
      'spec',
      'status.conditions[0].type',
    ],
  );
});

test('update re-runs full validation after the ObjectMeta update rules', () => {
  const old: FlowSchema = { ...schema(), metadata: { name: 'system-foo', uid: 'u1' } };
  assert.equal(validateFlowSchemaUpdate({ ...schema((s) => (s.matchingPrecedence = 60)), metadata: { name: 'system-foo', uid: 'u1' } }, old), []);
  const renamed: FlowSchema = { ...schema((s) => (s.matchingPrecedence = 0)), metadata: { name: 'system-bar', uid: 'u1' } };
  assert.equal(lines(validateFlowSchemaUpdate(renamed, old)), [
    'metadata.name: Invalid value: "system-bar": field is immutable',
    'spec.matchingPrecedence: Invalid value: 0: must be a positive value',
  ]);
});

test('status update checks the status and metadata, never the spec', () => {
  const old: FlowSchema = { ...schema(), metadata: { name: 'system-foo' } };
  const badSpec: FlowSchema = { ...schema((s) => (s.matchingPrecedence = -3)), status: { conditions: [{ type: 'Dangling', status: 'True' }] } };
  assert.equal(validateFlowSchemaStatusUpdate(badSpec, old), []);
  const badStatus: FlowSchema = { ...schema(), status: { conditions: [{ type: 'A' }, { type: 'A' }] } };
  assert.equal(lines(validateFlowSchemaStatusUpdate(badStatus, old)), ['status.conditions[1].type: Duplicate value: "A"']);
  assert.equal(lines(validateFlowSchemaStatusUpdate({ ...schema(), metadata: { name: 'other' } }, old)), [
    'metadata.name: Invalid value: "other": field is immutable',
  ]);
});

test('malformed input gives errors, not exceptions', () => {
  const junk = { metadata: { name: 'x' }, spec: { rules: [null, { subjects: [null] }], priorityLevelConfiguration: null } } as unknown as FlowSchema;
  const errors = validateFlowSchema(junk);
  assert.ok(errors.length > 0);
  assert.ok(errors.some((e) => e.field === 'spec.rules[1].subjects[0].kind'));
});

test.run();
