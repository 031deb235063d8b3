// Stand-ins for the authorizer types kube-apiserver has and Fairway does not back with data, so
// that a configuration written for kube-apiserver (the documentation's example lists Node and RBAC)
// loads and behaves sensibly:
//
// - RBAC: Fairway serves no Role/ClusterRole objects, so RBAC sees only Kubernetes' bootstrap
//   policy, of which the bindings below are the ones that mean anything here: everything for
//   system:masters (cluster-admin), discovery and health for everyone (system:discovery,
//   system:public-info-viewer), self-reviews for every authenticated user (system:basic-user, so
//   `kubectl auth can-i` works), metrics for system:monitoring. Allow reasons are RBAC's; anything
//   else is no opinion without a reason. The same bindings are what it lists for
//   SelfSubjectRulesReview.
// - Node: Fairway has no nodes or pods, so the node authorizer never has an opinion; asked to list
//   a node's rules it says it cannot, as Kubernetes' does.
import type { UserInfo } from './user-info.ts';
import type { AuthorizationAttributes, AuthorizationResult, Authorizer, NonResourceRule, ResourceRule, RulesResult } from './authorizer.ts';
import { allow, cannotListRules, NO_OPINION, noRules } from './authorizer.ts';

interface Rule {
  verbs: readonly string[];
  /** Non-resource rule: exact paths, `prefix/*`, or `*`. */
  nonResourceUrls?: readonly string[];
  /** Resource rule: `*`, or a group prefix resolved against the API domain (`authorization` → `authorization.k8s.io`). */
  groups?: readonly string[];
  resources?: readonly string[];
}

interface Binding {
  name: string;
  groups: readonly string[];
  rules: readonly Rule[];
}

const HEALTH = ['/healthz', '/livez', '/readyz', '/version', '/version/'];

const BOOTSTRAP_BINDINGS: readonly Binding[] = [
  {
    name: 'cluster-admin',
    groups: ['system:masters'],
    rules: [
      { verbs: ['*'], groups: ['*'], resources: ['*'] },
      { verbs: ['*'], nonResourceUrls: ['*'] },
    ],
  },
  {
    name: 'system:basic-user',
    groups: ['system:authenticated'],
    rules: [
      { verbs: ['create'], groups: ['authorization'], resources: ['selfsubjectaccessreviews', 'selfsubjectrulesreviews'] },
      { verbs: ['create'], groups: ['authentication'], resources: ['selfsubjectreviews'] },
    ],
  },
  {
    name: 'system:discovery',
    groups: ['system:authenticated'],
    rules: [
      {
        verbs: ['get'],
        nonResourceUrls: ['/api', '/api/*', '/apis', '/apis/*', '/healthz', '/livez', '/openapi', '/openapi/*', '/readyz', '/version', '/version/'],
      },
    ],
  },
  { name: 'system:public-info-viewer', groups: ['system:authenticated', 'system:unauthenticated'], rules: [{ verbs: ['get'], nonResourceUrls: HEALTH }] },
  {
    name: 'system:monitoring',
    groups: ['system:monitoring'],
    rules: [{ verbs: ['get'], nonResourceUrls: ['/healthz', '/healthz/*', '/livez', '/livez/*', '/metrics', '/metrics/slis', '/readyz', '/readyz/*'] }],
  },
];

/**
 * A binding made ready once, for decisions and for listing alike: its rules' API groups resolved
 * against the API domain, its non-resource URL patterns also split into exact paths and prefixes,
 * and its allow decision for each of its groups.
 */
interface CompiledBinding {
  groups: readonly string[];
  rules: readonly CompiledRule[];
  allowed: ReadonlyMap<string, AuthorizationResult>;
}

interface CompiledRule {
  verbs: readonly string[];
  /** Resource rule: resolved API groups (`*` for all) and resources; absent on a non-resource rule. */
  apiGroups: readonly string[] | undefined;
  resources: readonly string[] | undefined;
  /** Non-resource rule: its URL patterns as listed; their exact paths, and the prefixes of `prefix/*` patterns (`''` for `*`). */
  nonResourceUrls: readonly string[] | undefined;
  paths: readonly string[];
  pathPrefixes: readonly string[];
}

