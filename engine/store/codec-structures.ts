// The fixed msgpackr record structures of codec format 1. An object whose keys are exactly one of
// these lists, in this order, is written as a one-byte reference instead of its key names; any other
// object is written with its structure inline in the value, so nothing depends on state outside the
// value itself. The list is APPEND-ONLY: a structure's position is part of the stored bytes, so
// reordering, editing or removing an entry would misread every value already on disk. Key orders
// follow Go's JSON field order (what kube-apiserver and Fairway's own builders emit) and kubectl's
// `apiVersion, kind, metadata, spec` order. metadata.resourceVersion is never stored (the revision
// is), so no structure contains it. docs/storage.md lists the set with its indices.
// The set stops at 32: msgpackr 2.1.3 encodes one-byte references for the first 32 shared
// structures, and its two-byte references beyond that did not round-trip when tried.

export const CODEC_STRUCTURES_V1: readonly (readonly string[])[] = [
  // 0-3: top level
  ['kind', 'apiVersion', 'metadata', 'spec', 'status'],
  ['apiVersion', 'kind', 'metadata', 'spec', 'status'],
  ['apiVersion', 'kind', 'metadata', 'spec'],
  ['kind', 'apiVersion', 'metadata', 'spec'],
  // 4-9: metadata as the API layer stores it
  ['name', 'uid', 'generation', 'creationTimestamp'],
  ['name', 'uid', 'generation', 'creationTimestamp', 'annotations'],
  ['name', 'uid', 'generation', 'creationTimestamp', 'labels'],
  ['name', 'uid', 'generation', 'creationTimestamp', 'labels', 'annotations'],
  ['name', 'uid', 'generation', 'creationTimestamp', 'annotations', 'managedFields'],
  ['name', 'uid', 'generation', 'creationTimestamp', 'managedFields'],
  // 10-12: managedFields entries and conditions
  ['manager', 'operation', 'apiVersion', 'time', 'fieldsType', 'fieldsV1'],
  ['manager', 'operation', 'apiVersion', 'time', 'fieldsType', 'fieldsV1', 'subresource'],
  ['type', 'status', 'lastTransitionTime', 'reason', 'message'],
  // 13-20: PriorityLevelConfiguration
  ['type', 'limited'],
  ['type', 'exempt'],
  ['nominalConcurrencyShares', 'limitResponse', 'lendablePercent'],
  ['nominalConcurrencyShares', 'limitResponse', 'lendablePercent', 'borrowingLimitPercent'],
  ['type', 'queuing'],
  ['queues', 'handSize', 'queueLengthLimit'],
  ['nominalConcurrencyShares', 'lendablePercent'],
  ['conditions'],
  // 21-31: FlowSchema
  ['priorityLevelConfiguration', 'matchingPrecedence', 'distinguisherMethod', 'rules'],
  ['priorityLevelConfiguration', 'matchingPrecedence', 'rules'],
  ['name'],
  ['type'],
  ['subjects', 'resourceRules'],
  ['subjects', 'nonResourceRules'],
  ['subjects', 'resourceRules', 'nonResourceRules'],
  ['kind', 'group'],
  ['kind', 'user'],
  ['kind', 'serviceAccount'],
  ['verbs', 'apiGroups', 'resources', 'clusterScope', 'namespaces'],
];
