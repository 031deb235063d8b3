// One simulation from files: load the scenario (plus any variant manifests and audit log), run it
// with a seed, build the report. The CLI's `sim run` and every sweep worker call this same
// function, which is why a seed's report.json is byte-identical whichever way it was produced.

import { readAuditLog, type AuditLog } from '../audit-log.ts';
import type { AuditGrouping } from '../audit-grouping.ts';
import { auditObjectCountWarnings } from '../object-count-check.ts';
import { buildReport, type SimulationReport } from '../report.ts';
import { explain } from '../explain/explain.ts';
import { suggest } from '../explain/suggest.ts';
import { loadScenarioFile, type ExtraObject, type LoadedScenario } from '../scenario-load.ts';
import { runSimulation, type SimulationResult } from '../simulation.ts';

export interface RunRequest {
  scenarioFile: string;
  seed: string;
  /** Manifest files applied over the scenario's configuration (a "what if" variant). */
  variantFiles?: readonly string[];
  /** Manifests applied over the variant files (a tuning candidate or a suggestion). */
  extraObjects?: readonly ExtraObject[] | undefined;
  auditLogFile?: string | undefined;
  auditGrouping?: AuditGrouping | undefined;
  /** Also simulate the remedies the explanations suggest, with the same seed (report.suggestions). */
  suggestions?: boolean;
  /** Do not simulate when loading produced warnings (`--strict`); the outcome then carries them. */
  stopOnWarnings?: boolean;
  onProgress?: ((simulatedMs: number, durationMs: number) => void) | undefined;
}

export type RunOutcome =
  | { ok: true; report: SimulationReport; result: SimulationResult; loaded: LoadedScenario }
  | { ok: false; errors: string[]; warnings?: string[] };

export async function loadRunInputs(request: RunRequest): Promise<{ ok: true; loaded: LoadedScenario; auditLog?: AuditLog } | { ok: false; errors: string[] }> {
  const load = await loadScenarioFile(request.scenarioFile, { extraFiles: request.variantFiles ?? [], extraObjects: request.extraObjects ?? [] });
  if (!load.ok) return load;
  if (request.auditLogFile === undefined) return { ok: true, loaded: load.loaded };
  const auditLog = await readAuditLog(request.auditLogFile);
  if (auditLog.errors.length > 0) return { ok: false, errors: auditLog.errors };
  const loaded = { ...load.loaded, warnings: [...load.loaded.warnings, ...auditObjectCountWarnings(load.loaded.scenario, auditLog)] };
  return { ok: true, loaded, auditLog };
}

export async function runScenario(request: RunRequest): Promise<RunOutcome> {
  const inputs = await loadRunInputs(request);
  if (!inputs.ok) return inputs;
  if (request.stopOnWarnings === true && inputs.loaded.warnings.length > 0) return { ok: false, errors: [], warnings: inputs.loaded.warnings };
  const result = runSimulation({
    loaded: inputs.loaded,
    seed: request.seed,
    auditLog: inputs.auditLog,
    auditGrouping: request.auditGrouping,
    onProgress: request.onProgress,
  });
  const report = buildReport(result);
  const explanations = explain(report, inputs.loaded.scenario, inputs.loaded.config, result.handCollisions);
  report.explanations = explanations.map(({ flow, level, text }) => ({ flow, level, text }));
  if (request.suggestions === true) {
    report.suggestions = await suggest({
      scenarioFile: request.scenarioFile,
      variantFiles: request.variantFiles ?? [],
      seed: request.seed,
      loaded: inputs.loaded,
      report,
      explanations,
      auditLog: inputs.auditLog,
      auditGrouping: request.auditGrouping,
    });
  }
  return { ok: true, report, result, loaded: inputs.loaded };
}
