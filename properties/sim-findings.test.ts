// What the simulator's report says must be what its request records show: no finding or
// explanation claims waiting, rejection or lending that did not happen. Small random scenarios
// (support/sim-scenarios.ts) run past the cold start, with flows starting late, so that levels lend
// and get their seats back. The records: each flow's wait maximum and rejections (every request's
// wait and outcome go into them), each level's CurrentCL series, what each queued request found
// ahead of it in its queue (hand collisions) and the modelled CPUs' demand.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import fc from 'fast-check';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { HandCollisionRecords } from '../sim/hand-collisions.ts';
import type { SimulationReport } from '../sim/report.ts';
import { renderHtml } from '../sim/report/html.ts';
import { runScenario } from '../sim/run/run-scenario.ts';
import { checkAsyncProperty } from './support/runner.ts';
import { scenarioCase } from './support/sim-scenarios.ts';

let dir: string;
let files = 0;

test.before(async () => {
  dir = await mkdtemp(join(tmpdir(), 'fairway-sim-findings-'));
});
test.after(async () => rm(dir, { recursive: true, force: true }));

/** Long enough to pass the cold start (20 s), with flows that start late. */
const pastColdStart = fc
  .tuple(
    scenarioCase,
    fc.integer({ min: 22, max: 32 }),
    fc.array(fc.integer({ min: 0, max: 25 }), { minLength: 3, maxLength: 3 }),
    fc.array(fc.integer({ min: 1, max: 12 }), { minLength: 3, maxLength: 3 }),
  )
  .map(([c, seconds, starts, stops]) => ({
    seed: c.seed,
    scenario: {
      ...c.scenario,
      duration: `${seconds}s`,
      flows: (c.scenario.flows as Record<string, unknown>[]).map((f, i) => ({ ...f, start: `${starts[i]}s`, stop: `${starts[i]! + stops[i]!}s` })),
    },
  }));

/**
 * Some request of the level's flows stayed queued for some time (dispatched late, timed out in a
 * queue, or still queued at the end). A flow none of whose requests was decided has no level in
 * the report yet: its queued requests may be anywhere.
 */
function levelWaited(report: SimulationReport, level: string): boolean {
  return Object.values(report.flows).some(
    (f) =>
      (f.priorityLevel.split(',').includes(level) && ((f.waitSeconds.max ?? 0) > 0 || f.rejected['time-out'] > 0 || f.waitingAtEnd > 0)) ||
      (f.priorityLevel === '' && f.waitingAtEnd > 0),
  );
}

const count = (text: string) => Number(text.replace(/,/g, ''));

function check(report: SimulationReport, hands: HandCollisionRecords): void {
  for (const [name, l] of Object.entries(report.levels)) {
    if (l.waiting.max > 0 || l.longestQueue > 0) assert.ok(levelWaited(report, name), `${name}: waiting max ${l.waiting.max}, but no request waited`);
    if (report.series.levels[name]!.waitingMax.some((n) => n > 0)) assert.ok(levelWaited(report, name), `${name}: its series shows requests waiting`);
  }
  const minCL = (level: string) => Math.min(...report.series.levels[level]!.currentCL);
  const html = renderHtml(report, [], 'x');
  for (const [, level, seats, nominal] of html.matchAll(/Level <b>([^<]+)<\/b> lent up to (\d+) of its (\d+) nominal seats/g)) {
    assert.ok(levelWaited(report, level!), `finding: ${level} lent while its requests queued, but none waited`);
    assert.ok(minCL(level!) <= Number(nominal) - Number(seats), `finding: ${level} lent ${seats}, CurrentCL never went that low`);
  }
  for (const [, level, seats] of html.matchAll(/Level <b>([^<]+)<\/b> borrowed up to (\d+) seats/g))
    assert.ok(report.levels[level!]!.currentCL.max >= report.levels[level!]!.nominalCL + Number(seats), `finding: ${level} borrowed ${seats}`);
  for (const [, flow] of html.matchAll(/Flow <b>([^<]+)<\/b> \(level [^)]*\) lost/g))
    assert.ok(report.flows[flow!]!.rejectedTotal > 0, `finding: ${flow} lost requests, none rejected`);
  for (const [, flow] of html.matchAll(/Flow <b>([^<]+)<\/b> had a p99 queue wait/g))
    assert.ok((report.flows[flow!]!.waitSeconds.max ?? 0) > 0, `finding: ${flow} waited, none did`);
  for (const e of report.explanations ?? []) {
    const f = report.flows[e.flow]!;
    const lost = /\blost ([\d,]+) of/.exec(e.text);
    if (lost !== null) assert.is(f.rejectedTotal, count(lost[1]!), `${e.flow}: ${e.text}`);
    if (/\bwaited [^ ]+ [^ ]+ at p99/.test(e.text)) assert.ok((f.waitSeconds.max ?? 0) > 0, `${e.flow}: ${e.text}`);
    const lent = /had lent (\d+) of its (\d+) nominal seats/.exec(e.text);
    if (lent !== null) {
      assert.ok(minCL(e.level) <= Number(lent[2]) - Number(lent[1]), `${e.flow}: ${e.text}`);
      assert.ok(levelWaited(report, e.level), `${e.flow}: ${e.text}`);
    }
    for (const [, waiting] of e.text.matchAll(/([\d,]+) requests waiting/g))
      if (count(waiting!) > 0) assert.ok(levelWaited(report, e.level), `${e.flow}: ${e.text}`);
    // A hand collision: some request of the flow found the heavy flow's requests ahead of it in its
    // queue while queues of the level were idle, and the heavy flow is of the same level.
    const collision = /overlaps ([^']+)'s\b|put \S+ in ([^']+)'s queues/.exec(e.text);
    if (/^Hand collision/.test(e.text)) {
      const heavy = collision?.[1] ?? collision?.[2];
      assert.is(report.flows[heavy!]?.priorityLevel, e.level, `${e.flow}: ${e.text}`);
      const seen = [...(hands.get(e.flow)?.values() ?? [])].some((r) => (r.by[heavy!] ?? 0) > 0 && r.idleQueues > 0);
      assert.ok(seen, `${e.flow}: ${e.text}`);
    }
    const cpu = /CPU demand reached ([\d,]+)% of its/.exec(e.text);
    if (cpu !== null) {
      const peak = Math.max(0, ...Object.values(report.series.capacity ?? {}).flatMap((c) => c.cpuDemandMax));
      assert.ok(count(cpu[1]!) > 100 && peak > 1, `${e.flow}: ${e.text}`);
    }
  }
}

test('no finding or explanation claims waiting, rejection or lending the request records do not show', async () => {
  await checkAsyncProperty(
    'simulator: findings match the records',
    fc.asyncProperty(pastColdStart, async ({ scenario, seed }) => {
      const file = join(dir, `scenario-${++files}.json`);
      await writeFile(file, JSON.stringify(scenario, null, 2));
      const outcome = await runScenario({ scenarioFile: file, seed });
      if (!outcome.ok) assert.unreachable(`the generated scenario does not load:\n${outcome.errors.join('\n')}`);
      const ran = outcome as { report: SimulationReport; result: { handCollisions: HandCollisionRecords } };
      check(ran.report, ran.result.handCollisions);
    }),
    { runs: 12 },
  );
});

test.run();
