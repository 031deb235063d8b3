// Server-side apply (`application/apply-patch+yaml`), as kube-apiserver's field manager runs it on
// structured-merge-diff:
//   1. the applied configuration is merged into the live object (maps and keyed lists merge,
//      atomic lists and scalars are replaced);
//   2. what the manager applied last time and has now left out is removed, unless some manager
//      (the applier's new configuration included) still owns it;
//   3. every field that changes and belongs to another manager is a conflict: 409 unless forced,
//      and forcing takes those fields away from their owners;
//   4. the configuration's field set becomes the manager's `Apply` entry, stamped with the time
//      only when the object actually changed.
// A missing object is created from the configuration (the caller says whether it exists).

import { goQuote } from '../go-format.ts';
import { applyConflict, badRequest } from '../status/errors.ts';
import type { KubeObject, ManagedFieldsEntry, Status, StatusCause } from '../resources/types.ts';
import { compareGoStrings, FieldSet, pathToString, type FieldPath } from './field-set.ts';
import { fieldsAllowedByLastApplied, KUBECTL_MANAGER, syncLastApplied } from './last-applied.ts';
import {
  capUpdateManagers,
  decodeManagedFields,
  encodeManagedFields,
  excludeFields,
  goView,
  ignoredFields,
  managerIdentifier,
  STRIPPED_FIELDS,
  transferOwnership,
  type Managed,
  type ManagerInfo,
} from './managed-fields.ts';
import { formatValidationErrors, validateApplyConfig } from './schema-check.ts';
import type { FlowcontrolKind } from '../resources/types.ts';
import { schemaFor, type SchemaNode } from './schema.ts';
import { compareTyped, deepEqual, ensureNamedFieldsAreMembers, mergeTyped, removeItems, toFieldSet, type JsonObject } from './typed-value.ts';
import { isRecord } from '../own-property.ts';

export interface ServerSideApplyInput {
  kind: FlowcontrolKind;
  /** The apiVersion the request addressed, e.g. `flowcontrol.apiserver.k8s.io/v1`. */
  apiVersion: string;
  /** The stored object, or undefined to create one. */
  current: KubeObject | undefined;
  /** The decoded apply body. */
  config: JsonObject;
  manager: string;
  force: boolean;
  /** `status` for /status. */
  subresource?: string;
  /** RFC 3339 time for the Apply entry. */
  time: string;
}

export type ServerSideApplyResult = { object: KubeObject; managedFields: ManagedFieldsEntry[]; created: boolean; changed: boolean } | { status: Status };

export function serverSideApply(input: ServerSideApplyInput): ServerSideApplyResult {
  const node = schemaFor(input.kind);
  const { config } = input;
  const gvk = gvkString(config['apiVersion'], config['kind']);
  if (gvk !== gvkString(input.apiVersion, input.kind)) return { status: badRequest(`invalid object type: ${gvk}`) };
  const metadata = isRecord(config['metadata']) ? config['metadata'] : {};
  if (Array.isArray(metadata['managedFields'])) return { status: badRequest('metadata.managedFields must be nil') };
  const invalid = validateApplyConfig(node, config);
  if (invalid.length > 0) {
    const where = `${text(metadata['namespace'])}/${text(metadata['name'])}; ${gvk}`;
    return { status: badRequest(`failed to create typed patch object (${where}): ${formatValidationErrors(invalid)}`) };
  }
  let managed: Managed;
  try {
    managed = decodeManagedFields(input.current?.metadata?.managedFields);
  } catch (error) {
    return { status: badRequest(`failed to decode managed fields: ${(error as Error).message}`) };
  }

  let outcome = attempt(node, managed, input, input.force);
  if ('conflicts' in outcome && input.manager === KUBECTL_MANAGER) {
    // Taking over from client-side apply: fields the annotation still describes do not conflict.
    const allowed = fieldsAllowedByLastApplied(node, input.current);
    if (allowed !== undefined) {
      const remaining = outcome.conflicts.filter((conflict) => !allowed.has(conflict.path));
      outcome = remaining.length === 0 ? attempt(node, managed, input, true) : { conflicts: remaining };
    }
  }
  if ('conflicts' in outcome) return { status: conflictStatus(outcome.conflicts) };

  const managedFields = encodeManagedFields(outcome.managed);
  const created = input.current === undefined;
  const object = (outcome.changed || created ? outcome.object : structuredClone(input.current)) as KubeObject;
  object.metadata = { ...(object.metadata ?? {}) };
  if (managedFields.length > 0) object.metadata.managedFields = managedFields;
  else delete object.metadata.managedFields;
  if (input.manager === KUBECTL_MANAGER) syncLastApplied(object, config);
  return { object, managedFields, created, changed: outcome.changed || created };
}

interface Conflict {
  id: string;
  path: FieldPath;
}

