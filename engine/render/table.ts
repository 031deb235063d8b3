// `kubectl get` asks for a meta/v1 Table and prints its columns as they come. These are the columns,
// cells and row order of Kubernetes' own printers for the two flowcontrol kinds, so Fairway's
// output reads like a real cluster's, down to `<none>`, the MissingPL `?` and the Age text.
import type { FlowSchema, FlowcontrolObject, ListMeta, ObjectMeta, PriorityLevelConfiguration, Status } from '../resources/types.ts';
import { FLOW_SCHEMA_CONDITION_DANGLING, FLOW_SCHEMA_KIND, type FlowcontrolKind } from '../resources/types.ts';
import { apiGroupsFor, flowcontrolApiVersion } from '../resources/api-domain.ts';
import { fieldAt } from '../resources/schema/field-table.ts';
import { FLOW_SCHEMA } from '../resources/schema/flow-schema.ts';
import { OBJECT_META } from '../resources/schema/meta-v1.ts';
import { PRIORITY_LEVEL_CONFIGURATION } from '../resources/schema/priority-level-configuration.ts';
import { unrecognizedIncludeObject } from '../status/errors.ts';
import { goJsonText } from '../store/go-json.ts';

export type IncludeObject = 'None' | 'Metadata' | 'Object';

export interface TableColumnDefinition {
  name: string;
  type: string;
  format: string;
  description: string;
  priority: number;
}

export interface TableRow {
  cells: unknown[];
  /** PartialObjectMetadata, the full object, or null for includeObject=None (Go's empty RawExtension). */
  object: Record<string, unknown> | null;
}

export interface Table {
  kind: 'Table';
  apiVersion: string;
  metadata: ListMeta;
  /** null when headers are not wanted (watch events after the first). */
  columnDefinitions: TableColumnDefinition[] | null;
  rows: TableRow[];
}

export interface TableOptions {
  /** The instant Age is measured to, in epoch milliseconds. */
  nowMs: number;
  /** What each row's `object` holds; Metadata (the default) gives PartialObjectMetadata. */
  includeObject?: IncludeObject;
  /** The list's metadata (resourceVersion, continue, remainingItemCount); for a single GET, its resourceVersion. */
  listMeta?: ListMeta;
  /** Leave out columnDefinitions (watch events after the first carry none). */
  noHeaders?: boolean;
  apiDomain?: string | undefined;
}

const NONE = '<none>';
const column = (name: string, description: string, format = ''): TableColumnDefinition => ({ name, type: 'string', format, description, priority: 0 });

// A column's description is its field's, as Kubernetes' printers take it from the OpenAPI.
const PLC_DOC = (path: string) => fieldAt(PRIORITY_LEVEL_CONFIGURATION, path).description;
const FS_DOC = (path: string) => fieldAt(FLOW_SCHEMA, path).description;
const QUEUING = 'spec.limited.limitResponse.queuing';

const NAME_COLUMN = column('Name', fieldAt(OBJECT_META, 'name').description, 'name');
const AGE_COLUMN = column('Age', fieldAt(OBJECT_META, 'creationTimestamp').description);

export const PRIORITY_LEVEL_COLUMNS: readonly TableColumnDefinition[] = [
  NAME_COLUMN,
  column('Type', PLC_DOC('spec.type')),
  column('NominalConcurrencyShares', PLC_DOC('spec.limited.nominalConcurrencyShares')),
  column('Queues', PLC_DOC(`${QUEUING}.queues`)),
  column('HandSize', PLC_DOC(`${QUEUING}.handSize`)),
  column('QueueLengthLimit', PLC_DOC(`${QUEUING}.queueLengthLimit`)),
  AGE_COLUMN,
];

export const FLOW_SCHEMA_COLUMNS: readonly TableColumnDefinition[] = [
  NAME_COLUMN,
  column('PriorityLevel', FS_DOC('spec.priorityLevelConfiguration.name')),
  column('MatchingPrecedence', FS_DOC('spec.matchingPrecedence')),
  column('DistinguisherMethod', FS_DOC('spec.distinguisherMethod')),
  AGE_COLUMN,
  column('MissingPL', 'indicates whether the priority level referenced by this flow schema exists'),
];

/** The `includeObject` query value, or a 400 Status for anything but None/Metadata/Object. */
export function parseIncludeObject(value: string | undefined): { ok: true; includeObject: IncludeObject } | { ok: false; status: Status } {
  if (value === undefined || value === '' || value === 'Metadata') return { ok: true, includeObject: 'Metadata' };
  if (value === 'None' || value === 'Object') return { ok: true, includeObject: value };
  return { ok: false, status: unrecognizedIncludeObject(value) };
}

