// The webhook authorizer against a real HTTPS webhook in its own process (testing/webhook-server.ts).
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { Registry } from 'prom-client';
import type { Clock } from '../clock.ts';
import { realClock } from '../clock.ts';
import { createPrng } from '../random.ts';
import type { AuthorizationAttributes } from './authorizer.ts';
import { createPromAuthorizationMetrics } from './authorization-metrics.ts';
import { compileMatchConditions } from './cel-match-conditions.ts';
import { createWebhookAuthorizer, type WebhookAuthorizerOptions } from './webhook-authorizer.ts';
import { createWebhookClient } from './webhook-client.ts';
import { loadWebhookKubeconfig } from './webhook-kubeconfig.ts';
import { startWebhook, type WebhookProcess } from './testing/webhook-process.ts';

const TOKEN = 'apiserver-to-webhook-token';
let webhook: WebhookProcess;

/** Real timers, but `now()` can be moved forward to age cache entries. */
function steppableClock(): Clock & { advance(ms: number): void } {
  const real = realClock();
  let offsetMs = 0;
  return { now: () => real.now() + offsetMs, after: (ms, callback) => real.after(ms, callback), advance: (ms) => (offsetMs += ms) };
}

const alice = (overrides: Partial<AuthorizationAttributes> = {}): AuthorizationAttributes => ({
  user: { name: 'alice', uid: 'u-1', groups: ['dev', 'system:authenticated'], extra: { scopes: ['a', 'b'] } },
  verb: 'list',
  isResourceRequest: true,
  path: '/apis/flowcontrol.apiserver.k8s.io/v1/prioritylevelconfigurations',
  namespace: '',
  apiGroup: 'flowcontrol.apiserver.k8s.io',
  apiVersion: 'v1',
  resource: 'prioritylevelconfigurations',
  subresource: '',
  name: '',
  ...overrides,
});

async function authorizer(options: Partial<WebhookAuthorizerOptions> & { timeoutMs?: number; clock?: Clock } = {}) {
  const loaded = await loadWebhookKubeconfig(webhook.kubeconfigPath);
  if (!loaded.ok) throw new Error(loaded.error);
  const clock = options.clock ?? realClock();
  const client = createWebhookClient(loaded.connection, { timeoutMs: options.timeoutMs ?? 2000, clock });
  return createWebhookAuthorizer({
    name: 'test-webhook',
    client,
    version: 'v1',
    authorizedTtlMs: 0,
    unauthorizedTtlMs: 0,
    failurePolicy: 'NoOpinion',
    clock,
    prng: createPrng(1),
    backoff: { initialMs: 5, factor: 1.5, jitter: 0.2, steps: 5 },
    ...options,
  });
}

const callsSoFar = () => webhook.calls().length;

test.before(async () => {
  webhook = await startWebhook({ token: TOKEN, clientCertificate: true });
});
test.after(async () => {
  await webhook.stop();
});

test('allow, deny and no opinion come back with the webhook reason', async () => {
  const authz = await authorizer();
  webhook.control({ mode: 'allow', reason: 'ok by policy' });
  assert.equal(await authz.authorize(alice()), { decision: 'allow', reason: 'ok by policy' });
  webhook.control({ mode: 'deny', reason: 'not on weekends' });
  assert.equal(await authz.authorize(alice()), { decision: 'deny', reason: 'not on weekends' });
  webhook.control({ mode: 'noOpinion', reason: 'ask someone else' });
  assert.equal(await authz.authorize(alice()), { decision: 'noOpinion', reason: 'ask someone else' });
  webhook.control({ mode: 'both' });
  const both = await authz.authorize(alice());
  assert.is(both.decision, 'deny');
  assert.is(both.error, 'webhook subject access review returned both allow and deny response');
  authz.close?.();
});

test('the review is a v1 SubjectAccessReview with token, client certificate and ?timeout', async () => {
  const authz = await authorizer({ timeoutMs: 3000 });
  webhook.control({ mode: 'allow' });
  const before = callsSoFar();
  await authz.authorize(alice({ namespace: 'team-a', verb: 'get', name: 'x' }));
  const call = webhook.calls()[before]!;
  assert.is(call.url, '/authorize?timeout=3s');
  assert.is(call.authorization, `Bearer ${TOKEN}`);
  assert.is(call.clientCommonName, 'fairway-apiserver');
  assert.is(call.apiVersion, 'authorization.k8s.io/v1');
  assert.equal(call.spec, {
    resourceAttributes: {
      namespace: 'team-a',
      verb: 'get',
      group: 'flowcontrol.apiserver.k8s.io',
      version: 'v1',
      resource: 'prioritylevelconfigurations',
      name: 'x',
    },
    user: 'alice',
    groups: ['dev', 'system:authenticated'],
    extra: { scopes: ['a', 'b'] },
    uid: 'u-1',
  });
  authz.close?.();
});

