// kube-apiserver's LIST cost counters (k8s.io/apiserver/pkg/storage, ALPHA in 1.32), per resource
// labelled `resource.group` as apiserver_storage_objects is: LISTs served from storage, keys read,
// objects tested against the request's selectors, objects returned. Fairway serves every LIST from
// its watch cache, which counts them (engine/store/resource-cache.ts). Returned ÷
// evaluated is how selective a resource's LISTs are; `fairway sim import --traffic` reads it to set
// an observed LIST flow's `returns`.

import type { ListCounts, Store } from '../../engine/store/store-types.ts';
import { CollectedFamily } from './metric-family.ts';
import { groupResourceOfPrefix } from './storage-objects.ts';

export const STORAGE_LIST_FAMILIES: readonly { name: string; count: keyof ListCounts; help: string }[] = [
  { name: 'apiserver_storage_list_total', count: 'lists', help: '[ALPHA] Number of LIST requests served from storage' },
  {
    name: 'apiserver_storage_list_fetched_objects_total',
    count: 'fetched',
    help: '[ALPHA] Number of objects read from storage in the course of serving a LIST request',
  },
  {
    name: 'apiserver_storage_list_evaluated_objects_total',
    count: 'evaluated',
    help: '[ALPHA] Number of objects tested in the course of serving a LIST request from storage',
  },
  { name: 'apiserver_storage_list_returned_objects_total', count: 'returned', help: '[ALPHA] Number of objects returned for a LIST request from storage' },
];

export function storageListFamilies(store: Store): CollectedFamily[] {
  return STORAGE_LIST_FAMILIES.map(
    ({ name, count, help }) =>
      new CollectedFamily(name, help, 'counter', () =>
        store
          .dump()
          .resources.flatMap((r) => {
            const resource = groupResourceOfPrefix(r.prefix);
            // A resource nothing has listed has no series, as kube's CounterVec has none until its first LIST.
            return resource === undefined || r.lists.lists === 0 ? [] : [{ labels: { resource }, value: r.lists[count] }];
          })
          .sort((a, b) => (a.labels.resource < b.labels.resource ? -1 : 1)),
      ),
  );
}
