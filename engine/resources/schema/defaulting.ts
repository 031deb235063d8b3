// v1 defaulting read from the tables (the `default` of a field): kube-apiserver applies it to every
// object it decodes, before validation and before storing. Only Go's "unset" takes the default: a
// nil pointer, or a plain field at its zero value; an explicit 0 in a pointer field stays 0.
// Defaults are applied inside structs that exist; a non-pointer struct that is absent is created
// only when a plain field below it (not behind a pointer) has a default, as Go's zero struct would
// then carry it (FlowSchema's spec.matchingPrecedence; PriorityLevelConfiguration's spec has none).
import { isRecord, ownValue, setOwn } from '../../own-property.ts';
import type { StructTable } from './field-table.ts';

/** Sets the defaults of `table` in `object` (mutated), recursively. */
export function applyTableDefaults(table: StructTable, object: Record<string, unknown>): void {
  for (const f of table.fields) {
    const value = ownValue(object, f.name);
    if (f.default !== undefined) {
      if (f.pointer ? isNil(value) : isZero(value)) setOwn(object, f.name, f.default);
      continue;
    }
    if (f.type.kind !== 'struct') continue;
    if (isRecord(value)) applyTableDefaults(f.type.struct, value);
    else if (isNil(value) && !f.pointer && hasPlainDefault(f.type.struct)) {
      const created: Record<string, unknown> = {};
      applyTableDefaults(f.type.struct, created);
      setOwn(object, f.name, created);
    }
  }
}

/** Whether a zero `table` would carry a default: one reached without passing a pointer. */
function hasPlainDefault(table: StructTable): boolean {
  return table.fields.some((f) => !f.pointer && (f.default !== undefined || (f.type.kind === 'struct' && hasPlainDefault(f.type.struct))));
}

const isNil = (value: unknown): value is null | undefined => value === undefined || value === null;
/** A plain int32 field that Go would see as 0 (missing and null decode to 0). */
const isZero = (value: unknown): boolean => isNil(value) || value === 0;
