import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { AdmissionAttributes } from './admission.ts';
import { loadPolicyManifests } from './policy-manifests.ts';
import { createValidatingAdmissionPolicy } from './validating-admission-policy.ts';

const POLICY = `apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicy
metadata:
  name: exempt-guard.static.k8s.io
spec:
  failurePolicy: Fail
  matchConstraints:
    resourceRules:
    - apiGroups: ["flowcontrol.apiserver.k8s.io"]
      apiVersions: ["*"]
      operations: ["CREATE", "UPDATE"]
      resources: ["flowschemas"]
  variables:
  - name: exempt
    expression: "object.spec.priorityLevelConfiguration.name == 'exempt'"
  validations:
  - expression: "!variables.exempt || object.spec.matchingPrecedence >= 1000"
    messageExpression: "'FlowSchema ' + object.metadata.name + ' routes to exempt with precedence ' + string(object.spec.matchingPrecedence) + ', below 1000'"
  - expression: "object.metadata.name.size() <= 40"
    message: names stay short
    reason: Forbidden
---
apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicyBinding
metadata:
  name: exempt-guard-binding.static.k8s.io
spec:
  policyName: exempt-guard.static.k8s.io
  validationActions: [Deny]
`;

const flowSchema = (name: string, level: string, precedence: number): Record<string, unknown> => ({
  apiVersion: 'flowcontrol.apiserver.k8s.io/v1',
  kind: 'FlowSchema',
  metadata: { name },
  spec: { priorityLevelConfiguration: { name: level }, matchingPrecedence: precedence },
});

const create = (object: Record<string, unknown>, overrides: Partial<AdmissionAttributes> = {}): AdmissionAttributes => ({
  operation: 'CREATE',
  user: { name: 'alice', groups: ['system:authenticated'] },
  resource: { group: 'flowcontrol.apiserver.k8s.io', version: 'v1', resource: 'flowschemas' },
  subresource: '',
  kind: { group: 'flowcontrol.apiserver.k8s.io', version: 'v1', kind: 'FlowSchema' },
  namespace: '',
  name: String((object.metadata as { name: string }).name),
  object,
  dryRun: false,
  ...overrides,
});

function manifestsDir(files: Record<string, string>): string {
  const dir = mkdtempSync(join(tmpdir(), 'fw-vap-'));
  for (const [name, text] of Object.entries(files)) writeFileSync(join(dir, name), text);
  return dir;
}

test('a policy denies a FlowSchema routed to exempt below the chosen precedence, with its message', async () => {
  const dir = manifestsDir({ 'guard.yaml': POLICY, 'notes.txt': 'ignored: not a manifest extension' });
  const loaded = await loadPolicyManifests(dir);
  assert.equal(loaded.errors, []);
  const plugin = createValidatingAdmissionPolicy(loaded.policies, loaded.bindings);
  const bad = plugin.validate(create(flowSchema('sneaky', 'exempt', 500)));
  assert.equal(bad.allowed ? undefined : bad.rejection, {
    kind: 'policy-denied',
    policy: 'exempt-guard.static.k8s.io',
    binding: 'exempt-guard-binding.static.k8s.io',
    message: 'FlowSchema sneaky routes to exempt with precedence 500, below 1000',
    reason: 'Invalid',
  });
  assert.ok(plugin.validate(create(flowSchema('fine', 'exempt', 1000))).allowed);
  assert.ok(plugin.validate(create(flowSchema('elsewhere', 'workload-low', 10))).allowed);
  const long = plugin.validate(create(flowSchema('x'.repeat(41), 'global-default', 9000)));
  assert.equal(
    long.allowed
      ? undefined
      : [long.rejection.kind === 'policy-denied' && long.rejection.message, long.rejection.kind === 'policy-denied' && long.rejection.reason],
    ['names stay short', 'Forbidden'],
  );
  // Not matched: deletes, other resources, subresources.
  assert.ok(plugin.validate(create(flowSchema('sneaky', 'exempt', 1), { operation: 'DELETE' })).allowed);
  assert.ok(plugin.validate(create(flowSchema('sneaky', 'exempt', 1), { subresource: 'status' })).allowed);
  assert.ok(
    plugin.validate(
      create(flowSchema('sneaky', 'exempt', 1), {
        resource: { group: 'flowcontrol.apiserver.k8s.io', version: 'v1', resource: 'prioritylevelconfigurations' },
      }),
    ).allowed,
  );
  rmSync(dir, { recursive: true });
});

