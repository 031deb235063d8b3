// OpenAPI v3 component schemas for flowcontrol v1 and the meta/v1 types around every kind. `kubectl explain`
// prints these descriptions, kubectl's client-side apply reads the list and patch markers
// (`x-kubernetes-list-type`, `x-kubernetes-patch-merge-key`...), and the Table printer reuses the
// same field descriptions for its columns, as Kubernetes' printers do. Schema names are the Go
// package paths Kubernetes uses, so tools that key on them (explain, SSA) find what they expect.
// The descriptions are Fairway's own wording. Long because it is one table of data.
import { apiGroupsFor, FLOWCONTROL_VERSION } from '../engine/resources/api-domain.ts';

export type Schema = Record<string, unknown>;

export const FLOWCONTROL_PREFIX = 'io.k8s.api.flowcontrol.v1.';
export const META_PREFIX = 'io.k8s.apimachinery.pkg.apis.meta.v1.';
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
const stringSet = (description: string): Schema => ({ type: 'array', items: { type: 'string', default: '' }, description, 'x-kubernetes-list-type': 'set' });
const atomic = { 'x-kubernetes-list-type': 'atomic' };
const conditionsList = (name: string, description: string): Schema =>
  listOf(name, description, {
    'x-kubernetes-list-map-keys': ['type'],
    'x-kubernetes-list-type': 'map',
    'x-kubernetes-patch-merge-key': 'type',
    'x-kubernetes-patch-strategy': 'merge',
  });
const object = (description: string, properties: Record<string, Schema>, extra: Schema = {}): Schema => ({ type: 'object', description, properties, ...extra });

const API_VERSION_DOC = 'The versioned schema of this representation of an object. The server converts recognized schemas to the latest internal value and may reject unrecognized values.';
const KIND_DOC = 'The REST resource this object represents, in CamelCase. The server infers it from the endpoint the client posts to; it cannot be updated.';
const typeMeta = () => ({ apiVersion: str(API_VERSION_DOC), kind: str(KIND_DOC) });

// --- descriptions the Table printer shares ----------------------------------------------------

const DOC = {
  name: 'A name unique among objects of this kind (within a namespace, for namespaced kinds). Required on create unless generateName is used; cannot be updated.',
  creationTimestamp: 'When the server created this object, in UTC, RFC 3339. Set by the system; clients cannot set it. Empty for objects not yet stored.',
  plReferenceName: 'The name of the priority level configuration being referenced. Required.',
  matchingPrecedence:
    'Orders FlowSchemas: among the schemas that match a request, the one with the numerically lowest matchingPrecedence is chosen. Must be in [1,10000]; defaults to 1000 when unset.',
  distinguisherMethod: 'How to compute the flow distinguisher for requests that match this schema. Nil means the distinguisher is always the empty string.',
  plType: 'Whether requests at this level are subject to concurrency limits: `Exempt` (never limited, never queued) or `Limited` (limited and possibly queued). Required.',
  nominalConcurrencyShares:
    'This level\'s share (NCS) of the server\'s concurrency limit. NominalCL = ceil(ServerCL * NCS / sum of all NCS). Bigger values give this level more seats at the others\' expense. Defaults to 30 when unset; 0 is allowed.',
  queues: 'The number of queues at this priority level; each API server has its own. Must be positive; 1 turns off shuffle sharding. Defaults to 64.',
  handSize:
    'How many queues a request\'s flow is dealt: the flow identifier is hashed to deal this many queues and the request joins the shortest. Must not exceed queues. Defaults to 8.',
  queueLengthLimit: 'The most requests that may wait in one queue of this level; further requests are rejected. Must be positive. Defaults to 50.',
} as const;

const CONDITION_DOCS = {
  type: 'The kind of condition. Required.',
  status: 'Whether the condition holds: `True`, `False` or `Unknown`. Required.',
  lastTransitionTime: 'The last time the condition changed from one status to another.',
  reason: 'A single CamelCase word giving the reason for the last transition.',
  message: 'Human-readable details of the last transition.',
};

function condition(description: string): Schema {
  return object(
    description,
    {
      lastTransitionTime: ref(`${META_PREFIX}Time`, CONDITION_DOCS.lastTransitionTime),
      message: str(CONDITION_DOCS.message),
      reason: str(CONDITION_DOCS.reason),
      status: str(CONDITION_DOCS.status, { enum: ['False', 'True', 'Unknown'] }),
      type: str(CONDITION_DOCS.type),
    },
    { required: ['type', 'status'] },
  );
}

