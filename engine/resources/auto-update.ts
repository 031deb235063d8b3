// The config producer's pure decisions (pkg/registry/flowcontrol/ensurer): whether a stored
// bootstrap object must be rewritten, and whether a leftover object may be deleted. The annotation
// `apf.kubernetes.io/autoupdate-spec` records whether the server owns the spec: mandatory objects
// are always owned; a suggested object is owned when the annotation says "true", or, when it has no
// readable annotation, while nobody has changed its spec yet (generation 1).

import type { FlowSchema, ObjectMeta, PriorityLevelConfiguration } from './types.ts';
import { AUTO_UPDATE_ANNOTATION_KEY, FLOW_SCHEMA_KIND, PRIORITY_LEVEL_KIND, PRIORITY_LEVEL_NAME_EXEMPT } from './types.ts';
import type { FlowcontrolKind } from './types.ts';
import { MANDATORY_NAMES, SUGGESTED_NAMES } from './bootstrap.ts';
import { defaultFlowSchema, defaultPriorityLevelConfiguration } from './defaults.ts';
import { flowSchemaSpecsEqual, priorityLevelSpecsEqual } from './spec-equality.ts';

export type BootstrapUpdatePlan<T> = { action: 'none' } | { action: 'update'; object: T };

/**
 * Compare a stored object with its bootstrap counterpart. The revised object keeps the stored
 * metadata; its spec is the bootstrap spec as built (the server defaults it on update).
 */
export function planBootstrapUpdate<T extends PriorityLevelConfiguration | FlowSchema>(
  kind: FlowcontrolKind,
  current: T,
  bootstrap: T,
  options: { mandatory: boolean },
): BootstrapUpdatePlan<T> {
  const autoUpdateSpec = options.mandatory || ownedByServer(current.metadata);
  const currentFlag = parseGoBool(current.metadata?.annotations?.[AUTO_UPDATE_ANNOTATION_KEY]);
  const updateAnnotation = currentFlag !== autoUpdateSpec;
  const specChanged = autoUpdateSpec && !specEqualish(kind, bootstrap, current);
  if (!updateAnnotation && !specChanged) return { action: 'none' };

  const revised = structuredClone(current);
  if (specChanged && bootstrap.spec !== undefined) revised.spec = structuredClone(bootstrap.spec);
  if (updateAnnotation) {
    const metadata = (revised.metadata ??= {});
    metadata.annotations = { ...(metadata.annotations ?? {}), [AUTO_UPDATE_ANNOTATION_KEY]: String(autoUpdateSpec) };
  }
  return { action: 'update', object: revised };
}

/**
 * Whether `current` already has the spec `expected` (a bootstrap object) asks for, once v1
 * defaulting is applied to `expected`. The exempt level is equal whatever its spec.exempt values,
 * so operators may tune them, but not when spec.exempt is missing.
 */
export function specEqualish(
  kind: FlowcontrolKind,
  expected: PriorityLevelConfiguration | FlowSchema,
  actual: PriorityLevelConfiguration | FlowSchema,
): boolean {
  if (kind === FLOW_SCHEMA_KIND) {
    return flowSchemaSpecsEqual(defaultFlowSchema(expected as FlowSchema).spec, (actual as FlowSchema).spec);
  }
  const want = defaultPriorityLevelConfiguration(expected as PriorityLevelConfiguration).spec ?? {};
  const have = (actual as PriorityLevelConfiguration).spec;
  if (expected.metadata?.name === PRIORITY_LEVEL_NAME_EXEMPT) {
    const exempt = have?.exempt;
    if (exempt === undefined || exempt === null) return false;
    return priorityLevelSpecsEqual(
      {
        ...want,
        exempt: { ...want.exempt, nominalConcurrencyShares: exempt.nominalConcurrencyShares ?? null, lendablePercent: exempt.lendablePercent ?? null },
      },
      have,
    );
  }
  return priorityLevelSpecsEqual(want, have);
}

/**
 * RemoveUnwantedObjects: an object the server created (annotation parses to true) whose name is
 * no longer mandatory or suggested for its kind. The kind comes from the argument, else from the
 * object's `kind`, else from the shape of its spec.
 */
export function shouldRemoveUnwanted(obj: PriorityLevelConfiguration | FlowSchema, kind?: FlowcontrolKind): boolean {
  if (parseGoBool(obj.metadata?.annotations?.[AUTO_UPDATE_ANNOTATION_KEY]) !== true) return false;
  const resolved = kind ?? kindOf(obj);
  if (resolved === undefined) return false; // cannot tell which names are wanted: keep it
  const name = obj.metadata?.name ?? '';
  return !MANDATORY_NAMES[resolved].has(name) && !SUGGESTED_NAMES[resolved].has(name);
}

/** Go's strconv.ParseBool; undefined for anything it rejects (including a missing value). */
export function parseGoBool(value: unknown): boolean | undefined {
  switch (value) {
    case '1':
    case 't':
    case 'T':
    case 'TRUE':
    case 'true':
    case 'True':
      return true;
    case '0':
    case 'f':
    case 'F':
    case 'FALSE':
    case 'false':
    case 'False':
      return false;
    default:
      return undefined;
  }
}

function ownedByServer(metadata: ObjectMeta | undefined): boolean {
  const flag = parseGoBool(metadata?.annotations?.[AUTO_UPDATE_ANNOTATION_KEY]);
  if (flag !== undefined) return flag;
  // No readable annotation: the spec is still the server's if no one has changed it since creation.
  return metadata?.generation === 1;
}

function kindOf(obj: PriorityLevelConfiguration | FlowSchema): FlowcontrolKind | undefined {
  if (obj.kind === PRIORITY_LEVEL_KIND || obj.kind === FLOW_SCHEMA_KIND) return obj.kind;
  const spec = (obj.spec ?? {}) as Record<string, unknown>;
  if ('type' in spec || 'limited' in spec || 'exempt' in spec) return PRIORITY_LEVEL_KIND;
  if ('priorityLevelConfiguration' in spec || 'matchingPrecedence' in spec || 'rules' in spec) return FLOW_SCHEMA_KIND;
  return undefined;
}
