// The two flowcontrol kinds described once: names, fields (the kind's table in schema/), the
// store's view of them, and the functions every writer applies in the same order (default →
// validate). The API server's handlers, the bootstrap ensurer, the config stream and `fairway config
// check` all read this table, so a rule cannot differ between them; decoding, the canonical field
// order, the patch schema and the OpenAPI schemas are derived from `table`.

import { apiGroupsFor, flowcontrolApiVersion } from './api-domain.ts';
import { defaultFlowSchema, defaultPriorityLevelConfiguration } from './defaults.ts';
import type { FieldError } from './field-errors.ts';
import { validateFlowSchema, validateFlowSchemaStatusUpdate, validateFlowSchemaUpdate } from './flow-schema-validation.ts';
import {
  validatePriorityLevelConfiguration,
  validatePriorityLevelConfigurationStatusUpdate,
  validatePriorityLevelConfigurationUpdate,
} from './priority-level-validation.ts';
import { flowSchemaSpecsEqual, priorityLevelSpecsEqual } from './spec-equality.ts';
import type { KindTable } from './schema/field-table.ts';
import { FLOW_SCHEMA_TABLE } from './schema/flow-schema.ts';
import { PRIORITY_LEVEL_TABLE } from './schema/priority-level-configuration.ts';
import {
  FLOW_SCHEMA_KIND,
  FLOW_SCHEMA_RESOURCE,
  PRIORITY_LEVEL_KIND,
  PRIORITY_LEVEL_RESOURCE,
  type FlowSchema,
  type KubeObject,
  type PriorityLevelConfiguration,
} from './types.ts';
import type { FlowcontrolKind } from './types.ts';
import { isRecord } from '../own-property.ts';

export interface KindInfo<T> {
  readonly kind: FlowcontrolKind;
  readonly listKind: string;
  /** Every field of the kind, nested structs included. */
  readonly table: KindTable;
  /** Plural resource name (URL segment, storage key segment). */
  readonly resource: string;
  readonly singular: string;
  applyDefaults(object: T): T;
  validateCreate(object: T): FieldError[];
  validateUpdate(object: T, old: T): FieldError[];
  validateStatusUpdate(object: T, old: T): FieldError[];
  specsEqual(a: T, b: T): boolean;
  /** True when `object` says it is of this kind: the one place an untyped object becomes a `T`. */
  isKind(object: unknown): object is T;
  /** The object as the store and the API handle every kind (a shallow copy). */
  untyped(object: T): KubeObject;
}

/** The guard of `KindInfo.isKind`: objects of a kind carry its name in `kind`. */
function kindGuard<T>(kind: FlowcontrolKind): (object: unknown) => object is T {
  return (object: unknown): object is T => isRecord(object) && object.kind === kind;
}

export const PRIORITY_LEVEL: KindInfo<PriorityLevelConfiguration> = {
  kind: PRIORITY_LEVEL_KIND,
  listKind: PRIORITY_LEVEL_TABLE.listKind,
  table: PRIORITY_LEVEL_TABLE,
  resource: PRIORITY_LEVEL_RESOURCE,
  singular: 'prioritylevelconfiguration',
  applyDefaults: defaultPriorityLevelConfiguration,
  validateCreate: validatePriorityLevelConfiguration,
  validateUpdate: validatePriorityLevelConfigurationUpdate,
  validateStatusUpdate: validatePriorityLevelConfigurationStatusUpdate,
  specsEqual: (a, b) => priorityLevelSpecsEqual(a.spec, b.spec),
  isKind: kindGuard<PriorityLevelConfiguration>(PRIORITY_LEVEL_KIND),
  untyped: (object) => ({ ...object }),
};

export const FLOW_SCHEMA: KindInfo<FlowSchema> = {
  kind: FLOW_SCHEMA_KIND,
  listKind: FLOW_SCHEMA_TABLE.listKind,
  table: FLOW_SCHEMA_TABLE,
  resource: FLOW_SCHEMA_RESOURCE,
  singular: 'flowschema',
  applyDefaults: defaultFlowSchema,
  validateCreate: validateFlowSchema,
  validateUpdate: validateFlowSchemaUpdate,
  validateStatusUpdate: validateFlowSchemaStatusUpdate,
  specsEqual: (a, b) => flowSchemaSpecsEqual(a.spec, b.spec),
  isKind: kindGuard<FlowSchema>(FLOW_SCHEMA_KIND),
  untyped: (object) => ({ ...object }),
};

export const FLOWCONTROL_KINDS = [PRIORITY_LEVEL, FLOW_SCHEMA] as const;

/**
 * An object read from this kind's keys (or sent to its path) as the kind's type: where it is says
 * what it is, so its `kind` is set to this kind's name whatever it said (or if it said nothing).
 */
export function asKind<T>(kind: KindInfo<T>, object: KubeObject): T {
  const named = { ...object, kind: kind.kind };
  if (!kind.isKind(named)) throw new Error(`not a ${kind.kind}`);
  return named;
}

/** The kind named `kind`, if it is one of these. */
export function flowcontrolKind(kind: unknown): (typeof FLOWCONTROL_KINDS)[number] | undefined {
  return FLOWCONTROL_KINDS.find((k) => k.kind === kind);
}

/** How the store names a kind: group, resource, kind, and the apiVersion of its bookmarks. */
export function storeResourceInfo(kind: KindInfo<unknown>, apiDomain?: string) {
  return {
    group: apiGroupsFor(apiDomain).flowcontrol,
    resource: kind.resource,
    kind: kind.kind,
    apiVersion: flowcontrolApiVersion(apiDomain),
    bookmarkFields: { spec: {}, status: {} },
  } as const;
}
