// Upkeep of the mandatory and suggested configuration objects (Kubernetes' config producer,
// section 4.3/4.4 of the APF fact sheet): missing ones are created, auto-updating ones are put
// back to their bootstrap spec, and unwanted auto-update objects are removed. Every write carries
// a precondition, and AlreadyExists / Conflict / NotFound mean "another server did it first", so
// several servers sharing one store converge without duplicates or flapping.

import { Subscription } from 'rxjs';
import type { Clock } from '../clock.ts';
import { repeat } from '../periodic.ts';
import { planBootstrapUpdate, shouldRemoveUnwanted } from '../resources/auto-update.ts';
import {
  MANDATORY_NAMES,
  SUGGESTED_NAMES,
  mandatoryFlowSchemas,
  mandatoryPriorityLevels,
  suggestedFlowSchemas,
  suggestedPriorityLevels,
} from '../resources/bootstrap.ts';
import { asKind, FLOW_SCHEMA, PRIORITY_LEVEL, type KindInfo } from '../resources/kinds.ts';
import { prepareForCreate, prepareForUpdate } from '../resources/strategy.ts';
import type { FlowSchema, KubeObject, PriorityLevelConfiguration } from '../resources/types.ts';
import { isStoreErrorCode } from '../store/store-errors.ts';
import type { ResourceStore } from '../store/store-types.ts';

export interface EnsurerDeps {
  priorityLevels: ResourceStore;
  flowSchemas: ResourceStore;
  clock: Clock;
  /** Source of object uids (random in the server, seeded in the simulator and tests). */
  newUid: () => string;
  apiDomain?: string | undefined;
  /** Suggested objects too (kube-apiserver always ensures them); false keeps only the mandatory. */
  suggested?: boolean;
  /**
   * The API's last step before each of the ensurer's writes (previous is undefined on create): the
   * server records managedFields for manager `api-priority-and-fairness-config-producer-v1`, as
   * Kubernetes' ensurer's create and update calls leave them, and puts fields in Go's order, so
   * these objects read like any other written through the API. Absent, objects are stored as built.
   */
  finishWrite?: (previous: KubeObject | undefined, next: KubeObject) => KubeObject;
}

/** The field manager of Kubernetes' configuration producer (its create and update calls). */
export const CONFIG_PRODUCER_MANAGER = 'api-priority-and-fairness-config-producer-v1';

export interface EnsureReport {
  created: string[];
  updated: string[];
  deleted: string[];
}

/** Kubernetes' schedule: every 1 s until one round succeeds, then every minute. */
export const ENSURE_RETRY_MS = 1_000;
export const ENSURE_PERIOD_MS = 60_000;

/** One full round, in Kubernetes' order; an unexpected error stops the round (and is rethrown). */
export async function ensureBootstrapObjects(deps: EnsurerDeps): Promise<EnsureReport> {
  const report: EnsureReport = { created: [], updated: [], deleted: [] };
  const suggested = deps.suggested ?? true;
  if (suggested) {
    await ensureAll(deps, PRIORITY_LEVEL, deps.priorityLevels, suggestedPriorityLevels(deps.apiDomain), false, report);
    await ensureAll(deps, FLOW_SCHEMA, deps.flowSchemas, suggestedFlowSchemas(deps.apiDomain), false, report);
  }
  await ensureAll(deps, PRIORITY_LEVEL, deps.priorityLevels, mandatoryPriorityLevels(deps.apiDomain), true, report);
  await ensureAll(deps, FLOW_SCHEMA, deps.flowSchemas, mandatoryFlowSchemas(deps.apiDomain), true, report);
  await removeUnwanted(FLOW_SCHEMA, deps.flowSchemas, report);
  await removeUnwanted(PRIORITY_LEVEL, deps.priorityLevels, report);
  return report;
}

/**
 * Runs rounds on `deps.clock` (the first on its next turn) until unsubscribed: the next a minute
 * after a round, sooner after a failed one. `onRound` sees each outcome (for logs).
 */
export function startBootstrapEnsurer(deps: EnsurerDeps, onRound: (outcome: { report?: EnsureReport; error?: unknown }) => void = () => {}): Subscription {
  const round = () =>
    ensureBootstrapObjects(deps).then(
      (report) => {
        onRound({ report });
        return ENSURE_PERIOD_MS;
      },
      (error: unknown) => {
        onRound({ error });
        return ENSURE_RETRY_MS;
      },
    );
  return new Subscription(repeat(deps.clock, 0, round));
}

async function ensureAll<T extends PriorityLevelConfiguration | FlowSchema>(
  deps: EnsurerDeps,
  kind: KindInfo<T>,
  store: ResourceStore,
  bootstrap: T[],
  mandatory: boolean,
  report: EnsureReport,
): Promise<void> {
  for (const wanted of bootstrap) {
    const name = wanted.metadata?.name ?? '';
    const stored = await getOrUndefined(store, name);
    if (stored === undefined) {
      const prepared = kind.untyped(prepareForCreate(kind.applyDefaults(wanted), { uid: deps.newUid(), nowMs: deps.clock.now() }));
      const object = deps.finishWrite?.(undefined, prepared) ?? prepared;
      try {
        await store.create(object);
        report.created.push(`${kind.kind}/${name}`);
      } catch (error) {
        if (!isStoreErrorCode(error, 'FW_ERR_STORE_ALREADY_EXISTS')) throw error;
      }
      continue;
    }
    const current = asKind(kind, stored);
    const plan = planBootstrapUpdate(kind.kind, current, wanted, { mandatory });
    if (plan.action === 'none') continue;
    const prepared = kind.untyped(prepareForUpdate(kind, plan.object, current));
    const object = deps.finishWrite?.(stored, prepared) ?? prepared;
    try {
      await store.update(object, { preconditions: { uid: current.metadata?.uid, resourceVersion: current.metadata?.resourceVersion } });
      report.updated.push(`${kind.kind}/${name}`);
    } catch (error) {
      // Someone changed it meanwhile (another server, a user): the next round looks again.
      if (
        !isStoreErrorCode(error, 'FW_ERR_STORE_CONFLICT') &&
        !isStoreErrorCode(error, 'FW_ERR_STORE_PRECONDITION_FAILED') &&
        !isStoreErrorCode(error, 'FW_ERR_STORE_NOT_FOUND')
      )
        throw error;
    }
  }
}

async function removeUnwanted<T extends PriorityLevelConfiguration | FlowSchema>(kind: KindInfo<T>, store: ResourceStore, report: EnsureReport): Promise<void> {
  const names = MANDATORY_NAMES[kind.kind];
  const suggested = SUGGESTED_NAMES[kind.kind];
  const { items } = await store.list();
  for (const item of items) {
    const name = item.metadata?.name ?? '';
    if (names.has(name) || suggested.has(name)) continue;
    if (!shouldRemoveUnwanted(asKind(kind, item), kind.kind)) continue;
    try {
      await store.delete(name, { preconditions: { uid: item.metadata?.uid } });
      report.deleted.push(`${kind.kind}/${name}`);
    } catch (error) {
      if (!isStoreErrorCode(error, 'FW_ERR_STORE_NOT_FOUND') && !isStoreErrorCode(error, 'FW_ERR_STORE_PRECONDITION_FAILED')) throw error;
    }
  }
}

async function getOrUndefined(store: ResourceStore, name: string): Promise<KubeObject | undefined> {
  try {
    return await store.get(name);
  } catch (error) {
    if (isStoreErrorCode(error, 'FW_ERR_STORE_NOT_FOUND')) return undefined;
    throw error;
  }
}
