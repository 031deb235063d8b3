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
import { FLOW_SCHEMA_RESOURCE, PRIORITY_LEVEL_RESOURCE, type FlowSchema, type PriorityLevelConfiguration } from './types.ts';

export interface KindInfo<T> {
  readonly kind: string;
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
}

export const PRIORITY_LEVEL: KindInfo<PriorityLevelConfiguration> = {
  kind: PRIORITY_LEVEL_TABLE.kind,
  listKind: PRIORITY_LEVEL_TABLE.listKind,
  table: PRIORITY_LEVEL_TABLE,
  resource: PRIORITY_LEVEL_RESOURCE,
  singular: 'prioritylevelconfiguration',
  applyDefaults: defaultPriorityLevelConfiguration,
  validateCreate: validatePriorityLevelConfiguration,
  validateUpdate: validatePriorityLevelConfigurationUpdate,
  validateStatusUpdate: validatePriorityLevelConfigurationStatusUpdate,
  specsEqual: (a, b) => priorityLevelSpecsEqual(a.spec, b.spec),
};

export const FLOW_SCHEMA: KindInfo<FlowSchema> = {
  kind: FLOW_SCHEMA_TABLE.kind,
  listKind: FLOW_SCHEMA_TABLE.listKind,
  table: FLOW_SCHEMA_TABLE,
  resource: FLOW_SCHEMA_RESOURCE,
  singular: 'flowschema',
  applyDefaults: defaultFlowSchema,
  validateCreate: validateFlowSchema,
  validateUpdate: validateFlowSchemaUpdate,
  validateStatusUpdate: validateFlowSchemaStatusUpdate,
  specsEqual: (a, b) => flowSchemaSpecsEqual(a.spec, b.spec),
};

export const FLOWCONTROL_KINDS = [PRIORITY_LEVEL, FLOW_SCHEMA] as const;

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
