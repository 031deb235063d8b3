// The capacity model's examples: cpu-bound-lists, where a change that only moves seat accounting
// (a wider handSize, so each LIST is charged fewer seats and more run at once) looks free without
// the model and is refused with it; and replicas.yaml, one history per seed with three servers.

import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { runSimTune } from '../cli/cli-tune.ts';
import { reportJson, type SimulationReport } from '../report.ts';
import { fmtPercent, fmtSeconds } from '../report/format.ts';
import { runScenario } from '../run/run-scenario.ts';

const here = (name: string) => fileURLToPath(new URL(name, import.meta.url));
const CAPACITY = ', cpus: 4, memory: 2Gi, executorThreads: none';

interface Tuned {
  code: number;
  out: string;
  result: Record<string, unknown> | undefined;
  /** The comparison's own runs, by configuration ("baseline", "recommended"), one report per seed. */
  reports: Record<string, SimulationReport[]>;
}

/** The exit status, output, tune.json and run reports of tuning `scenarioText` with `objectivesText` (by default cpu-bound-lists' objectives). */
async function runTune(scenarioText: string, objectivesText?: string): Promise<Tuned> {
  const dir = await mkdtemp(join(tmpdir(), 'fairway-capacity-'));
  try {
    const scenario = join(dir, 'cpu-bound-lists.yaml');
    await writeFile(scenario, scenarioText);
    const objectives = objectivesText === undefined ? here('cpu-bound-lists.objectives.yaml') : join(dir, 'objectives.yaml');
    if (objectivesText !== undefined) await writeFile(objectives, objectivesText);
    let out = '';
    const argv = [scenario, '--objectives', objectives, '--seeds', '1..2', '--workers', '2', '--no-plots', '--no-suggestions'];
    const code = await runSimTune([...argv, '--out', join(dir, 'out')], { stdout: (t) => void (out += t), stderr: (t) => void (out += t) });
    const result = await readFile(join(dir, 'out', 'tune.json'), 'utf8').then(JSON.parse, () => undefined);
    const reports: Tuned['reports'] = {};
    for (const name of ['baseline', 'recommended'])
      for (const seed of ['1', '2']) {
        const text = await readFile(join(dir, 'out', name, `seed-${seed}`, 'report.json'), 'utf8').catch(() => undefined);
        if (text !== undefined) (reports[name] ??= []).push(JSON.parse(text));
      }
    return { code, out: out.replaceAll(dir, 'DIR'), result, reports };
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

/** The recommendation's changes when tuning `scenarioText` with cpu-bound-lists' objectives. */
async function tune(
  scenarioText: string,
  objectivesText?: string,
): Promise<{ met: boolean; changes: string[]; result: Record<string, unknown>; reports: Tuned['reports'] }> {
  const { code, out, result, reports } = await runTune(scenarioText, objectivesText);
  assert.is(code, 0, out);
  const recommendation = result!.recommendation as { changes: string[] };
  return { met: result!.met as boolean, changes: recommendation.changes, result: result!, reports };
}

/** The worst (largest) value over a configuration's runs. */
const worst = (reports: readonly SimulationReport[], pick: (r: SimulationReport) => number) => Math.max(...reports.map(pick));

const seatAccounting = (c: string) => /ci-tools: (handSize|nominalConcurrencyShares|borrowingLimitPercent|lendablePercent)/.test(c);

test('cpu-bound-lists: tune does not buy Jenkins its wait with more LISTs at once once CPUs are finite', async () => {
  const text = await readFile(here('cpu-bound-lists.yaml'), 'utf8');
  assert.ok(text.includes(CAPACITY), 'the example models the server');

  // Without the model more heavy LISTs at once cost nothing, and a seat-accounting change wins.
  const free = await tune(text.replace(CAPACITY, ''));
  assert.ok(free.met && free.changes.some(seatAccounting), free.changes.join('; '));

  // With it, that change slows apps-gets past its baseline; Jenkins gets a level of its own instead.
  const modelled = await tune(text);
  assert.ok(modelled.met, modelled.changes.join('; '));
  assert.not.ok(modelled.changes.some(seatAccounting), modelled.changes.join('; '));
  // The objectives table and the cost sentence say what the runs written beside them recorded.
  const { baseline, recommended } = modelled.reports;
  assert.ok(baseline?.length === 2 && recommended?.length === 2);
  const rows = modelled.result.objectivesTable as { what: string; baseline: string; recommended: string }[];
  const row = (what: string) => rows.find((r) => r.what === what)!;
  const jenkinsWait = (r: SimulationReport) => r.flows.jenkins!.waitSeconds.p99 ?? 0;
  // The table gives a zero its unit too (Jenkins' own level leaves it no wait): "0 s".
  const seconds = (s: number) => (s === 0 ? '0 s' : fmtSeconds(s));
  const appsLatency = (r: SimulationReport) => r.flows['apps-gets']!.latencySeconds.p99 ?? 0;
  assert.is(row('jenkins wait p99').baseline, `${seconds(worst(baseline!, jenkinsWait))} (jenkins)`);
  assert.is(row('jenkins wait p99').recommended, `${seconds(worst(recommended!, jenkinsWait))} (jenkins)`);
  assert.is(row('apps-gets latency p99 no worse than baseline').baseline, `${fmtSeconds(worst(baseline!, appsLatency))} (apps-gets)`);
  assert.is(row('apps-gets latency p99 no worse than baseline').recommended, `${fmtSeconds(worst(recommended!, appsLatency))} (apps-gets)`);
  const cpu = (r: SimulationReport) => r.capacity!.peakCpu;
  assert.ok(
    (modelled.result.effects as string[]).some((e) =>
      e.includes(`server CPU demand peaks at ${fmtPercent(worst(recommended!, cpu))} of its 4 cores (baseline ${fmtPercent(worst(baseline!, cpu))})`),
    ),
    (modelled.result.effects as string[]).join('\n'),
  );
  // Demand above the cores is said as such: a real CPU never reads above 100%.
  assert.match(
    (modelled.result.effects as string[]).join('\n'),
    /server CPU demand peaks at \d+% of its 4 cores \(baseline \d+%\), more than the cores, so every running request took up to [\d.]+× its time/,
  );
});

// The memory model does not need the CPU model: 200Mi holds six 8,000-pod LISTs at 4 KiB an
// object, and the baseline runs five at once (78%); a handSize of 6 would run seven (109%).
const MEMORY_OBJECTIVES = `kind: TuneObjectives
objectives:
  - {flows: jenkins, waitP99: 200ms, rejected: 0%}
  - server: {memory: 90%}
changes: {modify: [ci-tools], createFor: [jenkins]}
`;

test('cpu-bound-lists with server.memory but no server.cpus: tune holds memory headroom; a CPU objective names the missing field', async () => {
  const scenario = await readFile(here('cpu-bound-lists.yaml'), 'utf8');
  const memoryOnly = scenario.replace(CAPACITY, ', memory: 200Mi');
  const noMemoryObjective = MEMORY_OBJECTIVES.replace('  - server: {memory: 90%}\n', '');
  // Without server.memory the wider hand costs nothing here. maxSeats as the engine computes it: 15 seats, handSize 4 → 3; handSize 6 → 2.
  const free = await tune(scenario.replace(CAPACITY, ''), noMemoryObjective);
  assert.ok(free.changes.some(seatAccounting), free.changes.join('; '));
  assert.match((free.result.effects as string[]).join('\n'), /maxSeats \(the smaller of ⌈15% of NominalCL⌉ and ⌊NominalCL ÷ handSize⌋\) 3 → 2,/);

  // With server.memory set, running out of it is refused though no objective names memory: the
  // wider hand would peak at 109% of it. The implicit objective has its row in the table.
  const implicit = await tune(memoryOnly, noMemoryObjective);
  assert.ok(implicit.met, implicit.changes.join('; '));
  assert.not.ok(implicit.changes.some(seatAccounting), implicit.changes.join('; '));
  const implicitRows = implicit.result.objectivesTable as { what: string; limit: string; baseline: string; met: boolean }[];
  assert.equal(
    implicitRows.filter((r) => r.what === 'server memory peak').map((r) => [r.limit, r.baseline, r.met]),
    [['≤ 100% (server.memory is set)', '78.1%', true]],
  );

  const held = await tune(memoryOnly, MEMORY_OBJECTIVES);
  assert.ok(held.met, held.changes.join('; '));
  assert.not.ok(held.changes.some(seatAccounting), held.changes.join('; '));
  const rows = held.result.objectivesTable as { what: string; baseline: string; recommended: string; met: boolean }[];
  assert.equal(
    rows.filter((r) => r.what === 'server memory peak').map((r) => [r.baseline, r.recommended, r.met]),
    [['78.1%', '78.1%', true]],
  );

  const cpu = await runTune(memoryOnly, MEMORY_OBJECTIVES.replace('memory: 90%', 'cpu: 80%'));
  assert.is(cpu.code, 1);
  assert.match(cpu.out, /objectives\.yaml: objectives\[1\]\.server\.cpu: the server's CPU is not modelled: DIR\/cpu-bound-lists\.yaml sets no server\.cpus/);
  assert.is(cpu.result, undefined, 'nothing written');
});

test('cpu-bound-lists: the report shows the CPUs and memory, and a LIST storm that runs the server out of memory', async () => {
  const run = await runScenario({ scenarioFile: here('cpu-bound-lists.yaml'), seed: '1' });
  assert.ok(run.ok);
  const capacity = run.report.capacity!;
  assert.is(capacity.cpus, 4);
  assert.ok(capacity.peakCpu > 1, `peak ${capacity.peakCpu}`);
  assert.ok(capacity.meanCpuBusy > 0.5 && capacity.meanCpuBusy <= 1, `busy ${capacity.meanCpuBusy}`);
  // Five 8,000-pod LISTs at 4 KiB an object at once.
  assert.is(capacity.peakMemoryBytes % (8000 * 4096), 0);
  assert.is(capacity.outOfMemoryAtSeconds, null);
  const series = run.report.series.capacity!['replica-0']!;
  assert.is(series.cpuBusyMean.length, run.report.series.timesSeconds.length);

  const dir = await mkdtemp(join(tmpdir(), 'fairway-capacity-'));
  try {
    const small = join(dir, 'small.yaml');
    await writeFile(small, (await readFile(here('cpu-bound-lists.yaml'), 'utf8')).replace('memory: 2Gi', 'memory: 100Mi'));
    const oom = await runScenario({ scenarioFile: small, seed: '1' });
    assert.ok(oom.ok);
    assert.ok(oom.report.capacity!.outOfMemoryAtSeconds !== null && oom.report.capacity!.outOfMemorySeconds > 0);
    assert.is(oom.report.capacity!.memoryBytes, 100 * 2 ** 20);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});

async function replicas(edit: (text: string) => string = (t) => t, seed = '1'): Promise<SimulationReport> {
  const dir = await mkdtemp(join(tmpdir(), 'fairway-replicas-'));
  try {
    const file = join(dir, 'replicas.yaml');
    await writeFile(file, edit(await readFile(here('replicas.yaml'), 'utf8')));
    const run = await runScenario({ scenarioFile: file, seed });
    if (!run.ok) throw new Error(run.errors.join('\n'));
    return run.report;
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

test("replicas: one engine each, clients pinned at connection time, the run's levels their sums, one history per seed", async () => {
  const report = await replicas();
  assert.is(reportJson(await replicas()), reportJson(report));
  assert.is.not(reportJson(await replicas(undefined, '2')), reportJson(report));
  const each = report.replicas!;
  assert.is(each.length, 3);
  // Each replica's own APF: its NominalCLs from its own server concurrency limit, summed in the totals.
  for (const [name, level] of Object.entries(report.levels)) {
    assert.is(level.nominalCL, 3 * each[0]!.levels[name]!.nominalCL, name);
    assert.is(
      level.dispatched,
      each.reduce((s, r) => s + (r.levels[name]?.dispatched ?? 0), 0),
      name,
    );
  }
  // Every client is on exactly one replica; the one LIST client's replica carries all its CPU.
  assert.is(
    each.reduce((s, r) => s + (r.clients.kubelets ?? 0), 0),
    30,
  );
  const lister = each.find((r) => r.clients['operator-lists'] === 1)!;
  assert.is(report.capacity!.peakCpu, lister.capacity!.peakCpu);
  for (const r of each) if (r !== lister) assert.ok(r.capacity!.peakCpu < lister.capacity!.peakCpu, r.name);

  // In turn: 30 kubelet connections split 10 / 10 / 10.
  const turns = await replicas((t) => t.replace('replicaAssignment: random', 'replicaAssignment: round-robin'));
  assert.equal(
    turns.replicas!.map((r) => r.clients.kubelets),
    [10, 10, 10],
  );
  // One replica is the scenario without replicas: no replica keys in its report.
  const single = await replicas((t) => t.replace('replicas: 3, ', ''));
  assert.is(single.replicas, undefined);
  assert.is(single.scenario.server.replicas, undefined);
});

test.run();
