// The shape of the two flowcontrol kinds as the patch and field-ownership code needs it: which
// fields exist (so unknown ones can be reported), which lists are atomic, sets, or maps keyed by
// a field (server-side apply's `listType`/`listMapKey`), which lists a strategic merge patch
// merges and by which key (`patchStrategy`/`patchMergeKey`), and which fields Go always encodes
// even when zero (a non-pointer struct, or a field without `omitempty`). The last matters because
// kube-apiserver compares objects after a round trip through Go structs: a `spec` that exists on
// both sides is not "added", so an Update entry never owns `f:spec` itself.
//
// Source of truth: k8s.io/api flowcontrol/v1 and meta/v1 types.go (tags and markers) at v0.32.

import { ownValue } from '../../engine/own-property.ts';

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
  readonly keys?: readonly string[];
  readonly items: SchemaNode;
  /** Strategic merge patch: `merge` lists are merged (by `patchMergeKey` for lists of objects); others are replaced. */
  readonly patchStrategy?: 'merge';
  readonly patchMergeKey?: string;
}

export type SchemaNode = ScalarNode | StructNode | MapNode | ListNode;

export type FlowcontrolKind = 'PriorityLevelConfiguration' | 'FlowSchema';

const string: ScalarNode = { kind: 'scalar', scalar: 'string' };
const integer: ScalarNode = { kind: 'scalar', scalar: 'integer' };
const boolean: ScalarNode = { kind: 'scalar', scalar: 'boolean' };
const untyped: ScalarNode = { kind: 'scalar', scalar: 'any' };

const struct = (fields: Record<string, SchemaNode | FieldSchema>): StructNode => ({
  kind: 'struct',
  fields: Object.fromEntries(Object.entries(fields).map(([name, f]) => [name, 'kind' in f ? { type: f } : f])),
});
const always = (type: SchemaNode): FieldSchema => ({ type, goAlways: true });
const atomicList = (items: SchemaNode): ListNode => ({ kind: 'list', listType: 'atomic', items });
const setList = (items: SchemaNode): ListNode => ({ kind: 'list', listType: 'set', items });

const ownerReference = struct({
  apiVersion: always(string),
  kind: always(string),
  name: always(string),
  uid: always(string),
  controller: boolean,
  blockOwnerDeletion: boolean,
});

const managedFieldsEntry = struct({
  manager: string,
  operation: string,
  apiVersion: string,
  time: string,
  fieldsType: string,
  fieldsV1: untyped,
  subresource: string,
});

const objectMeta = struct({
  name: string,
  generateName: string,
  namespace: string,
  selfLink: string,
  uid: string,
  resourceVersion: string,
  generation: integer,
  creationTimestamp: string,
  deletionTimestamp: string,
  deletionGracePeriodSeconds: integer,
  labels: { kind: 'map', values: string },
  annotations: { kind: 'map', values: string },
  ownerReferences: { kind: 'list', listType: 'map', keys: ['uid'], items: ownerReference, patchStrategy: 'merge', patchMergeKey: 'uid' },
  finalizers: { kind: 'list', listType: 'set', items: string, patchStrategy: 'merge' },
  managedFields: atomicList(managedFieldsEntry),
});

const condition = struct({
  type: string,
  status: string,
  lastTransitionTime: string,
  reason: string,
  message: string,
});

const status = struct({
  conditions: { kind: 'list', listType: 'map', keys: ['type'], items: condition, patchStrategy: 'merge', patchMergeKey: 'type' },
});

const typeMeta = { apiVersion: string, kind: string };

const queuing = struct({ queues: always(integer), handSize: always(integer), queueLengthLimit: always(integer) });

const priorityLevelSpec = struct({
  type: always(string),
  limited: struct({
    nominalConcurrencyShares: integer,
    limitResponse: always(struct({ type: always(string), queuing })),
    lendablePercent: integer,
    borrowingLimitPercent: integer,
  }),
  exempt: struct({ nominalConcurrencyShares: integer, lendablePercent: integer }),
});

const subject = struct({
  kind: always(string),
  user: struct({ name: always(string) }),
  group: struct({ name: always(string) }),
  serviceAccount: struct({ namespace: always(string), name: always(string) }),
});

const flowSchemaSpec = struct({
  priorityLevelConfiguration: always(struct({ name: always(string) })),
  matchingPrecedence: integer,
  distinguisherMethod: struct({ type: always(string) }),
  rules: atomicList(
    struct({
      subjects: atomicList(subject),
      resourceRules: atomicList(
        struct({
          verbs: setList(string),
          apiGroups: setList(string),
          resources: setList(string),
          clusterScope: boolean,
          namespaces: setList(string),
        }),
      ),
      nonResourceRules: atomicList(struct({ verbs: setList(string), nonResourceURLs: setList(string) })),
    }),
  ),
});

const SCHEMAS: Record<FlowcontrolKind, StructNode> = {
  PriorityLevelConfiguration: struct({
    ...typeMeta,
    metadata: always(objectMeta),
    spec: always(priorityLevelSpec),
    status: always(status),
  }),
  FlowSchema: struct({
    ...typeMeta,
    metadata: always(objectMeta),
    spec: always(flowSchemaSpec),
    status: always(status),
  }),
};

export function schemaFor(kind: FlowcontrolKind): StructNode {
  return SCHEMAS[kind];
}

export function isFlowcontrolKind(kind: unknown): kind is FlowcontrolKind {
  return kind === 'PriorityLevelConfiguration' || kind === 'FlowSchema';
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
