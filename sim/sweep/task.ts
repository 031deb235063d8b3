// One sweep task: a full simulation in a worker thread. It returns report.json's exact text (the
// main thread writes it) unless asked only for the numbers, and the few numbers that sweeps,
// comparisons and the tuner aggregate. Given a directory it also writes the run's report.html and
// plots there, so rendering happens on the pool too.

import type { RejectCounts } from '../metrics.ts';
import type { AuditGrouping } from '../audit-grouping.ts';
import { reportJson, type SimulationReport } from '../report.ts';
import { writeRunOutput } from '../report/write.ts';
import { runScenario } from '../run-scenario.ts';
import type { ExtraObject } from '../scenario-load.ts';

export interface SweepTask {
  scenarioFile: string;
  seed: string;
  variant: string;
  variantFiles: string[];
  extraObjects?: ExtraObject[];
  auditLogFile?: string;
  auditGrouping?: AuditGrouping;
  /** Write report.json, report.html and plots here (the command to show in the page included). */
  write?: { dir: string; reproduce: string; plots: boolean };
  /** Simulate the report's suggestions too (report.suggestions). */
  suggestions?: boolean;
  /** Return only the digest, not report.json's text (the tuner runs thousands of these). */
  digestOnly?: boolean;
}

export type SweepTaskResult =
  | { ok: true; variant: string; seed: string; reportJson?: string; digest: RunDigest; warnings: string[] }
  | { ok: false; variant: string; seed: string; errors: string[] };

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
}

/** The per-run numbers compared across seeds and variants. */
export interface RunDigest {
  totals: SimulationReport['totals'];
  flows: Record<string, FlowDigest>;
  levels: Record<string, LevelDigest>;
  fairness: Record<string, { jain: number | null; jainVsMaxMinFair: number | null }>;
}

export async function runSweepTask(task: SweepTask): Promise<SweepTaskResult> {
  const outcome = await runScenario({
    scenarioFile: task.scenarioFile,
    seed: task.seed,
    variantFiles: task.variantFiles,
    ...(task.extraObjects === undefined ? {} : { extraObjects: task.extraObjects }),
    ...(task.auditLogFile === undefined ? {} : { auditLogFile: task.auditLogFile }),
    ...(task.auditGrouping === undefined ? {} : { auditGrouping: task.auditGrouping }),
    suggestions: task.suggestions === true,
  });
  if (!outcome.ok) return { ok: false, variant: task.variant, seed: task.seed, errors: outcome.errors };
  if (task.write !== undefined) await writeRunOutput(task.write.dir, outcome.report, task.write.reproduce, { plots: task.write.plots });
  const base = { ok: true as const, variant: task.variant, seed: task.seed, digest: digestOf(outcome.report), warnings: outcome.loaded.warnings };
  return task.digestOnly === true ? base : { ...base, reportJson: reportJson(outcome.report) };
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
        },
      ]),
    ),
    fairness: Object.fromEntries(Object.entries(report.fairness).map(([name, f]) => [name, { jain: f.jain, jainVsMaxMinFair: f.jainVsMaxMinFair }])),
  };
}