type Attempt = { object: JsonObject; managed: Managed; changed: boolean } | { conflicts: Conflict[] };

function attempt(node: SchemaNode, managed: Managed, input: ServerSideApplyInput, force: boolean): Attempt {
  const subresource = input.subresource ?? '';
  const ignored = ignoredFields(subresource);
  const live = goView(node, input.current ?? {});
  const info: ManagerInfo = { manager: input.manager, operation: 'Apply', apiVersion: input.apiVersion, subresource };
  const id = managerIdentifier(info);
  const previous = managed.get(id);
  const working: Managed = new Map(managed);
  working.set(id, {
    ...info,
    ...(previous?.time === undefined ? {} : { time: previous.time }),
    set: toFieldSet(node, input.config).recursiveDifference(ignored),
  });

  const merged = mergeTyped(node, live, input.config);
  const next = (prune(node, merged, working, previous?.set) ?? {}) as JsonObject;
  const comparison = excludeFields(compareTyped(node, live, next), ignored);
  const moved = transferOwnership(working, comparison, id, force);
  if ('conflicts' in moved) {
    const conflicts: Conflict[] = [];
    for (const conflictId of [...moved.conflicts.keys()].sort(compareGoStrings)) {
      for (const path of moved.conflicts.get(conflictId)!.paths()) conflicts.push({ id: conflictId, path });
    }
    return { conflicts };
  }

  const out = moved.managed;
  const changed = !deepEqual(live, next);
  const mine = out.get(id);
  if (mine !== undefined) {
    const set = mine.set.difference(STRIPPED_FIELDS);
    if (set.isEmpty()) out.delete(id);
    else out.set(id, { ...mine, set, ...(changed ? { time: input.time } : {}) });
  }
  return { object: next, managed: capUpdateManagers(out), changed };
}

/**
 * structured-merge-diff's `prune`: remove what the applier owned last time and no longer owns,
 * unless another manager owns it; nothing else is ever removed.
 */
function prune(node: SchemaNode, merged: unknown, managers: Managed, lastSet: FieldSet | undefined): unknown {
  if (lastSet === undefined || lastSet.isEmpty()) return merged;
  const ensure = (set: FieldSet): FieldSet => ensureNamedFieldsAreMembers(set, node);
  const last = ensure(lastSet);
  let pruned = removeItems(node, merged, last);
  const owned = ensure([...managers.values()].reduce((all, entry) => all.union(entry.set), new FieldSet()));
  const mergedSet = ensure(toFieldSet(node, merged));
  // Add back what someone still owns...
  pruned = removeItems(node, merged, mergedSet.difference(ensure(toFieldSet(node, pruned)).union(owned)));
  // ...and anything that was not the applier's to remove.
  return removeItems(node, merged, mergedSet.difference(ensure(toFieldSet(node, pruned))).intersection(last));
}

// ---------------------------------------------------------------------------------------------
// The 409

function conflictStatus(conflicts: readonly Conflict[]): Status {
  const causes: StatusCause[] = conflicts.map((conflict) => ({
    reason: 'FieldManagerConflict',
    message: `conflict with ${printManager(conflict.id)}`,
    field: pathToString(conflict.path),
  }));
  if (conflicts.length === 1) {
    const only = conflicts[0]!;
    return applyConflict(`Apply failed with 1 conflict: conflict with ${printManager(only.id)}: ${pathToString(only.path)}`, causes);
  }
  const lines: string[] = [];
  let lastId: string | undefined;
  for (const conflict of conflicts) {
    if (conflict.id !== lastId) lines.push(`conflicts with ${printManager(conflict.id)}:`);
    lastId = conflict.id;
    lines.push(`- ${pathToString(conflict.path)}`);
  }
  return applyConflict(`Apply failed with ${conflicts.length} conflicts: ${lines.join('\n')}`, causes);
}

/** `"kubectl-client-side-apply" using flowcontrol.apiserver.k8s.io/v1`; Apply managers by name only. */
export function printManager(id: string): string {
  const entry = JSON.parse(id) as Record<string, string | undefined>;
  let out = goQuote(entry['manager'] ?? '');
  if (entry['subresource']) out += ` with subresource ${goQuote(entry['subresource'])}`;
  if (entry['operation'] === 'Update') out += ` using ${entry['apiVersion'] ?? ''}`;
  return out;
}

/** `schema.GroupVersionKind.String()` of an object's apiVersion and kind: `group/version, Kind=Kind`. */
export function gvkString(apiVersion: unknown, kind: unknown): string {
  const version = text(apiVersion);
  const parts = version.split('/');
  const [group, ver] = version === '' || parts.length > 2 ? ['', ''] : parts.length === 1 ? ['', version] : [parts[0]!, parts[1]!];
  return `${group}/${ver}, Kind=${text(kind)}`;
}

const text = (value: unknown): string => (typeof value === 'string' ? value : '');
