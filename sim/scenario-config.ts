// The configuration a server would hold after the scenario's manifests were applied to it.
//
// - `bootstrap: suggested` starts from the mandatory and suggested objects, `mandatory` from the
//   mandatory ones only, `none` from nothing (the controller still imagines `exempt` and
//   `catch-all` when they are missing, as kube-apiserver does).
// - Each scenario object is applied like `kubectl apply`: it replaces the object of the same kind
//   and name, but annotations the server set stay (apply does not remove what it did not set).
// - Then the configuration ensurer has its say, exactly as on a real server: a mandatory object
//   always gets its spec back, and a suggested one too unless its
//   `apf.kubernetes.io/autoupdate-spec` annotation is "false". The simulation uses what the
//   ensurer leaves, and says so in a warning, because that is what production would run.

import { mandatoryFlowSchemas, mandatoryPriorityLevels, suggestedFlowSchemas, suggestedPriorityLevels } from '../engine/resources/bootstrap.ts';
import { planBootstrapUpdate } from '../engine/resources/auto-update.ts';
import { buildClassifier } from '../engine/flowcontrol/classifier.ts';
import { defaultFlowSchema, defaultPriorityLevelConfiguration } from '../engine/resources/defaults.ts';
import type { FlowcontrolConfig } from '../engine/flowcontrol/controller.ts';
import type { FlowSchema, PriorityLevelConfiguration } from '../engine/resources/types.ts';
import { AUTO_UPDATE_ANNOTATION_KEY, FLOW_SCHEMA_KIND, PRIORITY_LEVEL_KIND } from '../engine/resources/types.ts';
import type { BootstrapMode } from './scenario.ts';

type Kind = typeof PRIORITY_LEVEL_KIND | typeof FLOW_SCHEMA_KIND;
type AnyObject = PriorityLevelConfiguration | FlowSchema;

/** A checked manifest to apply, with where it came from (for warnings). */
export interface AppliedObject {
  kind: string;
  object: Record<string, unknown>;
  origin: string;
  /** Applied on purpose over the scenario's objects (a variant): replacing is expected, not warned about. */
  variant?: boolean;
}

interface Entry {
  kind: Kind;
  object: AnyObject;
  bootstrap: AnyObject | undefined;
  mandatory: boolean;
  /** The ensurer manages this name under the chosen bootstrap mode. */
  ensured: boolean;
  origin: string | undefined;
}

export function buildConfig(mode: BootstrapMode, applied: readonly AppliedObject[]): { config: FlowcontrolConfig; warnings: string[] } {
  const warnings: string[] = [];
  const entries = new Map<string, Entry>();
  const key = (kind: string, name: string) => `${kind}/${name}`;
  const addBootstrap = (kind: Kind, objects: AnyObject[], mandatory: boolean) => {
    for (const object of objects) {
      entries.set(key(kind, object.metadata?.name ?? ''), { kind, object, bootstrap: object, mandatory, ensured: true, origin: undefined });
    }
  };
  if (mode !== 'none') {
    addBootstrap(PRIORITY_LEVEL_KIND, mandatoryPriorityLevels(), true);
    addBootstrap(FLOW_SCHEMA_KIND, mandatoryFlowSchemas(), true);
  }
  if (mode === 'suggested') {
    addBootstrap(PRIORITY_LEVEL_KIND, suggestedPriorityLevels(), false);
    addBootstrap(FLOW_SCHEMA_KIND, suggestedFlowSchemas(), false);
  }

  for (const item of applied) {
    const kind = item.kind as Kind;
    const object = structuredClone(item.object) as unknown as AnyObject;
    const name = object.metadata?.name ?? '';
    const existing = entries.get(key(kind, name));
    if (existing?.origin !== undefined && item.variant !== true) warnings.push(`${item.origin}: replaces ${kind} "${name}" from ${existing.origin}`);
    if (existing !== undefined) {
      // Server-set annotations survive an apply that does not mention them.
      const annotations = { ...(existing.object.metadata?.annotations ?? {}), ...(object.metadata?.annotations ?? {}) };
      object.metadata = { ...object.metadata, annotations, generation: 2 };
    }
    entries.set(key(kind, name), {
      kind,
      object,
      bootstrap: existing?.bootstrap,
      mandatory: existing?.mandatory ?? false,
      ensured: existing?.ensured ?? false,
      origin: item.origin,
    });
  }

  for (const entry of entries.values()) {
    if (entry.origin === undefined || !entry.ensured || entry.bootstrap === undefined) continue;
    const plan = planBootstrapUpdate(entry.kind, entry.object, entry.bootstrap, { mandatory: entry.mandatory });
    if (plan.action !== 'update') continue;
    const restored = JSON.stringify(plan.object.spec) !== JSON.stringify(entry.object.spec);
    entry.object = plan.object;
    if (restored) {
      const name = entry.object.metadata?.name ?? '';
      warnings.push(
        entry.mandatory
          ? `${entry.origin}: ${entry.kind} "${name}" is mandatory; kube-apiserver restores its spec, so the simulation uses the built-in spec`
          : `${entry.origin}: ${entry.kind} "${name}" is a suggested object; kube-apiserver's configuration ensurer would restore its spec, so the ` +
              `simulation uses the built-in spec. To keep your change, set annotation ${AUTO_UPDATE_ANNOTATION_KEY}: "false"`,
      );
    }
  }

  const priorityLevels: PriorityLevelConfiguration[] = [];
  const flowSchemas: FlowSchema[] = [];
  for (const entry of entries.values()) {
    if (entry.kind === PRIORITY_LEVEL_KIND) priorityLevels.push(defaultPriorityLevelConfiguration(entry.object as PriorityLevelConfiguration));
    else flowSchemas.push(defaultFlowSchema(entry.object as FlowSchema));
  }
  // The engine's own verdict on which schemas are Dangling, so the warning and the run agree.
  const { danglingFlowSchemas } = buildClassifier(flowSchemas, priorityLevels);
  for (const name of danglingFlowSchemas) {
    const entry = entries.get(key(FLOW_SCHEMA_KIND, name))!;
    const level = (entry.object as FlowSchema).spec?.priorityLevelConfiguration?.name ?? '';
    warnings.push(
      `${entry.origin ?? 'bootstrap'}: FlowSchema "${name}" refers to PriorityLevelConfiguration "${level}", which does not exist (or is invalid); ` +
        'the server marks the schema Dangling and requests it would match go to the next matching FlowSchema',
    );
  }
  return { config: { priorityLevels, flowSchemas }, warnings };
}
