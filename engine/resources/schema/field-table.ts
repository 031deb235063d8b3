// The language the kinds are described in: one table of fields per Go struct, with what Kubernetes
// keeps in Go types, struct tags and `+` markers (k8s.io/api, k8s.io/apimachinery meta/v1 at
// v0.32). Everything that needs to know a kind's fields reads these tables: decoding and the
// canonical field order (`decoding-shape.ts`), defaulting (`defaulting.ts`), the server-side apply
// and strategic merge schema (engine/patch/schema.ts), the OpenAPI component schemas
// (api/schemas/schemas.ts), the protobuf codec's pointer fields (engine/protobuf/go-types.ts).
// Fields are listed in Go's declaration order, which is the order Go's JSON encoder writes them in.

/**
 * A leaf's Go type as JSON sees it. `time` is metav1.Time (an RFC 3339 string, to the second);
 * `fieldsV1` is metav1.FieldsV1 (raw JSON the field manager reads).
 */
export type ScalarType = 'string' | 'int32' | 'int64' | 'boolean' | 'time' | 'fieldsV1';

export interface ScalarField {
  readonly kind: 'scalar';
  readonly scalar: ScalarType;
  /** The values a Go string "enum" type declares (OpenAPI `enum`). */
  readonly enum?: readonly string[];
}

export interface StructField {
  readonly kind: 'struct';
  readonly struct: StructTable;
}

export interface ListField {
  readonly kind: 'list';
  readonly items: FieldType;
  /** `+listType`; absent where Go declares none (only a List kind's `items`). */
  readonly listType?: 'atomic' | 'set' | 'map';
  /** `+listMapKey`, for `listType=map`. */
  readonly mapKeys?: readonly string[];
  /** `+patchStrategy` / the `patchStrategy` struct tag: strategic merge patch merges such a list. */
  readonly patchStrategy?: 'merge';
  readonly patchMergeKey?: string;
}

/** A `map[string]X`. */
export interface MapField {
  readonly kind: 'map';
  readonly values: FieldType;
}

export type FieldType = ScalarField | StructField | ListField | MapField;

export interface FieldOptions {
  /** Go declares `*T`: nil and zero differ, and protobuf writes the field only when set. */
  readonly pointer?: boolean;
  /** The json tag has `omitempty` (Go leaves the zero value out); true unless said otherwise. */
  readonly omitempty?: boolean;
  /** Listed in the OpenAPI schema's `required`. */
  readonly required?: boolean;
  /** The v1 default: applied when a pointer is nil, or a plain field is zero. */
  readonly default?: number;
  /**
   * Fairway's decoder takes the value as free text although Go parses it (managedFields' time):
   * kept as the API has always decoded it, so no request that passes today fails after the table.
   */
  readonly decodeAsText?: boolean;
}

export interface Field<N extends string = string> {
  /** The JSON name. */
  readonly name: N;
  readonly type: FieldType;
  readonly description: string;
  readonly pointer: boolean;
  readonly omitempty: boolean;
  readonly required: boolean;
  readonly default?: number | undefined;
  readonly decodeAsText?: boolean | undefined;
}

/** `+union`: the discriminator field and, for each member field, the value naming it. */
export interface Union {
  readonly discriminator: string;
  readonly members: Readonly<Record<string, string>>;
}

export interface StructTable<F extends readonly Field[] = readonly Field[]> {
  /** The OpenAPI component name: the Go package path reversed, then the type (`io.k8s.api.flowcontrol.v1.Subject`). */
  readonly name: string;
  readonly description: string;
  readonly fields: F;
  readonly union?: Union;
  /** `+structType=atomic` (OpenAPI `x-kubernetes-map-type`). */
  readonly atomic?: boolean;
}

/** A served kind: its top-level struct and the names its API uses. */
export interface KindTable<S extends StructTable = StructTable> {
  readonly kind: string;
  readonly listKind: string;
  readonly listDescription: string;
  readonly struct: S;
}

// ---------------------------------------------------------------------------------------------
// Builders

