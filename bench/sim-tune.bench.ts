// How long `fairway sim tune` takes on each example that has objectives, against the time of one
// simulation of the same scenario measured in the same run (the baseline: tuning costs that many
// single runs), with candidates per second and the wall time of the whole search.
//
//   node --import tsx bench/sim-tune.bench.ts                (seeds 1..3, about a minute a case)
//   BENCH_QUICK=1 node --import tsx bench/sim-tune.bench.ts  (one seed)
//
// Prints a table, then one JSON line (`{"bench":"sim-tune",...}`). Figures go to docs/benchmarks.md.

import { readdirSync } from 'node:fs';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { availableParallelism, tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import { runSimTune } from '../sim/cli/cli-tune.ts';
import { runScenario } from '../sim/run/run-scenario.ts';
import { table } from './fixtures.ts';

const QUICK = process.env['BENCH_QUICK'] === '1';
const SEEDS = QUICK ? '1' : '1..3';
const WORKERS = Math.max(1, availableParallelism() - 1);
const examples = fileURLToPath(new URL('../sim/examples/', import.meta.url));
const cases = readdirSync(examples)
  .filter((f) => f.endsWith('.objectives.yaml'))
  .sort();
const results: Record<string, unknown> = { bench: 'sim-tune', node: process.version, quick: QUICK, seeds: SEEDS, workers: WORKERS, cases: {} };
const rows: [string, string][] = [];

for (const objectives of cases) {
  const scenario = join(examples, objectives.replace('.objectives.yaml', '.yaml'));
  const name = objectives.replace('.objectives.yaml', '');
  // Baseline: one simulation of the scenario, in this process.
  const t0 = performance.now();
  const one = await runScenario({ scenarioFile: scenario, seed: '1' });
  const oneMs = performance.now() - t0;
  if (!one.ok) throw new Error(one.errors.join('\n'));

  const dir = await mkdtemp(join(tmpdir(), 'fairway-tune-bench-'));
  try {
    const t1 = performance.now();
    const code = await runSimTune(
      [scenario, '--objectives', join(examples, objectives), '--seeds', SEEDS, '--workers', String(WORKERS), '--no-plots', '--no-suggestions', '--out', dir],
      { stdout: () => {}, stderr: (t) => void process.stderr.write(t) },
    );
    const wallMs = performance.now() - t1;
    const tune = JSON.parse(await readFile(join(dir, 'tune.json'), 'utf8'));
    const runs = tune.candidatesTried * tune.seeds.length;
    const perSecond = tune.candidatesTried / (wallMs / 1000);
    (results.cases as Record<string, unknown>)[name] = {
      met: code === 0,
      candidates: tune.candidatesTried,
      runs,
      wallSeconds: Number((wallMs / 1000).toFixed(2)),
      candidatesPerSecond: Number(perSecond.toFixed(2)),
      oneRunSeconds: Number((oneMs / 1000).toFixed(3)),
      wallOverOneRun: Number((wallMs / oneMs).toFixed(1)),
    };
    rows.push([
      `${name}: ${code === 0 ? 'met' : 'NOT met'}, ${tune.candidatesTried} candidates × ${tune.seeds.length} seeds`,
      `${(wallMs / 1000).toFixed(1)} s wall, ${perSecond.toFixed(2)} candidates/s, ${(wallMs / oneMs).toFixed(1)}× one run (${(oneMs / 1000).toFixed(2)} s)`,
    ]);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

table(`sim tune on the examples with objectives (seeds ${SEEDS}, ${WORKERS} workers; includes the comparison runs)`, rows);
process.stdout.write(`${JSON.stringify(results)}\n`);
