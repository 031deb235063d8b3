// A kind's table as the decoder reads it (engine/resources/schema-decoder.ts): Go's types for type
// errors, the declared fields for unknown-field errors, and the declared order, which is also the
// canonical key order objects are stored and served in.
import type { Shape } from '../schema-decoder.ts';
import { anything, arrayOf, boolean, int32, int64, mapOf, string, struct, time } from '../schema-decoder.ts';
import type { Field, FieldType, StructTable } from './field-table.ts';

const SCALARS = { string, int32, int64, boolean, time, fieldsV1: anything } as const;

const shapes = new WeakMap<StructTable, Shape>();

/** The closed struct shape of `table` (unknown fields are errors), built once per table. */
export function decodingShape(table: StructTable): Shape {
  let shape = shapes.get(table);
  if (shape === undefined) {
    shape = struct(Object.fromEntries(table.fields.map((f) => [f.name, fieldShape(f)])));
    shapes.set(table, shape);
  }
  return shape;
}

function fieldShape(f: Field): Shape {
  return f.decodeAsText === true ? string : typeShape(f.type);
}

function typeShape(type: FieldType): Shape {
  switch (type.kind) {
    case 'scalar':
      return SCALARS[type.scalar];
    case 'struct':
      return decodingShape(type.struct);
    case 'list':
      return arrayOf(typeShape(type.items));
    case 'map':
      return mapOf(typeShape(type.values));
  }
}
