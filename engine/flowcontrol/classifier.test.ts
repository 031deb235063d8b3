import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { createHash } from 'node:crypto';
import type { FlowSchema, PriorityLevelConfiguration, PolicyRulesWithSubjects } from '../resources/types.ts';
import { defaultFlowSchema, defaultPriorityLevelConfiguration } from '../resources/defaults.ts';
import { mandatoryFlowSchemas, mandatoryPriorityLevels, suggestedFlowSchemas, suggestedPriorityLevels } from '../resources/bootstrap.ts';
import {
  buildClassifier,
  danglingCondition,
  danglingConditionDiffers,
  isPriorityLevelBroken,
  matchesNonResourceUrl,
  matchesResourceRule,
  matchesSubject,
  matchesFlowSchema,
} from './classifier.ts';
import type { RequestDigest } from './request-digest.ts';
import type { RequestInfo } from '../request/request-info.ts';
import type { UserInfo } from '../auth/user-info.ts';

// ---------------------------------------------------------------------------------------------
// Helpers

const AUTHENTICATED = 'system:authenticated';

function user(name: string, ...groups: string[]): UserInfo {
  return { name, groups };
}

function serviceAccount(namespace: string, name: string): UserInfo {
  return user(`system:serviceaccount:${namespace}:${name}`, 'system:serviceaccounts', `system:serviceaccounts:${namespace}`, AUTHENTICATED);
}

const kubelet = user('system:node:n1', 'system:nodes', AUTHENTICATED);
const anonymous = user('system:anonymous', 'system:unauthenticated');

interface ResourceTarget {
  group?: string;
  resource: string;
  subresource?: string;
  namespace?: string;
  name?: string;
}

function resourceRequest(verb: string, target: ResourceTarget): RequestInfo {
  const group = target.group ?? '';
  return {
    isResourceRequest: true,
    path: `/${group === '' ? 'api/v1' : `apis/${group}/v1`}/${target.resource}`,
    verb,
    apiPrefix: group === '' ? 'api' : 'apis',
    apiGroup: group,
    apiVersion: 'v1',
    namespace: target.namespace ?? '',
    resource: target.resource,
    subresource: target.subresource ?? '',
    name: target.name ?? '',
  };
}

function nonResourceRequest(verb: string, path: string): RequestInfo {
  return { isResourceRequest: false, path, verb, apiGroup: '', apiVersion: '', namespace: '', resource: '', subresource: '', name: '' };
}

const digest = (u: UserInfo, requestInfo: RequestInfo): RequestDigest => ({ user: u, requestInfo });

/** The oracle for 5.4, written from the fact sheet rather than by calling the code under test. */
function expectedHash(fsName: string, distinguisher: string): bigint {
  return createHash('sha256')
    .update(Buffer.from(fsName))
    .update(Buffer.from([0]))
    .update(Buffer.from(distinguisher))
    .digest()
    .readBigUInt64LE(0);
}

function defaultObjects(): { flowSchemas: FlowSchema[]; priorityLevels: PriorityLevelConfiguration[] } {
  return {
    flowSchemas: [...mandatoryFlowSchemas(), ...suggestedFlowSchemas()].map((fs) => defaultFlowSchema(fs)),
    priorityLevels: [...mandatoryPriorityLevels(), ...suggestedPriorityLevels()].map((plc) => defaultPriorityLevelConfiguration(plc)),
  };
}

function defaultClassifier() {
  const { flowSchemas, priorityLevels } = defaultObjects();
  return buildClassifier(flowSchemas, priorityLevels);
}

function flowSchema(name: string, precedence: number, plName: string, rules: PolicyRulesWithSubjects[], method?: 'ByUser' | 'ByNamespace'): FlowSchema {
  return {
    metadata: { name },
    spec: {
      priorityLevelConfiguration: { name: plName },
      matchingPrecedence: precedence,
      ...(method === undefined ? {} : { distinguisherMethod: { type: method } }),
      rules,
    },
  };
}

