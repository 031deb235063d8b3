// Stand-ins for the authorizer types kube-apiserver has and Fairway does not back with data, so
// that a configuration written for kube-apiserver (the documentation's example lists Node and RBAC)
// loads and behaves sensibly:
//
// - RBAC: Fairway serves no Role/ClusterRole objects, so RBAC sees only Kubernetes' bootstrap
//   policy, of which the bindings below are the ones that mean anything here: discovery and health
//   for everyone (system:discovery, system:public-info-viewer), self-reviews for every
//   authenticated user (system:basic-user, so `kubectl auth can-i` works), metrics for
//   system:monitoring. Allow reasons are RBAC's; anything else is no opinion without a reason.
// - Node: Fairway has no nodes or pods, so the node authorizer never has an opinion.
import type { AuthorizationAttributes, Authorizer } from './authorizer.ts';
import { allow, noOpinion } from './authorizer.ts';

interface Rule {
  verbs: readonly string[];
  /** Non-resource rule: exact paths, or `prefix/*`. */
  nonResourceUrls?: readonly string[];
  /** Resource rule: `group` is resolved against the API domain (`authorization`, `authentication`). */
  groupPrefix?: string;
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
    name: 'system:basic-user',
    groups: ['system:authenticated'],
    rules: [
      { verbs: ['create'], groupPrefix: 'authorization', resources: ['selfsubjectaccessreviews', 'selfsubjectrulesreviews'] },
      { verbs: ['create'], groupPrefix: 'authentication', resources: ['selfsubjectreviews'] },
    ],
  },
  {
    name: 'system:discovery',
    groups: ['system:authenticated'],
    rules: [{ verbs: ['get'], nonResourceUrls: ['/api', '/api/*', '/apis', '/apis/*', '/healthz', '/livez', '/openapi', '/openapi/*', '/readyz', '/version', '/version/'] }],
  },
  { name: 'system:public-info-viewer', groups: ['system:authenticated', 'system:unauthenticated'], rules: [{ verbs: ['get'], nonResourceUrls: HEALTH }] },
  {
    name: 'system:monitoring',
    groups: ['system:monitoring'],
    rules: [{ verbs: ['get'], nonResourceUrls: ['/metrics', '/metrics/slis', '/livez', '/readyz', '/healthz', '/livez/*', '/readyz/*', '/healthz/*'] }],
  },
];

export function bootstrapRbacAuthorizer(apiDomain = 'k8s.io'): Authorizer {
  return {
    authorize: async (attributes) => {
      for (const binding of BOOTSTRAP_BINDINGS) {
        const group = binding.groups.find((g) => attributes.user.groups.includes(g));
        if (group === undefined) continue;
        if (binding.rules.some((rule) => ruleAllows(rule, attributes, apiDomain))) {
          return allow(`RBAC: allowed by ClusterRoleBinding "${binding.name}" of ClusterRole "${binding.name}" to Group "${group}"`);
        }
      }
      return noOpinion();
    },
  };
}

export const nodeAuthorizerStandIn: Authorizer = { authorize: async () => noOpinion() };

function ruleAllows(rule: Rule, attributes: AuthorizationAttributes, apiDomain: string): boolean {
  if (!rule.verbs.includes(attributes.verb)) return false;
  if (!attributes.isResourceRequest) {
    return (rule.nonResourceUrls ?? []).some((url) => (url.endsWith('*') ? attributes.path.startsWith(url.slice(0, -1)) : attributes.path === url));
  }
  if (rule.groupPrefix === undefined || attributes.apiGroup !== `${rule.groupPrefix}.${apiDomain}`) return false;
  return attributes.subresource === '' && (rule.resources ?? []).includes(attributes.resource);
}
