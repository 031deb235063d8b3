import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { Registry } from 'prom-client';
import type { AuthorizationAttributes, AuthorizationResult, Authorizer, RulesResult } from './authorizer.ts';
import fc from 'fast-check';
import { aggregate, type ChainMember, createAuthorizerChain, createSwappableAuthorizer } from './authorizer-chain.ts';
import { alwaysDenyAuthorizer } from './always.ts';
import { type AuthorizationMetrics, createPromAuthorizationMetrics, noopAuthorizationMetrics } from './authorization-metrics.ts';
import { buildAuthorizerFromModes } from './build-authorizer.ts';
import { bootstrapRbacAuthorizer, nodeAuthorizerStandIn } from './bootstrap-policy-authorizer.ts';
import { realClock } from '../clock.ts';
import { createPrng } from '../random.ts';

const attrs = (user: string, groups: string[] = ['system:authenticated'], extra: Partial<AuthorizationAttributes> = {}): AuthorizationAttributes => ({
  user: { name: user, groups },
  verb: 'delete',
  isResourceRequest: true,
  path: '/apis/flowcontrol.apiserver.k8s.io/v1/prioritylevelconfigurations/x',
  namespace: '',
  apiGroup: 'flowcontrol.apiserver.k8s.io',
  apiVersion: 'v1',
  resource: 'prioritylevelconfigurations',
  subresource: '',
  name: 'x',
  ...extra,
});
const fixed = (result: AuthorizationResult): Authorizer & { calls: number } => {
  const authorizer = { calls: 0, authorize: async () => (authorizer.calls++, result) };
  return authorizer;
};
const deps = { clock: realClock(), prng: createPrng(3) };

test('system:masters is allowed before any configured authorizer is asked', async () => {
  const denier = fixed({ decision: 'deny', reason: 'no' });
  const chain = createAuthorizerChain([{ type: 'Webhook', name: 'w', authorizer: denier }]);
  assert.equal(await chain.authorize(attrs('root', ['system:masters'])), { decision: 'allow', reason: '' });
  assert.is(denier.calls, 0);
  assert.equal(await chain.authorize(attrs('bob')), { decision: 'deny', reason: 'no' });
});

test('first allow or deny wins with its own reason and error; no opinions join reasons and errors', async () => {
  const chain = createAuthorizerChain([
    { type: 'Webhook', name: 'a', authorizer: fixed({ decision: 'noOpinion', reason: 'a says maybe', error: 'a failed' }) },
    { type: 'AlwaysDeny', name: 'alwaysdeny', authorizer: alwaysDenyAuthorizer },
    { type: 'Webhook', name: 'b', authorizer: fixed({ decision: 'noOpinion', reason: '', error: 'b failed' }) },
  ]);
  assert.equal(await chain.authorize(attrs('bob')), { decision: 'noOpinion', reason: 'a says maybe\nEverything is forbidden.', error: '[a failed, b failed]' });
  const allowing = createAuthorizerChain([
    { type: 'Webhook', name: 'a', authorizer: fixed({ decision: 'noOpinion', reason: 'x', error: 'a failed' }) },
    { type: 'Webhook', name: 'b', authorizer: fixed({ decision: 'allow', reason: 'fine' }) },
  ]);
  assert.equal(await allowing.authorize(attrs('bob')), { decision: 'allow', reason: 'fine' });
});

test('terminal decisions are counted per authorizer', async () => {
  const registry = new Registry();
  const chain = createAuthorizerChain(
    [
      { type: 'Webhook', name: 'first', authorizer: fixed({ decision: 'noOpinion', reason: '' }) },
      { type: 'Webhook', name: 'second', authorizer: fixed({ decision: 'deny', reason: '' }) },
    ],
    createPromAuthorizationMetrics(registry),
  );
  await chain.authorize(attrs('bob'));
  await chain.authorize(attrs('bob'));
  const text = await registry.metrics();
  assert.match(text, /apiserver_authorization_decisions_total\{type="Webhook",name="second",decision="denied"\} 2/);
  assert.not.match(text, /name="first"/);
});

