// OpenAPI v3 component schemas for flowcontrol v1 and the meta/v1 types around every kind. `kubectl explain`
// prints these descriptions, kubectl's client-side apply reads the list and patch markers
// (`x-kubernetes-list-type`, `x-kubernetes-patch-merge-key`...), and the Table printer reuses the
// same field descriptions for its columns, as Kubernetes' printers do. Schema names are the Go
// package paths Kubernetes uses, so tools that key on them (explain, SSA) find what they expect.
// The kinds' schemas and the meta/v1 structs they carry are derived from the kinds' tables
// (engine/resources/schema/); the rest of meta/v1 (Status, DeleteOptions, WatchEvent...) is written
// out below. The descriptions are Fairway's own wording.
import { apiGroupsFor, FLOWCONTROL_VERSION } from '../../engine/resources/api-domain.ts';
import { FLOWCONTROL_KINDS } from '../../engine/resources/kinds.ts';
import type { Field, FieldType, KindTable, StructTable } from '../../engine/resources/schema/field-table.ts';
import { reachableStructs } from '../../engine/resources/schema/field-table.ts';
import { FLOWCONTROL_PREFIX } from '../../engine/resources/schema/flowcontrol-v1.ts';
import { LIST_META, listStruct, META_PREFIX, OBJECT_META, SCALAR_STRUCTS, TYPE_META } from '../../engine/resources/schema/meta-v1.ts';

export type Schema = Record<string, unknown>;

export { FLOWCONTROL_PREFIX, META_PREFIX };
export const RAW_EXTENSION = 'io.k8s.apimachinery.pkg.runtime.RawExtension';

export const schemaRef = (name: string) => `#/components/schemas/${name}`;

// --- small builders ---------------------------------------------------------------------------

const str = (description: string, extra: Schema = {}): Schema => ({ type: 'string', description, ...extra });
const bool = (description: string): Schema => ({ type: 'boolean', description });
const int32 = (description: string): Schema => ({ type: 'integer', format: 'int32', description });
const int64 = (description: string): Schema => ({ type: 'integer', format: 'int64', description });
/** A reference to another schema; `defaulted` marks Go's non-pointer structs, as Kubernetes does. */
const ref = (name: string, description: string, defaulted = false): Schema =>
  defaulted ? { allOf: [{ $ref: schemaRef(name) }], default: {}, description } : { allOf: [{ $ref: schemaRef(name) }], description };
const listOf = (name: string, description: string, extra: Schema = {}): Schema => ({
  type: 'array',
  items: { allOf: [{ $ref: schemaRef(name) }], default: {} },
  description,
  ...extra,
});
const atomic = { 'x-kubernetes-list-type': 'atomic' };
const object = (description: string, properties: Record<string, Schema>, extra: Schema = {}): Schema => ({ type: 'object', description, properties, ...extra });

const typeMeta = () => Object.fromEntries(TYPE_META.map((f) => [f.name, fieldSchema(f)]));

// --- derived from the tables ------------------------------------------------------------------

const SCALARS = {
  string: { type: 'string' },
  int32: { type: 'integer', format: 'int32' },
  int64: { type: 'integer', format: 'int64' },
  boolean: { type: 'boolean' },
} as const;

/** A field's property schema: its type, description and Kubernetes' list and patch markers. */
function fieldSchema(f: Field): Schema {
  const { type, description } = f;
  switch (type.kind) {
    case 'scalar':
      if (type.scalar === 'time' || type.scalar === 'fieldsV1') return ref(SCALAR_STRUCTS[type.scalar].name, description);
      return type.enum === undefined ? { ...SCALARS[type.scalar], description } : { ...SCALARS[type.scalar], description, enum: [...type.enum].sort() };
    case 'struct':
      return ref(type.struct.name, description, !f.pointer);
    case 'map':
      return { type: 'object', additionalProperties: itemSchema(type.values), description };
    case 'list':
      return {
        type: 'array',
        items: itemSchema(type.items),
        description,
        ...(type.mapKeys !== undefined ? { 'x-kubernetes-list-map-keys': type.mapKeys } : {}),
        ...(type.listType !== undefined ? { 'x-kubernetes-list-type': type.listType } : {}),
        ...(type.patchMergeKey !== undefined ? { 'x-kubernetes-patch-merge-key': type.patchMergeKey } : {}),
        ...(type.patchStrategy !== undefined ? { 'x-kubernetes-patch-strategy': type.patchStrategy } : {}),
      };
  }
}

