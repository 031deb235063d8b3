// The simulator's determinism, on small random scenarios (support/
// sim-scenarios.ts) and seeds:
// - one scenario and seed give a byte-identical report.json on every run;
// - each flow's arrivals are its own: removing another flow, or reordering the flows, leaves a
//   flow's arrivals (its count and its per-bucket series) unchanged (docs/simulator.md);
// - a sweep at 1 worker and at 2 workers writes, per seed, exactly the report.json `sim run`
//   writes alone.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import fc from 'fast-check';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { reportJson } from '../sim/report.ts';
import { runScenario } from '../sim/run-scenario.ts';
import { runSweep } from '../sim/sweep/sweep.ts';
import { checkAsyncProperty } from './support/runner.ts';
import { scenarioCase, type ScenarioCase } from './support/sim-scenarios.ts';

let dir: string;
let files = 0;

test.before(async () => {
  dir = await mkdtemp(join(tmpdir(), 'fairway-sim-properties-'));
});
test.after(async () => rm(dir, { recursive: true, force: true }));

async function scenarioFile(scenario: Record<string, unknown>): Promise<string> {
  const file = join(dir, `scenario-${++files}.json`);
  await writeFile(file, JSON.stringify(scenario, null, 2));
  return file;
}

/** report.json's text for `scenario` at `seed`, as `fairway sim run` writes it. */
async function runAlone(scenario: Record<string, unknown>, seed: string): Promise<string> {
  const outcome = await runScenario({ scenarioFile: await scenarioFile(scenario), seed });
  if (!outcome.ok) assert.unreachable(`the generated scenario does not load:\n${outcome.errors.join('\n')}`);
  return reportJson((outcome as { report: Parameters<typeof reportJson>[0] }).report);
}

interface FlowArrivals {
  arrived: number;
  series: number[];
}

function arrivalsByFlow(json: string): Record<string, FlowArrivals> {
  const report = JSON.parse(json) as { flows: Record<string, { arrived: number }>; series: { flows: Record<string, { arrived: number[] }> } };
  return Object.fromEntries(Object.entries(report.flows).map(([name, flow]) => [name, { arrived: flow.arrived, series: report.series.flows[name]!.arrived }]));
}

test('one scenario and seed: a byte-identical report.json every run', async () => {
  await checkAsyncProperty(
    'simulator: same seed, same bytes',
    fc.asyncProperty(scenarioCase, async ({ scenario, seed }) => {
      const first = await runAlone(scenario, seed);
      const second = await runAlone(structuredClone(scenario), seed);
      assert.ok(first === second, 'two runs of one scenario and seed differ');
      assert.is(JSON.parse(first).scenario.seed, seed);
    }),
    { runs: 6 },
  );
});

test('each flow’s arrivals are its own: other flows removed or reordered change nothing', async () => {
  await checkAsyncProperty(
    'simulator: per-flow arrival streams',
    fc.asyncProperty(
      scenarioCase.filter((c) => (c.scenario.flows as unknown[]).length >= 2),
      fc.nat(),
      async ({ scenario, seed }, dropIndex) => {
        const flows = scenario.flows as { name: string }[];
        const all = arrivalsByFlow(await runAlone(scenario, seed));
        const dropped = flows[dropIndex % flows.length]!.name;
        const fewer = arrivalsByFlow(await runAlone({ ...scenario, flows: flows.filter((f) => f.name !== dropped) }, seed));
        const reversed = arrivalsByFlow(await runAlone({ ...scenario, flows: [...flows].reverse() }, seed));
        for (const { name } of flows) {
          assert.equal(reversed[name], all[name], `${name} after reordering`);
          if (name !== dropped) assert.equal(fewer[name], all[name], `${name} without ${dropped}`);
        }
        assert.is(fewer[dropped], undefined);
      },
    ),
    { runs: 5 },
  );
});

test('a sweep at 1 and at 2 workers writes each seed’s report.json byte for byte as a run alone', async () => {
  await checkAsyncProperty(
    'simulator: sweep worker counts',
    fc.asyncProperty(fc.array(scenarioCase, { minLength: 3, maxLength: 3 }), async (cases: ScenarioCase[]) => {
      const tasks = await Promise.all(
        cases.map(async ({ scenario, seed }, i) => ({ scenarioFile: await scenarioFile(scenario), seed, variant: `case-${i}`, variantFiles: [] })),
      );
      const alone = await Promise.all(cases.map(({ scenario, seed }) => runAlone(scenario, seed)));
      for (const workers of [1, 2]) {
        const results = await runSweep(tasks, { workers });
        assert.equal(
          results.map((r) => `${r.variant}/${r.seed}`),
          tasks.map((t) => `${t.variant}/${t.seed}`),
          'results in task order',
        );
        results.forEach((result, i) => {
          assert.ok(result.ok, result.ok ? '' : result.errors.join('\n'));
          if (result.ok) assert.ok(result.reportJson === alone[i], `${workers} worker(s): case ${i} (seed ${result.seed}) differs from the run alone`);
        });
      }
    }),
    { runs: 1 },
  );
});

test.run();