const EVERYONE: PolicyRulesWithSubjects = {
  subjects: [{ kind: 'Group', group: { name: '*' } }],
  resourceRules: [{ verbs: ['*'], apiGroups: ['*'], resources: ['*'], clusterScope: true, namespaces: ['*'] }],
  nonResourceRules: [{ verbs: ['*'], nonResourceURLs: ['*'] }],
};

function queuingLevel(name: string, queues: number, handSize = 1): PriorityLevelConfiguration {
  return {
    metadata: { name },
    spec: {
      type: 'Limited',
      limited: { nominalConcurrencyShares: 10, lendablePercent: 0, limitResponse: { type: 'Queue', queuing: { queues, handSize, queueLengthLimit: 50 } } },
    },
  };
}

function rejectLevel(name: string): PriorityLevelConfiguration {
  return { metadata: { name }, spec: { type: 'Limited', limited: { nominalConcurrencyShares: 10, lendablePercent: 0, limitResponse: { type: 'Reject' } } } };
}

// ---------------------------------------------------------------------------------------------
// 11.9: classification with the default objects

interface Row {
  what: string;
  digest: RequestDigest;
  flowSchema: string;
  priorityLevel: string;
  /** undefined: the level does not queue, so no distinguisher and hash 0. */
  distinguisher?: string;
}

const ROWS: Row[] = [
  {
    what: 'system:masters member, resource',
    digest: digest(user('root', 'system:masters', AUTHENTICATED), resourceRequest('delete', { resource: 'pods', namespace: 'x', name: 'p' })),
    flowSchema: 'exempt',
    priorityLevel: 'exempt',
  },
  {
    what: 'system:masters member, non-resource',
    digest: digest(user('root', 'system:masters'), nonResourceRequest('post', '/anything')),
    flowSchema: 'exempt',
    priorityLevel: 'exempt',
  },
  { what: 'anonymous GET /healthz', digest: digest(anonymous, nonResourceRequest('get', '/healthz')), flowSchema: 'probes', priorityLevel: 'exempt' },
  { what: 'anonymous GET /readyz/etcd', digest: digest(anonymous, nonResourceRequest('get', '/readyz/etcd')), flowSchema: 'probes', priorityLevel: 'exempt' },
  {
    what: 'authenticated GET /livez',
    digest: digest(user('alice', AUTHENTICATED), nonResourceRequest('get', '/livez')),
    flowSchema: 'probes',
    priorityLevel: 'exempt',
  },
  {
    what: 'kube-scheduler gets its lease',
    digest: digest(
      user('system:kube-scheduler', AUTHENTICATED),
      resourceRequest('get', { group: 'coordination.k8s.io', resource: 'leases', namespace: 'kube-system', name: 'kube-scheduler' }),
    ),
    flowSchema: 'system-leader-election',
    priorityLevel: 'leader-election',
    distinguisher: 'system:kube-scheduler',
  },
  {
    what: 'kube-controller-manager updates endpoints',
    digest: digest(user('system:kube-controller-manager', AUTHENTICATED), resourceRequest('update', { resource: 'endpoints', namespace: 'x', name: 'e' })),
    flowSchema: 'endpoint-controller',
    priorityLevel: 'workload-high',
    distinguisher: 'system:kube-controller-manager',
  },
  {
    what: 'kube-system SA updates a configmap',
    digest: digest(serviceAccount('kube-system', 'foo'), resourceRequest('update', { resource: 'configmaps', namespace: 'kube-system', name: 'c' })),
    flowSchema: 'workload-leader-election',
    priorityLevel: 'leader-election',
    distinguisher: 'system:serviceaccount:kube-system:foo',
  },
  {
    what: 'kubelet patches nodes/status',
    digest: digest(kubelet, resourceRequest('patch', { resource: 'nodes', subresource: 'status', name: 'n1' })),
    flowSchema: 'system-node-high',
    priorityLevel: 'node-high',
    distinguisher: 'system:node:n1',
  },
  {
    what: 'kubelet renews its lease',
    digest: digest(kubelet, resourceRequest('update', { group: 'coordination.k8s.io', resource: 'leases', namespace: 'kube-node-lease', name: 'n1' })),
    flowSchema: 'system-node-high',
    priorityLevel: 'node-high',
    distinguisher: 'system:node:n1',
  },
  {
    what: 'kubelet gets a pod',
    digest: digest(kubelet, resourceRequest('get', { resource: 'pods', namespace: 'default', name: 'p' })),
    flowSchema: 'system-nodes',
    priorityLevel: 'system',
    distinguisher: 'system:node:n1',
  },
  {
    what: 'kube-controller-manager lists pods in all namespaces',
    digest: digest(user('system:kube-controller-manager', AUTHENTICATED), resourceRequest('list', { resource: 'pods' })),
    flowSchema: 'kube-controller-manager',
    priorityLevel: 'workload-high',
    distinguisher: '',
  },
  {
    what: 'kube-system SA creates a pod in namespace a',
    digest: digest(serviceAccount('kube-system', 'deployment-controller'), resourceRequest('create', { resource: 'pods', namespace: 'a' })),
    flowSchema: 'kube-system-service-accounts',
    priorityLevel: 'workload-high',
    distinguisher: 'a',
  },
  {
    what: 'default:default SA lists pods',
    digest: digest(serviceAccount('default', 'default'), resourceRequest('list', { resource: 'pods', namespace: 'default' })),
    flowSchema: 'service-accounts',
    priorityLevel: 'workload-low',
    distinguisher: 'system:serviceaccount:default:default',
  },
  {
    what: 'alice lists pods',
    digest: digest(user('alice', AUTHENTICATED), resourceRequest('list', { resource: 'pods', namespace: 'default' })),
    flowSchema: 'global-default',
    priorityLevel: 'global-default',
    distinguisher: 'alice',
  },
];