/** One or more objects of a kind as a Table; FlowSchemas are ordered by (matchingPrecedence, name). */
export function toTable(kind: FlowcontrolKind, objects: readonly FlowcontrolObject[], options: TableOptions): Table {
  const { nowMs, includeObject = 'Metadata', listMeta = {}, noHeaders = false, apiDomain } = options;
  const metaApiVersion = `${apiGroupsFor(apiDomain).meta}/v1`;
  const objectApiVersion = flowcontrolApiVersion(apiDomain);
  const isFlowSchema = kind === FLOW_SCHEMA_KIND;
  const ordered = isFlowSchema ? [...(objects as readonly FlowSchema[])].sort(byPrecedenceThenName) : objects;
  const rows = ordered.map((object) => row(kind, object, includeObject, age(object.metadata, nowMs), metaApiVersion, objectApiVersion));
  const columns = isFlowSchema ? FLOW_SCHEMA_COLUMNS : PRIORITY_LEVEL_COLUMNS;
  return {
    kind: 'Table',
    apiVersion: metaApiVersion,
    metadata: tableMetadata(listMeta),
    columnDefinitions: noHeaders ? null : columns.map((c) => ({ ...c })),
    rows,
  };
}

function row(
  kind: FlowcontrolKind,
  object: FlowcontrolObject,
  includeObject: IncludeObject,
  ageText: string,
  metaApiVersion: string,
  objectApiVersion: string,
): TableRow {
  return {
    cells: kind === FLOW_SCHEMA_KIND ? flowSchemaCells(object as FlowSchema, ageText) : priorityLevelCells(object as PriorityLevelConfiguration, ageText),
    object: rowObject(object, kind, includeObject, metaApiVersion, objectApiVersion),
  };
}

// What no Age cell can hold (names before it in a row are DNS names and enum values): where a kept
// row's JSON is cut, for each response to put the Age of its own instant there.
const AGE_MARK = '\u0000age\u0000';
const AGE_MARK_JSON = goJsonText(AGE_MARK);

/**
 * A row's JSON, cut where its Age goes: `[before, after]`, so that `before + JSON(age) + after` is
 * the row toTable makes at any instant. Kept per object version (api/handlers/encoded-items.ts).
 */
export function tableRowParts(kind: FlowcontrolKind, object: FlowcontrolObject, includeObject: IncludeObject, apiDomain?: string): [string, string] {
  const text = goJsonText(row(kind, object, includeObject, AGE_MARK, `${apiGroupsFor(apiDomain).meta}/v1`, flowcontrolApiVersion(apiDomain)));
  const at = text.indexOf(AGE_MARK_JSON);
  return [text.slice(0, at), text.slice(at + AGE_MARK_JSON.length)];
}

/** A row's Age cell as JSON, at `nowMs`. */
export function ageJson(object: FlowcontrolObject, nowMs: number): string {
  return goJsonText(age(object.metadata, nowMs));
}

/** The rows' order: FlowSchemas by precedence, then name (as the printer sorts them); levels as listed. */
export function tableOrder(kind: FlowcontrolKind, objects: readonly FlowcontrolObject[]): number[] {
  const order = objects.map((_, i) => i);
  if (kind !== FLOW_SCHEMA_KIND) return order;
  const schemas = objects as readonly FlowSchema[];
  const name = (i: number) => schemas[i]!.metadata?.name ?? '';
  let byName = true;
  for (let i = 1; byName && i < schemas.length; i++) byName = compareNames(name(i - 1), name(i)) < 0;
  if (!byName) return order.sort((a, b) => byPrecedenceThenName(schemas[a]!, schemas[b]!));
  // The store lists by name, so grouping by precedence in list order is the printer's order: one
  // pass and a sort of the few distinct precedences, not a comparison sort of every row on each
  // LIST (kubectl get asks for a Table every time).
  const groups = new Map<number, number[]>();
  for (let i = 0; i < schemas.length; i++) {
    const precedence = schemas[i]!.spec?.matchingPrecedence ?? 0;
    const group = groups.get(precedence);
    if (group === undefined) groups.set(precedence, [i]);
    else group.push(i);
  }
  let at = 0;
  for (const precedence of [...groups.keys()].sort((a, b) => a - b)) for (const i of groups.get(precedence)!) order[at++] = i;
  return order;
}

/** A Table's JSON around its rows: everything before the first row and after the last (compact, as a LIST is sent). */
export function tableFrame(kind: FlowcontrolKind, listMeta: ListMeta, apiDomain?: string): { head: string; tail: string } {
  const empty = goJsonText({
    kind: 'Table',
    apiVersion: `${apiGroupsFor(apiDomain).meta}/v1`,
    metadata: tableMetadata(listMeta),
    columnDefinitions: (kind === FLOW_SCHEMA_KIND ? FLOW_SCHEMA_COLUMNS : PRIORITY_LEVEL_COLUMNS).map((c) => ({ ...c })),
    rows: [],
  });
  // `…"rows":[]}`: the rows go between the brackets.
  return { head: empty.slice(0, -2), tail: ']}\n' };
}

