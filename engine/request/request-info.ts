// What a request targets, read from its URL and method: Kubernetes' `request.RequestInfo`
// (k8s.io/apiserver/pkg/endpoints/request). The API layer builds it once per request; authorization,
// API Priority and Fairness, the work estimators and the metrics read it, so each sees the values
// kube-apiserver would give it.

/**
 * For a resource request (`/api/...`, `/apis/...`) the verb is the Kubernetes verb (`get`, `list`,
 * `watch`, `create`, `update`, `patch`, `delete`, `deletecollection`, `proxy`); for a non-resource
 * request (`/healthz`, `/version`, ...) it is the lower-cased HTTP method (`get`, `post`, `put`, ...).
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

/** A request that targets no resource (`/healthz`, `/version`, ...): only its path and verb say anything. */
export function nonResourceInfo(path: string, verb: string): RequestInfo {
  return { isResourceRequest: false, path, verb, apiGroup: '', apiVersion: '', namespace: '', resource: '', subresource: '', name: '' };
}