for (const row of ROWS) {
  test(`default objects: ${row.what} → ${row.flowSchema} → ${row.priorityLevel}`, () => {
    const result = defaultClassifier().classify(row.digest);
    assert.is(result.flowSchema.metadata?.name, row.flowSchema);
    assert.is(result.priorityLevel.metadata?.name, row.priorityLevel);
    assert.is(result.flowDistinguisher, row.distinguisher ?? '');
    assert.is(result.hashValue, row.distinguisher === undefined ? 0n : expectedHash(row.flowSchema, row.distinguisher));
    assert.is(result.fallback, false);
  });
}

test('default objects: the matching order is 4.2 by precedence, name breaking the 800 tie', () => {
  assert.equal(
    defaultClassifier().flowSchemas.map((fs) => fs.metadata?.name),
    [
      'exempt',
      'probes',
      'system-leader-election',
      'endpoint-controller',
      'workload-leader-election',
      'system-node-high',
      'system-nodes',
      'kube-controller-manager',
      'kube-scheduler',
      'kube-system-service-accounts',
      'service-accounts',
      'global-default',
      'catch-all',
    ],
  );
});

test('default objects without global-default: ordinary requests land in catch-all, which rejects and so has no flow', () => {
  const { flowSchemas, priorityLevels } = defaultObjects();
  const classifier = buildClassifier(
    flowSchemas.filter((fs) => fs.metadata?.name !== 'global-default'),
    priorityLevels,
  );
  const result = classifier.classify(digest(user('alice', AUTHENTICATED), resourceRequest('list', { resource: 'pods', namespace: 'default' })));
  assert.is(result.flowSchema.metadata?.name, 'catch-all');
  assert.is(result.priorityLevel.metadata?.name, 'catch-all');
  assert.is(result.priorityLevel.spec?.limited?.limitResponse?.type, 'Reject');
  // 5.4: the distinguisher is computed only for queuing levels (11.9's "username" column assumes otherwise).
  assert.is(result.flowDistinguisher, '');
  assert.is(result.hashValue, 0n);
  assert.is(result.fallback, false);
});

