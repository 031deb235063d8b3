// `fairway config check` on AuthorizationConfiguration and AdmissionConfiguration files.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { runConfigCheck } from './config-check.ts';

const dir = mkdtempSync(join(tmpdir(), 'fw-config-check-auth-'));
const file = (name: string, text: string) => {
  writeFileSync(join(dir, name), text);
  return join(dir, name);
};

async function check(...files: string[]): Promise<{ code: number; lines: string[] }> {
  let out = '';
  const code = await runConfigCheck(files, { stdout: (t) => (out += t), stderr: (t) => (out += t) });
  return { code, lines: out.trim().split('\n') };
}

const kubeconfig = file(
  'webhook.kubeconfig',
  'apiVersion: v1\nkind: Config\nclusters:\n- name: w\n  cluster:\n    server: https://127.0.0.1:9443/authorize\ncontexts:\n- name: w\n  context: ' +
    '{cluster: w}\ncurrent-context: w\n',
);
const plainHttp = file('http.kubeconfig', 'apiVersion: v1\nkind: Config\nclusters:\n- name: w\n  cluster:\n    server: http://127.0.0.1:9443/\n');
const authz = (kubeConfigFile: string, expression: string) => `apiVersion: apiserver.config.k8s.io/v1
kind: AuthorizationConfiguration
authorizers:
- type: Webhook
  name: policy
  webhook:
    timeout: 3s
    subjectAccessReviewVersion: v1
    matchConditionSubjectAccessReviewVersion: v1
    failurePolicy: Deny
    connectionInfo:
      type: KubeConfigFile
      kubeConfigFile: ${kubeConfigFile}
    matchConditions:
    - expression: ${JSON.stringify(expression)}
- type: AlwaysDeny
  name: alwaysdeny
`;

test('a good AuthorizationConfiguration is valid; CEL and kubeconfig problems are file + field errors', async () => {
  const good = file('good.yaml', authz(kubeconfig, "has(request.resourceAttributes) && request.user != 'admin'"));
  assert.equal(await check(good), { code: 0, lines: [`${good}: AuthorizationConfiguration/(document 1): valid`] });

  const badCel = file('cel.yaml', authz(kubeconfig, 'request.groups'));
  const cel = await check(badCel);
  assert.is(cel.code, 1);
  assert.equal(cel.lines, [
    `${badCel}: AuthorizationConfiguration/(document 1): authorizers[0].matchConditions[0].expression: Invalid value: "request.groups": must ` +
      'evaluate to bool but got list<string>',
  ]);

  const missing = file('missing.yaml', authz(join(dir, 'nope.kubeconfig'), 'true'));
  assert.equal((await check(missing)).lines, [
    `${missing}: AuthorizationConfiguration/(document 1): authorizers[0].connectionInfo.kubeConfigFile: Invalid value: "` +
      `${join(dir, 'nope.kubeconfig')}": error loading file: stat ${join(dir, 'nope.kubeconfig')}: no such file or directory`,
  ]);

  const http = file('http.yaml', authz(plainHttp, 'true'));
  assert.equal((await check(http)).lines, [
    `${http}: AuthorizationConfiguration/(document 1): authorizers[0].connectionInfo.kubeConfigFile: Invalid value: "${plainHttp}": invalid ` +
      `kubeconfig ${plainHttp}: server "http://127.0.0.1:9443/" must use https`,
  ]);
});

