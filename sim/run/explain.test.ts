// Explanations say why a flow suffered from what the run recorded; suggestions are simulated with
// the run's seed and kept only when they help; the cold start and idle levels' lending are not
// findings.

import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { fileURLToPath } from 'node:url';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runScenario } from './run-scenario.ts';
import { renderHtml } from '../report/html.ts';
import { changeOf } from '../explain/suggest.ts';

const example = (name: string) => fileURLToPath(new URL(`../examples/${name}`, import.meta.url));
const fixture = (name: string) => fileURLToPath(new URL(`../explain/fixtures/${name}`, import.meta.url));

let dir: string | undefined;
/** A scenario text as a file (the controls: a fixture or example with one field changed). */
async function writeTemp(text: string): Promise<string> {
  dir ??= await mkdtemp(join(tmpdir(), 'fairway-explain-'));
  const file = join(dir, `scenario-${Math.abs(hashOf(text))}.yaml`);
  await writeFile(file, text);
  return file;
}
const hashOf = (text: string) => [...text].reduce((h, c) => (h * 31 + c.charCodeAt(0)) | 0, 0);
test.after(async () => {
  if (dir !== undefined) await rm(dir, { recursive: true, force: true });
});

test('a LIST storm: why argo-gets waits, in operator words, and simulated remedies with their effect on every flow', async () => {
  const outcome = await runScenario({ scenarioFile: example('operator-list-storm.yaml'), seed: '1', suggestions: true });
  assert.ok(outcome.ok);
  if (!outcome.ok) return;
  const report = outcome.report;
  const why = report.explanations!.find((e) => e.flow === 'argo-gets');
  assert.ok(why !== undefined, JSON.stringify(report.explanations));
  // Quoted at the moments argo-gets suffered: workload-low had lent its seats and got them back
  // only at the next adjustment (the run's mean CurrentCL would hide that).
  assert.match(
    why!.text,
    /^workload-low had lent 95 of its 123 nominal seats while idle, and its own demand came back from 20\.4 s to 30 s: its CurrentCL was 28, all in use/,
  );
  assert.match(why!.text, /at 30 s, when CurrentCL rose to 185, and the queueing stopped by/);
  assert.match(
    why!.text,
    new RegExp(
      'The LISTs of acme-operator-lists cost 10 seats each \\(8,000 objects, no limit\\)\\. ' +
        '8,000 objects at 100 per seat would be 80 seats, but workload-low charges at most 10',
    ),
  );
  assert.match(
    report.explanations!.find((e) => e.flow === 'acme-operator-lists')!.text,
    /^The LISTs of acme-operator-lists cost 10 seats each \(8,000 objects, no limit\); \d+ of them fill the CurrentCL of workload-low \(28–185 from/,
  );

  const suggestions = report.suggestions!;
  assert.ok(suggestions.length >= 1 && suggestions.length <= 3);
  const own = suggestions.find((s) => s.kind === 'dedicated-level');
  assert.ok(own !== undefined, suggestions.map((s) => s.title).join('; '));
  assert.match(own!.manifest, /kind: FlowSchema[\s\S]*name: acme-operator-lists/);
  assert.ok(own!.for.includes('argo-gets'));
  // Its effect on every flow is shown, and it was simulated: argo-gets got better.
  assert.equal(Object.keys(own!.effect).sort(), Object.keys(report.flows).sort());
  assert.is(own!.effect['argo-gets']!.change, 'better');
  assert.ok(own!.effect['argo-gets']!.after.waitP99Seconds! < own!.effect['argo-gets']!.before.waitP99Seconds!);
  for (const s of suggestions)
    assert.ok(
      s.for.every((f) => s.effect[f]!.change === 'better'),
      s.title,
    );

  const html = renderHtml(report, [], 'fairway sim run x');
  assert.match(html, /<b>Why argo-gets suffered:<\/b> workload-low had lent/);
  assert.match(html, /<h2>Suggestions<\/h2>/);
});

test('the cold start is explained as such, with no remedy; idle levels lending is no finding', async () => {
  const outcome = await runScenario({ scenarioFile: example('mixed-5k.yaml'), seed: '1', suggestions: true });
  assert.ok(outcome.ok);
  if (!outcome.ok) return;
  const report = outcome.report;
  assert.ok(report.totals.rejectedTotal > 0, 'mixed-5k rejects during its cold start');
  // workload-low's flows suffered only until borrowing caught up (the examples test asserts it).
  const cold = report.explanations!.filter((e) => e.level === 'workload-low');
  assert.ok(cold.length > 0);
  for (const e of cold)
    assert.match(
      e.text,
      /all in the first 20 s: workload-low started at CurrentCL \d+ \(NominalCL 245\) before the 10 s borrowing adjustments had seen any demand/,
    );
  for (const s of report.suggestions!)
    assert.not.ok(
      s.for.some((f) => cold.some((e) => e.flow === f)),
      s.title,
    );
  const html = renderHtml(report, [], 'x');
  assert.not.match(html, /Levels without traffic/);
  assert.not.match(html, /lent up to/);
});

test('a burst that queues while borrowing lags: named, with the limit at that moment, not the run average', async () => {
  const outcome = await runScenario({ scenarioFile: fixture('borrowing-lag.yaml'), seed: '1' });
  assert.ok(outcome.ok);
  if (!outcome.ok) return;
  const report = outcome.report;
  const level = report.levels['ci-tools']!;
  const why = report.explanations!.find((e) => e.flow === 'ci-lister');
  assert.ok(why !== undefined, JSON.stringify(report.explanations));
  // The limit the burst met (226 until the adjustment at 50 s), which is far from the mean.
  assert.ok(Math.abs(level.currentCL.mean - 226) > 50, String(level.currentCL.mean));
  assert.match(why!.text, /^Borrowing lag: from 41 s to 50 s the CurrentCL of ci-tools was 226, all in use/);
  assert.match(why!.text, /At the next borrowing adjustment, at 50 s, it rose to 522, and the queueing stopped by 5\d s/);
  assert.not.match(why!.text, new RegExp(`\\b${level.currentCL.mean}\\b|on average`));
  // Why each LIST costs 8 seats: its objects, and the level's maxSeats from NominalCL and handSize.
  assert.match(
    why!.text,
    new RegExp(
      '8,000 objects at 100 per seat would be 80 seats, but ci-tools charges at most 8: ' +
        'its maxSeats, the smaller of ⌈15% of its NominalCL 48⌉ = 8 and ⌊NominalCL ÷ handSize⌋ = ⌊48 ÷ 4⌋ = 12, is 8',
    ),
  );
});

test('a level that lends while its only flow never waits: no queueing in its series, no lending finding', async () => {
  const outcome = await runScenario({ scenarioFile: fixture('quiet-lender.yaml'), seed: '1' });
  assert.ok(outcome.ok);
  if (!outcome.ok) return;
  const report = outcome.report;
  assert.is(report.flows.dashboard!.waitSeconds.max, 0);
  assert.ok(report.levels.quiet!.currentCL.min < report.levels.quiet!.nominalCL, 'quiet lends');
  // Requests the queue set enqueues and dispatches in the same instant never waited.
  assert.is(report.levels.quiet!.waiting.max, 0);
  assert.is(report.levels.quiet!.longestQueue, 0);
  assert.ok(
    report.series.levels.quiet!.waitingMax.every((n) => n === 0),
    report.series.levels.quiet!.waitingMax.join(','),
  );
  assert.not.match(renderHtml(report, [], 'x'), /quiet<\/b> lent up to/);
});

test("a light flow whose hand is a heavy flow's: named a hand collision from what its requests found in their queues", async () => {
  const outcome = await runScenario({ scenarioFile: fixture('hand-collision.yaml'), seed: '1', suggestions: true });
  assert.ok(outcome.ok);
  if (!outcome.ok) return;
  const report = outcome.report;
  // Only checkout, whose hand is ledger's, suffers; the flows whose hands miss ledger's never wait long.
  for (const flow of ['gateway', 'alerts', 'web']) assert.ok(report.flows[flow]!.waitSeconds.p99! < 0.1, `${flow}: ${report.flows[flow]!.waitSeconds.p99}`);
  const why = report.explanations!.find((e) => e.flow === 'checkout');
  assert.ok(why !== undefined, JSON.stringify(report.explanations));
  assert.match(
    why!.text,
    /^Hand collision: shuffle sharding deals each flow of apps a hand of 2 of its 8 queues, and the hand of checkout overlaps that of ledger\. /,
  );
  assert.match(
    why!.text,
    new RegExp(
      'the requests of checkout found up to \\d+ requests of other flows ahead of them in their queues \\(100% of them from ledger\\), ' +
        "while [1-6] of the level's 8 queues had nothing waiting",
    ),
  );
  assert.match(why!.text, /More queues or a larger handSize/);
  assert.not.match(why!.text, /asked for/);
  // ledger itself is not a victim of a collision: it simply asks for more than the level has.
  assert.not.match(report.explanations!.find((e) => e.flow === 'ledger')!.text, /Hand collision/);
  // The remedies are simulated: a level of its own for ledger takes checkout out of its queues.
  const own = report.suggestions!.find((s) => s.kind === 'dedicated-level');
  assert.ok(own?.for.includes('checkout') === true, report.suggestions!.map((s) => s.title).join('; '));

  // Control: the same run with checkout as a user whose hand (4, 7) misses ledger's (0, 2).
  const text = (await readFile(fixture('hand-collision.yaml'), 'utf8')).replace('user: checkout', 'user: cron');
  const apart = await runScenario({ scenarioFile: await writeTemp(text), seed: '1' });
  assert.ok(apart.ok);
  if (!apart.ok) return;
  assert.ok(apart.report.flows.checkout!.waitSeconds.p99! < 0.1, String(apart.report.flows.checkout!.waitSeconds.p99));
  assert.not.ok(apart.report.explanations!.some((e) => e.flow === 'checkout'));
});

test("the more-queues suggestion's figures are a run of its manifest: every flow's after is what that configuration does", async () => {
  const outcome = await runScenario({ scenarioFile: fixture('hand-collision.yaml'), seed: '1', suggestions: true });
  assert.ok(outcome.ok);
  if (!outcome.ok) return;
  const more = outcome.report.suggestions!.find((s) => s.kind === 'more-queues');
  assert.ok(more !== undefined, outcome.report.suggestions!.map((s) => s.title).join('; '));
  // Four times the queues, the hand unchanged (a wider hand would lower maxSeats).
  assert.equal(more!.changes, ['PriorityLevelConfiguration apps: queues 8 → 32']);
  assert.match(more!.manifest, /queues: 32\b/);
  assert.match(more!.manifest, /handSize: 2\b/);
  assert.ok(more!.for.includes('checkout') && more!.effect.checkout!.change === 'better');

  // An operator applies the manifest and runs the same seed: every flow's figures are the suggestion's.
  const applied = await runScenario({ scenarioFile: fixture('hand-collision.yaml'), seed: '1', variantFiles: [await writeTemp(more!.manifest)] });
  assert.ok(applied.ok);
  if (!applied.ok) return;
  assert.is(applied.report.levels.apps!.queues, 32);
  for (const [name, f] of Object.entries(applied.report.flows)) {
    const after = more!.effect[name]!.after;
    assert.is(after.waitP99Seconds, f.waitSeconds.p99, name);
    assert.is(after.rejectedFraction, Number((f.rejectedTotal / f.arrived).toFixed(6)), name);
    assert.is(after.latencyP99Seconds, f.latencySeconds.p99, name);
  }
  // And they differ from the run without it: not the baseline's figures copied.
  assert.is.not(more!.effect.checkout!.after.waitP99Seconds, outcome.report.flows.checkout!.waitSeconds.p99);
});

test('controllers that are one APF flow with a noisy add-on: named so first, not blamed on the borrowing lag they share', async () => {
  const outcome = await runScenario({ scenarioFile: example('noisy-addon.yaml'), seed: '1', suggestions: true });
  assert.ok(outcome.ok);
  if (!outcome.ok) return;
  const report = outcome.report;
  for (const flow of ['kcm-replicaset-controller', 'kcm-deployment-controller']) {
    const why = report.explanations!.find((e) => e.flow === flow);
    assert.ok(why !== undefined, flow);
    assert.match(
      why!.text,
      new RegExp(
        `^${flow} and metrics-addon are one APF flow: FlowSchema kube-system-service-accounts tells flows apart by namespace, ` +
          'and both send to namespace "apps"\\. They share one hand of the queues of workload-high',
      ),
    );
    // The lag is still said, as what ended this burst, not as the cause.
    assert.match(why!.text, /The borrowing adjustment at 30 s raised CurrentCL to \d+ and the queueing stopped by 30\.2 s, but as long as they are one flow/);
  }
  // The add-on's own trouble is the level's limit while borrowing lags.
  assert.match(report.explanations!.find((e) => e.flow === 'metrics-addon')!.text, /^Borrowing lag: from 20 s to 30 s the CurrentCL of workload-high was 18/);
  const own = report.suggestions!.find((s) => s.kind === 'dedicated-level');
  assert.equal(own?.for, ['kcm-replicaset-controller', 'kcm-deployment-controller']);
});

test('a level asked for more than it had: the demand and limit of the moments, the queue length limit, the server full', async () => {
  const outcome = await runScenario({ scenarioFile: example('borrowing.yaml'), seed: '1' });
  assert.ok(outcome.ok);
  if (!outcome.ok) return;
  const why = outcome.report.explanations!.find((e) => e.flow === 'dashboard-surge')!.text;
  // The surge runs from 60 s on: over the whole run the flows of idle asked for 40 seats, half of what they asked while it suffered.
  const asked = /^From 60 s to 120 s the flows of idle asked for about ([\d.]+) seats and it had 22–45 \(NominalCL 45\); dashboard-surge lost /.exec(why);
  assert.ok(asked !== null, why);
  assert.ok(Number(asked![1]) > 70, why);
  assert.match(why, /\(queue-full: its queues hold at most 50 requests, and the longest held 50 then\)\. Then: up to 45 seats in use/);
  assert.match(why, /The server's 100 seats were all in use then \(its concurrency limit\), so no level had any to lend\.$/);
  assert.not.match(why, /on average/);
});

test('a level asked for more than it had: who held its seats is counted over the moments quoted, not the run', async () => {
  const outcome = await runScenario({ scenarioFile: fixture('shifting-load.yaml'), seed: '1' });
  assert.ok(outcome.ok);
  if (!outcome.ok) return;
  const texts = outcome.report.explanations!.map((e) => e.text);
  // Over the run "late" held most of the seats (69%), but it sent nothing while the others suffered.
  const fair = outcome.report.fairness.reports!.maxMinFair;
  assert.ok(fair.late!.receivedSeats > 0.5 * Object.values(fair).reduce((s, x) => s + x.receivedSeats, 0));
  assert.not.ok(
    texts.some((t) => t.includes('held by late')),
    texts.join('\n'),
  );
  const steady = outcome.report.explanations!.find((e) => e.flow === 'steady')!.text;
  assert.match(
    steady,
    /^From [\d.]+ s to [\d.]+ s the flows of reports asked for about [\d.]+ seats and it had 10 \(NominalCL 10\), \d+% of them held by early; steady /,
  );
});

test('names are never made possessive: no "tenants\'s"; the sentence says "the flows of tenants"', async () => {
  const outcome = await runScenario({ scenarioFile: example('noisy-tenant.yaml'), seed: '1', suggestions: true });
  assert.ok(outcome.ok);
  if (!outcome.ok) return;
  const texts = [...outcome.report.explanations!.map((e) => e.text), ...outcome.report.suggestions!.map((s) => s.title)];
  assert.ok(
    texts.some((t) => t.includes('the flows of tenants asked for')),
    texts.join('\n'),
  );
  const names = [...Object.keys(outcome.report.flows), ...Object.keys(outcome.report.levels)];
  assert.not.ok(
    texts.some((t) => names.some((n) => t.includes(`${n}'s`))),
    texts.join('\n'),
  );
});

test("a suggestion's effect: a flow that waits no longer but takes longer is worse (the CPU cost of more heavy work at once)", () => {
  const effect = (waitP99Seconds: number, latencyP99Seconds: number, rejectedFraction = 0) => ({ rejectedFraction, waitP99Seconds, latencyP99Seconds });
  assert.is(changeOf(effect(0, 0.047), effect(0, 0.072)), 'worse');
  assert.is(changeOf(effect(0, 0.047), effect(0, 0.048)), 'same');
  // Waiting less is better even if execution took a little longer; waiting more is worse.
  assert.is(changeOf(effect(0.3, 0.31), effect(0, 0.35)), 'better');
  assert.is(changeOf(effect(0, 0.01), effect(0.05, 0.06)), 'worse');
  assert.is(changeOf(effect(0, 0.01, 0.2), effect(0, 0.02, 0.1)), 'better');
});

test('suffering while the modelled CPUs are oversubscribed: said so, with the demand at those moments; not without the model', async () => {
  const outcome = await runScenario({ scenarioFile: example('cpu-bound-lists.yaml'), seed: '1' });
  assert.ok(outcome.ok);
  if (!outcome.ok) return;
  const why = outcome.report.explanations!.find((e) => e.flow === 'jenkins');
  assert.ok(why !== undefined, JSON.stringify(outcome.report.explanations));
  const clause = new RegExp(
    "The server's CPUs were oversubscribed then: CPU demand reached (\\d+)% of its 4 cores in \\d+ of those \\d+ intervals, " +
      'so every executing request ran up to [\\d.]+× slower \\(processor sharing\\)',
  );
  const cpu = clause.exec(why!.text);
  assert.ok(cpu !== null, why!.text);
  assert.ok(Number(cpu![1]) > 100 && Number(cpu![1]) <= Math.round(100 * outcome.report.capacity!.peakCpu), cpu![1]);
  // Without the capacity model nothing runs slower, and nothing is said of CPUs.
  const text = (await readFile(example('cpu-bound-lists.yaml'), 'utf8')).replace(', cpus: 4, memory: 2Gi', '');
  const free = await runScenario({ scenarioFile: await writeTemp(text), seed: '1' });
  assert.ok(free.ok);
  if (!free.ok) return;
  assert.is(free.report.capacity, undefined);
  for (const e of free.report.explanations!) assert.not.match(e.text, /CPU/);
});

test.run();
