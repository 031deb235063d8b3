import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseAuthorizationConfig, type AuthorizationConfigOptions } from './authorization-config.ts';

const dir = mkdtempSync(join(tmpdir(), 'fw-authz-config-'));
const kubeconfig = join(dir, 'webhook.kubeconfig');
writeFileSync(kubeconfig, 'apiVersion: v1\nkind: Config\n');

const parse = (text: string, options: AuthorizationConfigOptions = {}) => parseAuthorizationConfig(Buffer.from(text), 'authz.yaml', options);
const messageOf = async (text: string, options?: AuthorizationConfigOptions) => {
  const result = await parse(text, options);
  return result.ok ? 'ok' : result.error.message;
};

const webhook = (fields: Record<string, string>, extra = '') => `apiVersion: apiserver.config.k8s.io/v1
kind: AuthorizationConfiguration
authorizers:
- type: Webhook
  name: wh
  webhook:
${Object.entries({ timeout: '3s', subjectAccessReviewVersion: 'v1', failurePolicy: 'Deny', ...fields })
  .filter(([, v]) => v !== '')
  .map(([k, v]) => `    ${k}: ${v}`)
  .join('\n')}
    connectionInfo:
      type: KubeConfigFile
      kubeConfigFile: ${kubeconfig}
${extra}`;

test("the Kubernetes documentation's example loads unchanged", async () => {
  const example = readFileSync(fileURLToPath(new URL('../config/testdata/authorization-config-example.yaml', import.meta.url)));
  // The example points at /kube-system-authz-webhook.yaml; stand in a regular file there.
  const statFile = (path: string) => {
    if (path === '/kube-system-authz-webhook.yaml') return { isFile: () => true };
    throw Object.assign(new Error('ENOENT'), { code: 'ENOENT' });
  };
  const result = await parseAuthorizationConfig(example, 'example.yaml', { statFile });
  assert.ok(result.ok, result.ok ? '' : result.error.message);
  if (!result.ok) return;
  const [first, node, rbac, inCluster] = result.value.config.authorizers;
  assert.is(first?.webhook?.authorizedTTLNanoseconds, 30_000_000_000n);
  assert.is(first?.webhook?.matchConditions.length, 3);
  assert.ok(result.value.matchConditions.get(0) !== undefined, 'conditions compiled');
  assert.equal([node?.type, rbac?.type], ['Node', 'RBAC']);
  assert.is(inCluster?.webhook?.connectionInfo.type, 'InClusterConfig');
  assert.is(inCluster?.webhook?.cacheAuthorizedRequests, true);
  // Without the kubeconfig in place, the same file fails exactly where kube-apiserver fails it.
  const missing = await parseAuthorizationConfig(example, 'example.yaml');
  assert.is(
    missing.ok ? '' : missing.error.message,
    'authorizers[0].connectionInfo.kubeConfigFile: Invalid value: "/kube-system-authz-webhook.yaml": error loading file: stat ' +
      '/kube-system-authz-webhook.yaml: no such file or directory',
  );
});

test('webhook defaults: TTLs 5m and 30s, both caches on', async () => {
  const result = await parse(webhook({}));
  assert.ok(result.ok);
  if (!result.ok) return;
  const w = result.value.config.authorizers[0]!.webhook!;
  assert.is(w.authorizedTTLNanoseconds, 300_000_000_000n);
  assert.is(w.unauthorizedTTLNanoseconds, 30_000_000_000n);
  assert.equal([w.cacheAuthorizedRequests, w.cacheUnauthorizedRequests], [true, true]);
  const off = await parse(webhook({ cacheAuthorizedRequests: 'false' }));
  assert.is(off.ok && off.value.config.authorizers[0]!.webhook!.cacheAuthorizedRequests, false);
});

