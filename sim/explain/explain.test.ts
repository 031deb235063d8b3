// Explanations say why a flow suffered from what the run recorded; suggestions are simulated with
// the run's seed and kept only when they help; the cold start and idle levels' lending are not
// findings.

import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { fileURLToPath } from 'node:url';
import { runScenario } from '../run-scenario.ts';
import { renderHtml } from '../report/html.ts';

const example = (name: string) => fileURLToPath(new URL(`../examples/${name}`, import.meta.url));
const fixture = (name: string) => fileURLToPath(new URL(`./fixtures/${name}`, import.meta.url));

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
      "acme-operator-lists's LISTs cost 10 seats each \\(8,000 objects, no limit\\)\\. " +
        '8,000 objects at 100 per seat would be 80 seats, but workload-low charges at most 10',
    ),
  );
  assert.match(
    report.explanations!.find((e) => e.flow === 'acme-operator-lists')!.text,
    /^acme-operator-lists's LISTs cost 10 seats each \(8,000 objects, no limit\); \d+ of them fill workload-low's CurrentCL \(28–185 from/,
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
  assert.match(why!.text, /^Borrowing lag: from 41 s to 50 s ci-tools's CurrentCL was 226, all in use/);
  assert.match(why!.text, /At the next borrowing adjustment, at 50 s, it rose to 522, and the queueing stopped by 5\d s/);
  assert.not.match(why!.text, new RegExp(`\\b${level.currentCL.mean}\\b|on average`));
  // Why each LIST costs 8 seats: its objects, and the level's maxSeats from NominalCL and handSize.
  assert.match(
    why!.text,
    new RegExp(
      '8,000 objects at 100 per seat would be 80 seats, but ci-tools charges at most 8: ' +
        'its maxSeats, the smaller of 15% of its NominalCL 48 and NominalCL ÷ handSize \\(48 ÷ 4\\), is 8',
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

test.run();
