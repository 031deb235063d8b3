// End to end: who the server thinks the caller is, and as whom it acts. `fairway serve` with
// anonymous access on, tokens, a client CA and an authorization chain of RBAC (bootstrap policy)
// then a real webhook process; the real kubectl with `--as` / `--as-group`, `auth whoami` and
// `auth can-i --list`.
import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { stringify as yamlStringify } from 'yaml';
import { startServerProcess, type ServerProcess } from '../commands/testing/server-process.ts';
import { kubectlFor, kubectlForUser, type Kubectl } from '../data-dir/testing/kubectl.ts';
import { createTestClient } from '../testing/http-client.ts';
import { generateCertificateAuthority, issueClientCertificate } from '../../engine/x509/certificates.ts';
import type { KubeconfigUser } from '../data-dir/kubeconfig.ts';
import { startWebhook, type WebhookProcess } from '../../engine/auth/testing/webhook-process.ts';

const GROUP = 'flowcontrol.apiserver.k8s.io';
const TOKENS = { alice: 'alice-token-0001', bob: 'bob-token-0002' };
let server: ServerProcess;
let webhook: WebhookProcess;
let dir: string;
let admin: Kubectl;
const kubectls = new Map<string, Kubectl>();

async function kubectlAs(name: string, user: KubeconfigUser): Promise<Kubectl> {
  const kubectl = await kubectlForUser(dir, server, { ...user, name });
  kubectls.set(name, kubectl);
  return kubectl;
}

test.before(async () => {
  dir = await mkdtemp(join(tmpdir(), 'fairway-e2e-identity-'));
  webhook = await startWebhook({
    control: {
      mode: 'rules',
      rules: [
        { user: 'bob', verb: 'impersonate', decision: 'deny', reason: 'bob may not impersonate anyone' },
        { user: 'alice', decision: 'allow' },
        { user: 'bob', decision: 'allow' },
        { user: 'jane', decision: 'allow' },
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
        { type: 'RBAC', name: 'rbac' },
        {
          type: 'Webhook',
          name: 'e2e-policy',
          webhook: {
            timeout: '5s',
            subjectAccessReviewVersion: 'v1',
            failurePolicy: 'Deny',
            connectionInfo: { type: 'KubeConfigFile', kubeConfigFile: webhook.kubeconfigPath },
          },
        },
      ],
    }),
  );
  server = await startServerProcess({
    args: [
      `--token-auth-file=${join(dir, 'tokens.csv')}`,
      `--client-ca-file=${join(dir, 'client-ca.crt')}`,
      `--authorization-config=${join(dir, 'authz.yaml')}`,
      '--anonymous-auth=true',
      '--v=3',
    ],
  });
  admin = kubectlFor(server.kubeconfigPath);
  for (const name of ['alice', 'bob'] as const) await kubectlAs(name, { name, token: TOKENS[name] });
  const carol = await issueClientCertificate(clientCa, { user: 'carol', groups: ['team'] });
  await kubectlAs('carol', { name: 'carol', clientCertPem: carol.certPem, clientKeyPem: carol.keyPem });
  const stranger = await generateCertificateAuthority({ commonName: 'someone-else' });
  const mallory = await issueClientCertificate(stranger, { user: 'mallory', groups: ['system:masters'] });
  await kubectlAs('mallory', { name: 'mallory', clientCertPem: mallory.certPem, clientKeyPem: mallory.keyPem });
});

test.after(async () => {
  await server?.stop();
  await webhook?.stop();
});

/** The APF response headers kubectl -v=8 prints for its first request to `path`. */
function pfHeaders(stderr: string): { flowSchema: string; priorityLevel: string } {
  const flowSchema = /X-Kubernetes-Pf-Flowschema-Uid: (\S*)/.exec(stderr)?.[1];
  const priorityLevel = /X-Kubernetes-Pf-Prioritylevel-Uid: (\S*)/.exec(stderr)?.[1];
  assert.ok(flowSchema !== undefined && priorityLevel !== undefined, `APF headers in kubectl's log:\n${stderr.slice(0, 2000)}`);
  return { flowSchema, priorityLevel };
}

