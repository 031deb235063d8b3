// meta/v1's structs that every kind carries (k8s.io/apimachinery/pkg/apis/meta/v1 types.go), and
// the pieces every kind's top level is made of. The descriptions are Fairway's own wording.
import type { Field, KindTable, StructTable } from './field-table.ts';
import { atomicList, boolean, field, fieldsV1, int64, keyedList, mapOf, setList, string, struct, structOf, time } from './field-table.ts';

export const META_PREFIX = 'io.k8s.apimachinery.pkg.apis.meta.v1.';

/** metav1.Time and metav1.FieldsV1: structs in Go, one JSON value each, described once here. */
export const SCALAR_STRUCTS = {
  time: { name: `${META_PREFIX}Time`, description: 'A timestamp in RFC 3339 form, to the second.' },
  fieldsV1: { name: `${META_PREFIX}FieldsV1`, description: 'A set of fields in the managed-fields trie format.' },
} as const;

export const OWNER_REFERENCE = struct(
  `${META_PREFIX}OwnerReference`,
  'Identifies an owning object.',
  [
    field('apiVersion', string, "The owner's API version.", { omitempty: false, required: true }),
    field('kind', string, "The owner's kind.", { omitempty: false, required: true }),
    field('name', string, "The owner's name.", { omitempty: false, required: true }),
    field('uid', string, "The owner's UID.", { omitempty: false, required: true }),
    field('controller', boolean, 'Whether the owner is the managing controller.', { pointer: true }),
    field('blockOwnerDeletion', boolean, 'Whether the owner waits for this dependent when deleted in the foreground.', { pointer: true }),
  ],
  { atomic: true },
);

export const MANAGED_FIELDS_ENTRY = struct(`${META_PREFIX}ManagedFieldsEntry`, 'The fields one manager owns, and how it last wrote them.', [
  field('manager', string, "The manager's name."),
  field('operation', string, '`Apply` or `Update`.'),
  field('apiVersion', string, 'The version of the resource the fields were written in.'),
  field('time', time, 'When the manager last changed these fields.', { pointer: true, decodeAsText: true }),
  field('fieldsType', string, 'The format of fieldsV1; only `FieldsV1`.'),
  field('fieldsV1', fieldsV1, 'The owned fields.', { pointer: true }),
  field('subresource', string, 'The subresource the fields were written through, if any.'),
]);

// Go's ObjectMeta, in its field order: a field it does not declare is an unknown field like any
// other (kept nowhere, reported by fieldValidation).
export const OBJECT_META = struct(`${META_PREFIX}ObjectMeta`, 'Metadata every stored object carries.', [
  field(
    'name',
    string,
    'A name unique among objects of this kind (within a namespace, for namespaced kinds). Required on create unless generateName is used; cannot be updated.',
  ),
  field('generateName', string, 'A prefix from which the server makes a unique name when name is empty.'),
  field('namespace', string, 'The namespace; empty for cluster-scoped objects.'),
  field('selfLink', string, 'Deprecated; not set.'),
  field('uid', string, 'A unique identifier of this object over time; set by the server on create.'),
  field('resourceVersion', string, 'An opaque version of this object, for optimistic concurrency and watches. Set by the server.'),
  field('generation', int64, 'A sequence number for changes to the desired state (spec); set by the server.'),
  field(
    'creationTimestamp',
    time,
    'When the server created this object, in UTC, RFC 3339. Set by the system; clients cannot set it. Empty for objects not yet stored.',
  ),
  field('deletionTimestamp', time, 'When the object will be deleted; set by the server when deletion is requested; read-only.', { pointer: true }),
  field('deletionGracePeriodSeconds', int64, 'Seconds the object is allowed to terminate gracefully before it is removed; read-only.', { pointer: true }),
  field('labels', mapOf(string), 'Key/value pairs for selecting and organising objects.'),
  field('annotations', mapOf(string), 'Unstructured key/value data for tools; not queryable.'),
  field('ownerReferences', keyedList(structOf(OWNER_REFERENCE), 'uid'), 'Objects this one depends on.'),
  field('finalizers', setList(string, 'merge'), 'Must be empty before the object is removed from storage.'),
  field('managedFields', atomicList(structOf(MANAGED_FIELDS_ENTRY)), 'Which manager owns which fields; maintained by the server.'),
]);

export const LIST_META = struct(`${META_PREFIX}ListMeta`, 'Metadata of a list.', [
  field('selfLink', string, 'Deprecated; not set.'),
  field('resourceVersion', string, 'The version of the list, for watching changes after it. Opaque to clients.'),
  field('continue', string, 'Present when more results are available: pass it as `continue` to fetch the next chunk from the same snapshot.'),
  field('remainingItemCount', int64, 'An estimate of how many items are left after this chunk; only for unfiltered chunked lists.', { pointer: true }),
]);

/** TypeMeta's two fields, inlined at the top of every kind and list. */
export const TYPE_META = [
  field(
    'apiVersion',
    string,
    'The versioned schema of this representation of an object. The server converts recognized schemas to the latest internal value and may reject ' +
      'unrecognized values.',
  ),
  field(
    'kind',
    string,
    'The REST resource this object represents, in CamelCase. The server infers it from the endpoint the client posts to; it cannot be updated.',
  ),
] as const;

/** A kind's top-level struct: TypeMeta, ObjectMeta, then its spec and status (non-pointer structs, as in Go). */
export function topLevelStruct<const S extends StructTable, const T extends StructTable>(
  name: string,
  description: string,
  spec: { struct: S; description: string },
  status: { struct: T; description: string },
) {
  return struct(name, description, [
    ...TYPE_META,
    field('metadata', structOf(OBJECT_META), 'Standard object metadata: name, labels, annotations, resourceVersion and the like.'),
    field('spec', structOf(spec.struct), spec.description),
    field('status', structOf(status.struct), status.description),
  ] as const);
}

/** The List kind of `kind`: TypeMeta, ListMeta and the items, as every Kubernetes list is. */
export function listStruct(kind: KindTable, namePrefix: string): StructTable {
  const items: Field = field('items', { kind: 'list', items: structOf(kind.struct) }, `The ${kind.kind} objects.`, { omitempty: false, required: true });
  return struct(`${namePrefix}${kind.listKind}`, kind.listDescription, [
    ...TYPE_META,
    field('metadata', structOf(LIST_META), 'Standard list metadata.'),
    items,
  ]);
}