test('--authorization-mode: default AlwaysAllow, unknown and repeated modes are errors', async () => {
  const allowAll = buildAuthorizerFromModes([], deps);
  assert.ok(allowAll.ok);
  if (allowAll.ok) assert.is((await allowAll.authorizer.authorize(attrs('bob'))).decision, 'allow');
  const deny = buildAuthorizerFromModes(['AlwaysDeny'], deps);
  if (deny.ok) assert.equal(await deny.authorizer.authorize(attrs('bob')), { decision: 'noOpinion', reason: 'Everything is forbidden.' });
  assert.equal(buildAuthorizerFromModes(['Magic'], deps), { ok: false, error: 'authorization-mode "Magic" is not a valid mode' });
  assert.equal(buildAuthorizerFromModes(['RBAC', 'RBAC'], deps), { ok: false, error: 'authorization-mode "RBAC" has mode specified more than once' });
});

test('RBAC stand-in: bootstrap discovery and self-review rules only', async () => {
  const rbac = bootstrapRbacAuthorizer();
  const ssar = attrs('bob', ['system:authenticated'], { verb: 'create', apiGroup: 'authorization.k8s.io', resource: 'selfsubjectaccessreviews', name: '' });
  assert.equal(await rbac.authorize(ssar), {
    decision: 'allow',
    reason: 'RBAC: allowed by ClusterRoleBinding "system:basic-user" of ClusterRole "system:basic-user" to Group "system:authenticated"',
  });
  const discovery = attrs('bob', ['system:authenticated'], {
    isResourceRequest: false,
    verb: 'get',
    path: '/apis/flowcontrol.apiserver.k8s.io/v1',
    apiGroup: '',
    resource: '',
    name: '',
  });
  assert.is((await rbac.authorize(discovery)).decision, 'allow');
  assert.is((await rbac.authorize({ ...discovery, user: { name: 'system:anonymous', groups: ['system:unauthenticated'] } })).decision, 'noOpinion');
  assert.equal(await rbac.authorize(attrs('bob')), { decision: 'noOpinion', reason: '' });
});

test('a swapped chain serves new requests; the old one closes after its requests finish', async () => {
  let release!: () => void;
  let closedOld = 0;
  const slow: Authorizer = {
    authorize: () => new Promise((resolve) => (release = () => resolve({ decision: 'allow', reason: 'old' }))),
    close: () => closedOld++,
  };
  const swappable = createSwappableAuthorizer(slow);
  const pending = swappable.authorize(attrs('bob'));
  swappable.swap(fixed({ decision: 'deny', reason: 'new' }));
  assert.equal(await swappable.authorize(attrs('bob')), { decision: 'deny', reason: 'new' });
  assert.is(closedOld, 0, 'still serving a request');
  release();
  assert.equal(await pending, { decision: 'allow', reason: 'old' });
  assert.is(closedOld, 1);
});

test('rules: AlwaysAllow lists `*`, AlwaysDeny nothing, the privileged group takes no part', async () => {
  const allowAll = buildAuthorizerFromModes(['AlwaysAllow'], deps);
  if (!allowAll.ok) return assert.unreachable(allowAll.error);
  assert.equal(await allowAll.authorizer.rulesFor!({ name: 'jane', groups: ['system:authenticated'] }, 'default'), {
    resourceRules: [{ verbs: ['*'], apiGroups: ['*'], resources: ['*'], resourceNames: [] }],
    nonResourceRules: [{ verbs: ['*'], nonResourceURLs: ['*'] }],
    incomplete: false,
  });
  const denyAll = buildAuthorizerFromModes(['AlwaysDeny'], deps);
  if (!denyAll.ok) return assert.unreachable(denyAll.error);
  assert.equal(await denyAll.authorizer.rulesFor!({ name: 'root', groups: ['system:masters'] }, 'default'), {
    resourceRules: [],
    nonResourceRules: [],
    incomplete: false,
  });
});

