// A hand collision at the moments a flow suffered: its requests waited behind another flow's in
// the queues of its hand while other queues of the level had nothing waiting. Read from the
// requests' own records (sim/hand-collisions.ts), never inferred from the level's totals: a level
// that is simply full queues everyone, and that is not a collision.

import type { HandCollisionRecords } from '../hand-collisions.ts';
import type { FlowReport, SimulationReport } from '../report.ts';
import type { Moments } from './moments.ts';

export interface HandCollisionFinding {
  /** The flow whose requests were ahead most often. */
  heavy: string;
  /** Other flows' requests ahead of one of the flow's requests, at most, and the heavy flow's part of all of them. */
  aheadMax: number;
  heavyShare: number;
  /** The level's queues with nothing waiting when that request joined its queue. */
  idleQueues: number;
  /** Suffering intervals in which the flow's requests waited behind others. */
  intervals: number;
}

/**
 * The collision behind the flow's suffering, or undefined: it must show in at least half of the
 * intervals it suffered in, with queues idle outside its hand, behind a flow of the same level
 * that asked for more than its max-min fair share of the level's seats while this one asked for no
 * more than its own. A flow that itself asks for more than its share queues wherever its hand is.
 */
export function handCollisionAt(
  report: SimulationReport,
  records: HandCollisionRecords | undefined,
  flow: string,
  m: Moments,
): HandCollisionFinding | undefined {
  const own = records?.get(flow);
  const f = report.flows[flow];
  if (own === undefined || f === undefined) return undefined;
  const found = m.buckets.flatMap((i) => {
    const r = own.get(i);
    return r === undefined || r.idleQueues === 0 ? [] : [r];
  });
  if (found.length === 0 || 2 * found.length < m.buckets.length) return undefined;
  const by = new Map<string, number>();
  for (const r of found) for (const [other, n] of Object.entries(r.by)) by.set(other, (by.get(other) ?? 0) + n);
  const total = [...by.values()].reduce((s, n) => s + n, 0);
  const [heavy, n] = [...by].sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1))[0]!;
  const h: FlowReport | undefined = report.flows[heavy];
  if (h === undefined || h.priorityLevel !== f.priorityLevel || h.arrived <= f.arrived) return undefined;
  const fair = report.fairness[f.priorityLevel]?.maxMinFair ?? {};
  const light = fair[flow] !== undefined && fair[flow].demandSeats <= fair[flow].fairShareSeats;
  const greedy = fair[heavy] !== undefined && fair[heavy].demandSeats > fair[heavy].fairShareSeats;
  if (!light || !greedy) return undefined;
  const worst = found.reduce((a, b) => (b.ahead > a.ahead ? b : a));
  return { heavy, aheadMax: worst.ahead, heavyShare: total > 0 ? n / total : 0, idleQueues: worst.idleQueues, intervals: found.length };
}
