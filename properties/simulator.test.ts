// The simulator's determinism, on small random scenarios (support/
// sim-scenarios.ts) and seeds:
// - one scenario and seed give a byte-identical report.json on every run;
// - each flow's arrivals are its own: removing another flow, or reordering the flows, leaves a
//   flow's arrivals (its count and its per-bucket series) unchanged (docs/simulator.md);
// - a sweep at 1 worker and at 2 workers writes, per seed, exactly the report.json `sim run`
//   writes alone;
// - the capacity model's shared CPUs (sim/shared-cpu.ts) never finish a request before its
//   uncontended time, never do more work than the cores allow, finish every request once, and
//   within the cores leave every request its own pace.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import fc from 'fast-check';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { reportJson } from '../sim/report.ts';
import { runScenario } from '../sim/run/run-scenario.ts';
import { runSweep } from '../sim/sweep/sweep.ts';
import { SimClock } from '../engine/sim-clock.ts';
import { SharedCpu } from '../sim/shared-cpu.ts';
import { checkAsyncProperty, checkProperty } from './support/runner.ts';
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

const cpuCase = fc.record({
  cpus: fc.integer({ min: 1, max: 4 }),
  works: fc.array(
    fc.record({
      startMs: fc.integer({ min: 0, max: 4 }).map((k) => k * 50),
      serviceMs: fc.integer({ min: 0, max: 300 }),
      demand: fc.integer({ min: 0, max: 100 }).map((p) => p / 100),
    }),
    { minLength: 1, maxLength: 25 },
  ),
});

test('shared CPUs: no request before its uncontended time, no more work than the cores, each finished once', () => {
  checkProperty(
    'simulator: processor sharing keeps its bounds',
    fc.property(cpuCase, ({ cpus, works }) => {
      const clock = new SimClock(0);
      const finished = works.map(() => [] as number[]);
      const cpu = new SharedCpu(clock, cpus, () => {});
      works.forEach((w, i) =>
        clock.schedule(w.startMs, () => cpu.start({ serviceMs: w.serviceMs, cpuDemand: w.demand, memoryBytes: 0, fire: () => finished[i]!.push(clock.now()) })),
      );
      clock.runUntil(1e9);
      const eps = 1e-6;
      works.forEach((w, i) => {
        assert.is(finished[i]!.length, 1, `request ${i} finished ${finished[i]!.length} times`);
        assert.ok(finished[i]![0]! >= w.startMs + w.serviceMs - eps, `request ${i} finished before its uncontended time`);
      });
      assert.is(cpu.demand, 0);
      // Work conservation: what started at 0 cannot be done before its CPU work fits in the cores.
      const atZero = works.flatMap((w, i) => (w.startMs === 0 ? [{ w, end: finished[i]![0]! }] : []));
      const work = atZero.reduce((sum, { w }) => sum + w.demand * w.serviceMs, 0);
      if (atZero.length > 0) assert.ok(Math.max(...atZero.map((z) => z.end)) >= work / cpus - eps, 'more work done than the cores allow');
      // Within the cores at every moment (here: even all at once), every request keeps its own pace.
      if (works.reduce((sum, w) => sum + w.demand, 0) <= cpus)
        works.forEach((w, i) => assert.ok(Math.abs(finished[i]![0]! - (w.startMs + w.serviceMs)) < eps, `request ${i} slowed within the cores`));
    }),
    { runs: 200 },
  );
});

test.run();
