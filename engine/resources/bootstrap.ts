// The configuration every APF server starts from (apiserver/pkg/apis/flowcontrol/bootstrap,
// v1.32): the mandatory objects, which are always kept at their fixed spec, and the suggested
// ones, which the ensurer keeps up to date unless an operator opts out through the auto-update
// annotation. Every field is spelled out, so v1 defaulting leaves these objects unchanged.
// Each call builds fresh objects: callers may mutate what they get.

import type {
  FlowSchema,
  NonResourcePolicyRule,
  PolicyRulesWithSubjects,
  PriorityLevelConfiguration,
  PriorityLevelConfigurationSpec,
  QueuingConfiguration,
  ResourcePolicyRule,
  Subject,
  FlowcontrolKind,
} from './types.ts';
import { AUTO_UPDATE_ANNOTATION_KEY, FLOW_SCHEMA_KIND, PRIORITY_LEVEL_KIND } from './types.ts';
import { flowcontrolApiVersion } from './api-domain.ts';

// Well-known users and groups (k8s.io/apiserver/pkg/authentication/{user,serviceaccount}).
const GROUP_MASTERS = 'system:masters';
const GROUP_NODES = 'system:nodes';
const GROUP_AUTHENTICATED = 'system:authenticated';
const GROUP_UNAUTHENTICATED = 'system:unauthenticated';
const GROUP_SERVICE_ACCOUNTS = 'system:serviceaccounts';
const USER_KUBE_CONTROLLER_MANAGER = 'system:kube-controller-manager';
const USER_KUBE_SCHEDULER = 'system:kube-scheduler';
const NAMESPACE_KUBE_SYSTEM = 'kube-system';

/** [catch-all, exempt], in Kubernetes' code order. */
export function mandatoryPriorityLevels(apiDomain?: string): PriorityLevelConfiguration[] {
  return [
    priorityLevel(apiDomain, 'catch-all', {
      type: 'Limited',
      limited: { nominalConcurrencyShares: 5, limitResponse: { type: 'Reject' }, lendablePercent: 0 },
    }),
    priorityLevel(apiDomain, 'exempt', { type: 'Exempt', exempt: { nominalConcurrencyShares: 0, lendablePercent: 0 } }),
  ];
}

/** [system, node-high, leader-election, workload-high, workload-low, global-default]. */
export function suggestedPriorityLevels(apiDomain?: string): PriorityLevelConfiguration[] {
  return [
    queuingLevel(apiDomain, 'system', 30, 33, { queues: 64, handSize: 6, queueLengthLimit: 50 }),
    queuingLevel(apiDomain, 'node-high', 40, 25, { queues: 64, handSize: 6, queueLengthLimit: 50 }),
    queuingLevel(apiDomain, 'leader-election', 10, 0, { queues: 16, handSize: 4, queueLengthLimit: 50 }),
    queuingLevel(apiDomain, 'workload-high', 40, 50, { queues: 128, handSize: 6, queueLengthLimit: 50 }),
    queuingLevel(apiDomain, 'workload-low', 100, 90, { queues: 128, handSize: 6, queueLengthLimit: 50 }),
    queuingLevel(apiDomain, 'global-default', 20, 50, { queues: 128, handSize: 6, queueLengthLimit: 50 }),
  ];
}

/** [exempt, catch-all], in Kubernetes' code order. */
export function mandatoryFlowSchemas(apiDomain?: string): FlowSchema[] {
  return [
    flowSchema(apiDomain, 'exempt', 'exempt', 1, undefined, everything(groups(GROUP_MASTERS))),
    flowSchema(apiDomain, 'catch-all', 'catch-all', 10000, 'ByUser', everything(groups(GROUP_UNAUTHENTICATED, GROUP_AUTHENTICATED))),
  ];
}

/** The eleven suggested schemas, in Kubernetes' code order. */
export function suggestedFlowSchemas(apiDomain?: string): FlowSchema[] {
  const getCreateUpdate = ['get', 'create', 'update'];
  return [
    flowSchema(apiDomain, 'system-nodes', 'system', 500, 'ByUser', everything(groups(GROUP_NODES))),
    flowSchema(apiDomain, 'system-node-high', 'node-high', 400, 'ByUser', {
      subjects: groups(GROUP_NODES),
      resourceRules: [resourceRule(['*'], [''], ['nodes', 'nodes/status'], true), resourceRule(['*'], ['coordination.k8s.io'], ['leases'], false)],
    }),
    flowSchema(apiDomain, 'probes', 'exempt', 2, undefined, {
      subjects: groups(GROUP_UNAUTHENTICATED, GROUP_AUTHENTICATED),
      nonResourceRules: [nonResourceRule(['get'], ['/healthz', '/readyz', '/livez'])],
    }),
    flowSchema(apiDomain, 'system-leader-election', 'leader-election', 100, 'ByUser', {
      subjects: [...users(USER_KUBE_CONTROLLER_MANAGER, USER_KUBE_SCHEDULER), ...kubeSystemServiceAccounts('*')],
      resourceRules: [resourceRule(getCreateUpdate, ['coordination.k8s.io'], ['leases'], false)],
    }),
    flowSchema(apiDomain, 'workload-leader-election', 'leader-election', 200, 'ByUser', {
      subjects: kubeSystemServiceAccounts('*'),
      resourceRules: [
        resourceRule(getCreateUpdate, [''], ['endpoints', 'configmaps'], false),
        resourceRule(getCreateUpdate, ['coordination.k8s.io'], ['leases'], false),
      ],
    }),
    flowSchema(apiDomain, 'endpoint-controller', 'workload-high', 150, 'ByUser', {
      subjects: [...users(USER_KUBE_CONTROLLER_MANAGER), ...kubeSystemServiceAccounts('endpoint-controller', 'endpointslicemirroring-controller')],
      resourceRules: [resourceRule(getCreateUpdate, [''], ['endpoints'], false)],
    }),
    flowSchema(apiDomain, 'kube-controller-manager', 'workload-high', 800, 'ByNamespace', everything(users(USER_KUBE_CONTROLLER_MANAGER))),
    flowSchema(apiDomain, 'kube-scheduler', 'workload-high', 800, 'ByNamespace', everything(users(USER_KUBE_SCHEDULER))),
    flowSchema(apiDomain, 'kube-system-service-accounts', 'workload-high', 900, 'ByNamespace', everything(kubeSystemServiceAccounts('*'))),
    flowSchema(apiDomain, 'service-accounts', 'workload-low', 9000, 'ByUser', everything(groups(GROUP_SERVICE_ACCOUNTS))),
    flowSchema(apiDomain, 'global-default', 'global-default', 9900, 'ByUser', everything(groups(GROUP_UNAUTHENTICATED, GROUP_AUTHENTICATED))),
  ];
}