export const string: ScalarField = { kind: 'scalar', scalar: 'string' };
export const int32: ScalarField = { kind: 'scalar', scalar: 'int32' };
export const int64: ScalarField = { kind: 'scalar', scalar: 'int64' };
export const boolean: ScalarField = { kind: 'scalar', scalar: 'boolean' };
export const time: ScalarField = { kind: 'scalar', scalar: 'time' };
export const fieldsV1: ScalarField = { kind: 'scalar', scalar: 'fieldsV1' };
export const enumOf = (...values: string[]): ScalarField => ({ kind: 'scalar', scalar: 'string', enum: values });
export const structOf = (struct: StructTable): StructField => ({ kind: 'struct', struct });
export const mapOf = (values: FieldType): MapField => ({ kind: 'map', values });
export const atomicList = (items: FieldType): ListField => ({ kind: 'list', items, listType: 'atomic' });
export const setList = (items: FieldType, patchStrategy?: 'merge'): ListField =>
  patchStrategy === undefined ? { kind: 'list', items, listType: 'set' } : { kind: 'list', items, listType: 'set', patchStrategy };
/** `listType=map` keyed by `key`, merged by the same key in a strategic merge patch. */
export const keyedList = (items: FieldType, key: string): ListField => ({
  kind: 'list',
  items,
  listType: 'map',
  mapKeys: [key],
  patchStrategy: 'merge',
  patchMergeKey: key,
});

export function field<const N extends string>(name: N, type: FieldType, description: string, options: FieldOptions = {}): Field<N> {
  return {
    name,
    type,
    description,
    pointer: options.pointer ?? false,
    omitempty: options.omitempty ?? true,
    required: options.required ?? false,
    default: options.default,
    decodeAsText: options.decodeAsText,
  };
}

export function struct<const F extends readonly Field[]>(
  name: string,
  description: string,
  fields: F,
  extra: { union?: Union; atomic?: boolean } = {},
): StructTable<F> {
  return { name, description, fields, ...extra };
}

// ---------------------------------------------------------------------------------------------
// Reading the tables

/** The field named `name` of `table`, if it declares one. */
export function fieldOf(table: StructTable, name: string): Field | undefined {
  return table.fields.find((f) => f.name === name);
}

/** The field at a dotted path below `table` (`spec.limited.nominalConcurrencyShares`); throws if the table has none. */
export function fieldAt(table: StructTable, path: string): Field {
  let current: StructTable | undefined = table;
  let found: Field | undefined;
  for (const name of path.split('.')) {
    found = current === undefined ? undefined : fieldOf(current, name);
    if (found === undefined) throw new Error(`no field ${path} in ${table.name}`);
    current = structBelow(found.type);
  }
  return found!;
}

/** The struct a field holds, directly or as the items or values of a list or map. */
export function structBelow(type: FieldType): StructTable | undefined {
  if (type.kind === 'struct') return type.struct;
  if (type.kind === 'list') return structBelow(type.items);
  if (type.kind === 'map') return structBelow(type.values);
  return undefined;
}

/** Every struct reachable from `roots` (the roots included), each once, in first-reached order. */
export function reachableStructs(roots: readonly StructTable[]): StructTable[] {
  const seen = new Map<string, StructTable>();
  const visit = (table: StructTable): void => {
    const known = seen.get(table.name);
    if (known !== undefined) {
      if (known !== table) throw new Error(`two structs named ${table.name}`);
      return;
    }
    seen.set(table.name, table);
    for (const f of table.fields) {
      const below = structBelow(f.type);
      if (below !== undefined) visit(below);
    }
  };
  roots.forEach(visit);
  return [...seen.values()];
}

/**
 * Whether Go's encoder writes the field even when it is zero: a non-pointer struct (omitempty never
 * drops a struct), or a plain scalar without `omitempty`. A nil slice or map is `null`, which reads
 * back as absent, so lists and maps never count.
 */
export function goAlwaysEncodes(f: Field): boolean {
  if (f.pointer) return false;
  if (f.type.kind === 'struct') return true;
  return f.type.kind === 'scalar' && f.type.scalar !== 'time' && !f.omitempty;
}

// ---------------------------------------------------------------------------------------------
// Checking TypeScript types against the tables (at type-check time)

/** The JSON names a struct table declares. */
export type FieldNames<S> = S extends StructTable<infer F> ? F[number]['name'] : never;

/** `true` only when A and B are the same type. */
export type Same<A, B> = (<T>() => T extends A ? 1 : 2) extends <T>() => T extends B ? 1 : 2 ? true : false;
