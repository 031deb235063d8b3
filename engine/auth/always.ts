// The fixed authorizers, with Kubernetes' exact decisions: AlwaysAllow allows with no reason;
// AlwaysDeny says *no opinion* with the reason "Everything is forbidden." (so a later authorizer
// may still allow, and a request nobody allows gets that reason in its 403); the privileged-group
// authorizer allows members of `system:masters` and has no opinion on anyone else.
import type { Authorizer } from './authorizer.ts';
import { allow, noOpinion } from './authorizer.ts';

export const SYSTEM_PRIVILEGED_GROUP = 'system:masters';
export const ALWAYS_DENY_REASON = 'Everything is forbidden.';

export const alwaysAllowAuthorizer: Authorizer = { authorize: async () => allow() };

export const alwaysDenyAuthorizer: Authorizer = { authorize: async () => noOpinion(ALWAYS_DENY_REASON) };

export function privilegedGroupsAuthorizer(groups: readonly string[] = [SYSTEM_PRIVILEGED_GROUP]): Authorizer {
  return {
    authorize: async ({ user }) => (user.groups.some((group) => groups.includes(group)) ? allow() : noOpinion()),
  };
}
