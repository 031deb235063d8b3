// Random PriorityLevelConfigurations and FlowSchemas for the API fuzz: valid ones, typed on
// engine/resources/types.ts and kept inside the documented rules (apf-semantics 3.1/3.2), and
// mutations of them that break exactly one rule, so the server must refuse them with 400 or 422.
// Subjects never name system users or groups, so no fuzzed FlowSchema can capture the test's own
// (system:masters, exempt) requests.

import fc from 'fast-check';
import type {
  FlowcontrolKind,
  FlowSchema,
  FlowSchemaSpec,
  LimitResponse,
  NonResourcePolicyRule,
  PolicyRulesWithSubjects,
  PriorityLevelConfiguration,
  ResourcePolicyRule,
  Subject,
} from '../../engine/resources/types.ts';
import { FLOW_SCHEMA_KIND, PRIORITY_LEVEL_KIND } from '../../engine/resources/types.ts';

export const API_VERSION = 'flowcontrol.apiserver.k8s.io/v1';
/** Every object the fuzz creates carries this label, so a DELETE of a collection only ever hits them. */
export const FUZZ_LABEL = { key: 'fairway-fuzz', value: 'yes' } as const;

const dnsLabel = fc.stringMatching(/^[a-z0-9]([-a-z0-9]{0,10}[a-z0-9])?$/);
const dnsSubdomain = fc.tuple(dnsLabel, fc.option(dnsLabel, { nil: undefined })).map(([a, b]) => (b === undefined ? a : `${a}.${b}`));
const labelKey = fc
  .tuple(fc.option(fc.constantFrom('example.com/', 'fairway.dev/'), { nil: '' }), fc.stringMatching(/^[a-zA-Z0-9]([-a-zA-Z0-9_.]{0,10}[a-zA-Z0-9])?$/))
  .map(([p, n]) => p + n);
const labelValue = fc.oneof(fc.constant(''), fc.stringMatching(/^[a-zA-Z0-9]([-a-zA-Z0-9_.]{0,10}[a-zA-Z0-9])?$/));

// fc.dictionary makes null-prototype objects; JSON does not care, deep equality does.
const plain = <T>(d: Record<string, T>): Record<string, T> => ({ ...d });

export const labelsArb = fc
  .dictionary(labelKey, labelValue, { maxKeys: 3 })
  .map(plain)
  .filter((l) => !(FUZZ_LABEL.key in l))
  .map((l) => ({ ...l, [FUZZ_LABEL.key]: FUZZ_LABEL.value }));
export const annotationsArb = fc.option(fc.dictionary(labelKey, fc.string({ maxLength: 40 }), { maxKeys: 2 }).map(plain), { nil: undefined });

const percent = fc.integer({ min: 0, max: 100 });

const limitResponse: fc.Arbitrary<LimitResponse> = fc.oneof(
  fc.constant({ type: 'Reject' }),
  fc
    .integer({ min: 1, max: 64 })
    .chain((queues) =>
      fc.record({
        queues: fc.constant(queues),
        handSize: fc.integer({ min: 1, max: Math.min(queues, 8) }),
        queueLengthLimit: fc.integer({ min: 1, max: 200 }),
      }),
    )
    .map((queuing) => ({ type: 'Queue', queuing })),
);

const plcSpec = fc
  .record(
    {
      nominalConcurrencyShares: fc.integer({ min: 0, max: 100 }),
      lendablePercent: percent,
      borrowingLimitPercent: fc.integer({ min: 0, max: 300 }),
      limitResponse,
    },
    { requiredKeys: ['limitResponse'] },
  )
  .map((limited) => ({ type: 'Limited', limited }));

const userName = fc.constantFrom('alice', 'bob', 'fuzz:carol', 'dave@example.com');
const subject: fc.Arbitrary<Subject> = fc.oneof(
  userName.map((name) => ({ kind: 'User', user: { name } })),
  fc.constantFrom('team-a', 'fuzzers').map((name) => ({ kind: 'Group', group: { name } })),
  fc.tuple(dnsLabel, fc.oneof(dnsSubdomain, fc.constant('*'))).map(([namespace, name]) => ({ kind: 'ServiceAccount', serviceAccount: { namespace, name } })),
);

const VERBS = ['create', 'delete', 'deletecollection', 'get', 'list', 'patch', 'proxy', 'update', 'watch'];
const orWildcard = (values: string[]): fc.Arbitrary<string[]> =>
  fc.oneof(
    fc.constant(['*']).map((w) => [...w]),
    fc.subarray(values, { minLength: 1 }),
  );