test('v1beta1 sends `group`, expects a v1beta1 answer, and maps it back', async () => {
  const authz = await authorizer({ version: 'v1beta1' });
  webhook.control({ mode: 'deny', reason: 'beta says no' });
  const before = callsSoFar();
  assert.equal(await authz.authorize(alice()), { decision: 'deny', reason: 'beta says no' });
  const call = webhook.calls()[before]!;
  assert.is(call.apiVersion, 'authorization.k8s.io/v1beta1');
  assert.equal(call.spec?.group, ['dev', 'system:authenticated']);
  assert.is(call.spec?.groups, undefined);
  // An answer in the other version cannot be decoded by a v1beta1 client.
  webhook.control({ mode: 'allow', apiVersion: 'authorization.k8s.io/v1' });
  const wrong = await authz.authorize(alice());
  assert.is(wrong.decision, 'noOpinion');
  assert.match(wrong.error ?? '', /authorization\.k8s\.io\/v1/);
  authz.close?.();
});

test('a hanging webhook times out and the failure policy decides, with the error', async () => {
  webhook.control({ mode: 'hang' });
  for (const [failurePolicy, decision] of [
    ['NoOpinion', 'noOpinion'],
    ['Deny', 'deny'],
  ] as const) {
    const registry = new Registry();
    const authz = await authorizer({ failurePolicy, timeoutMs: 200, metrics: createPromAuthorizationMetrics(registry) });
    const before = callsSoFar();
    const result = await authz.authorize(alice());
    assert.is(result.decision, decision);
    assert.is(result.reason, '');
    assert.match(result.error ?? '', /^Post "https:\/\/127\.0\.0\.1:\d+\/authorize\?timeout=200ms": context deadline exceeded/);
    assert.is(callsSoFar() - before, 1, 'a timed-out attempt is not retried');
    const text = await registry.metrics();
    assert.match(text, /apiserver_authorization_webhook_evaluations_total\{name="test-webhook",result="timeout"\} 1/);
    assert.is(/evaluations_fail_open_total\{name="test-webhook",result="timeout"\} 1/.test(text), failurePolicy === 'NoOpinion');
    authz.close?.();
  }
});

