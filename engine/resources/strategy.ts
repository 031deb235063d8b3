// The registry strategy of both flowcontrol kinds (Kubernetes' prioritylevelconfiguration and
// flowschema strategy.go): what the server sets or keeps on create, update and status update,
// independent of HTTP. Pure: the uid and the time are passed in.

import { formatRfc3339 } from '../clock.ts';
import type { KindInfo } from './kinds.ts';
import type { ObjectMeta } from './types.ts';

/** Any API object: both flowcontrol kinds fit, whatever their spec and status. */
type ApiObject = { metadata?: ObjectMeta; status?: unknown };

export interface CreateContext {
  uid: string;
  nowMs: number;
}

const clone = <T>(value: T): T => structuredClone(value);

/** Create: a fresh uid and creation time, generation 1, status cleared, no namespace (cluster-scoped). */
export function prepareForCreate<T extends ApiObject>(object: T, context: CreateContext): T {
  const next = clone(object);
  const metadata: ObjectMeta = { ...(next.metadata ?? {}) };
  delete metadata.resourceVersion;
  delete metadata.namespace;
  delete metadata.deletionTimestamp;
  delete metadata.deletionGracePeriodSeconds;
  metadata.uid = context.uid;
  metadata.creationTimestamp = formatRfc3339(context.nowMs);
  metadata.generation = 1;
  next.metadata = metadata;
  next.status = {};
  return next;
}

/**
 * Update of the main resource: identity fields come from the stored object, the status is kept,
 * and the generation moves only when the spec changed.
 */
export function prepareForUpdate<T extends ApiObject>(kind: KindInfo<T>, object: T, old: T): T {
  const next = clone(object);
  const metadata: ObjectMeta = { ...(next.metadata ?? {}) };
  const oldMeta = old.metadata ?? {};
  keepStored(metadata, oldMeta, 'uid');
  keepStored(metadata, oldMeta, 'creationTimestamp');
  delete metadata.namespace;
  keepStored(metadata, oldMeta, 'deletionTimestamp');
  const oldGeneration = oldMeta.generation ?? 0;
  metadata.generation = kind.specsEqual(object, old) ? oldGeneration : oldGeneration + 1;
  next.metadata = metadata;
  next.status = clone(old.status ?? {});
  return next;
}

/** The stored object's value of an identity field, or no such field (never a key holding undefined: objects are stored as msgpack). */
function keepStored(metadata: ObjectMeta, old: ObjectMeta, key: 'uid' | 'creationTimestamp' | 'deletionTimestamp'): void {
  const value = old[key];
  if (value !== undefined) metadata[key] = value;
  else delete metadata[key];
}

/** Update of `/status`: only the status (and managedFields) change; spec and metadata are kept. */
export function prepareForStatusUpdate<T extends ApiObject>(object: T, old: T): T {
  const next = clone(old);
  const metadata: ObjectMeta = { ...(next.metadata ?? {}) };
  const managedFields = object.metadata?.managedFields;
  if (managedFields !== undefined) metadata.managedFields = clone(managedFields);
  // The caller's resourceVersion is the optimistic-concurrency token of this write.
  if (object.metadata?.resourceVersion !== undefined) metadata.resourceVersion = object.metadata.resourceVersion;
  next.metadata = metadata;
  next.status = clone(object.status ?? {});
  return next;
}
