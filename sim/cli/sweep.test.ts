import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runSimSweep } from './cli-sweep.ts';
import { reportJson } from '../report.ts';
import { runScenario } from '../run/run-scenario.ts';
import { spread } from '../sweep/summary.ts';
import { runSweep } from '../sweep/sweep.ts';

const SCENARIO = [
  'kind: Scenario',
  'name: sweep-test',
  'duration: 8s',
  'server: {maxRequestsInflight: 20, maxMutatingRequestsInflight: 5}',
  'flows:',
  '  - {name: heavy, user: alice, namespace: a, verb: get, resource: pods, objectName: p, ' +
    'arrival: {type: poisson, rate: 900}, service: {type: exponential, mean: 30ms}}',
  '  - {name: light, user: bob, namespace: b, verb: list, resource: pods, objects: 300, arrival: {type: ' +
    'burst, rate: 60, on: 1s, off: 2s}, service: {type: lognormal, median: 20ms, p99: 200ms}}',
  '',
].join('\n');

const VARIANT = [
  'apiVersion: flowcontrol.apiserver.k8s.io/v1',
  'kind: PriorityLevelConfiguration',
  'metadata: {name: global-default, annotations: {apf.kubernetes.io/autoupdate-spec: "false"}}',
  'spec: {type: Limited, limited: {nominalConcurrencyShares: 20, lendablePercent: 50, ' +
    'limitResponse: {type: Queue, queuing: {queues: 2, handSize: 1, queueLengthLimit: 5}}}}',
  '',
].join('\n');

test('a seed’s report.json is byte-identical alone and in a sweep at 1 or 2 workers', async () => {
  const dir = await mkdtemp(join(tmpdir(), 'fairway-sweep-'));
  try {
    const scenarioFile = join(dir, 'scenario.yaml');
    const variantFile = join(dir, 'small-queues.yaml');
    await writeFile(scenarioFile, SCENARIO);
    await writeFile(variantFile, VARIANT);
    const alone = async (seed: string, variantFiles: string[] = []) => {
      const outcome = await runScenario({ scenarioFile, seed, variantFiles, suggestions: true });
      if (!outcome.ok) throw new Error(outcome.errors.join('\n'));
      return reportJson(outcome.report);
    };
    const expected = new Map([
      ['baseline/3', await alone('3')],
      ['baseline/4', await alone('4')],
      ['small-queues/3', await alone('3', [variantFile])],
      ['small-queues/4', await alone('4', [variantFile])],
    ]);
    assert.is.not(expected.get('baseline/3'), expected.get('baseline/4'));
    assert.is.not(expected.get('baseline/3'), expected.get('small-queues/3'));

    // One worker, through the pool directly.
    const results = await runSweep(
      ['3', '4'].map((seed) => ({ scenarioFile, seed, variant: 'baseline', variantFiles: [], suggestions: true })),
      { workers: 1 },
    );
    for (const result of results) {
      assert.ok(result.ok, result.ok ? '' : result.errors.join('\n'));
      if (result.ok) assert.is(result.reportJson, expected.get(`baseline/${result.seed}`), `seed ${result.seed}`);
    }

    // Two workers, through the CLI, with a variant: the files it writes.
    const out = join(dir, 'out');
    const lines: string[] = [];
    const code = await runSimSweep([scenarioFile, '--seeds', '3..4', '--workers', '2', '--variant', variantFile, '--out', out], {
      stdout: (t) => lines.push(t),
      stderr: (t) => lines.push(t),
    });
    assert.is(code, 0, lines.join(''));
    assert.ok(lines[0]!.startsWith('SEEDS=3..4'));
    for (const [key, json] of expected) {
      const [variant, seed] = key.split('/');
      assert.is(await readFile(join(out, variant!, `seed-${seed}`, 'report.json'), 'utf8'), json, key);
    }
    const summary = JSON.parse(await readFile(join(out, 'summary.json'), 'utf8'));
    assert.equal(Object.keys(summary.variants), ['baseline', 'small-queues']);
    assert.equal(
      summary.runs.map((r: { variant: string; seed: string }) => `${r.variant}/${r.seed}`),
      ['baseline/3', 'baseline/4', 'small-queues/3', 'small-queues/4'],
    );
    const heavyBaseline = JSON.parse(expected.get('baseline/3')!).flows.heavy.rejectedTotal;
    const heavyOther = JSON.parse(expected.get('baseline/4')!).flows.heavy.rejectedTotal;
    assert.is(summary.variants.baseline.flows.heavy.rejectedTotal.min, Math.min(heavyBaseline, heavyOther));
    const summaryPage = await readFile(join(out, 'summary.html'), 'utf8');
    assert.match(summaryPage, /<svg/);
    // Each run's own page is written and linked; times carry units.
    assert.match(summaryPage, /href="baseline\/seed-3\/report\.html"/);
    assert.match(await readFile(join(out, 'baseline', 'seed-3', 'report.html'), 'utf8'), /<h1>Simulation: sweep-test<\/h1>/);
    assert.match(summaryPage, /\d ms|\d s|µs/);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});

test('spread: min, median, mean and max, ignoring missing values', () => {
  assert.equal(spread([3, 1, null, 2]), { min: 1, median: 2, mean: 2, max: 3 });
  assert.equal(spread([4, 1]), { min: 1, median: 2.5, mean: 2.5, max: 4 });
  assert.equal(spread([null]), { min: null, median: null, mean: null, max: null });
});

test.run();
