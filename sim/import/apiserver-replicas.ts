// How many kube-apiservers a cluster runs, from their identity leases: since 1.26 each
// kube-apiserver keeps a Lease in kube-system labelled apiserver.kubernetes.io/identity=kube-apiserver
// (APIServerIdentity), renewed every 10 s and deleted an hour after it stops. `sim import` sets the
// scenario's server.replicas from them when it may read them; otherwise it leaves the field unset
// and says why, since a guess would split the load wrongly.

import type { ApiResponse } from './api-reader.ts';

export const IDENTITY_LEASES_PATH =
  '/apis/coordination.k8s.io/v1/namespaces/kube-system/leases?labelSelector=' + encodeURIComponent('apiserver.kubernetes.io/identity=kube-apiserver');

/** The replica count the leases show, or why there is none (a warning for the operator). */
export function replicasFromLeases(response: ApiResponse, url: string): { replicas: number } | { warning: string } {
  const unset = 'server.replicas left unset (one server); set it to the number of kube-apiservers behind the load balancer';
  if (response.status === 403 || response.status === 404)
    return { warning: `GET ${url}: HTTP ${response.status} (the identity leases cannot be read here): ${unset}` };
  if (response.status !== 200) return { warning: `GET ${url}: HTTP ${response.status}: ${unset}` };
  let items: unknown;
  try {
    items = (JSON.parse(response.body) as { items?: unknown } | null)?.items;
  } catch {
    return { warning: `GET ${url}: the answer is not JSON: ${unset}` };
  }
  if (!Array.isArray(items)) return { warning: `GET ${url}: the answer has no items list: ${unset}` };
  if (items.length === 0) return { warning: `GET ${url}: no kube-apiserver identity lease (APIServerIdentity off?): ${unset}` };
  return { replicas: items.length };
}