test('rules: RBAC lists the bootstrap bindings that apply; a webhook makes the list incomplete, errors aggregated', async () => {
  const webhook = (name: string): Authorizer => ({
    authorize: async () => ({ decision: 'noOpinion', reason: '' }),
    rulesFor: async () => ({ resourceRules: [], nonResourceRules: [], incomplete: true, error: `${name} cannot list` }),
  });
  const chain = createAuthorizerChain([
    { type: 'RBAC', name: 'rbac', authorizer: bootstrapRbacAuthorizer() },
    { type: 'Webhook', name: 'a', authorizer: webhook('a') },
    { type: 'Webhook', name: 'b', authorizer: webhook('b') },
  ]);
  const rules = await chain.rulesFor!({ name: 'jane', groups: ['system:authenticated'] }, 'default');
  assert.equal(rules.resourceRules, [
    { verbs: ['create'], apiGroups: ['authorization.k8s.io'], resources: ['selfsubjectaccessreviews', 'selfsubjectrulesreviews'], resourceNames: [] },
    { verbs: ['create'], apiGroups: ['authentication.k8s.io'], resources: ['selfsubjectreviews'], resourceNames: [] },
  ]);
  assert.equal(
    rules.nonResourceRules.map((r) => r.nonResourceURLs.length),
    [11, 5],
  );
  assert.equal([rules.incomplete, rules.error], [true, '[a cannot list, b cannot list]']);
  const masters = await chain.rulesFor!({ name: 'root', groups: ['system:masters', 'system:authenticated'] }, 'default');
  assert.equal(masters.resourceRules[0], { verbs: ['*'], apiGroups: ['*'], resources: ['*'], resourceNames: [] });
  assert.equal(masters.nonResourceRules[0], { verbs: ['*'], nonResourceURLs: ['*'] });
});

test("rules: the node stand-in cannot list a node identity's rules; a swapped chain lists the new chain's", async () => {
  const nodes = buildAuthorizerFromModes(['Node'], deps);
  if (!nodes.ok) return assert.unreachable(nodes.error);
  assert.equal(await nodes.authorizer.rulesFor!({ name: 'system:node:n1', groups: ['system:nodes'] }, ''), {
    resourceRules: [],
    nonResourceRules: [],
    incomplete: true,
    error: 'node authorizer does not support user rule resolution',
  });
  assert.equal((await nodes.authorizer.rulesFor!({ name: 'jane', groups: [] }, '')).incomplete, false);
  const swappable = createSwappableAuthorizer(nodes.authorizer);
  const allowAll = buildAuthorizerFromModes(['AlwaysAllow'], deps);
  if (!allowAll.ok) return assert.unreachable(allowAll.error);
  swappable.swap(allowAll.authorizer);
  assert.is((await swappable.rulesFor!({ name: 'jane', groups: [] }, '')).resourceRules[0]?.verbs[0], '*');
});

/** Kubernetes' RuleAllows over listed rules: `*` or the exact value; a non-resource URL `prefix*` matches by prefix. */
function listedRulesAllow(rules: RulesResult, a: AuthorizationAttributes): boolean {
  const has = (values: readonly string[], value: string) => values.includes('*') || values.includes(value);
  if (!a.isResourceRequest) {
    return rules.nonResourceRules.some(
      (rule) => has(rule.verbs, a.verb) && rule.nonResourceURLs.some((url) => (url.endsWith('*') ? a.path.startsWith(url.slice(0, -1)) : url === a.path)),
    );
  }
  const resource = a.subresource === '' ? a.resource : `${a.resource}/${a.subresource}`;
  return rules.resourceRules.some((rule) => has(rule.verbs, a.verb) && has(rule.apiGroups, a.apiGroup) && has(rule.resources, resource));
}

