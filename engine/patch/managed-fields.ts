// managedFields bookkeeping, as kube-apiserver's field manager keeps it (k8s.io/apimachinery
// pkg/util/managedfields/internal): move ownership when a write changes fields, merge entries of
// one manager, cap the number of Update entries. The wire form is in managed-fields-codec.ts.
//
// An Update owns exactly the fields it changed (added or modified), and takes them
// from every other manager; a field that disappears is dropped from every manager. Fields the
// subresource does not own (status on the main resource; metadata and spec on /status) are
// neither recorded nor taken, and identity fields (name, uid, resourceVersion...) never are.

import type { KubeObject, ManagedFieldsEntry } from '../resources/types.ts';
import { FieldSet, fieldElement, type FieldPath } from './field-set.ts';
import { decodeManagedFields, encodeManagedFields, managerIdentifier, type Managed, type ManagedEntry, type ManagerInfo } from './managed-fields-codec.ts';
import type { FlowcontrolKind } from '../resources/types.ts';
import { schemaFor, type SchemaNode } from './schema.ts';
import { compareTyped, withGoZeroValues, type Comparison } from './typed-value.ts';
import { isRecord } from '../own-property.ts';

export * from './managed-fields-codec.ts';

/** kube-apiserver keeps at most this many Update entries; older ones fold into `ancient-changes`. */
export const MAX_UPDATE_MANAGERS = 10;
export const ANCIENT_CHANGES_MANAGER = 'ancient-changes';
/** A fieldManager (or a User-Agent prefix used as one) is cut to this many bytes. */
export const FIELD_MANAGER_MAX_LENGTH = 128;

// ---------------------------------------------------------------------------------------------
// Public entry for POST and PUT

export interface UpdateManagedFieldsOptions {
  /** The `fieldManager` query parameter; when empty, the User-Agent prefix stands in. */
  manager?: string;
  userAgent?: string;
  operation?: 'Update';
  /** `status` for writes through /status. */
  subresource?: string | undefined;
  /** RFC 3339 time stamped on the entry if this write changed anything. */
  time: string;
  /** The apiVersion the request used, e.g. `flowcontrol.apiserver.k8s.io/v1`. */
  apiVersion: string;
  /** Defaults to the object's own `kind`. */
  kind?: FlowcontrolKind;
}

/**
 * The managedFields to store with `next` after a create (`old` undefined) or update. `next` is the
 * decoded, defaulted object of the request; if it carries managedFields of its own (and this is
 * not a subresource write) they replace the stored ones, `[{}]` wipes them.
 */
export function updateManagedFields(old: KubeObject | undefined, next: KubeObject, options: UpdateManagedFieldsOptions): ManagedFieldsEntry[] {
  const kind = options.kind ?? (next.kind as FlowcontrolKind);
  const info: ManagerInfo = {
    manager: options.manager || prefixFromUserAgent(options.userAgent ?? ''),
    operation: 'Update',
    apiVersion: options.apiVersion,
    subresource: options.subresource ?? '',
  };
  return managedFieldsAfterUpdate(schemaFor(kind), old, next, info, options.time);
}

/** The Update bookkeeping for any non-apply write (POST, PUT, and the three patch types). */
export function managedFieldsAfterUpdate(
  node: SchemaNode,
  old: KubeObject | undefined,
  next: KubeObject,
  info: ManagerInfo,
  time: string,
): ManagedFieldsEntry[] {
  let managed: Managed;
  try {
    managed = baseManaged(old, next, info.subresource);
  } catch {
    return []; // kube-apiserver drops undecodable managedFields rather than keep garbage
  }
  const live = goView(node, old ?? {});
  return encodeManagedFields(recordUpdate(managed, node, live, goView(node, next), info, time));
}

/** The managedFields to start from: the request's own, unless absent, undecodable or a subresource write. */
function baseManaged(old: KubeObject | undefined, next: KubeObject, subresource: string): Managed {
  const stored = (): Managed => decodeManagedFields(old?.metadata?.managedFields);
  if (subresource !== '') return stored();
  const sent = next.metadata?.managedFields;
  if (isResetManagedFields(sent)) return new Map();
  try {
    const decoded = decodeManagedFields(sent);
    if (decoded.size > 0) return decoded;
  } catch {
    // fall back to the stored entries, so a client that garbles them cannot erase them
  }
  return stored();
}

/** `[{}]`: the one documented way for a client to wipe managedFields. */
function isResetManagedFields(entries: unknown): boolean {
  if (!Array.isArray(entries) || entries.length !== 1) return false;
  const entry: unknown = entries[0];
  return isRecord(entry) && Object.values(entry).every((value) => value === undefined || value === null || value === '');
}

/** The object as the field manager compares it: as Go would encode it, without managedFields. */
export function goView(node: SchemaNode, object: unknown): unknown {
  const view = withGoZeroValues(node, object);
  if (isRecord(view) && isRecord(view['metadata'])) {
    const metadata = { ...view['metadata'] };
    delete metadata['managedFields'];
    return { ...view, metadata };
  }
  return view;
}

// ---------------------------------------------------------------------------------------------
// Ownership rules shared by Update and Apply

const path = (...names: string[]): FieldPath => names.map(fieldElement);

