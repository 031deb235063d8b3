// The facts about one request that API Priority and Fairness classifies on: who is asking
// (after authentication and impersonation) and what they ask for. Shaped like Kubernetes'
// `user.Info` and `request.RequestInfo`, so FlowSchema rules read the same values kube-apiserver
// would give them.

/** The authenticated (and, if impersonating, impersonated) user. */
export interface UserInfo {
  /** `alice`, `system:kube-scheduler`, `system:serviceaccount:<namespace>:<name>`. */
  name: string;
  uid?: string;
  /** `system:authenticated`, `system:masters`, ...; order carries no meaning. */
  groups: string[];
  extra?: Record<string, string[]>;
}

/**
 * What the request targets. For a resource request (`/api/...`, `/apis/...`) the verb is the
 * Kubernetes verb (`get`, `list`, `watch`, `create`, `update`, `patch`, `delete`,
 * `deletecollection`, `proxy`); for a non-resource request (`/healthz`, `/version`, ...) it is the
 * lower-cased HTTP method (`get`, `post`, `put`, ...).
 */
export interface RequestInfo {
  isResourceRequest: boolean;
  /** The URL path, without the query string. */
  path: string;
  verb: string;
  /** `api` or `apis` for resource requests. */
  apiPrefix?: string;
  /** `""` for the core group. */
  apiGroup: string;
  apiVersion: string;
  /** `""` for cluster-scoped resources, requests across all namespaces and non-resource requests. */
  namespace: string;
  resource: string;
  subresource: string;
  name: string;
}

export interface RequestDigest {
  requestInfo: RequestInfo;
  user: UserInfo;
}
