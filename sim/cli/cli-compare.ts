// `fairway sim compare SCENARIO --variant FILE... [--seeds LIST] --out DIR`: the baseline and
// each variant over the same seeds, every run's report written, and one page saying per flow and
// per level what got better, what got worse, and what stayed within seed noise.

import { writeFile } from 'node:fs/promises';
import { availableParallelism } from 'node:os';
import { join } from 'node:path';
import { parseCommandLine, processOutput, type Command, type CommandSpec, type Output } from '../../cli/command.ts';
import { flag } from '../../cli/flag-table.ts';
import { nonEmpty, RUN_FLAGS, runOptions, SCENARIO_ARGUMENT, SEEDS_FLAGS, VARIANT_FLAG } from './cli-args.ts';
import { compareHtml, variantSummary } from '../compare/compare-html.ts';
import { comparePlotsHtml } from '../compare/compare-plots.ts';
import { runComparison } from '../compare/run-comparison.ts';
import { createProgress } from '../progress.ts';
import { checkVariants, variantNames } from '../sweep/variants.ts';

export const DEFAULT_COMPARE_SEEDS = '1..5';

const SIM_COMPARE_FLAGS = {
  ...RUN_FLAGS,
  ...SEEDS_FLAGS,
  seeds: { ...SEEDS_FLAGS.seeds, default: DEFAULT_COMPARE_SEEDS },
  out: flag('string', 'out', '', 'output directory', { valueName: 'DIR', required: '--out DIR is required', validate: nonEmpty }),
  variant: { ...VARIANT_FLAG, required: 'give at least one --variant FILE to compare with the baseline' },
};

export const SIM_COMPARE_COMMAND: CommandSpec<typeof SIM_COMPARE_FLAGS> = {
  path: 'fairway sim compare',
  usage: 'fairway sim compare SCENARIO --variant FILE... --out DIR [flags]',
  description: `Runs the scenario's configuration ("baseline") and each variant over the same seeds and writes
DIR/compare.json and DIR/compare.html: per flow and per level, baseline vs each variant side by
side (rejections by reason, wait and latency p50/p99, seats, NominalCL/CurrentCL and borrowing),
the difference, the spread across seeds and a verdict (better, worse, within seed noise), winners
and losers first. Every run's report.json and report.html are under DIR/<variant>/seed-<seed>/.`,
  flags: SIM_COMPARE_FLAGS,
  positionals: SCENARIO_ARGUMENT,
  epilogue: `Exit status: 0 when every run succeeded, 1 if inputs are invalid (or warn, with --strict) or a
run failed, 2 for usage errors.`,
};

export const simCompareCommand: Command = {
  spec: SIM_COMPARE_COMMAND,
  run: (args) => runSimCompare(args, processOutput),
};

export async function runSimCompare(args: string[], output: Output): Promise<number> {
  const command = parseCommandLine(SIM_COMPARE_COMMAND, args, output);
  if ('exitCode' in command) return command.exitCode;
  const { values } = command;
  const scenarioFile = command.positionals[0]!;
  const outDir = values.out;
  const options = runOptions(values, availableParallelism());
  const { seedsText, workers, auditLogFile } = options;
  const variants = variantNames(values.variant);

  output.stdout(`SEEDS=${seedsText}\n`);
  const checked = await checkVariants({ command: 'sim compare', scenarioFile, variants, auditLogFile, strict: options.strict, output });
  if (checked === undefined) return 1;
  output.stdout(
    `SCENARIO=${scenarioFile} NAME=${checked.scenario.name} VARIANTS=${variants
      .slice(1)
      .map((v) => v.name)
      .join(',')} RUNS=${options.seeds.length * variants.length} WORKERS=${workers}\n`,
  );

  const progress = createProgress();
  const startMs = performance.now();
  const comparison = await runComparison({
    scenarioFile,
    scenarioName: checked.scenario.name,
    variants,
    seeds: options.seeds,
    workers,
    outDir,
    plots: options.plots,
    suggestions: options.suggestions,
    auditLogFile,
    auditGrouping: options.auditGrouping,
    onTaskDone: (done, total) => progress.update(done / total, `${done}/${total} runs`),
  });
  progress.done();
  const failed = comparison.runs.filter((r) => !r.ok);
  for (const run of failed) output.stderr(`SEED=${run.seed} variant ${run.variant} failed:\n${(run.errors ?? []).join('\n')}\n`);
  await writeFile(join(outDir, 'compare.json'), `${JSON.stringify(comparison, null, 2)}\n`);
  const plots = options.plots === false ? [] : await comparePlotsHtml(comparison);
  await writeFile(join(outDir, 'compare.html'), compareHtml(comparison, { plots }));
  for (const v of comparison.variants) output.stdout(`${variantSummary(v)}\n`);
  output.stdout(
    `ran ${comparison.runs.length} simulations in ${((performance.now() - startMs) / 1000).toFixed(2)} s; wrote ${join(outDir, 'compare.json')} and ` +
      `${join(outDir, 'compare.html')}\n`,
  );
  return failed.length > 0 ? 1 : 0;
}
