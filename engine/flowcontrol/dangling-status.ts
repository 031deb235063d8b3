// The one status the APF controller writes (section 9.5 of the fact sheet): each FlowSchema's
// `Dangling` condition says whether its priority level exists. Written only when status, reason
// or message change; at most 6 writes per FlowSchema per minute, later changes retried after
// 30 s. Every replica computes the same condition from the same shared objects, and the write
// re-checks inside the read-modify-write, so replicas neither duplicate writes nor flap.
//
// Kubernetes computes these conditions while it digests the configuration (presyncFlowSchemaStatus
// in apf_controller.go), so the writer follows the controller's digests: a burst of changes is
// looked at a few times a second, not once per object. A write still in flight is not issued
// again by the next digest.

import type { Observable, Subscription } from 'rxjs';
import type { Cancel, Clock } from '../clock.ts';
import type { Condition, FlowSchema, KubeObject } from '../resources/types.ts';
import { FLOW_SCHEMA_CONDITION_DANGLING } from '../resources/types.ts';
import { isStoreErrorCode } from '../store/store-errors.ts';
import type { ResourceStore } from '../store/store-types.ts';
import { formatRfc3339 } from '../clock.ts';
import { buildClassifier, danglingConditionAt, danglingConditionDiffers } from './classifier.ts';
import type { DigestedConfig, FlowcontrolConfig } from './controller.ts';

export const DANGLING_WRITES_PER_MINUTE = 6;
export const DANGLING_RETRY_MS = 30_000;

export interface DanglingStatusOptions {
  flowSchemas: ResourceStore;
  clock: Clock;
  /** Failures other than NotFound/Conflict (logged by the caller; the next change retries). */
  onError?: (flowSchema: string, error: unknown) => void;
}

/** The FlowSchemas of `config` whose Dangling condition must be (re)written, with the desired condition. */
export function danglingUpdates(config: FlowcontrolConfig, nowMs: number, apiDomain?: string): { name: string; condition: Condition }[] {
  const classifier = buildClassifier(config.flowSchemas, config.priorityLevels, { apiDomain });
  return danglingUpdatesOf({ config, danglingFlowSchemas: classifier.danglingFlowSchemas }, nowMs);
}

/** The same, from what a digest already found dangling. */
export function danglingUpdatesOf(digested: DigestedConfig, nowMs: number): { name: string; condition: Condition }[] {
  const updates: { name: string; condition: Condition }[] = [];
  const stamp = formatRfc3339(nowMs);
  for (const fs of digested.config.flowSchemas) {
    const name = fs.metadata?.name ?? '';
    const condition = danglingConditionAt(fs, !digested.danglingFlowSchemas.has(name), stamp);
    if (danglingConditionDiffers(fs, condition)) updates.push({ name, condition });
  }
  return updates;
}

/** Follows the controller's digests and writes Dangling conditions until unsubscribed. */
export function startDanglingStatusWriter(digests$: Observable<DigestedConfig>, options: DanglingStatusOptions): Subscription {
  const writes = new Map<string, number[]>();
  /** Writes not yet acknowledged, by FlowSchema: the status they set. */
  const inFlight = new Map<string, string>();
  let latest: DigestedConfig | undefined;
  let retry: Cancel | undefined;

  const writeAllowed = (name: string, nowMs: number): boolean => {
    const recent = (writes.get(name) ?? []).filter((t) => nowMs - t < 60_000);
    if (recent.length === 0) writes.delete(name);
    else writes.set(name, recent);
    return recent.length < DANGLING_WRITES_PER_MINUTE;
  };

  const reconcile = (): void => {
    if (latest === undefined) return;
    const nowMs = options.clock.now();
    for (const { name, condition } of danglingUpdatesOf(latest, nowMs)) {
      if (inFlight.get(name) === condition.status) continue;
      if (!writeAllowed(name, nowMs)) {
        retry ??= options.clock.after(DANGLING_RETRY_MS, () => {
          retry = undefined;
          reconcile();
        });
        continue;
      }
      writes.set(name, [...(writes.get(name) ?? []), nowMs]);
      inFlight.set(name, condition.status ?? '');
      void writeCondition(options.flowSchemas, name, condition)
        .catch((error: unknown) => options.onError?.(name, error))
        .finally(() => {
          if (inFlight.get(name) === condition.status) inFlight.delete(name);
        });
    }
  };

  const subscription = digests$.subscribe((digested) => {
    latest = digested;
    reconcile();
  });
  subscription.add(() => retry?.());
  return subscription;
}

async function writeCondition(store: ResourceStore, name: string, condition: Condition): Promise<void> {
  try {
    await store.guaranteedUpdate(name, (current) => {
      const fs = current as FlowSchema;
      // Another replica may have written it meanwhile: then the object is returned unchanged and
      // the store writes nothing.
      if (!danglingConditionDiffers(fs, condition)) return current;
      const next = structuredClone(current) as FlowSchema;
      const others = (next.status?.conditions ?? []).filter((c) => c.type !== FLOW_SCHEMA_CONDITION_DANGLING);
      next.status = { ...(next.status ?? {}), conditions: [...others, condition] };
      return next as KubeObject;
    });
  } catch (error) {
    if (!isStoreErrorCode(error, 'FW_ERR_STORE_NOT_FOUND')) throw error;
  }
}
