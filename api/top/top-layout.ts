// The screen (and `-o wide`'s text) of `fairway top`: three tables — priority levels, the busiest
// FlowSchemas, the busiest flows — that fit the terminal. When a table is wider than the terminal,
// its least important columns go first (each column has a rank), then the name column is
// abbreviated with '…'; rows past the screen's height are left out, the levels last.

import type { FlowRow, FlowSchemaRow, LevelRow, TopSnapshot } from './top-model.ts';
import { sortFlows, sortRows, type SortKey } from './sort-keys.ts';

export interface Column<T> {
  header: string;
  /** Lower ranks are kept longer when the terminal is narrow; 0 is never dropped. */
  rank: number;
  /** The name column: left-aligned, and shortened rather than dropped. */
  name?: boolean;
  cell(row: T): string;
}

const GAP = '  ';
const MIN_NAME = 8;

/** `value` per second, one decimal; '-' before there are two scrapes. */
export const rate = (value: number | undefined) => (value === undefined ? '-' : value.toFixed(1));
/** A count as is; '-' when the server does not report it. */
export const count = (value: number | undefined) => (value === undefined ? '-' : String(Math.round(value * 100) / 100));
/** A duration in seconds as ms below 1 s, else s; '-' when no request finished waiting. */
export function duration(seconds: number | undefined): string {
  if (seconds === undefined) return '-';
  if (seconds < 1) return `${Math.round(seconds * 10_000) / 10}ms`;
  return `${Math.round(seconds * 100) / 100}s`;
}

/** A name cut to `width` characters, its end replaced by '…'. */
export function abbreviate(text: string, width: number): string {
  if (text.length <= width) return text;
  return width <= 1 ? text.slice(0, width) : `${text.slice(0, width - 1)}…`;
}

const reasons = (row: LevelRow) =>
  row.rejectedByReason === undefined
    ? '-'
    : Object.entries(row.rejectedByReason)
        .map(([reason, value]) => `${reason}=${value.toFixed(1)}`)
        .join(',') || '-';

export const LEVEL_COLUMNS: Column<LevelRow>[] = [
  { header: 'PRIORITY LEVEL', rank: 0, name: true, cell: (r) => r.name },
  { header: 'NOMINAL', rank: 3, cell: (r) => count(r.nominal) },
  { header: 'LENDABLE', rank: 5, cell: (r) => count(r.lendable) },
  { header: 'LIMIT', rank: 1, cell: (r) => count(r.limit) },
  { header: 'SEATS', rank: 0, cell: (r) => count(r.seatsInUse) },
  { header: 'QUEUED', rank: 0, cell: (r) => count(r.queued) },
  { header: 'QSEATS', rank: 4, cell: (r) => count(r.queuedSeats) },
  { header: 'DISPATCH/s', rank: 1, cell: (r) => rate(r.dispatched) },
  { header: 'REJECT/s', rank: 0, cell: (r) => rate(r.rejected) },
  { header: 'WAIT p99', rank: 2, cell: (r) => duration(r.waitP99) },
  { header: 'REJECTED BY REASON /s', rank: 6, cell: reasons },
];

export const FLOW_SCHEMA_COLUMNS: Column<FlowSchemaRow>[] = [
  { header: 'FLOWSCHEMA', rank: 0, name: true, cell: (r) => r.name },
  { header: 'LEVEL', rank: 3, cell: (r) => r.level },
  { header: 'SEATS', rank: 0, cell: (r) => count(r.seatsInUse) },
  { header: 'QUEUED', rank: 0, cell: (r) => count(r.queued) },
  { header: 'DISPATCH/s', rank: 1, cell: (r) => rate(r.dispatched) },
  { header: 'REJECT/s', rank: 0, cell: (r) => rate(r.rejected) },
  { header: 'WAIT p99', rank: 2, cell: (r) => duration(r.waitP99) },
];

