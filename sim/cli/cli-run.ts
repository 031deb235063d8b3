// `fairway sim run SCENARIO --seed N --out DIR`: one deterministic simulation, written as
// report.json, report.html and SVG plots. The first line of output is `SEED=<seed>`, so any run,
// seeded or not, can be replayed byte for byte.

import { randomInt } from 'node:crypto';
import { parseCommandLine, processOutput, type Command, type CommandSpec, type Output } from '../../cli/command.ts';
import { flag } from '../../cli/flag-table.ts';
import { runScenario } from '../run/run-scenario.ts';
import { parseSeed } from '../seed.ts';
import { writeRunOutput } from '../report/write.ts';
import { nonEmpty, RUN_FLAGS, SCENARIO_ARGUMENT, seedValue, VARIANT_FLAG } from './cli-args.ts';
import { reproduceCommand } from '../run/reproduce-command.ts';
import { reportWarnings } from '../run/scenario-warnings.ts';
import type { AuditGrouping } from '../audit-grouping.ts';
import { createProgress } from '../progress.ts';

const SIM_RUN_FLAGS = {
  ...RUN_FLAGS,
  seed: flag('string', 'seed', '', 'decimal integer or 40 hex digits (e.g. a commit hash)', { valueName: 'N', defaultText: 'random', validate: seedValue }),
  out: flag('string', 'out', '', 'output directory', { valueName: 'DIR', defaultText: 'sim-results/<scenario name>/seed-<seed>', validate: nonEmpty }),
  noPlots: { ...RUN_FLAGS.noPlots, description: 'skip the SVG plots (report.html then has tables only)' },
  variant: VARIANT_FLAG,
};

export const SIM_RUN_COMMAND: CommandSpec<typeof SIM_RUN_FLAGS> = {
  path: 'fairway sim run',
  usage: 'fairway sim run SCENARIO [flags]',
  description: `Runs the scenario through the real APF engine on a virtual clock and writes DIR/report.json,
DIR/report.html and DIR/plots/*.svg. The same scenario and seed always give the same report.json.`,
  flags: SIM_RUN_FLAGS,
  positionals: SCENARIO_ARGUMENT,
  epilogue: `Exit status: 0 on success, 1 if the scenario, a manifest or the audit log is invalid (or warns,
with --strict), 2 for usage errors. See docs/simulator.md for the scenario format.`,
};

export const simRunCommand: Command = {
  spec: SIM_RUN_COMMAND,
  run: (args) => runSimRun(args, processOutput),
};

export async function runSimRun(args: string[], output: Output): Promise<number> {
  const command = parseCommandLine(SIM_RUN_COMMAND, args, output);
  if ('exitCode' in command) return command.exitCode;
  const { values } = command;
  const scenarioFile = command.positionals[0]!;
  const seed = parseSeed(values.seed === '' ? String(randomInt(0, 2 ** 31)) : values.seed);
  if (!seed.ok) return command.usageError(seed.message);
  const variantFiles = values.variant;
  const auditLogFile = values.auditLog === '' ? undefined : values.auditLog;
  const groupBy = values.groupBy === '' ? undefined : (values.groupBy as AuditGrouping);
  const strict = values.strict;

  // Like TigerBeetle's VOPR: the seed first, before anything can fail, so every run can be replayed.
  output.stdout(`SEED=${seed.seed}\n`);
  const progress = createProgress();
  const startMs = performance.now();
  const outcome = await runScenario({
    scenarioFile,
    seed: seed.seed,
    variantFiles,
    auditLogFile,
    auditGrouping: groupBy,
    suggestions: !values.noSuggestions,
    // With --strict nothing is simulated when loading warns.
    stopOnWarnings: strict,
    onProgress: (simulatedMs, durationMs) =>
      progress.update(simulatedMs / durationMs, `${(simulatedMs / 1000).toFixed(0)}s / ${(durationMs / 1000).toFixed(0)}s simulated`),
  });
  progress.done();
  if (!outcome.ok && outcome.warnings !== undefined) {
    reportWarnings(outcome.warnings, true, 'sim run', output);
    return 1;
  }
  if (!outcome.ok) {
    for (const error of outcome.errors) output.stderr(`${error}\n`);
    output.stderr(`fairway sim run: ${outcome.errors.length} error${outcome.errors.length === 1 ? '' : 's'}; nothing was simulated\n`);
    return 1;
  }
  const wallSeconds = (performance.now() - startMs) / 1000;
  const { report, loaded } = outcome;
  const s = report.scenario;
  output.stdout(
    `SCENARIO=${scenarioFile} NAME=${s.name} DURATION=${s.durationSeconds}s FLOWS=${Object.keys(report.flows).length} SERVER_CL=` +
      `${s.server.serverConcurrencyLimit} BOOTSTRAP=${s.bootstrap}` +
      `${variantFiles.length > 0 ? ` VARIANTS=${variantFiles.join(',')}` : ''}${auditLogFile === undefined ? '' : ` AUDIT_LOG=${auditLogFile}`}\n`,
  );
  reportWarnings(loaded.warnings, false, 'sim run', output);

  const t = report.totals;
  output.stdout(
    `simulated ${t.arrived} requests (${t.simulatedEvents} events) in ${wallSeconds.toFixed(2)} s of wall time (` +
      `${Math.round(t.arrived / Math.max(wallSeconds, 1e-6))} requests/s): ` +
      `${t.dispatched} dispatched, ${t.rejectedTotal} rejected (queue-full ${t.rejected['queue-full']}, time-out ${t.rejected['time-out']}, ` +
      `concurrency-limit ${t.rejected['concurrency-limit']}), ${t.waitingAtEnd} still queued\n`,
  );
  const outDir = values.out === '' ? `sim-results/${s.name}/seed-${seed.seed}` : values.out;
  const reproduce = reproduceCommand({ scenarioFile, seed: seed.seed, variantFiles, auditLogFile, auditGrouping: groupBy });
  const written = await writeRunOutput(outDir, report, reproduce, { plots: !values.noPlots });
  output.stdout(
    `wrote ${written.reportJson}, ${written.reportHtml}${written.plots.length > 0 ? ` and ${written.plots.length} plots in ${outDir}/plots` : ''}\n`,
  );
  return 0;
}
