// The model the store is checked against in `properties/store-model.test.ts`: plain maps of
// objects, one revision counter for the whole store, and the list of every committed change. What
// a list at revision N, a watch from N, or a selector should show is computed here from that
// history, straight from the definitions in docs/storage.md, sharing no code with engine/store.

import type { KubeObject } from '../../engine/resources/types.ts';

export type Kind = 'plc' | 'fs';
export const KINDS: readonly Kind[] = ['plc', 'fs'];

export type Labels = Readonly<Record<string, string>>;

/** An object as the model knows it: what the test wrote, plus the revision that last wrote it. */
export interface ModelObject {
  readonly name: string;
  readonly uid: string;
  readonly labels: Labels | undefined;
  readonly value: number;
  readonly rv: number;
}

/** One committed change: creation (no previous), update, or deletion (no current). */
export interface ModelChange {
  readonly kind: Kind;
  readonly revision: number;
  readonly name: string;
  readonly previous: ModelObject | undefined;
  readonly current: ModelObject | undefined;
}

/** A paged list begun by one command and continued by later ones, across writes. */
export interface ModelPaging {
  readonly kind: Kind;
  readonly selector: number;
  readonly limit: number;
  /** The snapshot every page is served from. */
  revision: number;
  lastName: string;
  done: boolean;
}

export interface StoreModel {
  revision: number;
  readonly objects: Record<Kind, Map<string, ModelObject>>;
  readonly history: ModelChange[];
  /** The store's `windowCapacity`: events kept per resource. */
  readonly windowCapacity: number;
  uids: number;
  paging: ModelPaging | undefined;
  informers: number;
}

export function emptyModel(windowCapacity: number): StoreModel {
  return { revision: 0, objects: { plc: new Map(), fs: new Map() }, history: [], windowCapacity, uids: 0, paging: undefined, informers: 0 };
}

/** Records a write at the next revision and returns that revision. */
export function commit(model: StoreModel, kind: Kind, name: string, next: Omit<ModelObject, 'rv'> | undefined): number {
  const revision = ++model.revision;
  const previous = model.objects[kind].get(name);
  const current = next === undefined ? undefined : { ...next, rv: revision };
  if (current === undefined) model.objects[kind].delete(name);
  else model.objects[kind].set(name, current);
  model.history.push({ kind, revision, name, previous, current });
  return revision;
}

/**
 * The window promise of docs/storage.md: once a resource has more than `windowCapacity` events,
 * its window starts at the revision of the last one dropped; below that, 410.
 */
export function windowStart(model: StoreModel, kind: Kind): number {
  const changes = model.history.filter((c) => c.kind === kind);
  const dropped = changes.length - model.windowCapacity;
  return dropped > 0 ? changes[dropped - 1]!.revision : 0;
}

/** The objects of `kind` exactly as they were at `revision`, by name. */
export function stateAt(model: StoreModel, kind: Kind, revision: number): Map<string, ModelObject> {
  const state = new Map<string, ModelObject>();
  for (const change of model.history) {
    if (change.revision > revision) break;
    if (change.kind !== kind) continue;
    if (change.current === undefined) state.delete(change.name);
    else state.set(change.name, change.current);
  }
  return state;
}

/** Objects in key order (names are ASCII, so code-unit order is byte order). */
export function sorted(objects: Iterable<ModelObject>): ModelObject[] {
  return [...objects].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
}

// ---------------------------------------------------------------------------------------------
// Selectors, each with its meaning written out (a missing label never equals a value).

export interface SelectorCase {
  readonly labelSelector?: string;
  readonly fieldSelector?: string;
  matches(o: Pick<ModelObject, 'name' | 'labels'>): boolean;
}

const tier = (o: Pick<ModelObject, 'labels'>): string | undefined => o.labels?.['tier'];

export const SELECTORS: readonly SelectorCase[] = [
  { matches: () => true },
  { labelSelector: 'tier=a', matches: (o) => tier(o) === 'a' },
  { labelSelector: 'tier!=a', matches: (o) => tier(o) !== 'a' },
  { labelSelector: '!tier', matches: (o) => tier(o) === undefined },
  { labelSelector: 'tier', matches: (o) => tier(o) !== undefined },
  { labelSelector: 'tier in (a,b)', matches: (o) => tier(o) === 'a' || tier(o) === 'b' },
  { labelSelector: 'tier notin (b),x', matches: (o) => tier(o) !== 'b' && o.labels?.['x'] !== undefined },
  { fieldSelector: 'metadata.name=b', matches: (o) => o.name === 'b' },
  { labelSelector: 'tier!=c', fieldSelector: 'metadata.name!=c', matches: (o) => tier(o) !== 'c' && o.name !== 'c' },
];