test('a user in neither system:authenticated nor system:unauthenticated falls back to the catch-all schema', () => {
  const result = defaultClassifier().classify(digest(user('mallory'), resourceRequest('list', { resource: 'pods', namespace: 'default' })));
  assert.is(result.flowSchema.metadata?.name, 'catch-all');
  assert.is(result.priorityLevel.metadata?.name, 'catch-all');
  assert.is(result.fallback, true);
});

// ---------------------------------------------------------------------------------------------
// Predicates

test('non-resource URL: exact, `*`, and prefix with an implied or explicit trailing slash', () => {
  assert.ok(matchesNonResourceUrl('/healthz', '/healthz'));
  assert.ok(matchesNonResourceUrl('/healthz', '/healthz/etcd'));
  assert.not.ok(matchesNonResourceUrl('/healthz', '/healthzx'));
  assert.not.ok(matchesNonResourceUrl('/hea', '/healthz'));
  assert.ok(matchesNonResourceUrl('/hea', '/hea/lthz'));
  assert.ok(matchesNonResourceUrl('/healthz/*', '/healthz/etcd'));
  assert.ok(matchesNonResourceUrl('/healthz/*', '/healthz/'));
  assert.not.ok(matchesNonResourceUrl('/healthz/*', '/healthz'));
  assert.ok(matchesNonResourceUrl('*', '/whatever'));
  assert.ok(matchesNonResourceUrl('/', '/version'));
  assert.ok(matchesNonResourceUrl('/apis/', '/apis/apps'));
  assert.not.ok(matchesNonResourceUrl('/apis', '/api'));
});

test('resource rule: `*` among namespaces never covers a cluster-scoped or all-namespaces request', () => {
  const rule = { verbs: ['*'], apiGroups: ['*'], resources: ['*'], clusterScope: false, namespaces: ['*'] };
  assert.not.ok(matchesResourceRule(resourceRequest('list', { resource: 'pods' }), rule));
  assert.not.ok(matchesResourceRule(resourceRequest('get', { resource: 'nodes', name: 'n' }), rule));
  assert.ok(matchesResourceRule(resourceRequest('list', { resource: 'pods', namespace: 'a' }), rule));
  assert.ok(matchesResourceRule(resourceRequest('list', { resource: 'pods' }), { ...rule, clusterScope: true }));
  const clusterOnly = { ...rule, clusterScope: true, namespaces: [] };
  assert.not.ok(matchesResourceRule(resourceRequest('list', { resource: 'pods', namespace: 'a' }), clusterOnly));
});

test('resource rule: lists hold exact values; `*` is a wildcard only as the whole list', () => {
  const base = { verbs: ['get'], apiGroups: [''], resources: ['pods'], clusterScope: false, namespaces: ['a'] };
  const get = resourceRequest('get', { resource: 'pods', namespace: 'a' });
  assert.ok(matchesResourceRule(get, base));
  assert.not.ok(matchesResourceRule(resourceRequest('list', { resource: 'pods', namespace: 'a' }), base));
  assert.not.ok(matchesResourceRule({ ...get, verb: 'GET' }, base), 'verbs are case-sensitive');
  assert.not.ok(matchesResourceRule(resourceRequest('get', { resource: 'pods', namespace: 'b' }), base));
  assert.not.ok(matchesResourceRule(resourceRequest('get', { group: 'apps', resource: 'pods', namespace: 'a' }), base));
  assert.not.ok(matchesResourceRule(resourceRequest('get', { resource: 'pods', subresource: 'log', namespace: 'a' }), base), 'pods does not cover pods/log');
  assert.ok(matchesResourceRule(resourceRequest('get', { resource: 'pods', subresource: 'log', namespace: 'a' }), { ...base, resources: ['pods/log'] }));
  assert.not.ok(matchesResourceRule(get, { ...base, namespaces: ['*', 'b'] }), '`*` mixed with others is not a wildcard');
  assert.not.ok(matchesResourceRule(get, { ...base, verbs: ['*', 'list'] }));
  assert.ok(matchesResourceRule(get, { ...base, verbs: ['*'], apiGroups: ['*'], resources: ['*'], namespaces: ['*'] }));
  const { verbs: _verbs, ...withoutVerbs } = base;
  assert.not.ok(matchesResourceRule(get, withoutVerbs), 'a missing list matches nothing');
});