test('RBAC stand-in: allows exactly what it lists for the user, with the allowing binding named in the reason', async () => {
  for (const apiDomain of ['k8s.io', 'example.org']) {
    const rbac = bootstrapRbacAuthorizer(apiDomain);
    const groupSets = [
      [],
      ['system:masters'],
      ['system:authenticated'],
      ['system:unauthenticated'],
      ['system:monitoring'],
      ['system:authenticated', 'system:monitoring'],
      ['other'],
    ];
    const verbs = ['get', 'list', 'create', 'delete'];
    const resources: Array<Partial<AuthorizationAttributes>> = [];
    for (const apiGroup of ['', `authorization.${apiDomain}`, `authentication.${apiDomain}`, 'authorization.k8s.io', 'apps'])
      for (const resource of ['selfsubjectaccessreviews', 'selfsubjectrulesreviews', 'selfsubjectreviews', 'pods'])
        for (const subresource of ['', 'status']) resources.push({ isResourceRequest: true, apiGroup, resource, subresource });
    const paths = [
      '/',
      '/api',
      '/api/v1',
      '/apis',
      '/apis/apps/v1',
      '/healthz',
      '/healthz/etcd',
      '/livez',
      '/livez/ping',
      '/readyz/x',
      '/metrics',
      '/metrics/slis',
      '/version',
      '/version/',
      '/openapi/v2',
      '/foo',
    ];
    for (const path of paths) resources.push({ isResourceRequest: false, path, apiGroup: '', resource: '', subresource: '' });
    let allowed = 0;
    let checked = 0;
    for (const groups of groupSets) {
      const listed = await rbac.rulesFor!({ name: 'u', groups }, 'default');
      for (const verb of verbs)
        for (const extra of resources) {
          const a = attrs('u', groups, { ...extra, verb });
          const result = await rbac.authorize(a);
          const expected = listedRulesAllow(listed, a);
          assert.is(result.decision, expected ? 'allow' : 'noOpinion', `${groups.join(',')} ${verb} ${JSON.stringify(extra)}`);
          if (expected) {
            assert.match(result.reason, /^RBAC: allowed by ClusterRoleBinding "([^"]+)" of ClusterRole "\1" to Group "([^"]+)"$/);
            assert.ok(groups.includes(/to Group "([^"]+)"$/.exec(result.reason)![1]!), result.reason);
            allowed++;
          } else assert.is(result.reason, '');
          checked++;
        }
    }
    // Both answers occur often enough for the agreement to mean something.
    assert.ok(allowed > 100 && checked - allowed > 100, `${allowed} of ${checked}`);
  }
});

test('RBAC: cluster-admin (system:masters) allows anything, subresources included', async () => {
  const rbac = bootstrapRbacAuthorizer();
  assert.is((await rbac.authorize(attrs('root', ['system:masters'], { subresource: 'status' }))).decision, 'allow');
  assert.is((await rbac.authorize(attrs('jane'))).decision, 'noOpinion');
});

// The chain and the swappable authorizer answer at once when every authorizer asked does.

/** Records every terminal decision the chain counts, in order. */
const recordingMetrics = (): AuthorizationMetrics & { decisions: string[] } => {
  const decisions: string[] = [];
  return { ...noopAuthorizationMetrics, decisions, decision: (type, name, decision) => decisions.push(`${type}/${name}/${decision}`) };
};