export const FLOW_COLUMNS: Column<FlowRow>[] = [
  { header: 'FLOW', rank: 0, name: true, cell: (r) => (r.flow === '' ? r.flowSchema : `${r.flowSchema}/${r.flow}`) },
  { header: 'LEVEL', rank: 3, cell: (r) => r.level },
  { header: 'EXECUTING', rank: 1, cell: (r) => String(r.executing) },
  { header: 'WAITING', rank: 0, cell: (r) => String(r.waiting) },
  { header: 'SEATS', rank: 0, cell: (r) => String(r.seats) },
];

/**
 * A table's lines, at most `width` characters each (no limit with Infinity): columns dropped by
 * rank, highest first, while it is too wide, then the name column shortened (to MIN_NAME at least).
 */
export function fitTable<T>(columns: readonly Column<T>[], rows: readonly T[], width: number): string[] {
  const cells = (column: Column<T>) => [column.header, ...rows.map((row) => column.cell(row))];
  let kept = columns.map((column) => ({ column, cells: cells(column), width: Math.max(...cells(column).map((c) => c.length)) }));
  const total = () => kept.reduce((sum, k) => sum + k.width, 0) + GAP.length * (kept.length - 1);
  while (total() > width) {
    const highest = Math.max(...kept.map((k) => k.column.rank));
    if (highest === 0) break;
    const drop = kept.findLastIndex((k) => k.column.rank === highest);
    kept = kept.filter((_, i) => i !== drop);
  }
  const name = kept.find((k) => k.column.name === true);
  if (name !== undefined && total() > width) name.width = Math.max(MIN_NAME, name.width - (total() - width));
  return [0, ...rows.map((_, i) => i + 1)].map((line) =>
    kept
      .map((k, i) => {
        const text = abbreviate(k.cells[line]!, k.width);
        if (k.column.name === true) return i === kept.length - 1 ? text : text.padEnd(k.width);
        return text.padStart(k.width);
      })
      .join(GAP)
      .slice(0, Number.isFinite(width) ? width : undefined),
  );
}

export interface ScreenOptions {
  width: number;
  /** Lines available; Infinity for `-o wide`. */
  height: number;
  sort: SortKey;
  /** The first line: server, interval, sort, time, keys. */
  title: string;
  /** Lines shown under the title (a missing permission, a failed scrape). */
  notices: readonly string[];
}

/** The whole screen, top to bottom, every line within `width`. */
export function layoutScreen(snapshot: TopSnapshot, options: ScreenOptions): string[] {
  const { width, height, sort } = options;
  const head = [abbreviate(options.title, width), ...options.notices.map((notice) => abbreviate(notice, width)), ''];
  const levels = fitTable(LEVEL_COLUMNS, sortRows(snapshot.levels, sort), width);
  const lines = [...head, ...levels];
  // What is left of the height goes to FlowSchemas and flows, half each (a title line, a header, a blank line).
  const left = height - lines.length;
  const schemas = sortRows(snapshot.flowSchemas, sort).filter((r) => sort === 'name' || r.seatsInUse + r.queued + (r.dispatched ?? 0) + (r.rejected ?? 0) > 0);
  const flows = snapshot.flows === undefined ? undefined : sortFlows(snapshot.flows, sort);
  const rowsFor = (share: number) => (Number.isFinite(left) ? Math.max(0, Math.floor(share) - 3) : Number.POSITIVE_INFINITY);
  const schemaRows = rowsFor(flows === undefined ? left : left / 2);
  if (schemaRows > 0) lines.push('', `Busiest FlowSchemas (${schemas.length} active)`, ...fitTable(FLOW_SCHEMA_COLUMNS, schemas.slice(0, schemaRows), width));
  if (flows !== undefined) {
    const flowRows = rowsFor(left - Math.min(schemaRows, schemas.length) - 3);
    if (flowRows > 0) lines.push('', `Busiest flows (${flows.length} with requests now)`, ...fitTable(FLOW_COLUMNS, flows.slice(0, flowRows), width));
  }
  return Number.isFinite(height) ? lines.slice(0, height) : lines;
}
