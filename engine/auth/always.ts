// The fixed authorizers, with Kubernetes' exact decisions: AlwaysAllow allows with no reason;
// AlwaysDeny says *no opinion* with the reason "Everything is forbidden." (so a later authorizer
// may still allow, and a request nobody allows gets that reason in its 403); the privileged-group
// authorizer allows members of `system:masters` and has no opinion on anyone else. Rule listing:
// AlwaysAllow lists `*` for everything, AlwaysDeny nothing, and the privileged group takes no part
// (as in Kubernetes, where it is not a rule resolver).
import type { Authorizer } from './authorizer.ts';
import { allow, noOpinion, noRules } from './authorizer.ts';

export const SYSTEM_PRIVILEGED_GROUP = 'system:masters';
export const ALWAYS_DENY_REASON = 'Everything is forbidden.';

export const alwaysAllowAuthorizer: Authorizer = {
  authorize: async () => allow(),
  rulesFor: async () => ({
    resourceRules: [{ verbs: ['*'], apiGroups: ['*'], resources: ['*'], resourceNames: [] }],
    nonResourceRules: [{ verbs: ['*'], nonResourceURLs: ['*'] }],
    incomplete: false,
  }),
};

export const alwaysDenyAuthorizer: Authorizer = { authorize: async () => noOpinion(ALWAYS_DENY_REASON), rulesFor: async () => noRules() };

export function privilegedGroupsAuthorizer(groups: readonly string[] = [SYSTEM_PRIVILEGED_GROUP]): Authorizer {
  return {
    authorize: async ({ user }) => (user.groups.some((group) => groups.includes(group)) ? allow() : noOpinion()),
  };
}
