// The configuration stream the controller follows: every PriorityLevelConfiguration and FlowSchema
// in the store, emitted once both kinds are listed and again on every change. Each kind
// is list-then-watch from the list's resourceVersion, like an informer; when a watch ends (410
// Expired, a slow-watcher cut-off, the store closing) it lists again.
//
// Every change is emitted with the object it concerns (`change`), so that a follower interested in
// single objects (the garbage collector) looks at that object only. As Kubernetes' informer
// handlers do, the change says whether APF reads what changed: a PriorityLevelConfiguration's spec,
// a FlowSchema's spec or status (which carries the Dangling condition), an addition or deletion.
//
// An emission costs O(1): it says "the configuration changed" and carries a view whose arrays
// are copied from the live objects when first read. A consumer that coalesces changes (the
// controller digests at most a few times a second) therefore pays for one copy per digest, not
// one per object created. Read a view when you act on it: one read late shows a newer state.

import { Observable } from 'rxjs';
import { flowSchemaSpecsEqual, deepEqual, priorityLevelSpecsEqual } from '../resources/spec-equality.ts';
import type { FlowSchema, KubeObject, PriorityLevelConfiguration } from '../resources/types.ts';
import type { ResourceStore, Watcher } from '../store/store-types.ts';
import type { ConfigChange, FlowcontrolConfig } from './controller.ts';

type Relevant = (before: KubeObject, after: KubeObject) => boolean;

const priorityLevelChanged: Relevant = (before, after) =>
  !priorityLevelSpecsEqual((before as PriorityLevelConfiguration).spec, (after as PriorityLevelConfiguration).spec);
const flowSchemaChanged: Relevant = (before, after) =>
  !flowSchemaSpecsEqual((before as FlowSchema).spec, (after as FlowSchema).spec) || !deepEqual((before as FlowSchema).status, (after as FlowSchema).status);

/** The live objects of both kinds; `view()` hands out the configuration without copying it yet. */
class LiveConfig {
  readonly priorityLevels = new Map<string, PriorityLevelConfiguration>();
  readonly flowSchemas = new Map<string, FlowSchema>();
  private copied: FlowcontrolConfig | undefined;

  changed(): void {
    this.copied = undefined;
  }

  view(change: ConfigChange | undefined): FlowcontrolConfig {
    const live = this;
    return {
      get priorityLevels() {
        return live.snapshot().priorityLevels;
      },
      get flowSchemas() {
        return live.snapshot().flowSchemas;
      },
      change,
    };
  }

  private snapshot(): FlowcontrolConfig {
    this.copied ??= { priorityLevels: [...this.priorityLevels.values()], flowSchemas: [...this.flowSchemas.values()] };
    return this.copied;
  }
}

export function watchFlowcontrolConfig(priorityLevels: ResourceStore, flowSchemas: ResourceStore): Observable<FlowcontrolConfig> {
  return new Observable<FlowcontrolConfig>((subscriber) => {
    let stopped = false;
    const watchers = new Set<Watcher>();
    const live = new LiveConfig();
    const synced = { plcs: false, fss: false };
    const emit = (change?: ConfigChange) => {
      live.changed();
      if (stopped || !synced.plcs || !synced.fss) return;
      subscriber.next(live.view(change));
    };

    const follow = async (store: ResourceStore, objects: Map<string, KubeObject>, kind: keyof typeof synced, relevant: Relevant) => {
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
            const name = object.metadata?.name ?? '';
            if (event.type === 'DELETED') {
              objects.delete(name);
              emit({ type: 'DELETED', of: kind === 'plcs' ? 'priorityLevels' : 'flowSchemas', object: object as FlowSchema, apfRelevant: true });
              continue;
            }
            const before = objects.get(name);
            objects.set(name, object);
            emit({
              type: event.type,
              of: kind === 'plcs' ? 'priorityLevels' : 'flowSchemas',
              object: object as FlowSchema,
              apfRelevant: before === undefined || relevant(before, object),
            });
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
    follow(priorityLevels, live.priorityLevels as Map<string, KubeObject>, 'plcs', priorityLevelChanged).catch(fail);
    follow(flowSchemas, live.flowSchemas as Map<string, KubeObject>, 'fss', flowSchemaChanged).catch(fail);

    return () => {
      stopped = true;
      for (const watcher of watchers) watcher.stop();
    };
  });
}
