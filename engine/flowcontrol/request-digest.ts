// The facts about one request that API Priority and Fairness classifies on: who is asking (after
// authentication and impersonation) and what they ask for, as kube-apiserver's APF filter hands
// them to its classifier, so FlowSchema rules read the same values kube-apiserver would give them.
import type { UserInfo } from '../auth/user-info.ts';
import type { RequestInfo } from '../request/request-info.ts';

export interface RequestDigest {
  requestInfo: RequestInfo;
  user: UserInfo;
}
