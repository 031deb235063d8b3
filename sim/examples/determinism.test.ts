// Same seed, same bytes, for every example an operator starts from (replicas and the capacity model
// included): each scenario in this folder run twice gives one report.json and one report.html, with
// its explanations. New examples are picked up by name (another seed giving another history is
// sim/simulation.test.ts's and capacity.test.ts's).

import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { readdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { reportJson } from '../report.ts';
import { renderHtml } from '../report/html.ts';
import { runScenario } from '../run/run-scenario.ts';

const dir = fileURLToPath(new URL('.', import.meta.url));
const examples = readdirSync(dir)
  .filter((name) => name.endsWith('.yaml') && !name.endsWith('.objectives.yaml'))
  .sort();

async function pages(name: string, seed: string): Promise<{ json: string; html: string }> {
  const outcome = await runScenario({ scenarioFile: `${dir}${name}`, seed });
  if (!outcome.ok) throw new Error(`${name}: ${outcome.errors.join('\n')}`);
  return { json: reportJson(outcome.report), html: renderHtml(outcome.report, [], `fairway sim run ${name} --seed ${seed}`) };
}

test('the examples include replicas and the capacity model', () => {
  assert.ok(examples.includes('replicas.yaml') && examples.includes('cpu-bound-lists.yaml'), examples.join(', '));
  assert.ok(examples.length >= 10, examples.join(', '));
});

for (const name of examples) {
  test(`${name}: one seed gives byte-identical report.json and report.html`, async () => {
    const first = await pages(name, '3');
    const second = await pages(name, '3');
    assert.ok(first.json === second.json, `${name}: report.json differs between two runs of seed 3`);
    assert.ok(first.html === second.html, `${name}: report.html differs between two runs of seed 3`);
    assert.ok(JSON.parse(first.json).totals.arrived > 0, `${name}: no requests`);
  });
}

test.run();
