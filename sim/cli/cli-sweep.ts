// `fairway sim sweep SCENARIO --seeds 1..50 --workers K --out DIR [--variant FILE]...`: the same
// scenario over many seeds (and configuration variants), in parallel on Piscina worker threads.
// Writes DIR/<variant>/seed-<seed>/{report.json,report.html} for every run (report.json
// byte-identical to `sim run` with that seed), DIR/summary.json and DIR/summary.html.

import { writeFile } from 'node:fs/promises';
import { availableParallelism } from 'node:os';
import { join } from 'node:path';
import { parseCommandLine, processOutput, type Command, type CommandSpec, type Output } from '../../cli/command.ts';
import { flag } from '../../cli/flag-table.ts';
import { renderSvg } from '../report/plots.ts';
import { runSweep } from '../sweep/sweep.ts';
import { summarizeVariant, summaryHtml, waitStripSpec, type SweepSummary } from '../sweep/summary.ts';
import { checkVariants, variantNames } from '../sweep/variants.ts';
import type { SweepTask } from '../sweep/task.ts';
import { reproduceCommand } from '../run/reproduce-command.ts';
import { nonEmpty, RUN_FLAGS, runOptions, SCENARIO_ARGUMENT, SEEDS_FLAGS, VARIANT_FLAG } from './cli-args.ts';
import { createProgress } from '../progress.ts';

const SIM_SWEEP_FLAGS = {
  ...RUN_FLAGS,
  ...SEEDS_FLAGS,
  seeds: { ...SEEDS_FLAGS.seeds, required: '--seeds is required (e.g. --seeds 1..50)' },
  out: flag('string', 'out', '', 'output directory', { valueName: 'DIR', defaultText: 'sim-results/<scenario name>/sweep', validate: nonEmpty }),
  variant: {
    ...VARIANT_FLAG,
    description:
      "a configuration variant: manifests applied over the scenario's configuration; repeatable, each file is one variant run next to the unchanged " +
      '"baseline"',
  },
};

export const SIM_SWEEP_COMMAND: CommandSpec<typeof SIM_SWEEP_FLAGS> = {
  path: 'fairway sim sweep',
  usage: 'fairway sim sweep SCENARIO --seeds LIST [flags]',
  description: `Runs the scenario once per seed (and per configuration variant) on worker threads and writes
DIR/<variant>/seed-<seed>/report.json and report.html for every run, DIR/summary.json and
DIR/summary.html. A run's report.json is byte-identical to 'fairway sim run SCENARIO --seed <seed>'.`,
  flags: SIM_SWEEP_FLAGS,
  positionals: SCENARIO_ARGUMENT,
  epilogue: `Exit status: 0 when every run succeeded, 1 if inputs are invalid (or warn, with --strict) or any
run failed, 2 for usage errors.`,
};

export const simSweepCommand: Command = {
  spec: SIM_SWEEP_COMMAND,
  run: (args) => runSimSweep(args, processOutput),
};

export async function runSimSweep(args: string[], output: Output): Promise<number> {
  const command = parseCommandLine(SIM_SWEEP_COMMAND, args, output);
  if ('exitCode' in command) return command.exitCode;
  const { values } = command;
  const scenarioFile = command.positionals[0]!;
  const options = runOptions(values, availableParallelism());
  const { seedsText, workers, auditLogFile, auditGrouping: groupBy, plots } = options;
  const seeds = { seeds: options.seeds };
  const variants = variantNames(values.variant);

  output.stdout(`SEEDS=${seedsText}\n`);
  // Check every input once, up front, so a typo fails in a second rather than in 50 workers.
  const checked = await checkVariants({ command: 'sim sweep', scenarioFile, variants, auditLogFile, strict: options.strict, output });
  if (checked === undefined) return 1;
  const scenarioName = checked.scenario.name;
  output.stdout(
    `SCENARIO=${scenarioFile} NAME=${scenarioName} DURATION=${checked.scenario.durationMs / 1000}s FLOWS=${checked.scenario.flows.length} RUNS=` +
      `${seeds.seeds.length * variants.length} WORKERS=${workers}\n`,
  );

  const outDir = values.out === '' ? `sim-results/${scenarioName}/sweep` : values.out;
  const tasks: SweepTask[] = variants.flatMap((variant) =>
    seeds.seeds.map((seed) => ({
      scenarioFile,
      seed,
      variant: variant.name,
      variantFiles: variant.files,
      auditLogFile,
      auditGrouping: groupBy,
      write: {
        dir: join(outDir, variant.name, `seed-${seed}`),
        reproduce: reproduceCommand({ scenarioFile, seed, variantFiles: variant.files, auditLogFile, auditGrouping: groupBy }),
        plots,
      },
      suggestions: options.suggestions,
      digestOnly: true,
    })),
  );
  const progress = createProgress();
  const startMs = performance.now();
  const results = await runSweep(tasks, { workers, onTaskDone: (done, total) => progress.update(done / total, `${done}/${total} runs`) });
  progress.done();
  const wallSeconds = (performance.now() - startMs) / 1000;

  const summary: SweepSummary = { kind: 'SimulationSweep', version: 1, scenario: scenarioName, seeds: seeds.seeds, variants: {}, runs: [] };
  for (const variant of variants) {
    summary.variants[variant.name] = { files: variant.files, ...summarizeVariant(results.filter((r) => r.variant === variant.name)) };
  }
  let failed = 0;
  for (const result of results) {
    if (!result.ok) {
      failed++;
      summary.runs.push({ variant: result.variant, seed: result.seed, ok: false, errors: result.errors });
      output.stderr(`SEED=${result.seed} variant ${result.variant} failed:\n${result.errors.join('\n')}\n`);
      continue;
    }
    const dir = join(result.variant, `seed-${result.seed}`);
    summary.runs.push({
      variant: result.variant,
      seed: result.seed,
      ok: true,
      report: join(dir, 'report.json'),
      html: join(dir, 'report.html'),
      totals: result.digest.totals,
    });
  }
  await writeFile(join(outDir, 'summary.json'), `${JSON.stringify(summary, null, 2)}\n`);
  const spec = waitStripSpec(results);
  await writeFile(join(outDir, 'summary.html'), summaryHtml(summary, spec === undefined ? undefined : await renderSvg(spec)));
  output.stdout(
    `ran ${results.length} simulations on ${workers} worker${workers === 1 ? '' : 's'} in ${wallSeconds.toFixed(2)} s` +
      `${failed > 0 ? `, ${failed} FAILED` : ''}\n`,
  );
  output.stdout(`wrote ${join(outDir, 'summary.json')}, ${join(outDir, 'summary.html')} and ${results.length - failed} reports under ${outDir}\n`);
  return failed > 0 ? 1 : 0;
}
