// One sweep task: a full simulation in a worker thread. It returns report.json's exact text (the
// main thread writes it) and the few numbers the sweep summary aggregates.

import { reportJson, type SimulationReport } from '../report.ts';
import { runScenario } from '../run-scenario.ts';

export interface SweepTask {
  scenarioFile: string;
  seed: string;
  variant: string;
  variantFiles: string[];
  auditLogFile?: string;
}

export type SweepTaskResult =
  | { ok: true; variant: string; seed: string; reportJson: string; digest: RunDigest }
  | { ok: false; variant: string; seed: string; errors: string[] };

/** The per-run numbers a sweep compares across seeds and variants. */
export interface RunDigest {
  totals: SimulationReport['totals'];
  flows: Record<string, { arrived: number; dispatched: number; rejectedTotal: number; waitP99Seconds: number | null; latencyP99Seconds: number | null }>;
  levels: Record<string, { currentCLMean: number; rejectedTotal: number; seatsInUseMean: number }>;
  fairness: Record<string, { jain: number | null; jainVsMaxMinFair: number | null }>;
}

export async function runSweepTask(task: SweepTask): Promise<SweepTaskResult> {
  const outcome = await runScenario({
    scenarioFile: task.scenarioFile,
    seed: task.seed,
    variantFiles: task.variantFiles,
    ...(task.auditLogFile === undefined ? {} : { auditLogFile: task.auditLogFile }),
  });
  if (!outcome.ok) return { ok: false, variant: task.variant, seed: task.seed, errors: outcome.errors };
  return { ok: true, variant: task.variant, seed: task.seed, reportJson: reportJson(outcome.report), digest: digestOf(outcome.report) };
}

export function digestOf(report: SimulationReport): RunDigest {
  return {
    totals: report.totals,
    flows: Object.fromEntries(
      Object.entries(report.flows).map(([name, f]) => [
        name,
        { arrived: f.arrived, dispatched: f.dispatched, rejectedTotal: f.rejectedTotal, waitP99Seconds: f.waitSeconds.p99, latencyP99Seconds: f.latencySeconds.p99 },
      ]),
    ),
    levels: Object.fromEntries(
      Object.entries(report.levels).map(([name, l]) => [name, { currentCLMean: l.currentCL.mean, rejectedTotal: l.rejectedTotal, seatsInUseMean: l.seatsInUse.mean }]),
    ),
    fairness: Object.fromEntries(Object.entries(report.fairness).map(([name, f]) => [name, { jain: f.jain, jainVsMaxMinFair: f.jainVsMaxMinFair }])),
  };
}