test('over synchronous authorizers the chain decides at once: no promise, same answers', () => {
  const chain = createAuthorizerChain([
    { type: 'RBAC', name: 'rbac', authorizer: bootstrapRbacAuthorizer() },
    { type: 'AlwaysDeny', name: 'alwaysdeny', authorizer: alwaysDenyAuthorizer },
    { type: 'Node', name: 'node', authorizer: nodeAuthorizerStandIn },
  ]);
  const admin = chain.authorize(attrs('root', ['system:masters']));
  assert.not.instance(admin, Promise);
  assert.equal(admin, { decision: 'allow', reason: '' });
  const nobody = chain.authorize(attrs('bob'));
  assert.not.instance(nobody, Promise);
  assert.equal(nobody, { decision: 'noOpinion', reason: 'Everything is forbidden.' });
  const allowAll = buildAuthorizerFromModes(['AlwaysAllow'], deps);
  if (!allowAll.ok) return assert.unreachable(allowAll.error);
  assert.equal(allowAll.authorizer.authorize(attrs('bob')), { decision: 'allow', reason: '' });
  const swappable = createSwappableAuthorizer(chain);
  assert.equal(swappable.authorize(attrs('root', ['system:masters'])), { decision: 'allow', reason: '' });
});

/** One member of a generated chain: its answer, and whether it gives it at once or as a promise (a microtask or a macrotask later). */
interface MemberPlan {
  timing: 'now' | 'microtask' | 'macrotask';
  result: AuthorizationResult;
}

const resultArbitrary: fc.Arbitrary<AuthorizationResult> = fc
  .record({
    decision: fc.constantFrom<AuthorizationResult['decision']>('allow', 'deny', 'noOpinion'),
    reason: fc.constantFrom('', 'r1', 'r2'),
    error: fc.constantFrom(undefined, '', 'e1', 'e2'),
  })
  .map(({ decision, reason, error }) => (error === undefined ? { decision, reason } : { decision, reason, error }));
const planArbitrary: fc.Arbitrary<MemberPlan> = fc.record({
  timing: fc.constantFrom<MemberPlan['timing']>('now', 'microtask', 'macrotask'),
  result: resultArbitrary,
});

/** Members following `plans`, each logging its index to `asked` when asked. */
function plannedMembers(plans: readonly MemberPlan[], asked: number[]): ChainMember[] {
  return plans.map((plan, index) => ({
    type: 'Webhook',
    name: `m${index}`,
    authorizer: {
      authorize: () => {
        asked.push(index);
        const result = { ...plan.result };
        if (plan.timing === 'now') return result;
        if (plan.timing === 'microtask') return Promise.resolve(result);
        return new Promise<AuthorizationResult>((resolve) => setImmediate(() => resolve(result)));
      },
    },
  }));
}

/** The chain as it was before it could answer at once: one `await` per member, arrays per call. */
async function referenceChain(
  members: readonly ChainMember[],
  attributes: AuthorizationAttributes,
  metrics: AuthorizationMetrics,
): Promise<AuthorizationResult> {
  if (attributes.user.groups.includes('system:masters')) return { decision: 'allow', reason: '' };
  const reasons: string[] = [];
  const errors: string[] = [];
  for (const member of members) {
    const result = await member.authorizer.authorize(attributes);
    if (result.decision === 'allow') metrics.decision(member.type, member.name, 'allowed');
    else if (result.decision === 'deny') metrics.decision(member.type, member.name, 'denied');
    if (result.error !== undefined && result.error !== '') errors.push(result.error);
    if (result.reason !== '') reasons.push(result.reason);
    if (result.decision !== 'noOpinion') return result;
  }
  const result: AuthorizationResult = { decision: 'noOpinion', reason: reasons.join('\n') };
  if (errors.length > 0) result.error = aggregate(errors);
  return result;
}

test('property: any mix of synchronous and pending members gives the reference answer, asks the same members in order, counts the same decisions', async () => {
  await fc.assert(
    fc.asyncProperty(fc.array(planArbitrary, { maxLength: 6 }), fc.boolean(), async (plans, master) => {
      const attributes = attrs('bob', master ? ['system:masters'] : ['system:authenticated']);
      const expectedAsked: number[] = [];
      const expectedMetrics = recordingMetrics();
      const expected = await referenceChain(plannedMembers(plans, expectedAsked), attributes, expectedMetrics);
      const asked: number[] = [];
      const metrics = recordingMetrics();
      const outcome = createAuthorizerChain(plannedMembers(plans, asked), metrics).authorize(attributes);
      // A promise exactly when an asked member's answer was one.
      assert.is(
        outcome instanceof Promise,
        asked.some((index) => plans[index]!.timing !== 'now'),
      );
      assert.equal(await outcome, expected);
      assert.equal(asked, expectedAsked);
      assert.equal(metrics.decisions, expectedMetrics.decisions);
    }),
    { numRuns: 300 },
  );
});