/** A list item or map value: Go's zero value as its default, as Kubernetes' schemas give it. */
function itemSchema(type: FieldType): Schema {
  if (type.kind === 'struct') return { allOf: [{ $ref: schemaRef(type.struct.name) }], default: {} };
  if (type.kind === 'scalar' && type.scalar === 'string') return { type: 'string', default: '' };
  throw new Error(`no item schema for ${type.kind}`);
}

function structSchema(table: StructTable, extra: Schema = {}): Schema {
  const required = table.fields.filter((f) => f.required).map((f) => f.name);
  return object(table.description, Object.fromEntries(table.fields.map((f) => [f.name, fieldSchema(f)])), {
    ...(required.length > 0 ? { required } : {}),
    ...(table.union !== undefined
      ? { 'x-kubernetes-unions': [{ discriminator: table.union.discriminator, 'fields-to-discriminateBy': table.union.members }] }
      : {}),
    ...(table.atomic === true ? { 'x-kubernetes-map-type': 'atomic' } : {}),
    ...extra,
  });
}

/** The component schemas of `kinds` and every struct they nest in `prefix` (other packages' structs are theirs to list). */
function kindSchemas(kinds: readonly KindTable[], prefix: string, group: string, version: string): Record<string, Schema> {
  const gvk = (kind: string) => ({ 'x-kubernetes-group-version-kind': [{ group, version, kind }] });
  const out: Record<string, Schema> = {};
  for (const table of reachableStructs(kinds.map((k) => k.struct))) if (table.name.startsWith(prefix)) out[table.name] = structSchema(table);
  for (const kind of kinds) {
    out[kind.struct.name] = structSchema(kind.struct, gvk(kind.kind));
    const list = listStruct(kind, prefix);
    out[list.name] = structSchema(list, gvk(kind.listKind));
  }
  return out;
}

/** The meta/v1 structs the kinds carry (ObjectMeta and what it nests, ListMeta, Time, FieldsV1). */
function tableMetaSchemas(): Record<string, Schema> {
  const out: Record<string, Schema> = {};
  for (const table of reachableStructs([OBJECT_META, LIST_META])) out[table.name] = structSchema(table);
  out[SCALAR_STRUCTS.time.name] = { type: 'string', format: 'date-time', description: SCALAR_STRUCTS.time.description };
  out[SCALAR_STRUCTS.fieldsV1.name] = { type: 'object', description: SCALAR_STRUCTS.fieldsV1.description };
  return out;
}

/** The component schemas of flowcontrol v1's kinds and the types they nest; GVK extensions follow `apiDomain`. */
export function flowcontrolSchemas(apiDomain?: string): Record<string, Schema> {
  return kindSchemas(
    FLOWCONTROL_KINDS.map((k) => k.table),
    FLOWCONTROL_PREFIX,
    apiGroupsFor(apiDomain).flowcontrol,
    FLOWCONTROL_VERSION,
  );
}

function selectorRequirement(description: string, operatorDoc: string): Schema {
  return object(
    description,
    {
      key: str('The field path or label key the requirement applies to.', { default: '' }),
      operator: str(operatorDoc, { default: '' }),
      values: {
        type: 'array',
        items: { type: 'string', default: '' },
        description: 'The values; non-empty for In and NotIn, empty for Exists and DoesNotExist.',
        ...atomic,
      },
    },
    { required: ['key', 'operator'] },
  );
}

export interface GroupVersion {
  group: string;
  version: string;
}

/**
 * meta/v1's schemas, which every group-version's document carries. DeleteOptions and WatchEvent are
 * registered in every served group-version (`served`), and say so in their GVK lists.
 */