test('subjects: User and Group by exact name or `*`; missing member or unknown kind never matches', () => {
  const alice = user('alice', 'devs');
  assert.ok(matchesSubject(alice, { kind: 'User', user: { name: 'alice' } }));
  assert.not.ok(matchesSubject(alice, { kind: 'User', user: { name: 'Alice' } }));
  assert.ok(matchesSubject(alice, { kind: 'User', user: { name: '*' } }));
  assert.ok(matchesSubject(alice, { kind: 'Group', group: { name: 'devs' } }));
  assert.not.ok(matchesSubject(alice, { kind: 'Group', group: { name: 'dev' } }));
  assert.ok(matchesSubject(user('nobody'), { kind: 'Group', group: { name: '*' } }));
  assert.not.ok(matchesSubject(alice, { kind: 'User', group: { name: '*' } }));
  assert.not.ok(matchesSubject(alice, { kind: 'Group', user: { name: 'alice' } }));
  assert.not.ok(matchesSubject(alice, { kind: 'Robot', user: { name: 'alice' } }));
});

test('subjects: ServiceAccount by exact username, or `*` for a whole namespace', () => {
  const all = { kind: 'ServiceAccount', serviceAccount: { namespace: 'kube-system', name: '*' } };
  assert.ok(matchesSubject(user('system:serviceaccount:kube-system:foo'), all));
  assert.not.ok(matchesSubject(user('system:serviceaccount:kube-systemx:foo'), all), 'the namespace must be followed by `:`');
  assert.not.ok(matchesSubject(user('system:serviceaccount:kube-system'), all));
  assert.not.ok(matchesSubject(user('system:serviceaccount:default:foo'), all));
  assert.not.ok(matchesSubject(user('kube-system:foo'), all));
  const one = { kind: 'ServiceAccount', serviceAccount: { namespace: 'kube-system', name: 'foo' } };
  assert.ok(matchesSubject(user('system:serviceaccount:kube-system:foo'), one));
  assert.not.ok(matchesSubject(user('system:serviceaccount:kube-system:foobar'), one));
  assert.not.ok(matchesSubject(user('system:serviceaccount:kube-system:fo'), one));
  assert.not.ok(matchesSubject(user('system:serviceaccount:kube-system:foo'), { kind: 'ServiceAccount' }));
});

test('a rule needs a matching subject and then a rule of the request’s own sort', () => {
  const nonResourceOnly = flowSchema('n', 500, 'pl', [
    { subjects: [{ kind: 'User', user: { name: '*' } }], nonResourceRules: [{ verbs: ['get'], nonResourceURLs: ['/version'] }] },
  ]);
  assert.ok(matchesFlowSchema(digest(user('a'), nonResourceRequest('get', '/version')), nonResourceOnly));
  assert.not.ok(matchesFlowSchema(digest(user('a'), { ...resourceRequest('get', { resource: 'pods' }), path: '/version' }), nonResourceOnly));
  const bob = flowSchema('b', 500, 'pl', [{ ...EVERYONE, subjects: [{ kind: 'User', user: { name: 'bob' } }] }]);
  assert.not.ok(matchesFlowSchema(digest(user('a'), nonResourceRequest('get', '/version')), bob));
  assert.not.ok(matchesFlowSchema(digest(user('a'), nonResourceRequest('get', '/version')), flowSchema('e', 500, 'pl', [])), 'no rules matches nothing');
});

// ---------------------------------------------------------------------------------------------
// Digestion: ordering, dangling schemas, mandatory objects

