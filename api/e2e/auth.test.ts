// End to end: `fairway serve` with kube-apiserver's authentication, authorization and admission
// flags, a real authorization webhook process, and the real kubectl with token and client
// certificate kubeconfigs.
import { mkdir, mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { stringify as yamlStringify } from 'yaml';
import { startServerProcess, type ServerProcess } from '../commands/testing/server-process.ts';
import { kubectlForUser, type Kubectl } from '../data-dir/testing/kubectl.ts';
import { createTestClient } from '../testing/http-client.ts';
import { generateCertificateAuthority, issueClientCertificate } from '../../engine/x509/certificates.ts';
import type { KubeconfigUser } from '../data-dir/kubeconfig.ts';
import { startWebhook, type WebhookProcess } from '../../engine/auth/testing/webhook-process.ts';

const GROUP = 'flowcontrol.apiserver.k8s.io';
const FS = `/apis/${GROUP}/v1/flowschemas`;
const TOKENS = { alice: 'alice-token-0001', bob: 'bob-token-0002', dave: 'dave-token-0003', rita: 'rita-token-0004' };
let server: ServerProcess;
let webhook: WebhookProcess;
let dir: string;
const kubectls = new Map<string, Kubectl>();

const flowSchema = (name: string, level: string, precedence: number) => ({
  apiVersion: `${GROUP}/v1`,
  kind: 'FlowSchema',
  metadata: { name },
  spec: {
    priorityLevelConfiguration: { name: level },
    matchingPrecedence: precedence,
    rules: [{ subjects: [{ kind: 'User', user: { name: 'nobody' } }], nonResourceRules: [{ verbs: ['get'], nonResourceURLs: ['/nothing'] }] }],
  },
});

async function kubeconfigFor(name: string, user: KubeconfigUser): Promise<Kubectl> {
  const kubectl = await kubectlForUser(dir, server, { ...user, name });
  kubectls.set(name, kubectl);
  return kubectl;
}

test.before(async () => {
  dir = await mkdtemp(join(tmpdir(), 'fairway-e2e-auth-'));
  webhook = await startWebhook({
    control: {
      mode: 'rules',
      rules: [
        { verb: 'create', resource: 'selfsubjectaccessreviews', decision: 'allow' },
        { user: 'bob', verb: 'delete', resource: 'prioritylevelconfigurations', decision: 'deny', reason: 'bob may not delete priority levels' },
        { user: 'alice', decision: 'allow' },
        { user: 'bob', decision: 'allow' },
        { user: 'carol', decision: 'allow' },
        { user: 'rita', decision: 'allow' },
        { user: 'dave', nonResource: true, decision: 'allow' },
      ],
    },
  });
  const clientCa = await generateCertificateAuthority({ commonName: 'e2e-client-ca' });
  await writeFile(join(dir, 'client-ca.crt'), clientCa.certPem);
  await writeFile(
    join(dir, 'tokens.csv'),
    Object.entries(TOKENS)
      .map(([user, token]) => `${token},${user},uid-${user},"team"`)
      .join('\n'),
  );
  await writeFile(
    join(dir, 'authz.yaml'),
    yamlStringify({
      apiVersion: 'apiserver.config.k8s.io/v1',
      kind: 'AuthorizationConfiguration',
      authorizers: [
        {
          type: 'Webhook',
          name: 'e2e-policy',
          webhook: {
            timeout: '5s',
            subjectAccessReviewVersion: 'v1',
            matchConditionSubjectAccessReviewVersion: 'v1',
            failurePolicy: 'Deny',
            connectionInfo: { type: 'KubeConfigFile', kubeConfigFile: webhook.kubeconfigPath },
            matchConditions: [{ expression: "!('system:masters' in request.groups)" }],
          },
        },
      ],
    }),
  );
  await mkdir(join(dir, 'policies'));
  await writeFile(
    join(dir, 'policies', 'exempt-guard.yaml'),
    `apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicy
metadata: {name: exempt-guard.static.k8s.io}
spec:
  matchConstraints:
    resourceRules: [{apiGroups: ["${GROUP}"], apiVersions: ["*"], operations: ["CREATE", "UPDATE"], resources: ["flowschemas"]}]
  validations:
  - expression: "object.spec.priorityLevelConfiguration.name != 'exempt' || object.spec.matchingPrecedence >= 1000"
    messageExpression: "'FlowSchema ' + object.metadata.name + ' routes to exempt below precedence 1000'"
---
apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicyBinding
metadata: {name: exempt-guard.static.k8s.io}
spec: {policyName: exempt-guard.static.k8s.io, validationActions: [Deny]}
`,
  );
  await writeFile(
    join(dir, 'limits.yaml'),
    'apiVersion: eventratelimit.admission.k8s.io/v1alpha1\nkind: Configuration\nlimits:\n- type: User\n  qps: 1\n  burst: 3\n',
  );
  await writeFile(
    join(dir, 'admission.yaml'),
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
`,
  );
  server = await startServerProcess({
    args: [
      `--token-auth-file=${join(dir, 'tokens.csv')}`,
      `--client-ca-file=${join(dir, 'client-ca.crt')}`,
      `--authorization-config=${join(dir, 'authz.yaml')}`,
      `--admission-control-config-file=${join(dir, 'admission.yaml')}`,
      '--enable-admission-plugins=EventRateLimit',
    ],
  });
  for (const name of ['alice', 'bob', 'dave'] as const) await kubeconfigFor(name, { name, token: TOKENS[name] });
  const carol = await issueClientCertificate(clientCa, { user: 'carol', groups: ['team'] });
  await kubeconfigFor('carol', { name: 'carol', clientCertPem: carol.certPem, clientKeyPem: carol.keyPem });
});

test.after(async () => {
  await server?.stop();
  await webhook?.stop();
});

test('unauthenticated requests get 401 on every path, watches included', async () => {
  const anonymous = createTestClient(server.url, { caPem: server.caPem });
  const unauthorized = { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', message: 'Unauthorized', reason: 'Unauthorized', code: 401 };
  const paths = [
    '/',
    '/api',
    '/apis',
    '/version',
    '/openapi/v2',
    `/apis/${GROUP}/v1`,
    FS,
    `${FS}?watch=1`,
    `${FS}/catch-all`,
    '/metrics',
    '/debug/api_priority_and_fairness/dump_priority_levels',
    '/no/such/path',
  ];
  for (const path of paths) {
    for (const token of [null, 'not-a-token']) {
      const response = await anonymous.get(path, { token });
      assert.equal([path, response.status, response.json()], [path, 401, unauthorized], `${path} with ${token ?? 'no token'}`);
    }
  }
  const post = await anonymous.request('POST', `/apis/authorization.k8s.io/v1/selfsubjectaccessreviews`, { token: null, body: {} });
  assert.is(post.status, 401);
});

test('kubectl works with a token and with a client certificate; the webhook decides', async () => {
  const alice = await kubectls.get('alice')!(['get', 'flowschemas']);
  assert.is(alice.code, 0, alice.stderr);
  assert.match(alice.stdout, /^catch-all\s/m);
  const carol = await kubectls.get('carol')!(['get', 'prioritylevelconfigurations', 'global-default', '-o', 'name']);
  assert.equal([carol.code, carol.stdout.trim()], [0, `prioritylevelconfiguration.${GROUP}/global-default`], carol.stderr);
  const dave = await kubectls.get('dave')!(['get', 'flowschemas', 'catch-all']);
  assert.is(dave.code, 1);
  assert.match(
    dave.stderr,
    new RegExp(
      String.raw`Error from server \(Forbidden\): flowschemas\.flowcontrol\.apiserver\.k8s\.io "catch-all" is forbidden: User "dave" ` +
        String.raw`cannot get resource "flowschemas" in API group "flowcontrol\.apiserver\.k8s\.io" at the cluster scope`,
    ),
  );
  const bob = await kubectls.get('bob')!(['delete', 'prioritylevelconfigurations', 'workload-low']);
  assert.is(bob.code, 1);
  assert.match(
    bob.stderr,
    new RegExp(
      'is forbidden: User "bob" cannot delete resource "prioritylevelconfigurations" in API group ' +
        String.raw`"flowcontrol\.apiserver\.k8s\.io" at the cluster scope: bob may not delete priority levels`,
    ),
  );
  const users = new Set(webhook.calls().map((call) => call.spec?.user));
  assert.ok(users.has('carol') && users.has('alice'), 'both kinds of credential reached the webhook');
});

test('kubectl auth can-i answers for an allowed and a denied user', async () => {
  const yes = await kubectls.get('alice')!(['auth', 'can-i', 'list', 'prioritylevelconfigurations']);
  assert.equal([yes.code, yes.stdout.trim()], [0, 'yes'], yes.stderr);
  const no = await kubectls.get('bob')!(['auth', 'can-i', 'delete', 'prioritylevelconfigurations']);
  assert.equal([no.code, no.stdout.trim()], [1, 'no - bob may not delete priority levels'], no.stderr);
});

test('a ValidatingAdmissionPolicy denies a bad object with its message', async () => {
  const path = join(dir, 'sneaky.yaml');
  await writeFile(path, yamlStringify(flowSchema('sneaky', 'exempt', 500)));
  const denied = await kubectls.get('alice')!(['create', '-f', path]);
  assert.is(denied.code, 1);
  assert.match(
    denied.stderr,
    new RegExp(
      String.raw`ValidatingAdmissionPolicy 'exempt-guard\.static\.k8s\.io' with binding ` +
        String.raw`'exempt-guard\.static\.k8s\.io' denied request: FlowSchema sneaky routes to exempt below ` +
        'precedence 1000',
    ),
  );
  await writeFile(path, yamlStringify(flowSchema('honest', 'exempt', 2000)));
  const allowed = await kubectls.get('alice')!(['create', '-f', path]);
  assert.is(allowed.code, 0, allowed.stderr);
});

test('the rate limiter answers 429 past its burst', async () => {
  // burst 3 at 1 qps: three writes pass; of the next five (sent back to back) at least one is
  // refused, however slowly the machine runs them (at most one token per second comes back).
  const rita = createTestClient(server.url, { caPem: server.caPem, token: TOKENS.rita });
  const statuses: number[] = [];
  const bodies: unknown[] = [];
  for (let i = 0; i < 8; i++) {
    const response = await rita.request('POST', FS, { body: flowSchema(`rita-${i}`, 'workload-low', 5000 + i) });
    statuses.push(response.status);
    bodies.push(response.json());
  }
  assert.equal(statuses.slice(0, 3), [201, 201, 201]);
  const refused = statuses.indexOf(429);
  assert.ok(refused >= 3, `a write past the burst is refused: ${statuses.join(', ')}`);
  assert.equal(bodies[refused], {
    kind: 'Status',
    apiVersion: 'v1',
    metadata: {},
    status: 'Failure',
    message: 'Too many requests: Too many requests: limit reached on type User for key rita',
    reason: 'TooManyRequests',
    code: 429,
  });
});

test.run();