const resourceRule: fc.Arbitrary<ResourcePolicyRule> = fc.boolean().chain((clusterScope) =>
  fc.record({
    verbs: orWildcard(VERBS),
    apiGroups: orWildcard(['', 'apps', 'batch']),
    resources: orWildcard(['pods', 'deployments', 'jobs']),
    clusterScope: fc.constant(clusterScope),
    namespaces: clusterScope
      ? fc.oneof(
          fc.constant<string[]>([]).map(() => []),
          orWildcard(['default', 'team-a']),
        )
      : orWildcard(['default', 'team-a', 'kube-system']),
  }),
);
const nonResourceRule: fc.Arbitrary<NonResourcePolicyRule> = fc.record({
  verbs: orWildcard(VERBS),
  nonResourceURLs: orWildcard(['/', '/healthz', '/metrics', '/api/*']),
});

const rule: fc.Arbitrary<PolicyRulesWithSubjects> = fc
  .record({
    subjects: fc.array(subject, { minLength: 1, maxLength: 2 }),
    resourceRules: fc.array(resourceRule, { maxLength: 2 }),
    nonResourceRules: fc.array(nonResourceRule, { maxLength: 1 }),
  })
  .map((r) => (r.resourceRules.length + r.nonResourceRules.length === 0 ? { ...r, nonResourceRules: [{ verbs: ['get'], nonResourceURLs: ['/healthz'] }] } : r));

const fsSpec: fc.Arbitrary<FlowSchemaSpec> = fc.record(
  {
    priorityLevelConfiguration: dnsSubdomain.map((name) => ({ name })),
    matchingPrecedence: fc.integer({ min: 2, max: 10_000 }),
    distinguisherMethod: fc.constantFrom({ type: 'ByUser' }, { type: 'ByNamespace' }),
    rules: fc.array(rule, { maxLength: 2 }),
  },
  { requiredKeys: ['priorityLevelConfiguration', 'matchingPrecedence'] },
);

function metadataFor(name: string, labels: Record<string, string>, annotations: Record<string, string> | undefined) {
  return { name, labels, ...(annotations !== undefined ? { annotations } : {}) };
}

export function validPlc(name: string): fc.Arbitrary<PriorityLevelConfiguration> {
  return fc.record({ labels: labelsArb, annotations: annotationsArb, spec: plcSpec }).map(({ labels, annotations, spec }) => ({
    apiVersion: API_VERSION,
    kind: PRIORITY_LEVEL_KIND,
    metadata: metadataFor(name, labels, annotations),
    spec,
  }));
}

export function validFs(name: string): fc.Arbitrary<FlowSchema> {
  return fc.record({ labels: labelsArb, annotations: annotationsArb, spec: fsSpec }).map(({ labels, annotations, spec }) => ({
    apiVersion: API_VERSION,
    kind: FLOW_SCHEMA_KIND,
    metadata: metadataFor(name, labels, annotations),
    spec,
  }));
}

export function validObject(kind: FlowcontrolKind, name: string): fc.Arbitrary<PriorityLevelConfiguration | FlowSchema> {
  return kind === PRIORITY_LEVEL_KIND ? validPlc(name) : validFs(name);
}

// ---------------------------------------------------------------------------------------------
// Mutations: each breaks one rule. `status` is what kube-apiserver answers: 400 when the body does
// not decode into the Go type (or names another kind/version), 422 when it decodes but is invalid.

export interface Mutation {
  readonly label: string;
  readonly status: 400 | 422;
  apply(object: Record<string, any>): void;
}

const m = (label: string, status: 400 | 422, apply: (o: Record<string, any>) => void): Mutation => ({ label, status, apply });

const COMMON: Mutation[] = [
  m('name not a DNS subdomain', 422, (o) => (o.metadata.name = 'Bad_Name')),
  m('no name or generateName', 422, (o) => delete o.metadata.name),
  m('label key with a space', 422, (o) => (o.metadata.labels['bad key'] = 'x')),
  m('label value too long', 422, (o) => (o.metadata.labels.long = 'v'.repeat(64))),
  m('wrong apiVersion', 400, (o) => (o.apiVersion = 'flowcontrol.apiserver.k8s.io/v2')),
  m('wrong kind', 400, (o) => (o.kind = 'Pod')),
  m('labels not a map', 400, (o) => (o.metadata.labels = ['a'])),
  m('metadata a string', 400, (o) => (o.metadata = 'fz')),
  m('spec an array', 400, (o) => (o.spec = [])),
  m('generation a string', 400, (o) => (o.metadata.generation = 'one')),
];

