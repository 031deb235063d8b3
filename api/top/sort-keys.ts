// The orders `fairway top` shows its tables in (`--sort`, and `s` on the screen cycles them): each
// key orders levels, FlowSchemas and flows alike, largest first, ties by name.

import type { FlowRow, FlowSchemaRow, LevelRow } from './top-model.ts';

export const SORT_KEYS = ['seats', 'queued', 'rejected', 'dispatched', 'wait', 'name'] as const;
export type SortKey = (typeof SORT_KEYS)[number];

export const isSortKey = (value: string): value is SortKey => (SORT_KEYS as readonly string[]).includes(value);
export const nextSortKey = (key: SortKey): SortKey => SORT_KEYS[(SORT_KEYS.indexOf(key) + 1) % SORT_KEYS.length]!;

type Row = LevelRow | FlowSchemaRow;

function measure(row: Row, key: SortKey): number {
  switch (key) {
    case 'seats':
      return row.seatsInUse;
    case 'queued':
      return row.queued;
    case 'rejected':
      return row.rejected ?? 0;
    case 'dispatched':
      return row.dispatched ?? 0;
    case 'wait':
      return row.waitP99 ?? 0;
    case 'name':
      return 0;
  }
}

const byName = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);

export function sortRows<T extends Row>(rows: readonly T[], key: SortKey): T[] {
  return [...rows].sort((a, b) => measure(b, key) - measure(a, key) || byName(a.name, b.name));
}

/** Flows have only what dump_requests tells: by seats, or waiting requests, or name. */
export function sortFlows(rows: readonly FlowRow[], key: SortKey): FlowRow[] {
  const measureFlow = (row: FlowRow) => (key === 'name' ? 0 : key === 'queued' || key === 'wait' ? row.waiting : row.seats);
  return [...rows].sort((a, b) => measureFlow(b) - measureFlow(a) || byName(a.flowSchema, b.flowSchema) || byName(a.flow, b.flow) || byName(a.level, b.level));
}
