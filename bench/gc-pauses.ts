// The server's GC pauses in a window, from bench/gc-log.mjs's lines, by kind (minor, major,
// incremental, weakcb as /metrics labels them): how many, how long in all, their median, p99 and
// maximum, and the mean interval between them. sim-vs-serve prints them beside the latencies and
// gives them to the simulator as `server.pauses` (docs/simulator.md, "The main thread").

import { gcKindLabel } from '../api/metrics/gc-metrics.ts';

export interface GcPause {
  /** Start, ms since the epoch. */
  startMs: number;
  durationMs: number;
  kind: string;
}

export interface PauseStats {
  count: number;
  totalMs: number;
  p50Ms: number;
  p99Ms: number;
  maxMs: number;
  /** The window's length over the count: the mean interval between pause starts. */
  everyMs: number;
  /** Every pause's length, shortest first. */
  sortedMs: number[];
}

/** The log's pauses; a line that does not parse (a write cut short by the process' end) is left out. */
export function parseGcLog(text: string): GcPause[] {
  const pauses: GcPause[] = [];
  for (const line of text.split('\n')) {
    const [start, duration, type] = line.trim().split(' ').map(Number);
    if (start === undefined || duration === undefined || type === undefined || !(Number.isFinite(start) && duration >= 0)) continue;
    pauses.push({ startMs: start, durationMs: duration, kind: gcKindLabel(type) ?? 'other' });
  }
  return pauses;
}

/** The pauses that started in [fromMs, toMs), by kind (kinds in order of first appearance), and `all`. */
export function pauseStatsByKind(pauses: readonly GcPause[], fromMs: number, toMs: number): Record<string, PauseStats> {
  const inWindow = pauses.filter((p) => p.startMs >= fromMs && p.startMs < toMs);
  const byKind = new Map<string, number[]>();
  for (const p of inWindow) {
    const list = byKind.get(p.kind) ?? [];
    list.push(p.durationMs);
    byKind.set(p.kind, list);
  }
  const out: Record<string, PauseStats> = {};
  for (const [kind, durations] of byKind) out[kind] = pauseStats(durations, toMs - fromMs);
  out.all = pauseStats(
    inWindow.map((p) => p.durationMs),
    toMs - fromMs,
  );
  return out;
}

/** Pauses of a window `windowMs` long; nearest-rank quantiles, as the bench's latencies. */
export function pauseStats(durations: number[], windowMs: number): PauseStats {
  const sorted = [...durations].sort((a, b) => a - b);
  const at = (q: number) => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? 0;
  return {
    count: sorted.length,
    totalMs: sorted.reduce((sum, d) => sum + d, 0),
    p50Ms: at(0.5),
    p99Ms: at(0.99),
    maxMs: sorted[sorted.length - 1] ?? 0,
    everyMs: sorted.length === 0 ? Number.POSITIVE_INFINITY : windowMs / sorted.length,
    sortedMs: sorted,
  };
}
