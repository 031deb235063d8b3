// One sweep task: a full simulation in a worker thread. It returns report.json's exact text (the
// main thread writes it) unless asked only for the numbers, and the few numbers that sweeps,
// comparisons and the tuner aggregate. Given a directory it also writes the run's report.html and
// plots there, so rendering happens on the pool too.

import type { AuditGrouping } from '../audit-grouping.ts';
import { reportJson } from '../report.ts';
import { writeRunOutput } from '../report/write.ts';
import { runScenario } from '../run/run-scenario.ts';
import { digestOf, type RunDigest } from '../run-digest.ts';
import type { ExtraObject } from '../scenario-load.ts';

export interface SweepTask {
  scenarioFile: string;
  seed: string;
  variant: string;
  variantFiles: string[];
  extraObjects?: ExtraObject[] | undefined;
  auditLogFile?: string | undefined;
  auditGrouping?: AuditGrouping | undefined;
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

export async function runSweepTask(task: SweepTask): Promise<SweepTaskResult> {
  const outcome = await runScenario({
    scenarioFile: task.scenarioFile,
    seed: task.seed,
    variantFiles: task.variantFiles,
    extraObjects: task.extraObjects,
    auditLogFile: task.auditLogFile,
    auditGrouping: task.auditGrouping,
    suggestions: task.suggestions === true,
  });
  if (!outcome.ok) return { ok: false, variant: task.variant, seed: task.seed, errors: outcome.errors };
  if (task.write !== undefined) await writeRunOutput(task.write.dir, outcome.report, task.write.reproduce, { plots: task.write.plots });
  const base = { ok: true as const, variant: task.variant, seed: task.seed, digest: digestOf(outcome.report), warnings: outcome.loaded.warnings };
  return task.digestOnly === true ? base : { ...base, reportJson: reportJson(outcome.report) };
}
