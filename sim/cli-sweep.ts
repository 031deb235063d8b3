// `fairway sim sweep SCENARIO --seeds 1..50 --workers K --out DIR [--variant FILE]...`: the same
// scenario over many seeds (and configuration variants), in parallel on Piscina worker threads.
// Writes DIR/<variant>/seed-<seed>/report.json for every run (byte-identical to `sim run` with
// that seed), DIR/summary.json and DIR/summary.html.

import { mkdir, writeFile } from 'node:fs/promises';
import { availableParallelism } from 'node:os';
import { basename, extname, join } from 'node:path';
import type { Command } from '../api/cli/main.ts';
import { renderSvg } from './report/plots.ts';
import { loadRunInputs } from './run-scenario.ts';
import { parseSeedList } from './seed.ts';
import { runSweep } from './sweep/sweep.ts';
import { summarizeVariant, summaryHtml, waitStripSpec, type SweepSummary } from './sweep/summary.ts';
import type { SweepTask } from './sweep/task.ts';
import { parseScenarioCommand } from './cli-args.ts';
import { createProgress } from './progress.ts';
import type { Output } from './cli-run.ts';

const USAGE = `Usage: fairway sim sweep SCENARIO --seeds LIST [flags]

Runs the scenario once per seed (and per configuration variant) on worker threads and writes
DIR/<variant>/seed-<seed>/report.json for every run, DIR/summary.json and DIR/summary.html.
A run's report.json is byte-identical to 'fairway sim run SCENARIO --seed <seed>'.

Flags:
  --seeds LIST        seeds: a range 1..50, a list 1,2,7, or both (1..10,42); hex seeds allowed
  --workers K         worker threads (default: available cores - 1, at least 1)
  --out DIR           output directory (default sim-results/<scenario name>/sweep)
  --variant FILE      a configuration variant: manifests applied over the scenario's configuration;
                      repeatable, each file is one variant run next to the unchanged "baseline"
  --audit-log FILE    replay this audit log in every run
  -h, --help          show this help

Exit status: 0 when every run succeeded, 1 if inputs are invalid or any run failed, 2 for usage
errors.
`;

export const simSweepCommand: Command = {
  summary: 'run a scenario over many seeds and config variants in parallel',
  run: (args) => runSimSweep(args, { stdout: (t) => process.stdout.write(t), stderr: (t) => process.stderr.write(t) }),
};

export async function runSimSweep(args: string[], output: Output): Promise<number> {
  const command = parseScenarioCommand('sim sweep', args, {
    seeds: { value: true },
    workers: { value: true },
    out: { value: true },
    variant: { value: true, repeatable: true },
    'audit-log': { value: true },
  }, USAGE, output);
  if ('exitCode' in command) return command.exitCode;
  const { parsed, scenarioFile, usage } = command;
  const seedsText = parsed.values.get('seeds')?.[0];
  if (seedsText === undefined) return usage('--seeds is required (e.g. --seeds 1..50)');
  const seeds = parseSeedList(seedsText);
  if (!seeds.ok) return usage(seeds.message);
  const workersText = parsed.values.get('workers')?.[0];
  const workers = workersText === undefined ? Math.max(1, availableParallelism() - 1) : Number(workersText);
  if (!Number.isSafeInteger(workers) || workers < 1 || workers > 256) return usage(`--workers must be a whole number from 1 to 256, got ${JSON.stringify(workersText)}`);
  const auditLogFile = parsed.values.get('audit-log')?.[0];
  const variants = variantNames(parsed.values.get('variant') ?? []);

  output.stdout(`SEEDS=${seedsText}\n`);
  let scenarioName = '';
  // Check every input once, up front, so a typo fails in a second rather than in 50 workers.
  for (const variant of variants) {
    const check = await loadRunInputs({ scenarioFile, seed: '0', variantFiles: variant.files, ...(auditLogFile === undefined ? {} : { auditLogFile }) });
    if (!check.ok) {
      for (const error of check.errors) output.stderr(`${error}\n`);
      output.stderr(`fairway sim sweep: invalid input${variant.files.length > 0 ? ` (variant ${variant.name})` : ''}; nothing was simulated\n`);
      return 1;
    }
    if (variant.name === 'baseline') {
      const s = check.loaded.scenario;
      scenarioName = s.name;
      output.stdout(`SCENARIO=${scenarioFile} NAME=${s.name} DURATION=${s.durationMs / 1000}s FLOWS=${s.flows.length} RUNS=${seeds.seeds.length * variants.length} WORKERS=${workers}\n`);
    }
  }

  const tasks: SweepTask[] = variants.flatMap((variant) =>
    seeds.seeds.map((seed) => ({ scenarioFile, seed, variant: variant.name, variantFiles: variant.files, ...(auditLogFile === undefined ? {} : { auditLogFile }) })),
  );
  const progress = createProgress();
  const startMs = performance.now();
  const results = await runSweep(tasks, { workers, onTaskDone: (done, total) => progress.update(done / total, `${done}/${total} runs`) });
  progress.done();
  const wallSeconds = (performance.now() - startMs) / 1000;

  const outDir = parsed.values.get('out')?.[0] ?? `sim-results/${scenarioName}/sweep`;
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
    const relative = join(result.variant, `seed-${result.seed}`, 'report.json');
    await mkdir(join(outDir, result.variant, `seed-${result.seed}`), { recursive: true });
    await writeFile(join(outDir, relative), result.reportJson);
    summary.runs.push({ variant: result.variant, seed: result.seed, ok: true, report: relative, totals: result.digest.totals });
  }
  await writeFile(join(outDir, 'summary.json'), `${JSON.stringify(summary, null, 2)}\n`);
  const spec = waitStripSpec(results);
  await writeFile(join(outDir, 'summary.html'), summaryHtml(summary, spec === undefined ? undefined : await renderSvg(spec)));
  output.stdout(`ran ${results.length} simulations on ${workers} worker${workers === 1 ? '' : 's'} in ${wallSeconds.toFixed(2)} s${failed > 0 ? `, ${failed} FAILED` : ''}\n`);
  output.stdout(`wrote ${join(outDir, 'summary.json')}, ${join(outDir, 'summary.html')} and ${results.length - failed} reports under ${outDir}\n`);
  return failed > 0 ? 1 : 0;
}

/** "baseline" (no extra manifests) first, then one variant per file, named after the file. */
function variantNames(files: readonly string[]): { name: string; files: string[] }[] {
  const variants = [{ name: 'baseline', files: [] as string[] }];
  const used = new Set(['baseline']);
  for (const file of files) {
    let name = basename(file, extname(file)).replace(/[^A-Za-z0-9._-]/g, '_') || 'variant';
    for (let i = 2; used.has(name); i++) name = `${basename(file, extname(file))}-${i}`;
    used.add(name);
    variants.push({ name, files: [file] });
  }
  return variants;
}
