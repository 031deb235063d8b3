// The configuration stream the controller follows: every PriorityLevelConfiguration and FlowSchema
// in the store, as one snapshot emitted after both kinds are listed and again on every change.
// Each kind is list-then-watch from the list's resourceVersion, like an informer; when a watch
// ends (410 Expired, a slow-watcher cut-off, the store closing) it lists again.

import { Observable } from 'rxjs';
import type { FlowSchema, KubeObject, PriorityLevelConfiguration } from '../resources/types.ts';
import type { ResourceStore, Watcher } from '../store/store-types.ts';
import type { FlowcontrolConfig } from './controller.ts';

export function watchFlowcontrolConfig(priorityLevels: ResourceStore, flowSchemas: ResourceStore): Observable<FlowcontrolConfig> {
  return new Observable<FlowcontrolConfig>((subscriber) => {
    let stopped = false;
    const watchers = new Set<Watcher>();
    const plcs = new Map<string, PriorityLevelConfiguration>();
    const fss = new Map<string, FlowSchema>();
    const synced = { plcs: false, fss: false };
    const emit = () => {
      if (stopped || !synced.plcs || !synced.fss) return;
      subscriber.next({ priorityLevels: [...plcs.values()], flowSchemas: [...fss.values()] });
    };

    const follow = async (store: ResourceStore, objects: Map<string, KubeObject>, kind: keyof typeof synced) => {
      while (!stopped) {
        const list = await store.list();
        objects.clear();
        for (const item of list.items) objects.set(item.metadata?.name ?? '', item);
        synced[kind] = true;
        emit();
        if (stopped) return;
        const watcher = await store.watch({ resourceVersion: list.resourceVersion });
        watchers.add(watcher);
        try {
          for await (const event of watcher) {
            if (event.type === 'ERROR') break;
            if (event.type === 'BOOKMARK') continue;
            const object = event.object as KubeObject;
            if (event.type === 'DELETED') objects.delete(object.metadata?.name ?? '');
            else objects.set(object.metadata?.name ?? '', object);
            emit();
          }
        } finally {
          watchers.delete(watcher);
          watcher.stop();
        }
      }
    };

    const fail = (error: unknown) => {
      if (!stopped) subscriber.error(error);
    };
    follow(priorityLevels, plcs as Map<string, KubeObject>, 'plcs').catch(fail);
    follow(flowSchemas, fss as Map<string, KubeObject>, 'fss').catch(fail);

    return () => {
      stopped = true;
      for (const watcher of watchers) watcher.stop();
    };
  });
}