// --- the schemas ------------------------------------------------------------------------------

/** The component schemas of flowcontrol v1's kinds and the types they nest; GVK extensions follow `apiDomain`. */
export function flowcontrolSchemas(apiDomain?: string): Record<string, Schema> {
  const group = apiGroupsFor(apiDomain).flowcontrol;
  const gvk = (kind: string) => ({ group, version: FLOWCONTROL_VERSION, kind });
  const fc = (name: string) => `${FLOWCONTROL_PREFIX}${name}`;
  const meta = (name: string) => `${META_PREFIX}${name}`;
  const topLevel = (kind: string, description: string, specDoc: string, statusDoc: string): Schema =>
    object(
      description,
      {
        ...typeMeta(),
        metadata: ref(meta('ObjectMeta'), "Standard object metadata: name, labels, annotations, resourceVersion and the like.", true),
        spec: ref(fc(`${kind}Spec`), specDoc, true),
        status: ref(fc(`${kind}Status`), statusDoc, true),
      },
      { 'x-kubernetes-group-version-kind': [gvk(kind)] },
    );
  const list = (kind: string, description: string): Schema =>
    object(
      description,
      { ...typeMeta(), items: listOf(fc(kind), `The ${kind} objects.`), metadata: ref(meta('ListMeta'), 'Standard list metadata.', true) },
      { required: ['items'], 'x-kubernetes-group-version-kind': [gvk(`${kind}List`)] },
    );

  return {
    [fc('ExemptPriorityLevelConfiguration')]: object('Settings of an `Exempt` priority level. Exempt requests are never limited, but these values shape how other levels borrow.', {
      lendablePercent: int32('The share, 0 to 100, of this level\'s NominalCL that other levels may borrow. LendableCL = round(NominalCL * lendablePercent / 100). Defaults to 0.'),
      nominalConcurrencyShares: int32('Seats nominally reserved for this level (NCS). They do not limit exempt requests; they only change the NominalCL of the other levels. Defaults to 0.'),
    }),
    [fc('FlowDistinguisherMethod')]: object('How requests are split into flows.', { type: str('`ByUser` (one flow per user) or `ByNamespace` (one flow per namespace). Required.', { enum: ['ByNamespace', 'ByUser'] }) }, { required: ['type'] }),
    [fc('FlowSchema')]: topLevel(
      'FlowSchema',
      'Defines a set of requests (by who sends them and what they ask for) and the priority level they are handled at, and how they split into flows.',
      'Which requests the schema matches, their priority level and flow distinguisher.',
      'The current state of the FlowSchema, written by the server.',
    ),
    [fc('FlowSchemaCondition')]: condition('One condition of a FlowSchema, such as `Dangling` when its priority level does not exist.'),
    [fc('FlowSchemaList')]: list('FlowSchema', 'A list of FlowSchema objects.'),
    [fc('FlowSchemaSpec')]: object(
      'What a FlowSchema matches and where matched requests go.',
      {
        distinguisherMethod: ref(fc('FlowDistinguisherMethod'), DOC.distinguisherMethod),
        matchingPrecedence: int32(DOC.matchingPrecedence),
        priorityLevelConfiguration: ref(fc('PriorityLevelConfigurationReference'), 'The priority level that matched requests are handled at. A schema naming a missing level is marked Dangling and matches nothing. Required.', true),
        rules: listOf(fc('PolicyRulesWithSubjects'), 'The rules; a request matches the schema when at least one rule matches it. An empty list matches nothing.', atomic),
      },
      { required: ['priorityLevelConfiguration'] },
    ),
    [fc('FlowSchemaStatus')]: object('The observed state of a FlowSchema.', { conditions: conditionsList(fc('FlowSchemaCondition'), 'The current conditions of the FlowSchema, one per type.') }),
    [fc('GroupSubject')]: object('A user group as a subject.', { name: str('The group name, e.g. `system:authenticated`; `*` matches every group. Required.') }, { required: ['name'] }),
    [fc('LimitResponse')]: object(
      'What to do with a request that cannot run as soon as it arrives.',
      {
        queuing: ref(fc('QueuingConfiguration'), 'Queue parameters; may be set only when type is `Queue`.'),
        type: str('`Queue` (wait in a queue, up to the limits) or `Reject` (fail at once). Required.', { enum: ['Queue', 'Reject'] }),
      },
      { required: ['type'], 'x-kubernetes-unions': [{ discriminator: 'type', 'fields-to-discriminateBy': { queuing: 'Queuing' } }] },
    ),
    [fc('LimitedPriorityLevelConfiguration')]: object('Settings of a `Limited` priority level: its share of the concurrency limit, lending and borrowing, and what happens to requests that cannot run at once.', {
      borrowingLimitPercent: int32('If set, the most seats this level may borrow from others, as a percentage of its NominalCL: BorrowingCL = round(NominalCL * borrowingLimitPercent / 100). May exceed 100. Unset means no limit.'),
      lendablePercent: int32('The share, 0 to 100, of this level\'s NominalCL that other levels may borrow. Defaults to 0.'),
      limitResponse: ref(fc('LimitResponse'), 'How requests that cannot run immediately are handled.', true),
      nominalConcurrencyShares: int32(DOC.nominalConcurrencyShares),
    }),
    [fc('NonResourcePolicyRule')]: object(
      'Matches a request for a non-resource URL (such as `/healthz`) when both the verb and the URL match.',
      {
        nonResourceURLs: stringSet('URL paths to match, e.g. `/healthz`; a trailing `/*` matches a prefix, `*` matches all. Required, non-empty.'),
        verbs: stringSet('Lower-case HTTP verbs to match; `*` matches all. Required, non-empty.'),
      },
      { required: ['verbs', 'nonResourceURLs'] },
    ),
    [fc('PolicyRulesWithSubjects')]: object(
      'A test on a request: it matches when a subject matches the requester and at least one resource or non-resource rule matches the request.',
      {
        nonResourceRules: listOf(fc('NonResourcePolicyRule'), 'Rules for non-resource URLs.', atomic),
        resourceRules: listOf(fc('ResourcePolicyRule'), 'Rules for resource requests. At least one of resourceRules and nonResourceRules must be non-empty.', atomic),
        subjects: listOf(fc('Subject'), 'Who the rule applies to. Required, non-empty.', atomic),
      },
      { required: ['subjects'] },
    ),
    [fc('PriorityLevelConfiguration')]: topLevel(
      'PriorityLevelConfiguration',
      'Configures one priority level: whether its requests are exempt from concurrency limits, and if not, their share of the server\'s capacity and how waiting requests are queued.',
      'The desired behaviour of the priority level.',
      'The current state of the priority level, written by the server.',
    ),
    [fc('PriorityLevelConfigurationCondition')]: condition('One condition of a priority level.'),
    [fc('PriorityLevelConfigurationList')]: list('PriorityLevelConfiguration', 'A list of PriorityLevelConfiguration objects.'),
    [fc('PriorityLevelConfigurationReference')]: object('Names a priority level.', { name: str(DOC.plReferenceName) }, { required: ['name'] }),
    [fc('PriorityLevelConfigurationSpec')]: object(
      'The behaviour of a priority level. Exactly one of `exempt` and `limited` applies, chosen by `type`.',
      {
        exempt: ref(fc('ExemptPriorityLevelConfiguration'), 'Settings for an `Exempt` level; must be unset when type is `Limited`. Defaults apply when unset.'),
        limited: ref(fc('LimitedPriorityLevelConfiguration'), 'Settings for a `Limited` level; must be set exactly when type is `Limited`.'),
        type: str(DOC.plType, { enum: ['Exempt', 'Limited'] }),
      },
      { required: ['type'], 'x-kubernetes-unions': [{ discriminator: 'type', 'fields-to-discriminateBy': { exempt: 'Exempt', limited: 'Limited' } }] },
    ),
    [fc('PriorityLevelConfigurationStatus')]: object('The observed state of a priority level.', {
      conditions: conditionsList(fc('PriorityLevelConfigurationCondition'), 'The current conditions of the priority level, one per type.'),
    }),
    [fc('QueuingConfiguration')]: object('Queue parameters of a priority level.', {
      handSize: int32(DOC.handSize),
      queueLengthLimit: int32(DOC.queueLengthLimit),
      queues: int32(DOC.queues),
    }),
    [fc('ResourcePolicyRule')]: object(
      'Matches a resource request when the verb, API group and resource all match, and the namespace rule is met.',
      {
        apiGroups: stringSet('API groups to match; `""` is the core group, `*` matches all. Required, non-empty.'),
        clusterScope: bool('Whether requests for cluster-scoped objects (no namespace) match.'),
        namespaces: stringSet('Namespaces to match; `*` matches any namespace but not cluster-scoped requests. May be empty only when clusterScope is true.'),
        resources: stringSet('Resources to match, as `res` or `res/subres`; `*` matches all. Required, non-empty.'),
        verbs: stringSet('Verbs to match (`get`, `list`, `create`...); `*` matches all. Required, non-empty.'),
      },
      { required: ['verbs', 'apiGroups', 'resources'] },
    ),
    [fc('ServiceAccountSubject')]: object(
      'A service account as a subject.',
      { name: str('The service account name; `*` matches every service account in the namespace. Required.'), namespace: str('The service account\'s namespace. Required.') },
      { required: ['namespace', 'name'] },
    ),
    [fc('Subject')]: object(
      'Who sent a request: a user, a group or a service account.',
      {
        group: ref(fc('GroupSubject'), 'Set when kind is `Group`.'),
        kind: str('`User`, `Group` or `ServiceAccount`; says which member field is set. Required.', { enum: ['Group', 'ServiceAccount', 'User'] }),
        serviceAccount: ref(fc('ServiceAccountSubject'), 'Set when kind is `ServiceAccount`.'),
        user: ref(fc('UserSubject'), 'Set when kind is `User`.'),
      },
      { required: ['kind'], 'x-kubernetes-unions': [{ discriminator: 'kind', 'fields-to-discriminateBy': { group: 'Group', serviceAccount: 'ServiceAccount', user: 'User' } }] },
    ),
    [fc('UserSubject')]: object('A user as a subject.', { name: str('The user name; `*` matches every user. Required.') }, { required: ['name'] }),
  };
}

