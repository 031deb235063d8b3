// The part of kube-controller-manager's garbage collector that PriorityLevelConfigurations and
// FlowSchemas meet: they own nothing and nothing names them as owner, so for an object being
// deleted with the `orphan` or `foregroundDeletion` finalizer there are no dependents to orphan or
// to delete first, and the collector just takes its finalizer off. Taking off the last finalizer of
// an object being deleted removes it (watchers see it DELETED), as kube-apiserver's update does; the
// removal is conditional on the version read, so replicas sharing a store never remove twice.

import type { Observable, Subscription } from 'rxjs';
import { GC_FINALIZERS } from '../resources/deletion.ts';
import type { KubeObject } from '../resources/types.ts';
import { isStoreErrorCode } from '../store/store-errors.ts';
import type { ResourceStore } from '../store/store-types.ts';
import type { FlowcontrolConfig } from './controller.ts';

export interface GarbageCollectorOptions {
  priorityLevels: ResourceStore;
  flowSchemas: ResourceStore;
  /** Failures other than "changed or gone meanwhile" (the next change of the object retries). */
  onError?: (object: string, error: unknown) => void;
}

/** Whether the collector has work on `object`: being deleted, with a finalizer of its own. */
export function awaitsCollection(object: KubeObject): boolean {
  const metadata = object.metadata;
  return metadata?.deletionTimestamp !== undefined && (metadata.finalizers ?? []).some((f) => GC_FINALIZERS.has(f));
}

/** Takes the collector's finalizers off `object` (removing it when none other is left). */
export async function collect(store: ResourceStore, object: KubeObject): Promise<void> {
  const metadata = object.metadata ?? {};
  const name = metadata.name ?? '';
  const preconditions = { uid: metadata.uid ?? '', resourceVersion: metadata.resourceVersion ?? '' };
  const remaining = (metadata.finalizers ?? []).filter((f) => !GC_FINALIZERS.has(f));
  try {
    if (remaining.length === 0) {
      await store.delete(name, { preconditions });
      return;
    }
    await store.guaranteedUpdate(
      name,
      (current) => {
        const { resourceVersion: _rv, ...rest } = current.metadata ?? {};
        return { ...current, metadata: { ...rest, finalizers: remaining } };
      },
      { preconditions },
    );
  } catch (error) {
    if (
      isStoreErrorCode(error, 'FW_ERR_STORE_NOT_FOUND') ||
      isStoreErrorCode(error, 'FW_ERR_STORE_PRECONDITION_FAILED') ||
      isStoreErrorCode(error, 'FW_ERR_STORE_CONFLICT')
    )
      return;
    throw error;
  }
}

/** Follows the configuration stream and collects every object that awaits it, until unsubscribed. */
export function startGarbageCollector(config$: Observable<FlowcontrolConfig>, options: GarbageCollectorOptions): Subscription {
  const inFlight = new Set<string>();
  const visit = (store: ResourceStore, object: KubeObject) => {
    if (!awaitsCollection(object)) return;
    const key = `${store.resource.resource}/${object.metadata?.name ?? ''}@${object.metadata?.resourceVersion ?? ''}`;
    if (inFlight.has(key)) return;
    inFlight.add(key);
    collect(store, object)
      .catch((error: unknown) => options.onError?.(`${object.kind}/${object.metadata?.name ?? ''}`, error))
      .finally(() => inFlight.delete(key));
  };
  return config$.subscribe((config) => {
    // A single change concerns one object; only a (re)list makes every object worth a look.
    const change = config.change;
    if (change !== undefined) {
      if (change.type === 'DELETED') return;
      const object = change.object as KubeObject;
      visit(change.of === 'priorityLevels' ? options.priorityLevels : options.flowSchemas, object);
      return;
    }
    for (const object of config.priorityLevels) visit(options.priorityLevels, object as KubeObject);
    for (const object of config.flowSchemas) visit(options.flowSchemas, object as KubeObject);
  });
}