test('a malformed answer is a failure, not a decision', async () => {
  webhook.control({ mode: 'garbage' });
  const authz = await authorizer({ failurePolicy: 'Deny' });
  const result = await authz.authorize(alice());
  assert.is(result.decision, 'deny');
  // Go's encoding/json words, never the JavaScript parser's.
  assert.match(result.error ?? '', /couldn't get version\/kind; json parse error: invalid character 'h' in literal true \(expecting 'r'\)/);
  authz.close?.();
});

test('500s are retried with backoff until an answer comes', async () => {
  webhook.control({ mode: 'allow', failFirst: callsSoFar() + 2 });
  const authz = await authorizer();
  const before = callsSoFar();
  assert.equal(await authz.authorize(alice()), { decision: 'allow', reason: '' });
  assert.is(callsSoFar() - before, 3);
  webhook.control({ mode: 'status500' });
  const failed = await authz.authorize(alice());
  assert.is(failed.decision, 'noOpinion');
  assert.match(failed.error ?? '', /an error on the server \("internal trouble"\) has prevented the request from succeeding/);
  assert.is(callsSoFar() - before, 3 + 5, 'five attempts in all');
  authz.close?.();
});

test('match conditions: false skips the webhook, all true calls it, an error applies the failure policy', async () => {
  const { conditions, problems } = compileMatchConditions([
    'has(request.resourceAttributes)',
    "request.resourceAttributes.namespace == 'kube-system'",
    "!('system:serviceaccounts:kube-system' in request.groups)",
  ]);
  assert.equal(problems, []);
  webhook.control({ mode: 'deny', reason: 'webhook saw it' });
  const registry = new Registry();
  const authz = await authorizer({ matchConditions: conditions, failurePolicy: 'Deny', metrics: createPromAuthorizationMetrics(registry) });
  let before = callsSoFar();
  assert.equal(await authz.authorize(alice({ namespace: 'default' })), { decision: 'noOpinion', reason: '' });
  assert.is(callsSoFar(), before, 'excluded: no call');
  assert.equal(await authz.authorize(alice({ namespace: 'kube-system' })), { decision: 'deny', reason: 'webhook saw it' });
  assert.is(callsSoFar(), before + 1, 'included: one call');

  // A non-resource request: the first condition is false, so the error in the second does not count.
  before = callsSoFar();
  const nonResource = alice({ isResourceRequest: false, path: '/healthz', verb: 'get', apiGroup: '', apiVersion: '', resource: '' });
  assert.equal(await authz.authorize(nonResource), { decision: 'noOpinion', reason: '' });

  const erroring = compileMatchConditions(["request.resourceAttributes.namespace == 'kube-system'"]).conditions;
  const strict = await authorizer({ matchConditions: erroring, failurePolicy: 'Deny' });
  const result = await strict.authorize(nonResource);
  assert.is(result.decision, 'deny');
  assert.is(
    result.error,
    "cel evaluation error: expression 'request.resourceAttributes.namespace == 'kube-system'' resulted in error: no such key: resourceAttributes",
  );
  assert.is(callsSoFar(), before, 'no call for excluded or erroring requests');
  const text = await registry.metrics();
  assert.match(text, /apiserver_authorization_match_condition_exclusions_total\{type="Webhook",name="test-webhook"\} 2/);
  authz.close?.();
  strict.close?.();
});

test('a cached answer and a match-condition exclusion are given at once; only a call to the webhook is a promise', async () => {
  const { conditions } = compileMatchConditions(["request.resourceAttributes.namespace != 'skipped'"]);
  const authz = await authorizer({ matchConditions: conditions, authorizedTtlMs: 60_000, unauthorizedTtlMs: 60_000 });
  webhook.control({ mode: 'allow', reason: 'cached yes' });
  const before = callsSoFar();
  const first = authz.authorize(alice());
  assert.instance(first, Promise, 'a miss calls the webhook');
  assert.equal(await first, { decision: 'allow', reason: 'cached yes' });
  const hit = authz.authorize(alice());
  assert.not.instance(hit, Promise, 'a hit is decided at once');
  assert.equal(hit, { decision: 'allow', reason: 'cached yes' });
  const excluded = authz.authorize(alice({ namespace: 'skipped' }));
  assert.not.instance(excluded, Promise);
  assert.equal(excluded, { decision: 'noOpinion', reason: '' });
  assert.is(callsSoFar() - before, 1);
  authz.close?.();
});

test('decisions are cached for their TTL, allowed and unauthorized separately; errors never', async () => {
  const clock = steppableClock();
  const authz = await authorizer({ clock, authorizedTtlMs: 60_000, unauthorizedTtlMs: 5_000 });
  webhook.control({ mode: 'allow' });
  const before = callsSoFar();
  await authz.authorize(alice());
  await authz.authorize(alice());
  assert.is(callsSoFar() - before, 1, 'second answer from the cache');
  await authz.authorize(alice({ verb: 'watch' }));
  assert.is(callsSoFar() - before, 2, 'other attributes, other key');
  clock.advance(59_000);
  webhook.control({ mode: 'deny' });
  assert.is((await authz.authorize(alice())).decision, 'allow', 'still cached');
  clock.advance(2_000);
  assert.is((await authz.authorize(alice())).decision, 'deny', 'expired: asked again');
  const afterDeny = callsSoFar();
  await authz.authorize(alice());
  assert.is(callsSoFar(), afterDeny, 'the deny is cached');
  clock.advance(5_000);
  await authz.authorize(alice());
  assert.is(callsSoFar(), afterDeny + 1, 'the deny expires after the unauthorized TTL');

  webhook.control({ mode: 'garbage' });
  const failing = await authorizer({ clock, authorizedTtlMs: 60_000, unauthorizedTtlMs: 60_000 });
  const start = callsSoFar();
  await failing.authorize(alice({ name: 'e' }));
  await failing.authorize(alice({ name: 'e' }));
  assert.is(callsSoFar() - start, 2, 'errors are not cached');
  authz.close?.();
  failing.close?.();
});

test('a connection refused is not retried and fails with Go wording', async () => {
  const loaded = await loadWebhookKubeconfig(webhook.kubeconfigPath);
  if (!loaded.ok) throw new Error(loaded.error);
  const connection = { ...loaded.connection, url: new URL('https://127.0.0.1:1/authorize') };
  const clock = realClock();
  const authz = createWebhookAuthorizer({
    name: 'down',
    client: createWebhookClient(connection, { timeoutMs: 1000, clock }),
    version: 'v1',
    authorizedTtlMs: 0,
    unauthorizedTtlMs: 0,
    failurePolicy: 'NoOpinion',
    clock,
    prng: createPrng(2),
  });
  const result = await authz.authorize(alice());
  assert.is(result.decision, 'noOpinion');
  assert.is(result.error, 'Post "https://127.0.0.1:1/authorize?timeout=1s": dial tcp 127.0.0.1:1: connect: connection refused');
  authz.close?.();
});

test.run();
