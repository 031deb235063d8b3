import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { mkdtempSync, writeFileSync, mkdirSync, copyFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Clock } from '../../clock.ts';
import type { AdmissionAttributes } from './admission.ts';
import { buildAdmissionChain } from './build-admission.ts';

const clock: Clock = { now: () => 0, after: () => () => undefined };
const testdata = (name: string) => fileURLToPath(new URL(`../../config/testdata/${name}`, import.meta.url));

const write = (user: string): AdmissionAttributes => ({
  operation: 'UPDATE',
  user: { name: user, groups: [] },
  resource: { group: 'flowcontrol.apiserver.k8s.io', version: 'v1', resource: 'prioritylevelconfigurations' },
  subresource: '',
  kind: { group: 'flowcontrol.apiserver.k8s.io', version: 'v1', kind: 'PriorityLevelConfiguration' },
  namespace: '',
  name: 'plc',
  object: {},
  dryRun: false,
});

test("the documentation's AdmissionConfiguration examples load unchanged", async () => {
  for (const example of [
    'admission-eventratelimit-example.yaml',
    'admission-imagepolicy-inline-example.yaml',
    'admission-webhook-example.yaml',
    'admission-webhook-v1alpha1-example.yaml',
  ]) {
    const built = await buildAdmissionChain({
      enablePlugins: ['EventRateLimit'].filter(() => example.includes('eventratelimit')),
      configFile: testdata(example),
      clock,
    });
    assert.ok(built.ok, `${example}: ${built.ok ? '' : built.error}`);
  }
  // EventRateLimit reads eventconfig.yaml beside the file (a relative path): User limit burst 50.
  const built = await buildAdmissionChain({ enablePlugins: ['EventRateLimit'], configFile: testdata('admission-eventratelimit-example.yaml'), clock });
  if (!built.ok) return;
  for (let i = 0; i < 50; i++) assert.ok(built.chain.validate(write('alice')).allowed);
  const refused = built.chain.validate(write('alice'));
  assert.equal(refused.allowed ? undefined : refused.rejection, {
    kind: 'rate-limited',
    message: 'Too many requests: limit reached on type User for key alice',
  });
});

test('inline configuration wins over path; the first entry of a name wins; unknown names are ignored', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'fw-admission-'));
  copyFileSync(testdata('eventconfig.yaml'), join(dir, 'eventconfig.yaml'));
  writeFileSync(
    join(dir, 'admission.yaml'),
    `apiVersion: apiserver.config.k8s.io/v1
kind: AdmissionConfiguration
plugins:
- name: NotAPlugin
  path: /does/not/exist.yaml
- name: EventRateLimit
  path: /does/not/exist/either.yaml
  configuration:
    apiVersion: eventratelimit.admission.k8s.io/v1alpha1
    kind: Configuration
    limits:
    - type: Server
      qps: 1
      burst: 2
- name: EventRateLimit
  path: eventconfig.yaml
`,
  );
  const built = await buildAdmissionChain({ enablePlugins: ['EventRateLimit'], configFile: join(dir, 'admission.yaml'), clock });
  assert.ok(built.ok, built.ok ? '' : built.error);
  if (!built.ok) return;
  assert.ok(built.chain.validate(write('a')).allowed);
  assert.ok(built.chain.validate(write('b')).allowed);
  assert.not.ok(built.chain.validate(write('c')).allowed, 'the inline Server burst of 2, not the file');
});

test('startup errors: an unreadable path names it, bad plugin config names the plugin, unknown flags', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'fw-admission-'));
  const config = (body: string) => {
    writeFileSync(join(dir, 'admission.yaml'), `apiVersion: apiserver.config.k8s.io/v1\nkind: AdmissionConfiguration\nplugins:\n${body}`);
    return join(dir, 'admission.yaml');
  };
  const missing = await buildAdmissionChain({ enablePlugins: ['EventRateLimit'], configFile: config('- name: EventRateLimit\n  path: limits.yaml\n'), clock });
  assert.equal(missing, {
    ok: false,
    error: `Couldn't open admission plugin configuration ${join(dir, 'limits.yaml')}: open ${join(dir, 'limits.yaml')}: no such file or directory`,
  });
  const invalid = await buildAdmissionChain({
    enablePlugins: ['EventRateLimit'],
    configFile: config(
      '- name: EventRateLimit\n  configuration:\n    apiVersion: eventratelimit.admission.k8s.io/v1alpha1\n    kind: Configuration\n    limits: []\n',
    ),
    clock,
  });
  assert.equal(invalid, { ok: false, error: 'couldn\'t init admission plugin "EventRateLimit": limits: Invalid value: []: must not be empty' });
  assert.equal(await buildAdmissionChain({ enablePlugins: ['AlwaysPullImages'], configFile: '', clock }), {
    ok: false,
    error: 'enable-admission-plugins plugin "AlwaysPullImages" is unknown',
  });
  const relativeDir = await buildAdmissionChain({
    enablePlugins: [],
    configFile: config(
      '- name: ValidatingAdmissionPolicy\n  configuration:\n    apiVersion: apiserver.config.k8s.io/v1\n    kind: ' +
        'ValidatingAdmissionPolicyConfiguration\n    staticManifestsDir: policies\n',
    ),
    clock,
  });
  assert.equal(relativeDir, {
    ok: false,
    error: 'couldn\'t init admission plugin "ValidatingAdmissionPolicy": staticManifestsDir: Invalid value: "policies": must be an absolute file path',
  });
  const unreadable = await buildAdmissionChain({ enablePlugins: [], configFile: join(dir, 'nope.yaml'), clock });
  assert.match(
    unreadable.ok ? '' : unreadable.error,
    /^failed to read plugin config: unable to read admission control configuration from ".*nope\.yaml" \[open .*nope\.yaml: no such file or directory\]$/,
  );
});

test('ValidatingAdmissionPolicy is on by default and reads its static manifests directory', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'fw-admission-'));
  mkdirSync(join(dir, 'policies'));
  writeFileSync(
    join(dir, 'policies', 'no-plc-writes.yaml'),
    `apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicy
metadata: {name: frozen.static.k8s.io}
spec:
  matchConstraints:
    resourceRules: [{apiGroups: ["*"], apiVersions: ["*"], operations: ["*"], resources: ["prioritylevelconfigurations"]}]
  validations: [{expression: "request.userInfo.username == 'admin'", message: only admin changes priority levels}]
---
apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicyBinding
metadata: {name: frozen.static.k8s.io}
spec: {policyName: frozen.static.k8s.io, validationActions: [Deny]}
`,
  );
  writeFileSync(
    join(dir, 'admission.yaml'),
    'apiVersion: apiserver.config.k8s.io/v1\nkind: AdmissionConfiguration\nplugins:\n- name: ValidatingAdmissionPolicy\n  configuration:\n    ' +
      `apiVersion: apiserver.config.k8s.io/v1\n    kind: ValidatingAdmissionPolicyConfiguration\n    staticManifestsDir: ${join(dir, 'policies')}\n`,
  );
  const built = await buildAdmissionChain({ enablePlugins: [], configFile: join(dir, 'admission.yaml'), clock });
  assert.ok(built.ok, built.ok ? '' : built.error);
  if (!built.ok) return;
  assert.equal(
    built.chain.plugins.map((p) => p.name),
    ['ValidatingAdmissionPolicy'],
  );
  assert.ok(built.chain.validate(write('admin')).allowed);
  const denied = built.chain.validate(write('mallory'));
  assert.is(denied.allowed ? '' : denied.rejection.kind === 'policy-denied' && denied.rejection.message, 'only admin changes priority levels');
});

test.run();
