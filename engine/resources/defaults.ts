// v1 defaulting of the flowcontrol kinds (pkg/apis/flowcontrol/v1/defaults.go). kube-apiserver
// applies it to every object it decodes, before validation and before storing, so a stored
// object always carries these values. Both functions return a defaulted deep copy and leave the
// input alone. The defaults themselves are fields of the kinds' tables (schema/).
//
// Only nil means "use the default": an explicit limited.nominalConcurrencyShares of 0 stays 0 (a
// level that runs on borrowed seats only). Neither spec.type nor limitResponse.type is defaulted,
// and a type Exempt level without spec.exempt keeps it nil.

import type { FlowSchema, PriorityLevelConfiguration } from './types.ts';
import { isRecord } from '../own-property.ts';
import { applyTableDefaults } from './schema/defaulting.ts';
import type { StructTable } from './schema/field-table.ts';
import { FLOW_SCHEMA } from './schema/flow-schema.ts';
import { PRIORITY_LEVEL_CONFIGURATION } from './schema/priority-level-configuration.ts';

export function defaultFlowSchema(obj: FlowSchema): FlowSchema {
  return defaulted(FLOW_SCHEMA, obj);
}

export function defaultPriorityLevelConfiguration(obj: PriorityLevelConfiguration): PriorityLevelConfiguration {
  return defaulted(PRIORITY_LEVEL_CONFIGURATION, obj);
}

/** The defaults of `table` on a deep copy of any object (an untyped patched document included). */
export function defaulted<T>(table: StructTable, obj: T): T {
  const copy = structuredClone(obj);
  // Not an object at all (or a spec that is not one): validation reports it.
  if (isRecord(copy)) applyTableDefaults(table, copy);
  return copy;
}