const namesOf = (objects: { metadata?: { name?: string } }[]): ReadonlySet<string> => new Set(objects.map((o) => o.metadata?.name ?? ''));

export const MANDATORY_NAMES: Readonly<Record<FlowcontrolKind, ReadonlySet<string>>> = {
  [PRIORITY_LEVEL_KIND]: namesOf(mandatoryPriorityLevels()),
  [FLOW_SCHEMA_KIND]: namesOf(mandatoryFlowSchemas()),
};

export const SUGGESTED_NAMES: Readonly<Record<FlowcontrolKind, ReadonlySet<string>>> = {
  [PRIORITY_LEVEL_KIND]: namesOf(suggestedPriorityLevels()),
  [FLOW_SCHEMA_KIND]: namesOf(suggestedFlowSchemas()),
};

/** The mandatory object of that kind and name, freshly built, or undefined when the name is not mandatory. */
export function mandatoryObject(kind: typeof PRIORITY_LEVEL_KIND, name: string, apiDomain?: string): PriorityLevelConfiguration | undefined;
export function mandatoryObject(kind: typeof FLOW_SCHEMA_KIND, name: string, apiDomain?: string): FlowSchema | undefined;
export function mandatoryObject(kind: FlowcontrolKind, name: string, apiDomain?: string): PriorityLevelConfiguration | FlowSchema | undefined {
  const all: (PriorityLevelConfiguration | FlowSchema)[] = kind === PRIORITY_LEVEL_KIND ? mandatoryPriorityLevels(apiDomain) : mandatoryFlowSchemas(apiDomain);
  return all.find((o) => o.metadata?.name === name);
}

function metadataFor(name: string): { name: string; annotations: Record<string, string> } {
  return { name, annotations: { [AUTO_UPDATE_ANNOTATION_KEY]: 'true' } };
}

function priorityLevel(apiDomain: string | undefined, name: string, spec: PriorityLevelConfigurationSpec): PriorityLevelConfiguration {
  return { apiVersion: flowcontrolApiVersion(apiDomain), kind: PRIORITY_LEVEL_KIND, metadata: metadataFor(name), spec };
}

function queuingLevel(
  apiDomain: string | undefined,
  name: string,
  nominalConcurrencyShares: number,
  lendablePercent: number,
  queuing: QueuingConfiguration,
): PriorityLevelConfiguration {
  return priorityLevel(apiDomain, name, {
    type: 'Limited',
    limited: { nominalConcurrencyShares, limitResponse: { type: 'Queue', queuing }, lendablePercent },
  });
}

function flowSchema(
  apiDomain: string | undefined,
  name: string,
  priorityLevelName: string,
  matchingPrecedence: number,
  distinguisher: 'ByUser' | 'ByNamespace' | undefined,
  rule: PolicyRulesWithSubjects,
): FlowSchema {
  return {
    apiVersion: flowcontrolApiVersion(apiDomain),
    kind: FLOW_SCHEMA_KIND,
    metadata: metadataFor(name),
    spec: {
      priorityLevelConfiguration: { name: priorityLevelName },
      matchingPrecedence,
      ...(distinguisher === undefined ? {} : { distinguisherMethod: { type: distinguisher } }),
      rules: [rule],
    },
  };
}

/** Any verb on any resource (cluster-scoped or in any namespace) and on any non-resource URL. */
function everything(subjects: Subject[]): PolicyRulesWithSubjects {
  return {
    subjects,
    resourceRules: [resourceRule(['*'], ['*'], ['*'], true)],
    nonResourceRules: [nonResourceRule(['*'], ['*'])],
  };
}

function resourceRule(verbs: string[], apiGroups: string[], resources: string[], clusterScope: boolean): ResourcePolicyRule {
  // clusterScope false is omitted on the wire (omitempty), as kube-apiserver serves it.
  return { verbs, apiGroups, resources, ...(clusterScope ? { clusterScope } : {}), namespaces: ['*'] };
}

function nonResourceRule(verbs: string[], nonResourceURLs: string[]): NonResourcePolicyRule {
  return { verbs, nonResourceURLs };
}

function groups(...names: string[]): Subject[] {
  return names.map((name) => ({ kind: 'Group', group: { name } }));
}

function users(...names: string[]): Subject[] {
  return names.map((name) => ({ kind: 'User', user: { name } }));
}

function kubeSystemServiceAccounts(...names: string[]): Subject[] {
  return names.map((name) => ({ kind: 'ServiceAccount', serviceAccount: { namespace: NAMESPACE_KUBE_SYSTEM, name } }));
}
