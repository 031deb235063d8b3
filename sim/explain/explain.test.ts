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
  assert.match(why!.text, /^acme-operator-lists's LISTs cost 10 seats each \(8,000 objects, no limit\); \d+ of them fill workload-low's CurrentCL/);
  assert.match(why!.text, /so argo-gets waits behind them/);

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
  assert.match(html, /<b>Why argo-gets suffered:<\/b> acme-operator-lists&#39;s LISTs|<b>Why argo-gets suffered:<\/b> acme-operator-lists's LISTs/);
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
