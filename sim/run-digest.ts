// The few numbers of one run that sweeps, comparisons, the tuner and the suggestions compare across
// seeds and variants, taken from its report.

import type { RejectCounts } from './metrics.ts';
import type { SimulationReport } from './report.ts';

export interface FlowDigest {
  priorityLevel: string;
  flowSchema: string;
  /** Seats × service time the flow asked for, per second of the run (its mean seat demand). */
  demandSeats: number | null;
  arrived: number;
  dispatched: number;
  rejected: RejectCounts;
  rejectedTotal: number;
  waitP50Seconds: number | null;
  waitP99Seconds: number | null;
  latencyP50Seconds: number | null;
  latencyP99Seconds: number | null;
  seatsPerRequest: number | null;
}

export interface LevelDigest {
  nominalCL: number;
  currentCLMean: number;
  borrowingMeanSeats: number;
  rejected: RejectCounts;
  rejectedTotal: number;
  seatsInUseMean: number;
  waitingMean: number;
  /** The most seats the level borrowed at any moment (CurrentCL above NominalCL). */
  borrowingMaxSeats: number;
  /** The most seats one request of the level is charged (from its NominalCL and handSize). */
  maxSeats: number;
}

/** The modelled server's peak use; null when the scenario models neither its CPUs nor its memory. */
export interface CapacityDigest {
  /** server.cpus; null when only memory is modelled. */
  cpus: number | null;
  /** Peak CPU use over the run, as a fraction of the cores; null without server.cpus. */
  peakCpu: number | null;
  peakMemoryBytes: number;
  /** server.memory; null when unbounded. */
  memoryBytes: number | null;
}

/** The per-run numbers compared across seeds and variants. */
export interface RunDigest {
  totals: SimulationReport['totals'];
  flows: Record<string, FlowDigest>;
  levels: Record<string, LevelDigest>;
  fairness: Record<string, { jain: number | null; jainVsMaxMinFair: number | null }>;
  capacity: CapacityDigest | null;
}

export function digestOf(report: SimulationReport): RunDigest {
  return {
    totals: report.totals,
    flows: Object.fromEntries(
      Object.entries(report.flows).map(([name, f]) => [
        name,
        {
          priorityLevel: f.priorityLevel,
          flowSchema: f.flowSchema,
          demandSeats: report.fairness[f.priorityLevel]?.maxMinFair[name]?.demandSeats ?? null,
          arrived: f.arrived,
          dispatched: f.dispatched,
          rejected: f.rejected,
          rejectedTotal: f.rejectedTotal,
          waitP50Seconds: f.waitSeconds.p50,
          waitP99Seconds: f.waitSeconds.p99,
          latencyP50Seconds: f.latencySeconds.p50,
          latencyP99Seconds: f.latencySeconds.p99,
          seatsPerRequest: f.seatsPerRequest,
        },
      ]),
    ),
    levels: Object.fromEntries(
      Object.entries(report.levels).map(([name, l]) => [
        name,
        {
          nominalCL: l.nominalCL,
          currentCLMean: l.currentCL.mean,
          borrowingMeanSeats: l.borrowing.meanSeats,
          rejected: l.rejected,
          rejectedTotal: l.rejectedTotal,
          seatsInUseMean: l.seatsInUse.mean,
          waitingMean: l.waiting.mean,
          borrowingMaxSeats: l.borrowing.maxSeats,
          maxSeats: l.maxSeats,
        },
      ]),
    ),
    fairness: Object.fromEntries(Object.entries(report.fairness).map(([name, f]) => [name, { jain: f.jain, jainVsMaxMinFair: f.jainVsMaxMinFair }])),
    capacity:
      report.capacity === undefined
        ? null
        : {
            cpus: report.capacity.cpus,
            peakCpu: report.capacity.cpus === null ? null : report.capacity.peakCpu,
            peakMemoryBytes: report.capacity.peakMemoryBytes,
            memoryBytes: report.capacity.memoryBytes,
          },
  };
}
