// Who is asking, once authentication (and impersonation, when asked for) has decided: Kubernetes'
// `user.Info` (k8s.io/apiserver/pkg/authentication/user). Authenticators produce it, impersonation
// replaces it, authorizers, admission and API Priority and Fairness read it.

/** The authenticated (and, if impersonating, impersonated) user. */
export interface UserInfo {
  /** `alice`, `system:kube-scheduler`, `system:serviceaccount:<namespace>:<name>`. */
  name: string;
  uid?: string;
  /** `system:authenticated`, `system:masters`, ...; order carries no meaning. */
  groups: string[];
  extra?: Record<string, string[]>;
}