async function uidOf(resource: string, name: string): Promise<string> {
  const response = await server.client.get(`/apis/${GROUP}/v1/${resource}/${name}`);
  return (response.json() as { metadata: { uid: string } }).metadata.uid;
}

test('a client certificate from an unknown CA is 401 although anonymous access is on', async () => {
  const mallory = await kubectls.get('mallory')!(['get', 'flowschemas']);
  assert.is(mallory.code, 1);
  assert.match(mallory.stderr, /error: You must be logged in to the server/);
  assert.match(server.stderr(), /Unable to authenticate the request: verifying certificate SN=\d+ failed: x509: certificate signed by unknown authority/);
  const carol = await kubectls.get('carol')!(['auth', 'whoami', '-o', 'jsonpath={.status.userInfo.username}']);
  assert.equal([carol.code, carol.stdout], [0, 'carol'], carol.stderr);
  const anonymous = await fetchVersionAnonymously();
  assert.is(anonymous, 200, 'no credential at all is system:anonymous, which the RBAC bootstrap policy lets read /version');
});

async function fetchVersionAnonymously(): Promise<number> {
  return (await createTestClient(server.url, { caPem: server.caPem }).get('/version', { token: null })).status;
}

test('kubectl --as / --as-group: APF classifies and authorization decides as the impersonated user', async () => {
  const exempt = { flowSchema: await uidOf('flowschemas', 'exempt'), priorityLevel: await uidOf('prioritylevelconfigurations', 'exempt') };
  const globalDefault = {
    flowSchema: await uidOf('flowschemas', 'global-default'),
    priorityLevel: await uidOf('prioritylevelconfigurations', 'global-default'),
  };

  const asAdmin = await admin(['get', 'flowschemas', 'catch-all', '-v=8']);
  assert.is(asAdmin.code, 0, asAdmin.stderr);
  assert.equal(pfHeaders(asAdmin.stderr), exempt, 'the admin (system:masters) lands in exempt');

  const asJane = await admin(['get', 'flowschemas', 'catch-all', '--as=jane', '-v=8']);
  assert.is(asJane.code, 0, asJane.stderr);
  assert.equal(pfHeaders(asJane.stderr), globalDefault, 'impersonating jane lands in global-default');

  const aliceAsMaster = await kubectls.get('alice')!(['get', 'flowschemas', 'catch-all', '--as=jane', '--as-group=system:masters', '-v=8']);
  assert.is(aliceAsMaster.code, 0, aliceAsMaster.stderr);
  assert.equal(pfHeaders(aliceAsMaster.stderr), exempt, 'alice, allowed to impersonate, as a member of system:masters is exempt');

  const asNobody = await admin(['get', 'flowschemas', 'catch-all', '--as=nobody']);
  assert.is(asNobody.code, 1);
  assert.match(
    asNobody.stderr,
    /Error from server \(Forbidden\): flowschemas\.flowcontrol\.apiserver\.k8s\.io "catch-all" is forbidden: User "nobody" cannot get resource "flowschemas"/,
  );

  const log = server.stderr();
  assert.match(
    log,
    new RegExp(
      String.raw`"HTTP" verb="GET" URI="\/apis\/flowcontrol\.apiserver\.k8s\.io\/v1\/flowschemas\/catch-all" ` +
        String.raw`.*addedInfo="\\nadmin\[system:masters,system:authenticated\] is impersonating jane\[system:authenticated\]"`,
    ),
  );
  assert.match(log, /addedInfo="\\nalice\[team,system:authenticated\] is impersonating jane\[system:masters,system:authenticated\]"/);
});