function selectorRequirement(description: string, operatorDoc: string): Schema {
  return object(
    description,
    {
      key: str('The field path or label key the requirement applies to.', { default: '' }),
      operator: str(operatorDoc, { default: '' }),
      values: { type: 'array', items: { type: 'string', default: '' }, description: 'The values; non-empty for In and NotIn, empty for Exists and DoesNotExist.', ...atomic },
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
    [meta('APIResource')]: object(
      'One resource served in a group-version.',
      {
        categories: { type: 'array', items: { type: 'string', default: '' }, description: 'Groupings this resource belongs to, such as `all`.', ...atomic },
        group: str('The group of the resource, when it differs from the list\'s.'),
        kind: str('The kind of the resource.'),
        name: str('The plural resource name.'),
        namespaced: bool('Whether the resource is namespaced.'),
        shortNames: { type: 'array', items: { type: 'string', default: '' }, description: 'Suggested short names.', ...atomic },
        singularName: str('The singular resource name.'),
        storageVersionHash: str('A hash of the version the resource is stored as.'),
        verbs: { type: 'array', items: { type: 'string', default: '' }, description: 'The verbs the resource supports.' },
        version: str('The version of the resource, when it differs from the list\'s.'),
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
        ignoreStoreReadErrorWithClusterBreakingPotential: bool('Delete an object that cannot be read from storage (for example because it cannot be decrypted). May break the cluster; use with care.'),
        orphanDependents: bool('Deprecated: use propagationPolicy. Whether dependents are orphaned.'),
        preconditions: ref(meta('Preconditions'), 'Must hold for the deletion to proceed.'),
        propagationPolicy: str('How garbage collection treats dependents: `Orphan`, `Background` or `Foreground`.'),
      },
      {
        'x-kubernetes-group-version-kind': everywhere('DeleteOptions'),
      },
    ),
    [meta('FieldSelectorRequirement')]: selectorRequirement('A field selector requirement: a field, an operator, and the values it is compared with.', '`In`, `NotIn`, `Exists` or `DoesNotExist`.'),
    [meta('LabelSelectorRequirement')]: selectorRequirement('A label selector requirement: a label key, an operator, and the values it is compared with.', '`In`, `NotIn`, `Exists` or `DoesNotExist`.'),
    [meta('FieldsV1')]: { type: 'object', description: 'A set of fields in the managed-fields trie format.' },
    [meta('ListMeta')]: object('Metadata of a list.', {
      continue: str('Present when more results are available: pass it as `continue` to fetch the next chunk from the same snapshot.'),
      remainingItemCount: int64('An estimate of how many items are left after this chunk; only for unfiltered chunked lists.'),
      resourceVersion: str('The version of the list, for watching changes after it. Opaque to clients.'),
      selfLink: str('Deprecated; not set.'),
    }),
    [meta('ManagedFieldsEntry')]: object('The fields one manager owns, and how it last wrote them.', {
      apiVersion: str('The version of the resource the fields were written in.'),
      fieldsType: str('The format of fieldsV1; only `FieldsV1`.'),
      fieldsV1: ref(meta('FieldsV1'), 'The owned fields.'),
      manager: str('The manager\'s name.'),
      operation: str('`Apply` or `Update`.'),
      subresource: str('The subresource the fields were written through, if any.'),
      time: ref(meta('Time'), 'When the manager last changed these fields.'),
    }),
    [meta('ObjectMeta')]: object('Metadata every stored object carries.', {
      annotations: { type: 'object', additionalProperties: { type: 'string', default: '' }, description: 'Unstructured key/value data for tools; not queryable.' },
      creationTimestamp: ref(meta('Time'), DOC.creationTimestamp),
      deletionGracePeriodSeconds: int64('Seconds the object is allowed to terminate gracefully before it is removed; read-only.'),
      deletionTimestamp: ref(meta('Time'), 'When the object will be deleted; set by the server when deletion is requested; read-only.'),
      finalizers: { type: 'array', items: { type: 'string', default: '' }, description: 'Must be empty before the object is removed from storage.', 'x-kubernetes-list-type': 'set', 'x-kubernetes-patch-strategy': 'merge' },
      generateName: str('A prefix from which the server makes a unique name when name is empty.'),
      generation: int64('A sequence number for changes to the desired state (spec); set by the server.'),
      labels: { type: 'object', additionalProperties: { type: 'string', default: '' }, description: 'Key/value pairs for selecting and organising objects.' },
      managedFields: listOf(meta('ManagedFieldsEntry'), 'Which manager owns which fields; maintained by the server.', atomic),
      name: str(DOC.name),
      namespace: str('The namespace; empty for cluster-scoped objects.'),
      ownerReferences: listOf(meta('OwnerReference'), 'Objects this one depends on.', {
        'x-kubernetes-list-map-keys': ['uid'],
        'x-kubernetes-list-type': 'map',
        'x-kubernetes-patch-merge-key': 'uid',
        'x-kubernetes-patch-strategy': 'merge',
      }),
      resourceVersion: str('An opaque version of this object, for optimistic concurrency and watches. Set by the server.'),
      selfLink: str('Deprecated; not set.'),
      uid: str('A unique identifier of this object over time; set by the server on create.'),
    }),
    [meta('OwnerReference')]: object(
      'Identifies an owning object.',
      {
        apiVersion: str('The owner\'s API version.'),
        blockOwnerDeletion: bool('Whether the owner waits for this dependent when deleted in the foreground.'),
        controller: bool('Whether the owner is the managing controller.'),
        kind: str('The owner\'s kind.'),
        name: str('The owner\'s name.'),
        uid: str('The owner\'s UID.'),
      },
      { required: ['apiVersion', 'kind', 'name', 'uid'], 'x-kubernetes-map-type': 'atomic' },
    ),
    [meta('Patch')]: { type: 'object', description: 'The body of a PATCH request: a JSON patch, merge patch, strategic merge patch or apply configuration.' },
    [meta('Preconditions')]: object('Conditions that must hold before an operation.', { resourceVersion: str('The expected resourceVersion.'), uid: str('The expected UID.') }),
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
    [meta('Time')]: { type: 'string', format: 'date-time', description: 'A timestamp in RFC 3339 form, to the second.' },
    [meta('WatchEvent')]: object(
      'One event of a watch stream.',
      { object: ref(RAW_EXTENSION, 'The object: the new state for ADDED/MODIFIED, the last state for DELETED, a Status for ERROR, a resourceVersion carrier for BOOKMARK.', true), type: str('`ADDED`, `MODIFIED`, `DELETED`, `BOOKMARK` or `ERROR`.', { default: '' }) },
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

/** A field's description, shared with the Table column definitions. */
export const FIELD_DOCS = DOC;
