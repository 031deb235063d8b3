// kube-apiserver 1.32's watch-cache LIST counters (k8s.io/apiserver/pkg/storage/cacher/metrics,
// ALPHA): LISTs served from the watch cache, objects the cache handed over, objects returned, per
// `resource_prefix` (and `index`, the cache index a LIST used: "" for none). Fairway serves every
// LIST from its watch cache, which counts them (engine/store/resource-cache.ts), so it exposes no
// apiserver_storage_list_* (kube's count of LISTs that went to etcd): a kube-apiserver has no
// series there either until a LIST reaches etcd. Returned ÷ fetched is how selective a resource's
// LISTs are; `fairway sim import --traffic` reads it to set an observed LIST flow's `returns`.

import type { ListCounts, Store } from '../../engine/store/store-types.ts';
import { CollectedFamily } from './metric-family.ts';
import { groupResourceOfPrefix } from './storage-objects.ts';

export const CACHE_LIST_FAMILIES: readonly { name: string; count: keyof ListCounts; help: string; indexed: boolean }[] = [
  { name: 'apiserver_cache_list_total', count: 'lists', help: '[ALPHA] Number of LIST requests served from watch cache', indexed: true },
  {
    name: 'apiserver_cache_list_fetched_objects_total',
    count: 'fetched',
    help: '[ALPHA] Number of objects read from watch cache in the course of serving a LIST request',
    indexed: true,
  },
  {
    name: 'apiserver_cache_list_returned_objects_total',
    count: 'returned',
    help: '[ALPHA] Number of objects returned for a LIST request from watch cache',
    indexed: false,
  },
];

/**
 * kube-apiserver's name for a resource's storage (its registry's ResourcePrefix): a built-in
 * resource's plural alone, with a leading slash, whatever its group (`/flowschemas`). A few core
 * resources are named otherwise (nodes `/minions`, services `/services/specs`); Fairway serves none.
 */
export function resourcePrefixLabel(groupResource: string): string {
  const dot = groupResource.indexOf('.');
  return `/${dot < 0 ? groupResource : groupResource.slice(0, dot)}`;
}

export function cacheListFamilies(store: Store): CollectedFamily[] {
  return CACHE_LIST_FAMILIES.map(
    ({ name, count, help, indexed }) =>
      new CollectedFamily(name, help, 'counter', () =>
        store
          .dump()
          .resources.flatMap((r) => {
            const resource = groupResourceOfPrefix(r.prefix);
            // A resource nothing has listed has no series, as kube's CounterVec has none until its first LIST.
            if (resource === undefined || r.lists.lists === 0) return [];
            // Fairway's cache has no index (kube's has one for pods' spec.nodeName), so every LIST is index="".
            const labels: Record<string, string> = indexed
              ? { index: '', resource_prefix: resourcePrefixLabel(resource) }
              : { resource_prefix: resourcePrefixLabel(resource) };
            return [{ labels, value: r.lists[count] }];
          })
          .sort((a, b) => (a.labels.resource_prefix! < b.labels.resource_prefix! ? -1 : 1)),
      ),
  );
}