test('a chain with a pending member in the middle: first decisive answer in order, reasons and errors aggregated', async () => {
  const asked: number[] = [];
  const plans: MemberPlan[] = [
    { timing: 'now', result: { decision: 'noOpinion', reason: 'first', error: 'e1' } },
    { timing: 'macrotask', result: { decision: 'noOpinion', reason: '', error: 'e2' } },
    { timing: 'now', result: { decision: 'noOpinion', reason: 'third', error: 'e1' } },
  ];
  const metrics = recordingMetrics();
  const outcome = createAuthorizerChain(plannedMembers(plans, asked), metrics).authorize(attrs('bob'));
  assert.instance(outcome, Promise);
  assert.equal(asked, [0, 1], 'the member after the pending one waits for its answer');
  assert.equal(await outcome, { decision: 'noOpinion', reason: 'first\nthird', error: '[e1, e2]' });
  assert.equal(asked, [0, 1, 2]);
  const decisive = [...plans.slice(0, 2), { timing: 'now', result: { decision: 'deny', reason: 'no' } } satisfies MemberPlan, plans[2]!];
  const askedAgain: number[] = [];
  assert.equal(await createAuthorizerChain(plannedMembers(decisive, askedAgain), metrics).authorize(attrs('bob')), { decision: 'deny', reason: 'no' });
  assert.equal(askedAgain, [0, 1, 2]);
  assert.equal(metrics.decisions, ['Webhook/m2/denied']);
});

test('swapped while decisions are pending, the retired chain closes once the last of them settles; decisions made at once never hold it open', async () => {
  const releases: Array<() => void> = [];
  let closedOld = 0;
  const old: Authorizer = {
    authorize: (attributes) =>
      attributes.user.groups.includes('now')
        ? { decision: 'allow', reason: 'at once' }
        : new Promise((resolve) => releases.push(() => resolve({ decision: 'allow', reason: 'old' }))),
    close: () => closedOld++,
  };
  const swappable = createSwappableAuthorizer(old);
  assert.equal(swappable.authorize(attrs('bob', ['now'])), { decision: 'allow', reason: 'at once' });
  const first = swappable.authorize(attrs('bob'));
  const second = swappable.authorize(attrs('bob'));
  assert.equal(swappable.authorize(attrs('bob', ['now'])), { decision: 'allow', reason: 'at once' });
  let closedNew = 0;
  const next: Authorizer = { authorize: () => ({ decision: 'deny', reason: 'new' }), close: () => closedNew++ };
  swappable.swap(next);
  assert.equal(swappable.authorize(attrs('bob')), { decision: 'deny', reason: 'new' });
  releases[0]!();
  assert.equal(await first, { decision: 'allow', reason: 'old' });
  assert.is(closedOld, 0, 'one decision still pending');
  releases[1]!();
  assert.equal(await second, { decision: 'allow', reason: 'old' });
  assert.is(closedOld, 1, 'closed once, after the last');

  // Only decisions made at once on a chain: a swap closes it right away.
  const third: Authorizer = { authorize: () => ({ decision: 'allow', reason: '' }), close: () => closedOld++ };
  swappable.swap(third);
  assert.is(closedNew, 1, 'the chain that only decided at once closed on the swap');
  swappable.authorize(attrs('bob'));
  swappable.swap(next);
  assert.is(closedOld, 2);
});

test.run();