test('Warn warns instead of denying; an erroring expression follows the failure policy', async () => {
  const warnPolicy = POLICY.replace('validationActions: [Deny]', 'validationActions: [Warn]');
  const warned = await loadPolicyManifests(manifestsDir({ 'guard.yaml': warnPolicy }));
  const result = createValidatingAdmissionPolicy(warned.policies, warned.bindings).validate(create(flowSchema('sneaky', 'exempt', 5)));
  assert.ok(result.allowed);
  assert.equal(result.warnings, [
    "Validation failed for ValidatingAdmissionPolicy 'exempt-guard.static.k8s.io' with binding 'exempt-guard-binding.static.k8s.io': FlowSchema " +
      'sneaky routes to exempt with precedence 5, below 1000',
  ]);

  // An object without spec makes `object.spec...` fail at run time.
  const noSpec = { apiVersion: 'flowcontrol.apiserver.k8s.io/v1', kind: 'FlowSchema', metadata: { name: 'odd' } };
  const failClosed = await loadPolicyManifests(manifestsDir({ 'guard.yaml': POLICY }));
  const denied = createValidatingAdmissionPolicy(failClosed.policies, failClosed.bindings).validate(create(noSpec));
  assert.not.ok(denied.allowed);
  assert.match(
    denied.allowed ? '' : denied.rejection.kind === 'policy-denied' ? denied.rejection.message : '',
    /^expression '!variables\.exempt \|\| object\.spec\.matchingPrecedence >= 1000' resulted in error: /,
  );
  const failOpen = await loadPolicyManifests(manifestsDir({ 'guard.yaml': POLICY.replace('failurePolicy: Fail', 'failurePolicy: Ignore') }));
  assert.ok(createValidatingAdmissionPolicy(failOpen.policies, failOpen.bindings).validate(create(noSpec)).allowed);
});

test('manifest problems name the file and the field', async () => {
  const dir = manifestsDir({
    'a.yaml': POLICY.replace('name: exempt-guard.static.k8s.io\n', 'name: exempt-guard\n'),
    'b.yaml': POLICY.replace('object.metadata.name.size() <= 40', 'object.metadata.name.size()'),
    'c.json':
      '{"apiVersion":"admissionregistration.k8s.io/v1","kind":"ValidatingAdmissionPolicyBinding",' +
      '"metadata":{"name":"exempt-guard-binding.static.k8s.io"},"spec":{"policyName":"p","validationActions":["Deny"]}}',
    'd.yaml':
      'apiVersion: admissionregistration.k8s.io/v1\nkind: ValidatingAdmissionPolicyBinding\nmetadata:\n  name: other.static.k8s.io\nspec:\n  ' +
      'policyName: p\n  validationActions: [Block]\n',
  });
  const loaded = await loadPolicyManifests(dir);
  assert.equal(loaded.errors, [
    `"exempt-guard" in file "${join(dir, 'a.yaml')}" must have a name ending with ".static.k8s.io"`,
    `${join(dir, 'b.yaml')}: ValidatingAdmissionPolicy/exempt-guard.static.k8s.io: spec.validations[1].expression: Invalid value: ` +
      '"object.metadata.name.size()": must evaluate to bool but got int',
    `duplicate name "exempt-guard-binding.static.k8s.io" found in file "${join(dir, 'b.yaml')}" (previously seen in "${join(dir, 'a.yaml')}")`,
    `duplicate name "exempt-guard-binding.static.k8s.io" found in file "${join(dir, 'c.json')}" (previously seen in "${join(dir, 'a.yaml')}")`,
    `${join(dir, 'd.yaml')}: ValidatingAdmissionPolicyBinding/other.static.k8s.io: spec.validationActions[0]: Unsupported value: "Block": supported ` +
      'values: "Audit", "Deny", "Warn"',
  ]);
  rmSync(dir, { recursive: true });
});

test('CEL and selectors see label keys named after prototype members as ordinary keys', async () => {
  const policy = POLICY.replace('name: exempt-guard.static.k8s.io\n', 'name: proto-guard.static.k8s.io\n')
    .replace(
      / {2}variables:[\s\S]*?(?=---)/,
      `  validations:
  - expression: "!('constructor' in object.metadata.labels) && !has(object.metadata.labels.__proto__)"
    message: no constructor label
`,
    )
    .replace('policyName: exempt-guard.static.k8s.io', 'policyName: proto-guard.static.k8s.io')
    .replace('  validationActions: [Deny]', '  validationActions: [Deny]\n  matchResources:\n    objectSelector:\n      matchLabels: {toString: "yes"}');
  const loaded = await loadPolicyManifests(manifestsDir({ 'proto.yaml': policy }));
  assert.equal(loaded.errors, []);
  const plugin = createValidatingAdmissionPolicy(loaded.policies, loaded.bindings);
  const labelled = (labels: Record<string, string>) => {
    const object = flowSchema('labelled', 'global-default', 1000);
    (object.metadata as Record<string, unknown>).labels = labels;
    return create(object);
  };
  // Not selected: the object has no own toString label (Object.prototype's does not count).
  assert.ok(plugin.validate(labelled({})).allowed);
  assert.ok(plugin.validate(labelled({ toString: 'yes' })).allowed, 'selected, and no constructor label');
  assert.not.ok(plugin.validate(labelled({ toString: 'yes', constructor: 'x' })).allowed);
  assert.is(({} as Record<string, unknown>)['polluted'], undefined);
});

test.run();
