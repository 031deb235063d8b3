// apiserver_storage_objects: how many objects the server stores per resource, labelled
// `resource.group` as kube-apiserver labels it (core resources without a group). `fairway sim
// import` reads it to give a scenario its objectCounts, as it would from any kube-apiserver.

import { KEY_PREFIX } from '../../engine/store/store.ts';
import type { Store } from '../../engine/store/store-types.ts';
import { CollectedFamily } from './metric-family.ts';

export const STORAGE_OBJECTS_METRIC = 'apiserver_storage_objects';

/** `/registry/<group>/<resource>/` or `/registry/<resource>/` → `resource.group` or `resource`. */
export function groupResourceOfPrefix(prefix: string): string | undefined {
  if (!prefix.startsWith(KEY_PREFIX)) return undefined;
  const parts = prefix
    .slice(KEY_PREFIX.length)
    .split('/')
    .filter((p) => p !== '');
  if (parts.length === 1) return parts[0];
  if (parts.length === 2) return `${parts[1]}.${parts[0]}`;
  return undefined;
}

export function storageObjectsFamily(store: Store): CollectedFamily {
  return new CollectedFamily(
    STORAGE_OBJECTS_METRIC,
    '[STABLE] Number of stored objects at the time of last check split by kind. In case of a fetching error, the value will be -1.',
    'gauge',
    () =>
      store
        .dump()
        .resources.flatMap((r) => {
          const resource = groupResourceOfPrefix(r.prefix);
          return resource === undefined ? [] : [{ labels: { resource }, value: r.objects }];
        })
        .sort((a, b) => (a.labels.resource < b.labels.resource ? -1 : 1)),
  );
}
