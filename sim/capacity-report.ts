// The capacity and replica parts of report.json (docs/simulator.md, "report.json"): present only
// when the scenario models them, so every report of a scenario without them keeps its bytes.

import type { CapacityMetrics } from './capacity-metrics.ts';
import type { LevelMetrics, RejectCounts } from './metrics.ts';
import type { ReplicaResult, SimulationResult } from './simulation.ts';

export interface CapacityReport {
  /** Cores of each replica; null when only memory is modelled. */
  cpus: number | null;
  /** Peak CPU demand ÷ cores (worst replica): above 1 every running request ran that much slower. */
  peakCpu: number;
  /** Mean share of the cores busy (worst replica). */
  meanCpuBusy: number;
  /** Time the demand exceeded the cores (worst replica). */
  overloadedSeconds: number;
  peakMemoryBytes: number;
  /** server.memory; null when unbounded. */
  memoryBytes: number | null;
  /** When a replica's LIST responses in flight first exceeded server.memory; null if never. */
  outOfMemoryAtSeconds: number | null;
  outOfMemorySeconds: number;
}

export interface CapacitySeries {
  cpuBusyMean: number[];
  cpuDemandMax: number[];
  memoryBytesMax: number[];
}

export interface ReplicaReport {
  name: string;
  clients: Record<string, number>;
  capacity: CapacityReport | null;
  levels: Record<
    string,
    { nominalCL: number; currentCLMean: number; seatsInUseMean: number; seatsInUseMax: number; waitingMax: number; dispatched: number; rejectedTotal: number }
  >;
}

type Round = (value: number, digits?: number) => number;

function capacityOf(metrics: readonly CapacityMetrics[], durationMs: number, round: Round): CapacityReport | null {
  if (metrics.length === 0) return null;
  const worst = (pick: (m: CapacityMetrics) => number) => Math.max(...metrics.map(pick));
  const oom = metrics.flatMap((m) => (m.outOfMemoryAtMs === undefined ? [] : [m.outOfMemoryAtMs]));
  const cpus = metrics[0]!.cpus;
  return {
    cpus: Number.isFinite(cpus) ? cpus : null,
    peakCpu: round(
      worst((m) => m.peakCpu),
      4,
    ),
    meanCpuBusy: round(
      worst((m) => m.meanBusy(durationMs)),
      4,
    ),
    overloadedSeconds: round(worst((m) => m.overloadedMs) / 1000),
    peakMemoryBytes: worst((m) => m.peakMemoryBytes),
    memoryBytes: metrics[0]!.memoryLimitBytes,
    outOfMemoryAtSeconds: oom.length === 0 ? null : round(Math.min(...oom) / 1000),
    outOfMemorySeconds: round(worst((m) => m.outOfMemoryMs) / 1000),
  };
}

const rejectedOf = (r: RejectCounts) => r['queue-full'] + r['time-out'] + r['concurrency-limit'];

function replicaLevels(levels: readonly LevelMetrics[], durationMs: number, round: Round): ReplicaReport['levels'] {
  return Object.fromEntries(
    levels.map((l) => {
      const means = l.means(durationMs);
      return [
        l.name,
        {
          nominalCL: l.limits?.nominalCL ?? 0,
          currentCLMean: round(means.currentCL, 3),
          seatsInUseMean: round(means.seatsInUse, 3),
          seatsInUseMax: l.seatsInUseMax,
          waitingMax: l.waitingMax,
          dispatched: l.dispatched,
          rejectedTotal: rejectedOf(l.rejected),
        },
      ];
    }),
  );
}

/** report.capacity, series.capacity and report.replicas, each undefined when not modelled. */
export function capacityParts(
  result: SimulationResult,
  round: Round,
): { capacity?: CapacityReport; series?: Record<string, CapacitySeries>; replicas?: ReplicaReport[] } {
  const modelled = result.replicas.flatMap((r) => (r.capacity === null ? [] : [r.capacity]));
  const parts: ReturnType<typeof capacityParts> = {};
  const capacity = capacityOf(modelled, result.durationMs, round);
  if (capacity !== null) {
    parts.capacity = capacity;
    parts.series = Object.fromEntries(
      result.replicas.flatMap((r: ReplicaResult) =>
        r.capacity === null
          ? []
          : [
              [
                r.name,
                {
                  cpuBusyMean: r.capacity.series.cpuBusyMean.map((v) => round(v, 4)),
                  cpuDemandMax: r.capacity.series.cpuDemandMax.map((v) => round(v, 4)),
                  memoryBytesMax: [...r.capacity.series.memoryBytesMax],
                },
              ],
            ],
      ),
    );
  }
  if (result.replicas.length > 1)
    parts.replicas = result.replicas.map((r) => ({
      name: r.name,
      clients: r.clients,
      capacity: capacityOf(r.capacity === null ? [] : [r.capacity], result.durationMs, round),
      levels: replicaLevels(r.levels, result.durationMs, round),
    }));
  return parts;
}
