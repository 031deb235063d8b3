// The shape of the two flowcontrol kinds as the patch and field-ownership code needs it: which
// fields exist (so unknown ones can be reported), which lists are atomic, sets, or maps keyed by
// a field (server-side apply's `listType`/`listMapKey`), which lists a strategic merge patch
// merges and by which key (`patchStrategy`/`patchMergeKey`), and which fields Go always encodes
// even when zero (a non-pointer struct, or a field without `omitempty`). The last matters because
// kube-apiserver compares objects after a round trip through Go structs: a `spec` that exists on
// both sides is not "added", so an Update entry never owns `f:spec` itself.
//
// Derived from the kinds' tables (engine/resources/schema/), where each field says all of this.
import { ownValue } from '../own-property.ts';
import { flowcontrolKind } from '../resources/kinds.ts';
import type { FieldType, ScalarType as TableScalar, StructTable } from '../resources/schema/field-table.ts';
import { goAlwaysEncodes } from '../resources/schema/field-table.ts';
import type { FlowcontrolKind } from '../resources/types.ts';

export type ScalarType = 'string' | 'integer' | 'boolean' | 'any';

export interface ScalarNode {
  readonly kind: 'scalar';
  readonly scalar: ScalarType;
}

export interface FieldSchema {
  readonly type: SchemaNode;
  /** Go encodes the field even when it is zero (non-pointer struct, or no `omitempty`). */
  readonly goAlways?: boolean;
}

export interface StructNode {
  readonly kind: 'struct';
  readonly fields: Readonly<Record<string, FieldSchema>>;
}

/** A `map[string]X`: every key is its own field (`f:<key>`). */
export interface MapNode {
  readonly kind: 'map';
  readonly values: SchemaNode;
}

export interface ListNode {
  readonly kind: 'list';
  /** Server-side apply: `atomic` lists are one leaf, `set` items are `v:`, `map` items are `k:`. */
  readonly listType: 'atomic' | 'set' | 'map';
  readonly keys?: readonly string[] | undefined;
  readonly items: SchemaNode;
  /** Strategic merge patch: `merge` lists are merged (by `patchMergeKey` for lists of objects); others are replaced. */
  readonly patchStrategy?: 'merge' | undefined;
  readonly patchMergeKey?: string | undefined;
}

export type SchemaNode = ScalarNode | StructNode | MapNode | ListNode;

const SCALARS: Record<TableScalar, ScalarNode> = {
  string: { kind: 'scalar', scalar: 'string' },
  time: { kind: 'scalar', scalar: 'string' },
  int32: { kind: 'scalar', scalar: 'integer' },
  int64: { kind: 'scalar', scalar: 'integer' },
  boolean: { kind: 'scalar', scalar: 'boolean' },
  fieldsV1: { kind: 'scalar', scalar: 'any' },
};

const structs = new WeakMap<StructTable, StructNode>();

function structNode(table: StructTable): StructNode {
  let node = structs.get(table);
  if (node === undefined) {
    const fields = table.fields.map((f): [string, FieldSchema] => [
      f.name,
      goAlwaysEncodes(f) ? { type: typeNode(f.type), goAlways: true } : { type: typeNode(f.type) },
    ]);
    node = { kind: 'struct', fields: Object.fromEntries(fields) };
    structs.set(table, node);
  }
  return node;
}

function typeNode(type: FieldType): SchemaNode {
  switch (type.kind) {
    case 'scalar':
      return SCALARS[type.scalar];
    case 'struct':
      return structNode(type.struct);
    case 'map':
      return { kind: 'map', values: typeNode(type.values) };
    case 'list': {
      const { listType = 'atomic', mapKeys, patchStrategy, patchMergeKey } = type;
      return {
        kind: 'list',
        listType,
        items: typeNode(type.items),
        keys: mapKeys,
        patchStrategy,
        patchMergeKey,
      };
    }
  }
}

export function schemaFor(kind: FlowcontrolKind): StructNode {
  return structNode(flowcontrolKind(kind)!.table.struct);
}

/** The schema below one path element, or undefined where the schema declares nothing. */
export function childSchema(node: SchemaNode | undefined, element: string): SchemaNode | undefined {
  if (node === undefined) return undefined;
  if (element.startsWith('f:')) {
    if (node.kind === 'struct') return ownValue(node.fields, element.slice(2))?.type;
    if (node.kind === 'map') return node.values;
    return undefined;
  }
  return node.kind === 'list' ? node.items : undefined;
}

/** The schema of a named field of a struct or map node. */
export function fieldSchema(node: SchemaNode | undefined, name: string): SchemaNode | undefined {
  return childSchema(node, `f:${name}`);
}
