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
import type { UserInfo } from '../flowcontrol/request-digest.ts';
import type { AuthorizationAttributes, Authorizer, NonResourceRule, ResourceRule, RulesResult } from './authorizer.ts';
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

export function bootstrapRbacAuthorizer(apiDomain = 'k8s.io'): Authorizer {
  const bindingsOf = (user: UserInfo) => BOOTSTRAP_BINDINGS.filter((binding) => boundGroup(binding, user) !== undefined);
  return {
    // Decided at once, with no array or closure per request: it runs for every request.
    authorize: (attributes) => {
      for (const binding of BOOTSTRAP_BINDINGS) {
        const group = boundGroup(binding, attributes.user);
        if (group === undefined) continue;
        for (const rule of binding.rules) {
          if (ruleAllows(rule, attributes, apiDomain)) {
            return allow(`RBAC: allowed by ClusterRoleBinding "${binding.name}" of ClusterRole "${binding.name}" to Group "${group}"`);
          }
        }
      }
      return NO_OPINION;
    },
    // Cluster role bindings apply in every namespace, so the namespace does not narrow anything.
    rulesFor: async (user) => {
      const result: RulesResult = noRules();
      for (const binding of bindingsOf(user)) {
        for (const rule of binding.rules) {
          if (rule.resources !== undefined) result.resourceRules.push(resourceRule(rule, apiDomain));
          if (rule.nonResourceUrls !== undefined)
            result.nonResourceRules.push({ verbs: [...rule.verbs], nonResourceURLs: [...rule.nonResourceUrls] } satisfies NonResourceRule);
        }
      }
      return result;
    },
  };
}

/** The first of the binding's groups that `user` is in. */
function boundGroup(binding: Binding, user: UserInfo): string | undefined {
  for (const group of binding.groups) if (user.groups.includes(group)) return group;
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

function resourceRule(rule: Rule, apiDomain: string): ResourceRule {
  return {
    verbs: [...rule.verbs],
    apiGroups: (rule.groups ?? []).map((g) => resolveGroup(g, apiDomain)),
    resources: [...(rule.resources ?? [])],
    resourceNames: [],
  };
}

const matches = (values: readonly string[], value: string) => values.includes('*') || values.includes(value);

function ruleAllows(rule: Rule, attributes: AuthorizationAttributes, apiDomain: string): boolean {
  if (!matches(rule.verbs, attributes.verb)) return false;
  if (!attributes.isResourceRequest) {
    return (rule.nonResourceUrls ?? []).some(
      (url) => url === '*' || (url.endsWith('*') ? attributes.path.startsWith(url.slice(0, -1)) : attributes.path === url),
    );
  }
  if (rule.resources === undefined) return false;
  if (!(rule.groups ?? []).some((g) => resolveGroup(g, apiDomain) === '*' || resolveGroup(g, apiDomain) === attributes.apiGroup)) return false;
  const resource = attributes.subresource === '' ? attributes.resource : `${attributes.resource}/${attributes.subresource}`;
  return matches(rule.resources, resource);
}
