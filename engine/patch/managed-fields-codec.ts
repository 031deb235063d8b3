// The wire form of managedFields: entries keyed by manager identity, decoded into field sets and
// encoded back in kube-apiserver's order (Apply before Update, then time, manager, apiVersion,
// subresource). Identity is (manager, operation, subresource) plus, for Update entries only, the
// apiVersion, spelled as the JSON `BuildManagerIdentifier` makes of it.

import type { ManagedFieldsEntry } from '../resources/types.ts';
import { FieldSet } from './field-set.ts';
import { isRecord } from '../own-property.ts';

export type Operation = 'Apply' | 'Update';

export interface ManagerInfo {
  manager: string;
  operation: Operation;
  apiVersion: string;
  /** `''` for the main resource. */
  subresource: string;
}

export interface ManagedEntry extends ManagerInfo {
  /** RFC 3339, seconds; absent when the entry was never stamped. */
  time?: string;
  set: FieldSet;
}

/** Entries by manager identity (`managerIdentifier`). */
export type Managed = Map<string, ManagedEntry>;

export class ManagedFieldsError extends Error {
  override readonly name = 'ManagedFieldsError';
}

/** `BuildManagerIdentifier`: the entry as JSON without time and fields; Apply entries without apiVersion. */
export function managerIdentifier(info: ManagerInfo): string {
  const identity: Record<string, string> = {};
  if (info.manager !== '') identity['manager'] = info.manager;
  if (info.operation) identity['operation'] = info.operation;
  if (info.operation !== 'Apply' && info.apiVersion !== '') identity['apiVersion'] = info.apiVersion;
  if (info.subresource !== '') identity['subresource'] = info.subresource;
  return JSON.stringify(identity);
}

export function decodeManagedFields(entries: unknown): Managed {
  const managed: Managed = new Map();
  if (entries === undefined || entries === null) return managed;
  if (!Array.isArray(entries)) throw new ManagedFieldsError('managedFields must be a list');
  entries.forEach((raw: unknown, i) => {
    if (!isRecord(raw)) throw new ManagedFieldsError(`managed fields entry ${i} is not an object`);
    const fieldsType = raw['fieldsType'];
    if (fieldsType === undefined || fieldsType === '' || fieldsType === null) throw new ManagedFieldsError(`missing fieldsType in managed fields entry ${i}`);
    if (fieldsType !== 'FieldsV1') throw new ManagedFieldsError(`invalid fieldsType ${JSON.stringify(fieldsType)} in managed fields entry ${i}`);
    const text = (key: string): string => (typeof raw[key] === 'string' ? (raw[key] as string) : '');
    let set: FieldSet;
    try {
      set = FieldSet.fromFieldsV1(raw['fieldsV1'] ?? {});
    } catch (error) {
      throw new ManagedFieldsError(`error decoding versioned set from managed fields entry ${i}: ${(error as Error).message}`);
    }
    const info: ManagerInfo = {
      manager: text('manager'),
      operation: text('operation') as Operation,
      apiVersion: text('apiVersion'),
      subresource: text('subresource'),
    };
    const entry: ManagedEntry = { ...info, set };
    if (text('time') !== '') entry.time = text('time');
    managed.set(managerIdentifier(info), entry);
  });
  return managed;
}

/** The entries in kube-apiserver's order: Apply before Update, then by time, manager, apiVersion, subresource. */
export function encodeManagedFields(managed: Managed): ManagedFieldsEntry[] {
  const entries = [...managed.values()].map((entry) => {
    const out: ManagedFieldsEntry = {};
    if (entry.manager !== '') out.manager = entry.manager;
    if (entry.operation) out.operation = entry.operation;
    if (entry.apiVersion !== '') out.apiVersion = entry.apiVersion;
    if (entry.time !== undefined) out.time = entry.time;
    out.fieldsType = 'FieldsV1';
    out.fieldsV1 = entry.set.toFieldsV1();
    if (entry.subresource !== '') out.subresource = entry.subresource;
    return out;
  });
  const seconds = (entry: ManagedFieldsEntry): number => (entry.time === undefined ? 0 : Math.floor(Date.parse(entry.time) / 1000) || 0);
  const byString = (a = '', b = ''): number => (a < b ? -1 : a > b ? 1 : 0);
  return entries.sort(
    (p, q) =>
      byString(p.operation, q.operation) ||
      seconds(p) - seconds(q) ||
      byString(p.manager, q.manager) ||
      byString(p.apiVersion, q.apiVersion) ||
      byString(p.subresource, q.subresource),
  );
}
