// The fixed authorizers, with Kubernetes' exact decisions: AlwaysAllow allows with no reason;
// AlwaysDeny says *no opinion* with the reason "Everything is forbidden." (so a later authorizer
// may still allow, and a request nobody allows gets that reason in its 403); the privileged-group
// authorizer allows members of `system:masters` and has no opinion on anyone else. All decide at
// once (no promise). Rule listing: AlwaysAllow lists `*` for everything, AlwaysDeny nothing, and
// the privileged group takes no part (as in Kubernetes, where it is not a rule resolver).
import type { AuthorizationResult, Authorizer } from './authorizer.ts';
import { ALLOWED, NO_OPINION, noOpinion, noRules } from './authorizer.ts';

export const SYSTEM_PRIVILEGED_GROUP = 'system:masters';
export const ALWAYS_DENY_REASON = 'Everything is forbidden.';

export const alwaysAllowAuthorizer: Authorizer = {
  authorize: () => ALLOWED,
  rulesFor: async () => ({
    resourceRules: [{ verbs: ['*'], apiGroups: ['*'], resources: ['*'], resourceNames: [] }],
    nonResourceRules: [{ verbs: ['*'], nonResourceURLs: ['*'] }],
    incomplete: false,
  }),
};

const EVERYTHING_FORBIDDEN: AuthorizationResult = Object.freeze(noOpinion(ALWAYS_DENY_REASON));

export const alwaysDenyAuthorizer: Authorizer = { authorize: () => EVERYTHING_FORBIDDEN, rulesFor: async () => noRules() };

export function privilegedGroupsAuthorizer(groups: readonly string[] = [SYSTEM_PRIVILEGED_GROUP]): Authorizer {
  return {
    // An index loop rather than `some` with a closure: this runs first for every request.
    authorize: ({ user }) => {
      const userGroups = user.groups;
      for (let i = 0; i < userGroups.length; i++) if (groups.includes(userGroups[i]!)) return ALLOWED;
      return NO_OPINION;
    },
  };
}