function compileBinding(binding: Binding, apiDomain: string): CompiledBinding {
  const reason = (group: string) => `RBAC: allowed by ClusterRoleBinding "${binding.name}" of ClusterRole "${binding.name}" to Group "${group}"`;
  const urls = (rule: Rule) => rule.nonResourceUrls ?? [];
  return {
    groups: binding.groups,
    rules: binding.rules.map((rule) => ({
      verbs: rule.verbs,
      apiGroups: rule.resources === undefined ? undefined : (rule.groups ?? []).map((g) => resolveGroup(g, apiDomain)),
      resources: rule.resources,
      nonResourceUrls: rule.nonResourceUrls,
      paths: urls(rule).filter((url) => !url.endsWith('*')),
      pathPrefixes: urls(rule)
        .filter((url) => url.endsWith('*'))
        .map((url) => url.slice(0, -1)),
    })),
    allowed: new Map(binding.groups.map((group) => [group, Object.freeze(allow(reason(group)))])),
  };
}

export function bootstrapRbacAuthorizer(apiDomain = 'k8s.io'): Authorizer {
  const compiled = BOOTSTRAP_BINDINGS.map((binding) => compileBinding(binding, apiDomain));
  return {
    // Decided at once, allocating nothing but a subresource's `resource/sub` name: it can run for every request.
    authorize: (attributes) => {
      for (const binding of compiled) {
        const group = boundGroup(binding.groups, attributes.user);
        if (group === undefined) continue;
        for (const rule of binding.rules) if (ruleAllows(rule, attributes)) return binding.allowed.get(group)!;
      }
      return NO_OPINION;
    },
    // Cluster role bindings apply in every namespace, so the namespace does not narrow anything.
    rulesFor: async (user) => {
      const result: RulesResult = noRules();
      for (const binding of compiled) {
        if (boundGroup(binding.groups, user) === undefined) continue;
        for (const rule of binding.rules) {
          if (rule.apiGroups !== undefined && rule.resources !== undefined)
            result.resourceRules.push({
              verbs: [...rule.verbs],
              apiGroups: [...rule.apiGroups],
              resources: [...rule.resources],
              resourceNames: [],
            } satisfies ResourceRule);
          if (rule.nonResourceUrls !== undefined)
            result.nonResourceRules.push({ verbs: [...rule.verbs], nonResourceURLs: [...rule.nonResourceUrls] } satisfies NonResourceRule);
        }
      }
      return result;
    },
  };
}

/** The first of a binding's groups that `user` is in. */
function boundGroup(groups: readonly string[], user: UserInfo): string | undefined {
  for (const group of groups) if (user.groups.includes(group)) return group;
  return undefined;
}

/** Fairway has no nodes; a node's identity would need rules the node authorizer cannot list. */
export const nodeAuthorizerStandIn: Authorizer = {
  authorize: () => NO_OPINION,
  rulesFor: async (user) =>
    user.name.startsWith('system:node:') && user.groups.includes('system:nodes')
      ? cannotListRules('node authorizer does not support user rule resolution')
      : noRules(),
};

const resolveGroup = (group: string, apiDomain: string) => (group === '*' ? '*' : `${group}.${apiDomain}`);

const matches = (values: readonly string[], value: string) => values.includes('*') || values.includes(value);

function ruleAllows(rule: CompiledRule, attributes: AuthorizationAttributes): boolean {
  if (!matches(rule.verbs, attributes.verb)) return false;
  if (!attributes.isResourceRequest) {
    if (rule.paths.includes(attributes.path)) return true;
    for (const prefix of rule.pathPrefixes) if (attributes.path.startsWith(prefix)) return true;
    return false;
  }
  if (rule.apiGroups === undefined || rule.resources === undefined || !matches(rule.apiGroups, attributes.apiGroup)) return false;
  const resource = attributes.subresource === '' ? attributes.resource : `${attributes.resource}/${attributes.subresource}`;
  return matches(rule.resources, resource);
}
