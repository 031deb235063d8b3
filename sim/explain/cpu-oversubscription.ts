// The server's CPUs at the moments a flow suffered (the capacity model, sim/shared-cpu.ts): when
// more CPU work ran than there were cores, every executing request ran that much slower and held
// its seats that much longer. That is the server's capacity, not APF's queueing, and the remedy
// differs: more seats would put more work on the same cores.

import type { SimulationReport } from '../report.ts';
import { fmtInt } from '../report/format.ts';

export interface CpuAtMoments {
  /** Peak CPU demand ÷ cores in those intervals (the busiest replica). */
  peak: number;
  cpus: number;
  /** Intervals with demand above the cores, of `of`. */
  overloaded: number;
  of: number;
}

export function cpuAt(report: SimulationReport, buckets: readonly number[]): CpuAtMoments | undefined {
  const cpus = report.scenario.server.cpus;
  const series = Object.values(report.series.capacity ?? {});
  if (cpus === undefined || series.length === 0 || buckets.length === 0) return undefined;
  const demand = (i: number) => Math.max(...series.map((s) => s.cpuDemandMax[i] ?? 0));
  const overloaded = buckets.filter((i) => demand(i) > 1).length;
  if (overloaded === 0) return undefined;
  return { peak: Math.max(...buckets.map(demand)), cpus, overloaded, of: buckets.length };
}

/** " The server's CPUs were oversubscribed then: …", or '' when they were not. */
export function cpuClause(report: SimulationReport, buckets: readonly number[]): string {
  const c = cpuAt(report, buckets);
  if (c === undefined) return '';
  const replicas = (report.scenario.server.replicas ?? 1) > 1 ? ' (the busiest replica)' : '';
  return (
    ` The server's CPUs were oversubscribed then: CPU demand reached ${fmtInt(Math.round(100 * c.peak))}% of its ${c.cpus} cores${replicas} ` +
    `in ${c.overloaded} of those ${c.of} intervals, so every executing request ran up to ${Number(c.peak.toFixed(2))}× slower (processor ` +
    'sharing) and held its seats that much longer. That is the server running out of CPU, not APF queueing: more seats would put more ' +
    'work on the same cores; fewer heavy requests at once (paginated LISTs, a level of their own with fewer seats) or more cores would help.'
  );
}