test('equal precedence: the name decides, compared as UTF-8 bytes', () => {
  const levels = [queuingLevel('pl', 8)];
  const names = (fss: FlowSchema[]) => buildClassifier(fss, levels).flowSchemas.map((fs) => fs.metadata?.name);
  assert.equal(names([flowSchema('b', 500, 'pl', [EVERYONE]), flowSchema('a', 500, 'pl', [EVERYONE]), flowSchema('c', 400, 'pl', [EVERYONE])]), [
    'exempt',
    'c',
    'a',
    'b',
    'catch-all',
  ]);
  // UTF-16 code units would put the astral character first; bytes (code points) do not.
  assert.equal(names([flowSchema('\u{1F600}', 500, 'pl', [EVERYONE]), flowSchema('\uFF21', 500, 'pl', [EVERYONE])]).slice(1, 3), ['\uFF21', '\u{1F600}']);
  const result = buildClassifier([flowSchema('b', 500, 'pl', [EVERYONE]), flowSchema('a', 500, 'pl', [EVERYONE])], levels).classify(
    digest(user('x'), nonResourceRequest('get', '/')),
  );
  assert.is(result.flowSchema.metadata?.name, 'a');
});

test('a frozen RequestInfo (shared by requests to one target) is classified once per user object, and afresh by each classifier', () => {
  const classifier = defaultClassifier();
  const info = Object.freeze(resourceRequest('get', { resource: 'pods', namespace: 'default' }));
  const alice = user('alice', AUTHENTICATED);
  const root = user('root', 'system:masters', AUTHENTICATED);
  const first = classifier.classify(digest(alice, info));
  assert.ok(classifier.classify(digest(alice, info)) === first, 'a new digest of the same pair is not classified again');
  assert.is(first.flowSchema.metadata?.name, 'global-default');
  assert.is(first.flowDistinguisher, 'alice');
  const asRoot = classifier.classify(digest(root, info));
  assert.is(asRoot.flowSchema.metadata?.name, 'exempt', 'another user on the same target is classified for itself');
  assert.ok(classifier.classify(digest(alice, info)) === first);
  const healthz = Object.freeze(nonResourceRequest('get', '/healthz'));
  assert.is(classifier.classify(digest(alice, healthz)).flowSchemaName, 'probes', 'another target by the same user is classified for itself');
  assert.ok(classifier.classify(digest(alice, info)) === first);
  const unfrozen = resourceRequest('get', { resource: 'pods', namespace: 'default' });
  assert.is(classifier.classify(digest(alice, unfrozen)).flowSchemaName, 'global-default');
  Object.assign(unfrozen, nonResourceRequest('get', '/healthz'));
  assert.is(classifier.classify(digest(alice, unfrozen)).flowSchemaName, 'probes', 'an unfrozen RequestInfo may change: not kept');
  const other = defaultClassifier();
  assert.ok(other.classify(digest(alice, info)) !== first, 'a new configuration classifies afresh');
});

test('one classification object per flow, whatever RequestInfo a request carries (the queue set finds hands by it)', () => {
  const classifier = defaultClassifier();
  const alice = user('alice', AUTHENTICATED);
  const bob = user('bob', AUTHENTICATED);
  // Requests with a query each carry a RequestInfo of their own: they miss the per-target memos.
  const first = classifier.classify(digest(alice, resourceRequest('list', { resource: 'pods', namespace: 'default' })));
  const second = classifier.classify(digest(alice, resourceRequest('watch', { resource: 'pods', namespace: 'kube-system' })));
  assert.ok(second === first, 'the same flow (global-default, alice): one object');
  const ofBob = classifier.classify(digest(bob, resourceRequest('list', { resource: 'pods', namespace: 'default' })));
  assert.is(ofBob.flowDistinguisher, 'bob');
  assert.ok(ofBob !== first, 'another flow of the same FlowSchema: its own object');
  assert.ok(defaultClassifier().classify(digest(alice, resourceRequest('list', { resource: 'pods' }))) !== first, 'a new configuration: new objects');
});

test('a FlowSchema whose level is missing or broken is skipped and reported dangling', () => {
  const broken: PriorityLevelConfiguration = { metadata: { name: 'broken' }, spec: { type: 'Limited' } };
  const classifier = buildClassifier(
    [flowSchema('to-nowhere', 2, 'nope', [EVERYONE]), flowSchema('to-broken', 3, 'broken', [EVERYONE]), flowSchema('ok', 500, 'pl', [EVERYONE])],
    [broken, queuingLevel('pl', 8)],
  );
  assert.equal([...classifier.danglingFlowSchemas].sort(), ['to-broken', 'to-nowhere']);
  assert.not.ok(classifier.priorityLevels.has('broken'));
  assert.is(classifier.classify(digest(user('x'), nonResourceRequest('get', '/'))).flowSchema.metadata?.name, 'ok');
});