test('AdmissionConfiguration: plugin configurations and static policy manifests are checked', async () => {
  mkdirSync(join(dir, 'policies'));
  writeFileSync(
    join(dir, 'policies', 'p.yaml'),
    'apiVersion: admissionregistration.k8s.io/v1\nkind: ValidatingAdmissionPolicy\nmetadata: {name: p}\nspec:\n  matchConstraints: {resourceRules: ' +
      '[{apiGroups: ["*"], apiVersions: ["*"], operations: ["*"], resources: ["*"]}]}\n  validations: [{expression: "object.spec == 1"}]\n',
  );
  file('limits.yaml', 'apiVersion: eventratelimit.admission.k8s.io/v1alpha1\nkind: Configuration\nlimits:\n- type: Cluster\n  qps: 5\n  burst: 10\n');
  const admission = file(
    'admission.yaml',
    `apiVersion: apiserver.config.k8s.io/v1
kind: AdmissionConfiguration
plugins:
- name: EventRateLimit
  path: limits.yaml
- name: ValidatingAdmissionPolicy
  configuration:
    apiVersion: apiserver.config.k8s.io/v1
    kind: ValidatingAdmissionPolicyConfiguration
    staticManifestsDir: ${join(dir, 'policies')}
- name: SomethingElse
  path: /not/read.yaml
`,
  );
  const result = await check(admission);
  assert.is(result.code, 1);
  assert.equal(result.lines, [
    `${admission}: AdmissionConfiguration/(document 1): plugins[0].path.limits[0].type: Unsupported value: "Cluster": supported values: "Namespace", ` +
      '"Server", "SourceAndObject", "User"',
    `${admission}: AdmissionConfiguration/(document 1): plugins[1].configuration.staticManifestsDir: Invalid value: "${join(dir, 'policies')}": "p" ` +
      `in file "${join(dir, 'policies', 'p.yaml')}" must have a name ending with ".static.k8s.io"`,
  ]);
  const example = fileURLToPath(new URL('../../engine/config/testdata/admission-eventratelimit-example.yaml', import.meta.url));
  assert.equal(await check(example), { code: 0, lines: [`${example}: AdmissionConfiguration/(document 1): valid`] });
});

test('names of Object.prototype members are unknown fields in every configuration kind, and reach no prototype', async () => {
  const encryption = file(
    'hostile-encryption.yaml',
    `apiVersion: apiserver.config.k8s.io/v1
kind: EncryptionConfiguration
__proto__: {polluted: yes}
resources:
- resources: [flowschemas.flowcontrol.apiserver.k8s.io]
  constructor: {prototype: {polluted: yes}}
  providers:
  - aescbc:
      keys:
      - {name: key1, secret: c2VjcmV0IGlzIHNlY3VyZSwgb3IgaXMgaXQ/Cg==, toString: x}
  - identity: {__proto__: {polluted: yes}}
`,
  );
  const authorization = file(
    'hostile-authz.yaml',
    'apiVersion: apiserver.config.k8s.io/v1\nkind: AuthorizationConfiguration\n__proto__: {polluted: yes}\nauthorizers:\n- {type: AlwaysDeny, name: ' +
      'deny, constructor: {prototype: {polluted: yes}}}\n',
  );
  const admission = file(
    'hostile-admission.yaml',
    'apiVersion: apiserver.config.k8s.io/v1\nkind: AdmissionConfiguration\nplugins:\n- {name: EventRateLimit, hasOwnProperty: null, configuration: ' +
      '{apiVersion: eventratelimit.admission.k8s.io/v1alpha1, kind: Configuration, limits: [{type: Server, qps: 5, burst: 10, __proto__: {polluted: ' +
      'yes}}]}}\n',
  );
  const { code, lines } = await check(encryption, authorization, admission);
  assert.is(code, 1);
  assert.equal(
    lines.map((line) => line.replace(/^.*?: [A-Za-z]+Configuration\/\(document 1\): /, '')),
    [
      '__proto__: Forbidden: unknown field',
      'resources[0].constructor: Forbidden: unknown field',
      'resources[0].providers[0].aescbc.keys[0].toString: Forbidden: unknown field',
      'resources[0].providers[1].identity.__proto__: Forbidden: unknown field',
      '__proto__: Forbidden: unknown field',
      'authorizers[0].constructor: Forbidden: unknown field',
      'plugins[0].hasOwnProperty: Forbidden: unknown field',
    ],
  );
  assert.is(({} as Record<string, unknown>)['polluted'], undefined);
  assert.type(Object.prototype.hasOwnProperty, 'function');
});

test.run();