test('validation messages are kube-apiserver’s', async () => {
  const cases: [string, string][] = [
    [
      'apiVersion: apiserver.config.k8s.io/v1\nkind: AuthorizationConfiguration\n',
      'authorizers: Required value: at least one authorization mode must be defined',
    ],
    [webhook({ timeout: '45s' }), 'authorizers[0].timeout: Invalid value: "45s": must be > 0s and <= 30s'],
    [webhook({ timeout: '' }), 'authorizers[0].timeout: Required value'],
    [webhook({ authorizedTTL: '-1s' }), 'authorizers[0].authorizedTTL: Invalid value: "-1s": must be > 0s'],
    [webhook({ subjectAccessReviewVersion: 'v2' }), 'authorizers[0].subjectAccessReviewVersion: Unsupported value: "v2": supported values: "v1", "v1beta1"'],
    [webhook({ failurePolicy: 'Allow' }), 'authorizers[0].failurePolicy: Unsupported value: "Allow": supported values: "NoOpinion", "Deny"'],
    [webhook({ failurePolicy: '' }), 'authorizers[0].failurePolicy: Required value'],
    [
      webhook({}, "    matchConditions:\n    - expression: request.user == 'a'\n"),
      'authorizers[0].matchConditionSubjectAccessReviewVersion: Required value: required if match conditions are specified',
    ],
    [
      webhook(
        { matchConditionSubjectAccessReviewVersion: 'v1' },
        "    matchConditions:\n    - expression: request.user == 'admin'\n    - expression: request.user == 'admin'\n",
      ),
      'authorizers[0].matchConditions[1].expression: Duplicate value: "request.user == \'admin\'"',
    ],
    [
      webhook({ matchConditionSubjectAccessReviewVersion: 'v1' }, '    matchConditions:\n    - expression: request.user\n'),
      'authorizers[0].matchConditions[0].expression: Invalid value: "request.user": must evaluate to bool but got string',
    ],
    [
      webhook({ matchConditionSubjectAccessReviewVersion: 'v1' }, '    matchConditions:\n    - expression: test\n'),
      'authorizers[0].matchConditions[0].expression: Invalid value: "test": compilation failed: ERROR: <input>:1:1: undeclared reference to \'test\' ' +
        "(in container '')\n | test\n | ^",
    ],
    [
      'apiVersion: apiserver.config.k8s.io/v1\nkind: AuthorizationConfiguration\nauthorizers:\n- type: Foo\n  name: foo\n',
      'authorizers[0].type: Unsupported value: "Foo": supported values: "ABAC", "AlwaysAllow", "AlwaysDeny", "Node", "RBAC", "Webhook"',
    ],
    [
      'apiVersion: apiserver.config.k8s.io/v1\nkind: AuthorizationConfiguration\nauthorizers:\n- type: AlwaysAllow\n  name: alwaysallow\n- type: ' +
        'AlwaysAllow\n  name: again\n',
      'authorizers[1].type: Duplicate value: "AlwaysAllow"',
    ],
    [
      'apiVersion: apiserver.config.k8s.io/v1\nkind: AuthorizationConfiguration\nauthorizers:\n- type: Webhook\n  name: Bad_Name\n',
      '[authorizers[0].name: Invalid value: "Bad_Name": authorizer name is invalid: a lowercase RFC 1123 subdomain must consist of lower case ' +
        "alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is " +
        "'[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*'), authorizers[0].webhook: Required value: required when type=Webhook]",
    ],
    [
      'apiVersion: apiserver.config.k8s.io/v1\nkind: AuthorizationConfiguration\nauthorizers:\n- type: AlwaysDeny\n  name: nope\n  webhook: {}\n',
      'authorizers[0].webhook: Invalid value: "non-null": may only be specified when type=Webhook',
    ],
    [
      'apiVersion: apiserver.config.k8s.io/v1\nkind: AuthorizationConfiguration\nauthorizers:\n- type: AlwaysAllow\n  name: allow\n',
      'authorizers[0].name: Invalid value: "allow": expected name alwaysallow for authorizer AlwaysAllow instead of allow',
    ],
    [
      webhook({}).replace(`kubeConfigFile: ${kubeconfig}`, 'kubeConfigFile: relative.yaml'),
      'authorizers[0].connectionInfo.kubeConfigFile: Invalid value: "relative.yaml": must be an absolute path',
    ],
    [
      webhook({}).replace(`kubeConfigFile: ${kubeconfig}`, `kubeConfigFile: ${dir}`),
      `authorizers[0].connectionInfo.kubeConfigFile: Invalid value: "${dir}": must be a regular file`,
    ],
    [
      webhook({}).replace('type: KubeConfigFile', 'type: InClusterConfig'),
      `authorizers[0].connectionInfo.kubeConfigFile: Invalid value: "${kubeconfig}": can only be set when type=KubeConfigFile`,
    ],
    [
      webhook({}).replace('type: KubeConfigFile', 'type: Magic'),
      `authorizers[0].connectionInfo.type: Unsupported value: {"Type":"Magic","KubeConfigFile":"${kubeconfig}"}: supported values: "InClusterConfig",` +
        ' "KubeConfigFile"',
    ],
  ];
  for (const [text, expected] of cases) assert.is(await messageOf(text), expected, text);
});

test('more than 64 match conditions stop before compiling', async () => {
  const conditions = Array.from({ length: 65 }, (_, i) => `    - expression: request.user == 'u${i}'`).join('\n');
  assert.is(
    await messageOf(webhook({ matchConditionSubjectAccessReviewVersion: 'v1' }, `    matchConditions:\n${conditions}\n`)),
    'authorizers[0].matchConditions: Too many: 65: must have at most 64 items',
  );
});

test('decoding is strict and durations are Go durations', async () => {
  assert.is(
    await messageOf(webhook({ timout: '3s' })),
    'failed to load AuthorizationConfiguration from file: strict decoding error: unknown field "authorizers[0].webhook.timout"',
  );
  assert.is(
    await messageOf(webhook({ timeout: '3 seconds' })),
    'failed to load AuthorizationConfiguration from file: time: unknown unit " seconds" in duration "3 seconds"',
  );
  assert.is(
    await messageOf('apiVersion: apiserver.config.k8s.io/v2\nkind: AuthorizationConfiguration\n'),
    'failed to load AuthorizationConfiguration from file: no kind "AuthorizationConfiguration" is registered for version "apiserver.config.k8s.io/v2"',
  );
  assert.is(await messageOf(webhook({}).replace('apiserver.config.k8s.io/v1', 'apiserver.config.k8s.io/v1beta1')), 'ok');
});

test('on reload every startup type must remain', async () => {
  const text = webhook({});
  assert.is(
    await messageOf(text, { requiredNonWebhookTypes: ['RBAC', 'AlwaysDeny'] }),
    'authorizers: Invalid value: ["AlwaysDeny","RBAC"]: missing required types: [AlwaysDeny RBAC]',
  );
});

test.run();
