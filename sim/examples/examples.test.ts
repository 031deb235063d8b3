// Each example scenario's qualitative outcome, asserted against a control that must come out
// differently (the same scenario with the mechanism it demonstrates taken away).

import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { readFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { buildReport, type SimulationReport } from '../report.ts';
import { loadScenarioFile, loadScenarioText } from '../scenario-load.ts';
import { runSimulation } from '../simulation.ts';

const here = (name: string) => fileURLToPath(new URL(name, import.meta.url));

async function run(file: string, options: { variant?: string; durationSeconds?: number; edit?: (text: string) => string } = {}): Promise<SimulationReport> {
  const path = here(file);
  const extraFiles = options.variant === undefined ? [] : [here(options.variant)];
  const loaded =
    options.edit === undefined
      ? await loadScenarioFile(path, { extraFiles })
      : await loadScenarioText(options.edit(await readFile(path, 'utf8')), path, { extraFiles });
  if (!loaded.ok) throw new Error(loaded.errors.join('\n'));
  if (options.durationSeconds !== undefined) loaded.loaded.scenario.durationMs = options.durationSeconds * 1000;
  return buildReport(runSimulation({ loaded: loaded.loaded, seed: '1' }));
}

const quietFlows = (report: SimulationReport) => Object.entries(report.flows).filter(([name]) => name.startsWith('quiet-'));

test('noisy-tenant: shuffle sharding isolates the quiet tenants from the noisy one', async () => {
  const sharded = await run('noisy-tenant.yaml', { durationSeconds: 20 });
  const noisy = sharded.flows.noisy!;
  assert.ok(noisy.rejected['queue-full'] > 0.3 * noisy.arrived, `noisy lost only ${noisy.rejectedTotal} of ${noisy.arrived}`);
  assert.is(quietFlows(sharded).length, 8);
  for (const [name, flow] of quietFlows(sharded)) {
    assert.is(flow.rejectedTotal, 0, name);
    assert.ok(flow.waitSeconds.p99! < 0.02, `${name} p99 wait ${flow.waitSeconds.p99}`);
  }

  // Control: one queue, no shuffle sharding — the quiet tenants share the noisy one's fate.
  const single = await run('noisy-tenant.yaml', { durationSeconds: 20, variant: 'variants/single-queue.yaml' });
  for (const [name, flow] of quietFlows(single)) {
    assert.ok(flow.rejectedTotal > 0.1 * flow.arrived, `${name}: ${flow.rejectedTotal} of ${flow.arrived} rejected`);
    assert.ok(flow.waitSeconds.p99! > 3 * sharded.flows[name]!.waitSeconds.p99!, name);
  }
  // Measured against max-min fair shares, the sharded level is fair and the single queue is not.
  assert.ok(sharded.fairness.tenants!.jainVsMaxMinFair! > 0.99, String(sharded.fairness.tenants!.jainVsMaxMinFair));
  assert.ok(single.fairness.tenants!.jainVsMaxMinFair! < 0.97, String(single.fairness.tenants!.jainVsMaxMinFair));
});

test('borrowing: the idle level lends to the busy one, then takes its seats back', async () => {
  const report = await run('borrowing.yaml');
  const times = report.series.timesSeconds;
  const at = (level: string, seconds: number) => report.series.levels[level]!.currentCL[times.findIndex((t) => t >= seconds)]!;
  const busy = report.levels.busy!;
  const idle = report.levels.idle!;
  assert.is(busy.nominalCL, 45);
  assert.is(idle.nominalCL, 45);
  // Between the first adjustment and the surge: busy above its nominal, idle below.
  for (const t of [25, 40, 55]) {
    assert.ok(at('busy', t) > busy.nominalCL, `busy CurrentCL ${at('busy', t)} at ${t}s`);
    assert.ok(at('idle', t) < idle.nominalCL, `idle CurrentCL ${at('idle', t)} at ${t}s`);
    assert.ok(at('idle', t) >= idle.minCL);
  }
  // Once the idle level is busy too, the loan is returned.
  assert.ok(at('busy', 110) < at('busy', 55));
  assert.ok(at('idle', 110) > at('idle', 55));
  assert.ok(busy.borrowing.maxSeats > 0 && idle.borrowing.minSeats < 0);
  assert.is(report.flows['dashboard-trickle']!.rejectedTotal, 0);
});

test('list-storm: LISTs are limited by seats, while cheap requests of the same level keep flowing', async () => {
  const storm = await run('list-storm.yaml');
  const lists = storm.flows['ci-lister']!;
  const level = storm.levels['workload-low']!;
  assert.is(lists.priorityLevel, 'workload-low');
  assert.is(lists.seatsPerRequest, 10); // 5,000 objects = 50 seats, capped at maxSeats
  assert.ok(level.seatsInUse.max <= level.currentCL.max);
  assert.ok(lists.rejectedTotal > 0.2 * lists.arrived, `lists rejected: ${lists.rejectedTotal} of ${lists.arrived}`);
  assert.is(storm.flows['controller-gets']!.rejectedTotal, 0);
  assert.ok(storm.flows['controller-gets']!.waitSeconds.p90! < lists.waitSeconds.p50! / 100);
  // Another level is untouched.
  assert.ok(storm.flows['team-reads']!.waitSeconds.p99! < 0.01);

  // Control: the same storm of cheap (50-object) LISTs is absorbed once borrowing has caught up
  // (the first burst, at 15 s, still meets the start-up CurrentCL).
  const cheap = await run('list-storm.yaml', { edit: (text) => text.replace('objects: 5000', 'objects: 50') });
  assert.is(cheap.flows['ci-lister']!.seatsPerRequest, 1);
  const rejectedAfter = (report: SimulationReport, seconds: number) =>
    report.series.flows['ci-lister']!.rejected.reduce((sum, n, i) => sum + (report.series.timesSeconds[i]! > seconds ? n : 0), 0);
  assert.is(rejectedAfter(cheap, 40), 0);
  assert.ok(rejectedAfter(storm, 40) > 1000, `expensive lists rejected after 40s: ${rejectedAfter(storm, 40)}`);
});

test('queue-limit: short queues reject at once; long queues make the same overload wait and time out', async () => {
  const short = await run('queue-limit.yaml');
  const level = short.levels.reports!;
  assert.ok(level.rejected['queue-full'] > 0);
  assert.is(level.rejected['time-out'], 0);
  assert.ok(level.longestQueue <= 5);
  assert.ok(level.waiting.max <= 8 * 5);
  for (const name of ['reports-a', 'reports-b']) assert.ok(short.flows[name]!.waitSeconds.p99! < 2, name);

  const long = await run('queue-limit.yaml', { variant: 'variants/long-queues.yaml' });
  assert.is(long.levels.reports!.rejected['queue-full'], 0);
  assert.ok(long.levels.reports!.rejected['time-out'] > 0);
  assert.ok(long.levels.reports!.longestQueue > 5);
  for (const name of ['reports-a', 'reports-b']) assert.ok(long.flows[name]!.waitSeconds.p99! > 10, name);
});

test('mixed-5k: rejections only during the cold start, until borrowing has caught up', async () => {
  const report = await run('mixed-5k.yaml', { durationSeconds: 40 });
  const times = report.series.timesSeconds;
  let last = 0;
  for (const series of Object.values(report.series.flows)) series.rejected.forEach((n, i) => n > 0 && (last = Math.max(last, times[i]!)));
  assert.ok(report.totals.rejectedTotal > 0, 'the cold start should show');
  assert.ok(last > 0 && last <= 22, `last rejection in the bucket ending at ${last}s`);
  assert.ok(report.levels['workload-low']!.currentCL.max > report.levels['workload-low']!.currentCL.min);
  assert.is(report.flows['node-1']!.priorityLevel, 'system');
});

test.run();