test('missing exempt and catch-all objects are supplied: schemas at the ends, levels imagined', () => {
  const classifier = buildClassifier(
    [flowSchema('mine', 500, 'pl', [{ ...EVERYONE, subjects: [{ kind: 'User', user: { name: 'me' } }] }])],
    [queuingLevel('pl', 8)],
  );
  assert.equal(
    classifier.flowSchemas.map((fs) => fs.metadata?.name),
    ['exempt', 'mine', 'catch-all'],
  );
  assert.ok(classifier.priorityLevels.has('exempt'));
  assert.ok(classifier.priorityLevels.has('catch-all'));
  const master = classifier.classify(digest(user('root', 'system:masters'), resourceRequest('get', { resource: 'pods', namespace: 'a' })));
  assert.is(master.flowSchema.metadata?.name, 'exempt');
  assert.is(master.priorityLevel.spec?.type, 'Exempt');
  const other = classifier.classify(digest(user('x', AUTHENTICATED), resourceRequest('get', { resource: 'pods', namespace: 'a' })));
  assert.is(other.flowSchema.metadata?.name, 'catch-all');
  assert.is(other.priorityLevel.metadata?.name, 'catch-all');
});

test('a schema naming the exempt level is dangling when that level is missing, even though it is then imagined', () => {
  const probes = flowSchema('probes', 2, 'exempt', [EVERYONE]);
  const classifier = buildClassifier([probes], [queuingLevel('pl', 8)]);
  assert.ok(classifier.danglingFlowSchemas.has('probes'));
  assert.equal(
    classifier.flowSchemas.map((fs) => fs.metadata?.name),
    ['exempt', 'catch-all'],
  );
});

test('usable exempt and catch-all schemas from the input are used, not duplicated', () => {
  const { flowSchemas, priorityLevels } = defaultObjects();
  const myCatchAll = flowSchemas.find((fs) => fs.metadata?.name === 'catch-all')!;
  myCatchAll.metadata!.uid = 'mine';
  const classifier = buildClassifier(flowSchemas, priorityLevels);
  const names = classifier.flowSchemas.map((fs) => fs.metadata?.name);
  assert.is(names.filter((n) => n === 'catch-all').length, 1);
  assert.is(names.filter((n) => n === 'exempt').length, 1);
  assert.is(classifier.classify(digest(user('mallory'), nonResourceRequest('get', '/x'))).flowSchema.metadata?.uid, 'mine');
});

// ---------------------------------------------------------------------------------------------
// Flow distinguisher

test('the distinguisher is computed only for a queuing level with more than one queue', () => {
  const request = digest(user('alice'), resourceRequest('get', { resource: 'pods', namespace: 'ns1' }));
  const classify = (plc: PriorityLevelConfiguration, method?: 'ByUser' | 'ByNamespace') =>
    buildClassifier([flowSchema('fs', 500, plc.metadata!.name!, [EVERYONE], method)], [plc]).classify(request);
  assert.equal(pick(classify(queuingLevel('q', 2), 'ByUser')), ['alice', expectedHash('fs', 'alice')]);
  assert.equal(pick(classify(queuingLevel('q', 2), 'ByNamespace')), ['ns1', expectedHash('fs', 'ns1')]);
  assert.equal(pick(classify(queuingLevel('q', 2))), ['', expectedHash('fs', '')], 'no method: "" but still hashed');
  assert.equal(pick(classify(queuingLevel('q', 1), 'ByUser')), ['', 0n]);
  assert.equal(pick(classify(rejectLevel('r'), 'ByUser')), ['', 0n]);
  const nonResource = buildClassifier([flowSchema('fs', 500, 'q', [EVERYONE], 'ByNamespace')], [queuingLevel('q', 8)]).classify(
    digest(user('a'), nonResourceRequest('get', '/x')),
  );
  assert.equal(pick(nonResource), ['', expectedHash('fs', '')]);
});