test("a user the authorizers do not allow to impersonate gets Kubernetes' 403", async () => {
  // kubectl's discovery requests fail first, and client-go prints a discovery error's JSON body as
  // "unknown" (it does so against kube-apiserver too); the Status itself is read over HTTP.
  const bob = await kubectls.get('bob')!(['get', 'flowschemas', '--as=jane']);
  assert.is(bob.code, 1);
  assert.match(bob.stderr, /Error from server \(Forbidden\)/);
  const response = await createTestClient(server.url, { caPem: server.caPem, token: TOKENS.bob }).get(`/apis/${GROUP}/v1/flowschemas`, {
    headers: { 'Impersonate-User': 'jane' },
  });
  assert.equal(
    [response.status, (response.json() as { message: string }).message],
    [403, 'users "jane" is forbidden: User "bob" cannot impersonate resource "users" in API group "" at the cluster scope: bob may not impersonate anyone'],
  );
  const attributesOf = (call: { spec?: { resourceAttributes?: unknown } }) => call.spec?.resourceAttributes as Record<string, string> | undefined;
  const asked = webhook.calls().filter((call) => call.spec?.user === 'bob' && attributesOf(call)?.verb === 'impersonate');
  assert.equal(attributesOf(asked.at(-1)!), { verb: 'impersonate', resource: 'users', name: 'jane' });
});

test('kubectl auth whoami shows the authenticated user, or the impersonated one', async () => {
  const alice = await kubectls.get('alice')!(['auth', 'whoami']);
  assert.is(alice.code, 0, alice.stderr);
  assert.match(alice.stdout, /^ATTRIBUTE\s+VALUE\nUsername\s+alice\nUID\s+uid-alice\nGroups\s+\[team system:authenticated\]\n$/);
  const jane = await admin(['auth', 'whoami', '--as=jane', '--as-group=devs', '-o', 'json']);
  assert.is(jane.code, 0, jane.stderr);
  const review = JSON.parse(jane.stdout) as Record<string, any>;
  assert.equal(
    [review.kind, review.apiVersion, review.status],
    ['SelfSubjectReview', 'authentication.k8s.io/v1', { userInfo: { username: 'jane', groups: ['devs', 'system:authenticated'] } }],
  );
  assert.match(review.metadata.creationTimestamp, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);
});

test('kubectl auth can-i --list: RBAC bootstrap rules listed, the webhook makes the list incomplete', async () => {
  const alice = await kubectls.get('alice')!(['auth', 'can-i', '--list']);
  assert.is(alice.code, 0, alice.stderr);
  assert.match(alice.stdout, /^Resources\s+Non-Resource URLs\s+Resource Names\s+Verbs$/m);
  assert.match(alice.stdout, /^selfsubjectreviews\.authentication\.k8s\.io\s+\[\]\s+\[\]\s+\[create\]$/m);
  assert.match(alice.stdout, /^selfsubjectrulesreviews\.authorization\.k8s\.io\s+\[\]\s+\[\]\s+\[create\]$/m);
  assert.match(alice.stdout, /^\s+\[\/apis\/\*\]\s+\[\]\s+\[get\]$/m);
  assert.match(alice.stderr, /Warning: the list may be incomplete: webhook authorizer does not support user rule resolution/);
  const root = await admin(['auth', 'can-i', '--list', '--as=root', '--as-group=system:masters']);
  assert.is(root.code, 0, root.stderr);
  assert.match(root.stdout, /^\*\.\*\s+\[\]\s+\[\]\s+\[\*\]$/m);
  assert.match(root.stdout, /^\s+\[\*\]\s+\[\]\s+\[\*\]$/m);
});

test('discovery and OpenAPI serve the self reviews; kubectl explain reads them', async () => {
  const resources = await admin(['api-resources', '--api-group=authorization.k8s.io', '-o', 'name']);
  assert.equal(
    [resources.code, resources.stdout.split('\n').filter(Boolean).sort()],
    [0, ['selfsubjectaccessreviews.authorization.k8s.io', 'selfsubjectrulesreviews.authorization.k8s.io']],
    resources.stderr,
  );
  const authn = await admin(['api-resources', '--api-group=authentication.k8s.io', '-o', 'name']);
  assert.equal([authn.code, authn.stdout.trim()], [0, 'selfsubjectreviews.authentication.k8s.io'], authn.stderr);
  const explain = await admin(['explain', 'selfsubjectrulesreviews.status']);
  assert.is(explain.code, 0, explain.stderr);
  assert.match(explain.stdout, /KIND:\s+SelfSubjectRulesReview/);
  assert.match(explain.stdout, /incomplete\s+<boolean> -required-/);
});

test.run();
