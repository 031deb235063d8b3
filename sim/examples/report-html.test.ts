// The report page's level table: a CurrentCL that never moved is one number, not a range.

import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { fileURLToPath } from 'node:url';
import { runScenario } from '../run/run-scenario.ts';
import { renderHtml } from '../report/html.ts';

const example = (name: string) => fileURLToPath(new URL(`./${name}`, import.meta.url));

test('level table: a CurrentCL that never moved prints as one number; one that moved as its range', async () => {
  const outcome = await runScenario({ scenarioFile: example('borrowing.yaml'), seed: '1' });
  assert.ok(outcome.ok);
  if (!outcome.ok) return;
  const html = renderHtml(outcome.report, [], 'x');
  // catch-all has no traffic; it lends, so its CurrentCL moved. exempt's is 0 throughout.
  const { exempt, idle } = outcome.report.levels;
  assert.ok(exempt!.currentCL.max === 0 && idle!.currentCL.min < idle!.currentCL.max);
  // The cells after the name: NominalCL, then CurrentCL min–max (mean).
  assert.match(html, /exempt <span class="dim">\(exempt\)<\/span><\/td><td>0<\/td><td>0 \(0\)<\/td>/);
  assert.ok(html.includes(`idle</td><td>${idle!.nominalCL}</td><td>${idle!.currentCL.min}–${idle!.currentCL.max} (`));
});

test.run();