export function metaSchemas(served: readonly GroupVersion[]): Record<string, Schema> {
  const everywhere = (kind: string) => [{ group: '', version: 'v1', kind }, ...served.map((gv) => ({ group: gv.group, version: gv.version, kind }))];
  const meta = (name: string) => `${META_PREFIX}${name}`;
  return {
    ...tableMetaSchemas(),
    [meta('APIResource')]: object(
      'One resource served in a group-version.',
      {
        categories: { type: 'array', items: { type: 'string', default: '' }, description: 'Groupings this resource belongs to, such as `all`.', ...atomic },
        group: str("The group of the resource, when it differs from the list's."),
        kind: str('The kind of the resource.'),
        name: str('The plural resource name.'),
        namespaced: bool('Whether the resource is namespaced.'),
        shortNames: { type: 'array', items: { type: 'string', default: '' }, description: 'Suggested short names.', ...atomic },
        singularName: str('The singular resource name.'),
        storageVersionHash: str('A hash of the version the resource is stored as.'),
        verbs: { type: 'array', items: { type: 'string', default: '' }, description: 'The verbs the resource supports.' },
        version: str("The version of the resource, when it differs from the list's."),
      },
      { required: ['name', 'singularName', 'namespaced', 'kind', 'verbs'] },
    ),
    [meta('APIResourceList')]: object(
      'The resources served in one group-version.',
      { ...typeMeta(), groupVersion: str('The group and version of the listed resources.'), resources: listOf(meta('APIResource'), 'The resources.', atomic) },
      { required: ['groupVersion', 'resources'], 'x-kubernetes-group-version-kind': [{ group: '', version: 'v1', kind: 'APIResourceList' }] },
    ),
    [meta('DeleteOptions')]: object(
      'Options of a delete request.',
      {
        ...typeMeta(),
        dryRun: { type: 'array', items: { type: 'string', default: '' }, description: 'When `All`, the deletion is checked but not persisted.', ...atomic },
        gracePeriodSeconds: int64('Seconds to wait before deletion; zero means at once.'),
        ignoreStoreReadErrorWithClusterBreakingPotential: bool(
          'Delete an object that cannot be read from storage (for example because it cannot be decrypted). May break the cluster; use with care.',
        ),
        orphanDependents: bool('Deprecated: use propagationPolicy. Whether dependents are orphaned.'),
        preconditions: ref(meta('Preconditions'), 'Must hold for the deletion to proceed.'),
        propagationPolicy: str('How garbage collection treats dependents: `Orphan`, `Background` or `Foreground`.'),
      },
      {
        'x-kubernetes-group-version-kind': everywhere('DeleteOptions'),
      },
    ),
    [meta('FieldSelectorRequirement')]: selectorRequirement(
      'A field selector requirement: a field, an operator, and the values it is compared with.',
      '`In`, `NotIn`, `Exists` or `DoesNotExist`.',
    ),
    [meta('LabelSelectorRequirement')]: selectorRequirement(
      'A label selector requirement: a label key, an operator, and the values it is compared with.',
      '`In`, `NotIn`, `Exists` or `DoesNotExist`.',
    ),
    [meta('Patch')]: { type: 'object', description: 'The body of a PATCH request: a JSON patch, merge patch, strategic merge patch or apply configuration.' },
    [meta('Preconditions')]: object('Conditions that must hold before an operation.', {
      resourceVersion: str('The expected resourceVersion.'),
      uid: str('The expected UID.'),
    }),
    [meta('Status')]: object(
      'The result of an operation that returns no object, and the body of every error.',
      {
        ...typeMeta(),
        code: int32('The HTTP status code.'),
        details: ref(meta('StatusDetails'), 'More data about the reason, depending on it.'),
        message: str('A human-readable description of the result.'),
        metadata: ref(meta('ListMeta'), 'Standard list metadata.', true),
        reason: str('A machine-readable reason, such as `NotFound` or `Invalid`.'),
        status: str('`Success` or `Failure`.'),
      },
      { 'x-kubernetes-group-version-kind': [{ group: '', version: 'v1', kind: 'Status' }] },
    ),
    [meta('StatusCause')]: object('One cause of an error.', {
      field: str('The field at fault, as a path such as `spec.rules[0].subjects`.'),
      message: str('A human-readable description of the cause.'),
      reason: str('A machine-readable cause type, such as `FieldValueRequired`.'),
    }),
    [meta('StatusDetails')]: object('Details of an error.', {
      causes: listOf(meta('StatusCause'), 'The individual causes.', atomic),
      group: str('The group of the resource concerned.'),
      kind: str('The kind, or resource, concerned.'),
      name: str('The name of the object concerned.'),
      retryAfterSeconds: int32('Seconds to wait before retrying.'),
      uid: str('The UID of the object concerned.'),
    }),
    [meta('WatchEvent')]: object(
      'One event of a watch stream.',
      {
        object: ref(
          RAW_EXTENSION,
          'The object: the new state for ADDED/MODIFIED, the last state for DELETED, a Status for ERROR, a resourceVersion carrier for BOOKMARK.',
          true,
        ),
        type: str('`ADDED`, `MODIFIED`, `DELETED`, `BOOKMARK` or `ERROR`.', { default: '' }),
      },
      {
        required: ['type', 'object'],
        'x-kubernetes-group-version-kind': everywhere('WatchEvent'),
      },
    ),
    [RAW_EXTENSION]: { type: 'object', description: 'An embedded object in its JSON form.' },
  };
}

/** The builders, for the schema tables of other groups. */
export const schemaBuilders = { str, bool, ref, listOf, object, atomic, typeMeta };
