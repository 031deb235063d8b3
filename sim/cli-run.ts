// `fairway sim run SCENARIO --seed N --out DIR`: one deterministic simulation, written as
// report.json, report.html and SVG plots. The first line of output is `SEED=<seed>`, so any run,
// seeded or not, can be replayed byte for byte.

import { randomInt } from 'node:crypto';
import type { Command } from '../api/cli/main.ts';
import { runScenario } from './run-scenario.ts';
import { parseSeed } from './seed.ts';
import { writeRunOutput } from './report/write.ts';
import { parseScenarioCommand, reportWarnings, reproduceCommand, RUN_FLAGS } from './cli-args.ts';
import { AUDIT_GROUPINGS, isAuditGrouping } from './audit-grouping.ts';
import { createProgress } from './progress.ts';

const USAGE = `Usage: fairway sim run SCENARIO [flags]

Runs the scenario through the real APF engine on a virtual clock and writes DIR/report.json,
DIR/report.html and DIR/plots/*.svg. The same scenario and seed always give the same report.json.

Flags:
  --seed N            decimal integer or 40 hex digits (e.g. a commit hash); random if omitted
  --out DIR           output directory (default sim-results/<scenario name>/seed-<seed>)
  --audit-log FILE    also replay Kubernetes audit events (JSON lines) through the configuration
  --group-by G        how replayed requests form flows: ${AUDIT_GROUPINGS.join(', ')}
                      (default user+flowschema)
  --variant FILE      apply these PriorityLevelConfiguration/FlowSchema manifests over the
                      scenario's configuration (repeatable)
  --no-plots          skip the SVG plots (report.html then has tables only)
  --no-suggestions    do not simulate the remedies the report suggests (faster)
  --strict            treat warnings (an edit the ensurer undoes, a LIST with no object count,
                      a FlowSchema naming a missing level, ...) as errors
  -h, --help          show this help

Exit status: 0 on success, 1 if the scenario, a manifest or the audit log is invalid (or warns,
with --strict), 2 for usage errors. See docs/simulator.md for the scenario format.
`;

export interface Output {
  stdout(text: string): void;
  stderr(text: string): void;
}

export const simRunCommand: Command = {
  run: (args) => runSimRun(args, { stdout: (t) => process.stdout.write(t), stderr: (t) => process.stderr.write(t) }),
};

export async function runSimRun(args: string[], output: Output): Promise<number> {
  const command = parseScenarioCommand('sim run', args, {
    ...RUN_FLAGS,
    seed: { value: true },
    out: { value: true },
    variant: { value: true, repeatable: true },
  }, USAGE, output);
  if ('exitCode' in command) return command.exitCode;
  const { parsed, scenarioFile, usage } = command;
  const seedText = parsed.values.get('seed')?.[0] ?? String(randomInt(0, 2 ** 31));
  const seed = parseSeed(seedText);
  if (!seed.ok) return usage(seed.message);
  const variantFiles = parsed.values.get('variant') ?? [];
  const auditLogFile = parsed.values.get('audit-log')?.[0];
  const groupBy = parsed.values.get('group-by')?.[0];
  if (groupBy !== undefined && !isAuditGrouping(groupBy)) return usage(`--group-by must be one of ${AUDIT_GROUPINGS.join(', ')}, got ${JSON.stringify(groupBy)}`);
  const strict = parsed.switches.has('strict');

  // Like TigerBeetle's VOPR: the seed first, before anything can fail, so every run can be replayed.
  output.stdout(`SEED=${seed.seed}\n`);
  const progress = createProgress();
  const startMs = performance.now();
  const outcome = await runScenario({
    scenarioFile,
    seed: seed.seed,
    variantFiles,
    ...(auditLogFile === undefined ? {} : { auditLogFile }),
    ...(groupBy === undefined ? {} : { auditGrouping: groupBy }),
    suggestions: !parsed.switches.has('no-suggestions'),
    // With --strict nothing is simulated when loading warns.
    ...(strict ? { stopOnWarnings: true } : {}),
    onProgress: (simulatedMs, durationMs) => progress.update(simulatedMs / durationMs, `${(simulatedMs / 1000).toFixed(0)}s / ${(durationMs / 1000).toFixed(0)}s simulated`),
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
    `SCENARIO=${scenarioFile} NAME=${s.name} DURATION=${s.durationSeconds}s FLOWS=${Object.keys(report.flows).length} SERVER_CL=${s.server.serverConcurrencyLimit} BOOTSTRAP=${s.bootstrap}` +
      `${variantFiles.length > 0 ? ` VARIANTS=${variantFiles.join(',')}` : ''}${auditLogFile === undefined ? '' : ` AUDIT_LOG=${auditLogFile}`}\n`,
  );
  reportWarnings(loaded.warnings, false, 'sim run', output);

  const t = report.totals;
  output.stdout(
    `simulated ${t.arrived} requests (${t.simulatedEvents} events) in ${wallSeconds.toFixed(2)} s of wall time (${Math.round(t.arrived / Math.max(wallSeconds, 1e-6))} requests/s): ` +
      `${t.dispatched} dispatched, ${t.rejectedTotal} rejected (queue-full ${t.rejected['queue-full']}, time-out ${t.rejected['time-out']}, concurrency-limit ${t.rejected['concurrency-limit']}), ${t.waitingAtEnd} still queued\n`,
  );
  const outDir = parsed.values.get('out')?.[0] ?? `sim-results/${s.name}/seed-${seed.seed}`;
  const reproduce = reproduceCommand({ scenarioFile, seed: seed.seed, variantFiles, auditLogFile, auditGrouping: groupBy });
  const written = await writeRunOutput(outDir, report, reproduce, { plots: !parsed.switches.has('no-plots') });
  output.stdout(`wrote ${written.reportJson}, ${written.reportHtml}${written.plots.length > 0 ? ` and ${written.plots.length} plots in ${outDir}/plots` : ''}\n`);
  return 0;
}