function pick(c: { flowDistinguisher: string; hashValue: bigint }): [string, bigint] {
  return [c.flowDistinguisher, c.hashValue];
}

// ---------------------------------------------------------------------------------------------
// Broken levels

test('broken levels: union and discriminator disagree, exempt name mismatch, limit response mismatch, bad dealer', () => {
  const limited = (limitResponse: object, name = 'l'): PriorityLevelConfiguration => ({
    metadata: { name },
    spec: { type: 'Limited', limited: { nominalConcurrencyShares: 1, limitResponse } },
  });
  const cases: [string, PriorityLevelConfiguration, boolean][] = [
    ['queuing level', queuingLevel('q', 64, 8), false],
    ['reject level', rejectLevel('r'), false],
    ['exempt level', { metadata: { name: 'exempt' }, spec: { type: 'Exempt', exempt: {} } }, false],
    ['Limited without limited', { metadata: { name: 'l' }, spec: { type: 'Limited' } }, true],
    ['Exempt with limited', { metadata: { name: 'exempt' }, spec: { type: 'Exempt', exempt: {}, limited: { limitResponse: { type: 'Reject' } } } }, true],
    ['Exempt without exempt (not defaulted)', { metadata: { name: 'exempt' }, spec: { type: 'Exempt' } }, true],
    ['Exempt type, other name', { metadata: { name: 'free' }, spec: { type: 'Exempt', exempt: {} } }, true],
    ['name exempt, Limited type', queuingLevel('exempt', 8), true],
    ['Reject with queuing', limited({ type: 'Reject', queuing: { queues: 1, handSize: 1, queueLengthLimit: 1 } }), true],
    ['Queue without queuing', limited({ type: 'Queue' }), true],
    ['hand larger than deck', queuingLevel('q', 4, 5), true],
    ['too much entropy', queuingLevel('q', 1 << 20, 4), true],
    ['hand of zero', queuingLevel('q', 64, 0), true],
    ['zero queues needs no dealer', queuingLevel('q', 0, 0), false],
  ];
  for (const [what, plc, broken] of cases) assert.is(isPriorityLevelBroken(plc), broken, what);
});

test('every default level is usable', () => {
  for (const plc of defaultObjects().priorityLevels) assert.not.ok(isPriorityLevelBroken(plc), plc.metadata?.name);
});

// ---------------------------------------------------------------------------------------------
// Dangling condition

test('the Dangling condition text for a missing and a found level', () => {
  const fs = flowSchema('fs', 500, 'gone', []);
  assert.equal(danglingCondition(fs, false, Date.UTC(2024, 0, 2, 3, 4, 5, 600)), {
    type: 'Dangling',
    status: 'True',
    lastTransitionTime: '2024-01-02T03:04:05Z',
    reason: 'NotFound',
    message: 'This FlowSchema references the PriorityLevelConfiguration object named "gone" but there is no such object',
  });
  const found = danglingCondition(fs, true, 0);
  assert.is(found.status, 'False');
  assert.is(found.reason, 'Found');
  assert.is(found.message, 'This FlowSchema references the PriorityLevelConfiguration object named "gone" and it exists');
});

test('the Dangling condition needs writing only when status, reason or message change', () => {
  const fs = flowSchema('fs', 500, 'gone', []);
  const desired = danglingCondition(fs, false, 1000);
  assert.ok(danglingConditionDiffers(fs, desired), 'no condition yet');
  fs.status = {
    conditions: [
      { type: 'Other', status: 'True' },
      { ...desired, lastTransitionTime: '2000-01-01T00:00:00Z' },
    ],
  };
  assert.not.ok(danglingConditionDiffers(fs, desired), 'only the time differs');
  assert.ok(danglingConditionDiffers(fs, danglingCondition(fs, true, 1000)));
});

test.run();