function tableMetadata(listMeta: ListMeta): ListMeta {
  const out: ListMeta = {};
  if (listMeta.resourceVersion) out.resourceVersion = listMeta.resourceVersion;
  if (listMeta.continue) out.continue = listMeta.continue;
  if (listMeta.remainingItemCount !== undefined && listMeta.remainingItemCount !== null) out.remainingItemCount = listMeta.remainingItemCount;
  return out;
}

function rowObject(
  object: FlowcontrolObject,
  kind: string,
  includeObject: IncludeObject,
  metaApiVersion: string,
  objectApiVersion: string,
): Record<string, unknown> | null {
  if (includeObject === 'None') return null;
  if (includeObject === 'Metadata') return { kind: 'PartialObjectMetadata', apiVersion: metaApiVersion, metadata: object.metadata ?? {} };
  const { kind: _kind, apiVersion: _apiVersion, ...rest } = object;
  return { kind, apiVersion: objectApiVersion, ...rest };
}

// Go compares strings bytewise; for the names Kubernetes allows that equals UTF-16 order.
const compareNames = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);

function byPrecedenceThenName(a: FlowSchema, b: FlowSchema): number {
  const precedence = (a.spec?.matchingPrecedence ?? 0) - (b.spec?.matchingPrecedence ?? 0);
  return precedence !== 0 ? precedence : compareNames(a.metadata?.name ?? '', b.metadata?.name ?? '');
}

function priorityLevelCells(pl: PriorityLevelConfiguration, ageText: string): unknown[] {
  // As the printer does: the numbers show only when `limited` (and for the queue numbers, `queuing`)
  // is set, whatever `type` says; unset numbers inside them print as 0, as the internal type holds them.
  const limited = pl.spec?.limited;
  const queuing = limited?.limitResponse?.queuing;
  return [
    pl.metadata?.name ?? '',
    pl.spec?.type ?? '',
    limited ? (limited.nominalConcurrencyShares ?? 0) : NONE,
    queuing ? (queuing.queues ?? 0) : NONE,
    queuing ? (queuing.handSize ?? 0) : NONE,
    queuing ? (queuing.queueLengthLimit ?? 0) : NONE,
    ageText,
  ];
}

function flowSchemaCells(fs: FlowSchema, ageText: string): unknown[] {
  const distinguisher = fs.spec?.distinguisherMethod;
  const dangling = fs.status?.conditions?.find((c) => c.type === FLOW_SCHEMA_CONDITION_DANGLING);
  return [
    fs.metadata?.name ?? '',
    fs.spec?.priorityLevelConfiguration?.name ?? '',
    fs.spec?.matchingPrecedence ?? 0,
    distinguisher ? (distinguisher.type ?? '') : NONE,
    ageText,
    dangling ? (dangling.status ?? '') : '?',
  ];
}

function age(metadata: ObjectMeta | undefined, nowMs: number): string {
  const created = metadata?.creationTimestamp ? Date.parse(metadata.creationTimestamp) : Number.NaN;
  return Number.isNaN(created) ? '<unknown>' : humanDuration(nowMs - created);
}

/**
 * apimachinery's `duration.HumanDuration`: exact below 2 minutes, then coarser with age (`2m3s`,
 * `15m`, `5h10m`, `30h`, `3d4h`, `45d`, `2y30d`, `9y`). Up to 2 s in the future counts as `0s`
 * (clock skew between machines); further is `<invalid>`.
 */
export function humanDuration(durationMs: number): string {
  const seconds = Math.trunc(durationMs / 1000);
  if (seconds < -1) return '<invalid>';
  if (seconds < 0) return '0s';
  if (seconds < 60 * 2) return `${seconds}s`;
  const minutes = Math.trunc(seconds / 60);
  if (minutes < 10) {
    const s = seconds % 60;
    return s === 0 ? `${minutes}m` : `${minutes}m${s}s`;
  }
  if (minutes < 60 * 3) return `${minutes}m`;
  const hours = Math.trunc(minutes / 60);
  if (hours < 8) {
    const m = minutes % 60;
    return m === 0 ? `${hours}h` : `${hours}h${m}m`;
  }
  if (hours < 48) return `${hours}h`;
  if (hours < 24 * 8) {
    const h = hours % 24;
    return h === 0 ? `${Math.trunc(hours / 24)}d` : `${Math.trunc(hours / 24)}d${h}h`;
  }
  if (hours < 24 * 365 * 2) return `${Math.trunc(hours / 24)}d`;
  if (hours < 24 * 365 * 8) {
    const days = Math.trunc(hours / 24) % 365;
    return days === 0 ? `${Math.trunc(hours / 24 / 365)}y` : `${Math.trunc(hours / 24 / 365)}y${days}d`;
  }
  return `${Math.trunc(hours / 24 / 365)}y`;
}