export function selectorOptions(index: number): { labelSelector: string | undefined; fieldSelector: string | undefined } {
  const s = SELECTORS[index]!;
  return { labelSelector: s.labelSelector, fieldSelector: s.fieldSelector };
}

export function describeSelector(index: number): string {
  const s = SELECTORS[index]!;
  return [s.labelSelector && `labels "${s.labelSelector}"`, s.fieldSelector && `fields "${s.fieldSelector}"`].filter(Boolean).join(' ') || 'everything';
}

/** What a list with this selector at this state holds, in key order. */
export function listed(state: Map<string, ModelObject>, selector: number): ModelObject[] {
  return sorted([...state.values()].filter((o) => SELECTORS[selector]!.matches(o)));
}

// ---------------------------------------------------------------------------------------------
// Watch events as a filtered watcher must see them (kube's cacheWatcher rule).

export interface ExpectedEvent {
  readonly type: 'ADDED' | 'MODIFIED' | 'DELETED';
  readonly object: ModelObject;
}

/** ADDED if only the new state matches, MODIFIED if both, DELETED (old state, new revision) if only the old. */
export function eventView(change: ModelChange, selector: number): ExpectedEvent | undefined {
  const matches = SELECTORS[selector]!.matches;
  const now = change.current !== undefined && matches(change.current);
  const before = change.previous !== undefined && matches(change.previous);
  if (now) return { type: before ? 'MODIFIED' : 'ADDED', object: change.current! };
  if (before) return { type: 'DELETED', object: { ...change.previous!, rv: change.revision } };
  return undefined;
}

export function eventsAfter(model: StoreModel, kind: Kind, revision: number, selector: number): ExpectedEvent[] {
  const events: ExpectedEvent[] = [];
  for (const change of model.history) {
    if (change.kind !== kind || change.revision <= revision) continue;
    const view = eventView(change, selector);
    if (view !== undefined) events.push(view);
  }
  return events;
}

// ---------------------------------------------------------------------------------------------
// Objects as written and as read back.

export const API_VERSION = 'flowcontrol.apiserver.k8s.io/v1';

/** A fresh object per write (the store takes over and freezes what it is given). */
export function buildObject(kind: Kind, name: string, uid: string, labels: Labels | undefined, value: number): KubeObject {
  const metadata = { name, uid, generation: 1, creationTimestamp: '2026-11-21T05:00:00Z', ...(labels !== undefined ? { labels: { ...labels } } : {}) };
  if (kind === 'plc') {
    return { apiVersion: API_VERSION, kind: 'PriorityLevelConfiguration', metadata, spec: { type: 'Limited', limited: { nominalConcurrencyShares: value } } };
  }
  return { apiVersion: API_VERSION, kind: 'FlowSchema', metadata, spec: { priorityLevelConfiguration: { name: 'p' }, matchingPrecedence: 100 + value } };
}

/** What the model compares of an object the store returned. */
export function observed(object: KubeObject): ModelObject {
  const meta = object.metadata ?? {};
  const spec = (object.spec ?? {}) as { limited?: { nominalConcurrencyShares?: number }; matchingPrecedence?: number };
  const value = object.kind === 'FlowSchema' ? (spec.matchingPrecedence ?? NaN) - 100 : (spec.limited?.nominalConcurrencyShares ?? NaN);
  return { name: meta.name ?? '', uid: meta.uid ?? '', labels: meta.labels, value, rv: Number(meta.resourceVersion) };
}

/** The model's object in the same shape, for assert.equal. */
export function expected(o: ModelObject): ModelObject {
  return { name: o.name, uid: o.uid, labels: o.labels, value: o.value, rv: o.rv };
}

export function sameContent(a: Omit<ModelObject, 'rv'>, b: Omit<ModelObject, 'rv'>): boolean {
  return a.uid === b.uid && a.value === b.value && JSON.stringify(a.labels) === JSON.stringify(b.labels);
}
