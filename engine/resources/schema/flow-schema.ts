// FlowSchema (flowcontrol.apiserver/v1), field by field in Go's order.
import { FLOW_SCHEMA_KIND, FLOW_SCHEMA_LIST_KIND } from '../types.ts';
import type { KindTable } from './field-table.ts';
import { atomicList, boolean, enumOf, field, int32, setList, string, struct, structOf } from './field-table.ts';
import { FLOWCONTROL_PREFIX, statusStruct } from './flowcontrol-v1.ts';
import { topLevelStruct } from './meta-v1.ts';

const name = (type: string) => `${FLOWCONTROL_PREFIX}${type}`;
const always = { omitempty: false, required: true } as const;

export const USER_SUBJECT = struct(name('UserSubject'), 'A user as a subject.', [
  field('name', string, 'The user name; `*` matches every user. Required.', always),
] as const);

export const GROUP_SUBJECT = struct(name('GroupSubject'), 'A user group as a subject.', [
  field('name', string, 'The group name, e.g. `system:authenticated`; `*` matches every group. Required.', always),
] as const);

export const SERVICE_ACCOUNT_SUBJECT = struct(name('ServiceAccountSubject'), 'A service account as a subject.', [
  field('namespace', string, "The service account's namespace. Required.", always),
  field('name', string, 'The service account name; `*` matches every service account in the namespace. Required.', always),
] as const);

export const SUBJECT = struct(
  name('Subject'),
  'Who sent a request: a user, a group or a service account.',
  [
    field('kind', enumOf('User', 'Group', 'ServiceAccount'), '`User`, `Group` or `ServiceAccount`; says which member field is set. Required.', always),
    field('user', structOf(USER_SUBJECT), 'Set when kind is `User`.', { pointer: true }),
    field('group', structOf(GROUP_SUBJECT), 'Set when kind is `Group`.', { pointer: true }),
    field('serviceAccount', structOf(SERVICE_ACCOUNT_SUBJECT), 'Set when kind is `ServiceAccount`.', { pointer: true }),
  ] as const,
  { union: { discriminator: 'kind', members: { group: 'Group', serviceAccount: 'ServiceAccount', user: 'User' } } },
);

export const RESOURCE_POLICY_RULE = struct(
  name('ResourcePolicyRule'),
  'Matches a resource request when the verb, API group and resource all match, and the namespace rule is met.',
  [
    field('verbs', setList(string), 'Verbs to match (`get`, `list`, `create`...); `*` matches all. Required, non-empty.', always),
    field('apiGroups', setList(string), 'API groups to match; `""` is the core group, `*` matches all. Required, non-empty.', always),
    field('resources', setList(string), 'Resources to match, as `res` or `res/subres`; `*` matches all. Required, non-empty.', always),
    field('clusterScope', boolean, 'Whether requests for cluster-scoped objects (no namespace) match.'),
    field(
      'namespaces',
      setList(string),
      'Namespaces to match; `*` matches any namespace but not cluster-scoped requests. May be empty only when clusterScope is true.',
      { omitempty: false },
    ),
  ] as const,
);

export const NON_RESOURCE_POLICY_RULE = struct(
  name('NonResourcePolicyRule'),
  'Matches a request for a non-resource URL (such as `/healthz`) when both the verb and the URL match.',
  [
    field('verbs', setList(string), 'Lower-case HTTP verbs to match; `*` matches all. Required, non-empty.', always),
    field(
      'nonResourceURLs',
      setList(string),
      'URL paths to match, e.g. `/healthz`; a trailing `/*` matches a prefix, `*` matches all. Required, non-empty.',
      always,
    ),
  ] as const,
);

export const POLICY_RULES_WITH_SUBJECTS = struct(
  name('PolicyRulesWithSubjects'),
  'A test on a request: it matches when a subject matches the requester and at least one resource or non-resource rule matches the request.',
  [
    field('subjects', atomicList(structOf(SUBJECT)), 'Who the rule applies to. Required, non-empty.', always),
    field(
      'resourceRules',
      atomicList(structOf(RESOURCE_POLICY_RULE)),
      'Rules for resource requests. At least one of resourceRules and nonResourceRules must be non-empty.',
    ),
    field('nonResourceRules', atomicList(structOf(NON_RESOURCE_POLICY_RULE)), 'Rules for non-resource URLs.'),
  ] as const,
);

export const PRIORITY_LEVEL_CONFIGURATION_REFERENCE = struct(name('PriorityLevelConfigurationReference'), 'Names a priority level.', [
  field('name', string, 'The name of the priority level configuration being referenced. Required.', always),
] as const);

export const FLOW_DISTINGUISHER_METHOD = struct(name('FlowDistinguisherMethod'), 'How requests are split into flows.', [
  field('type', enumOf('ByUser', 'ByNamespace'), '`ByUser` (one flow per user) or `ByNamespace` (one flow per namespace). Required.', always),
] as const);

export const FLOW_SCHEMA_SPEC = struct(name('FlowSchemaSpec'), 'What a FlowSchema matches and where matched requests go.', [
  field(
    'priorityLevelConfiguration',
    structOf(PRIORITY_LEVEL_CONFIGURATION_REFERENCE),
    'The priority level that matched requests are handled at. A schema naming a missing level is marked Dangling and matches nothing. Required.',
    always,
  ),
  field(
    'matchingPrecedence',
    int32,
    'Orders FlowSchemas: among the schemas that match a request, the one with the numerically lowest matchingPrecedence is chosen. Must be in [1,' +
      '10000]; defaults to 1000 when unset.',
    { omitempty: false, default: 1000 },
  ),
  field(
    'distinguisherMethod',
    structOf(FLOW_DISTINGUISHER_METHOD),
    'How to compute the flow distinguisher for requests that match this schema. Nil means the distinguisher is always the empty string.',
    {
      pointer: true,
    },
  ),
  field(
    'rules',
    atomicList(structOf(POLICY_RULES_WITH_SUBJECTS)),
    'The rules; a request matches the schema when at least one rule matches it. An empty list matches nothing.',
  ),
] as const);

export const FLOW_SCHEMA_STATUS = statusStruct(
  'FlowSchema',
  'The observed state of a FlowSchema.',
  'One condition of a FlowSchema, such as `Dangling` when its priority level does not exist.',
  'The current conditions of the FlowSchema, one per type.',
);

export const FLOW_SCHEMA = topLevelStruct(
  name('FlowSchema'),
  'Defines a set of requests (by who sends them and what they ask for) and the priority level they are handled at, and how they split into flows.',
  { struct: FLOW_SCHEMA_SPEC, description: 'Which requests the schema matches, their priority level and flow distinguisher.' },
  { struct: FLOW_SCHEMA_STATUS, description: 'The current state of the FlowSchema, written by the server.' },
);

export const FLOW_SCHEMA_TABLE: KindTable<typeof FLOW_SCHEMA> = {
  kind: FLOW_SCHEMA_KIND,
  listKind: FLOW_SCHEMA_LIST_KIND,
  listDescription: 'A list of FlowSchema objects.',
  struct: FLOW_SCHEMA,
};