/** Never recorded in an entry (stripMetaManager). A plain difference: `metadata`'s children stay. */
export const STRIPPED_FIELDS = FieldSet.of([
  path('apiVersion'),
  path('kind'),
  path('metadata'),
  ...['name', 'namespace', 'creationTimestamp', 'selfLink', 'uid', 'clusterName', 'generation', 'managedFields', 'resourceVersion'].map((name) =>
    path('metadata', name),
  ),
]);

/** The subtrees a write through this (sub)resource neither owns nor takes (the strategy resets them). */
export function ignoredFields(subresource: string): FieldSet {
  return subresource === 'status' ? FieldSet.of([path('metadata'), path('spec')]) : FieldSet.of([path('status')]);
}

export function excludeFields(comparison: Comparison, ignored: FieldSet): Comparison {
  return {
    added: comparison.added.recursiveDifference(ignored),
    modified: comparison.modified.recursiveDifference(ignored),
    removed: comparison.removed.recursiveDifference(ignored),
  };
}

/**
 * structured-merge-diff's `update`: every manager but `workflow` loses the fields the change
 * removed; the fields it added or modified are conflicts, taken away only when forced.
 */
export function transferOwnership(
  managed: Managed,
  comparison: Comparison,
  workflow: string,
  force: boolean,
): { managed: Managed } | { conflicts: Map<string, FieldSet> } {
  const changed = comparison.modified.union(comparison.added);
  const conflicts = new Map<string, FieldSet>();
  for (const [id, entry] of managed) {
    if (id === workflow) continue;
    const conflict = entry.set.intersection(changed);
    if (!conflict.isEmpty()) conflicts.set(id, conflict);
  }
  if (!force && conflicts.size > 0) return { conflicts };
  const out: Managed = new Map();
  for (const [id, entry] of managed) {
    let set = entry.set;
    if (id !== workflow) set = set.difference(conflicts.get(id) ?? new FieldSet()).difference(comparison.removed);
    if (!set.isEmpty()) out.set(id, { ...entry, set });
  }
  return { managed: out };
}

/** An Update by `info`: ownership moves to it for what it changed; its entry is stamped only if it changed something. */
export function recordUpdate(managed: Managed, node: SchemaNode, live: unknown, next: unknown, info: ManagerInfo, time: string): Managed {
  const ignored = ignoredFields(info.subresource);
  const comparison = excludeFields(compareTyped(node, live, next), ignored);
  const moved = transferOwnership(managed, comparison, '', true);
  const out = 'managed' in moved ? moved.managed : managed;
  const changed = comparison.modified.union(comparison.added).recursiveDifference(ignored).difference(STRIPPED_FIELDS);
  if (!changed.isEmpty()) {
    const id = managerIdentifier(info);
    const previous = out.get(id);
    out.set(id, { ...info, time, set: previous === undefined ? changed : changed.union(previous.set) });
  }
  return capUpdateManagers(out);
}

/** Folds the oldest Update entries into one `ancient-changes` entry per apiVersion (capManagersManager). */
export function capUpdateManagers(managed: Managed, maxUpdateManagers = MAX_UPDATE_MANAGERS): Managed {
  const updaters = [...managed.entries()].filter(([, entry]) => entry.operation !== 'Apply').map(([id]) => id);
  if (updaters.length <= maxUpdateManagers) return managed;
  const seconds = (id: string): number => {
    const time = managed.get(id)?.time;
    return time === undefined ? 0 : Math.floor(Date.parse(time) / 1000) || 0;
  };
  updaters.sort((a, b) => seconds(a) - seconds(b) || (a < b ? -1 : a > b ? 1 : 0));
  const out: Managed = new Map(managed);
  const firstByVersion = new Map<string, string>();
  let count = updaters.length;
  for (let i = 0; i < updaters.length && count > maxUpdateManagers; i++) {
    const id = updaters[i]!;
    const entry = out.get(id)!;
    const bucketInfo: ManagerInfo = { manager: ANCIENT_CHANGES_MANAGER, operation: 'Update', apiVersion: entry.apiVersion, subresource: '' };
    const bucket = managerIdentifier(bucketInfo);
    const first = firstByVersion.get(entry.apiVersion);
    if (first === undefined) {
      firstByVersion.set(entry.apiVersion, id);
      continue;
    }
    if (!out.has(bucket)) {
      const seed = out.get(first)!;
      out.delete(first);
      out.set(bucket, { ...seed, ...bucketInfo });
    }
    const merged = out.get(bucket)!;
    const stamped: ManagedEntry = { ...merged, set: entry.set.union(merged.set) };
    if (entry.time !== undefined) stamped.time = entry.time;
    else delete stamped.time;
    out.set(bucket, stamped);
    out.delete(id);
    count--;
  }
  return out;
}

// ---------------------------------------------------------------------------------------------
// Default manager

const PRINTABLE = /^[\p{L}\p{M}\p{N}\p{P}\p{S} ]$/u;

/** The User-Agent before its first `/`, printable characters only, at most 128 bytes (`prefixFromUserAgent`). */
export function prefixFromUserAgent(userAgent: string): string {
  const head = userAgent.split('/')[0] ?? '';
  let out = '';
  let bytes = 0;
  for (const ch of head) {
    if (!PRINTABLE.test(ch)) continue;
    const size = Buffer.byteLength(ch, 'utf8');
    if (bytes + size > FIELD_MANAGER_MAX_LENGTH) break;
    out += ch;
    bytes += size;
  }
  return out;
}