const PLC_MUTATIONS: Mutation[] = [
  m('negative shares', 422, (o) => (o.spec.limited.nominalConcurrencyShares = -1)),
  m('lendablePercent 101', 422, (o) => (o.spec.limited.lendablePercent = 101)),
  m('negative borrowingLimitPercent', 422, (o) => (o.spec.limited.borrowingLimitPercent = -5)),
  m('unknown type', 422, (o) => (o.spec.type = 'Sometimes')),
  m('Exempt for a name other than exempt', 422, (o) => (o.spec = { type: 'Exempt', exempt: {} })),
  // (0 is not invalid: defaulting reads it as unset, 64 queues and a queue length of 50.)
  m('negative queues', 422, (o) => (o.spec.limited.limitResponse = { type: 'Queue', queuing: { queues: -1, handSize: 1, queueLengthLimit: 5 } })),
  m('handSize above queues', 422, (o) => (o.spec.limited.limitResponse = { type: 'Queue', queuing: { queues: 4, handSize: 5, queueLengthLimit: 5 } })),
  m('too many entropy bits', 422, (o) => (o.spec.limited.limitResponse = { type: 'Queue', queuing: { queues: 10_000_000, handSize: 8, queueLengthLimit: 5 } })),
  m('negative queueLengthLimit', 422, (o) => (o.spec.limited.limitResponse = { type: 'Queue', queuing: { queues: 4, handSize: 2, queueLengthLimit: -3 } })),
  m('queuing with Reject', 422, (o) => (o.spec.limited.limitResponse = { type: 'Reject', queuing: { queues: 4, handSize: 2, queueLengthLimit: 5 } })),
  m('unknown limitResponse type', 422, (o) => (o.spec.limited.limitResponse = { type: 'Drop' })),
  m('shares a string', 400, (o) => (o.spec.limited.nominalConcurrencyShares = 'many')),
  m('shares fractional', 400, (o) => (o.spec.limited.nominalConcurrencyShares = 1.5)),
  m('queues a boolean', 400, (o) => (o.spec.limited.limitResponse = { type: 'Queue', queuing: { queues: true, handSize: 1, queueLengthLimit: 1 } })),
];

const FS_MUTATIONS: Mutation[] = [
  // (0 is not invalid: defaulting reads it as unset, 1000.)
  m('negative matchingPrecedence', 422, (o) => (o.spec.matchingPrecedence = -1)),
  m('matchingPrecedence 1 for a non-exempt schema', 422, (o) => (o.spec.matchingPrecedence = 1)),
  m('matchingPrecedence 10001', 422, (o) => (o.spec.matchingPrecedence = 10_001)),
  m('no priority level', 422, (o) => (o.spec.priorityLevelConfiguration = { name: '' })),
  m('priority level name invalid', 422, (o) => (o.spec.priorityLevelConfiguration = { name: 'Not/A/Name' })),
  m('unknown distinguisher', 422, (o) => (o.spec.distinguisherMethod = { type: 'ByPod' })),
  m('rule without subjects', 422, (o) => (o.spec.rules = [{ subjects: [], nonResourceRules: [{ verbs: ['get'], nonResourceURLs: ['/'] }] }])),
  m('rule without rules', 422, (o) => (o.spec.rules = [{ subjects: [{ kind: 'User', user: { name: 'a' } }] }])),
  m('unknown subject kind', 422, (o) => (o.spec.rules = [{ subjects: [{ kind: 'Robot' }], nonResourceRules: [{ verbs: ['get'], nonResourceURLs: ['/'] }] }])),
  m(
    'unknown verb',
    422,
    (o) => (o.spec.rules = [{ subjects: [{ kind: 'Group', group: { name: 'g' } }], nonResourceRules: [{ verbs: ['fly'], nonResourceURLs: ['/'] }] }]),
  ),
  m(
    'URL without a slash',
    422,
    (o) => (o.spec.rules = [{ subjects: [{ kind: 'Group', group: { name: 'g' } }], nonResourceRules: [{ verbs: ['get'], nonResourceURLs: ['healthz'] }] }]),
  ),
  m(
    'namespaced rule without namespaces',
    422,
    (o) =>
      (o.spec.rules = [
        { subjects: [{ kind: 'Group', group: { name: 'g' } }], resourceRules: [{ verbs: ['get'], apiGroups: [''], resources: ['pods'], namespaces: [] }] },
      ]),
  ),
  m('matchingPrecedence a string', 400, (o) => (o.spec.matchingPrecedence = 'first')),
  m('rules an object', 400, (o) => (o.spec.rules = { subjects: [] })),
  m(
    'clusterScope a string',
    400,
    (o) =>
      (o.spec.rules = [
        { subjects: [{ kind: 'Group', group: { name: 'g' } }], resourceRules: [{ verbs: ['get'], apiGroups: [''], resources: ['pods'], clusterScope: 'yes' }] },
      ]),
  ),
];

export function mutationsFor(kind: FlowcontrolKind): Mutation[] {
  return [...COMMON, ...(kind === PRIORITY_LEVEL_KIND ? PLC_MUTATIONS : FS_MUTATIONS)];
}

/** A valid object with one mutation applied (on a deep copy). */
export function invalidObject(kind: FlowcontrolKind, name: string): fc.Arbitrary<{ object: Record<string, unknown>; mutation: Mutation }> {
  return fc.tuple(validObject(kind, name), fc.constantFrom(...mutationsFor(kind))).map(([valid, mutation]) => {
    const object = structuredClone(valid) as Record<string, any>;
    mutation.apply(object);
    return { object, mutation };
  });
}
