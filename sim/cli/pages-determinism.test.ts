// compare.html and tune's pages are a pure function of the scenario, the seeds and the flags: run
// twice into the same directory they are byte-identical, plots included (the run reports are
// checked in sim/simulation.test.ts). A different seed gives a different page, so the comparison
// is not of two empty files.

import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runSimCompare } from './cli-compare.ts';
import { runSimTune } from './cli-tune.ts';

const SCENARIO = [
  'kind: Scenario',
  'name: pages-determinism',
  'duration: 12s',
  'server: {maxRequestsInflight: 30, maxMutatingRequestsInflight: 10}',
  'objectCounts: {pods: 3000}',
  'flows:',
  '  - {name: lister, user: "system:serviceaccount:ci:lister", groups: [system:serviceaccounts, system:authenticated], verb: list, ' +
    'resource: pods, arrival: {type: poisson, rate: 10}, service: {type: lognormal, median: 200ms, p99: 800ms}}',
  '  - {name: ctrl-gets, user: "system:serviceaccount:apps:ctrl", groups: [system:serviceaccounts, system:authenticated], namespace: apps, ' +
    'verb: get, resource: configmaps, objectName: c, arrival: {type: poisson, rate: 60}, service: {type: exponential, mean: 10ms}}',
  '',
].join('\n');

const VARIANT = [
  'apiVersion: flowcontrol.apiserver.k8s.io/v1',
  'kind: PriorityLevelConfiguration',
  'metadata: {name: workload-low, annotations: {apf.kubernetes.io/autoupdate-spec: "false"}}',
  'spec: {type: Limited, limited: {nominalConcurrencyShares: 300, lendablePercent: 0, ' +
    'limitResponse: {type: Queue, queuing: {queues: 128, handSize: 6, queueLengthLimit: 200}}}}',
  '',
].join('\n');

const OBJECTIVES = [
  'kind: TuneObjectives',
  'objectives:',
  '  - {flows: "ctrl-*", waitP99: 20ms, rejected: 0%}',
  'changes:',
  '  modify: [workload-low]',
  '',
].join('\n');

const sink = { stdout: () => {}, stderr: (t: string) => void process.stderr.write(t) };

/** Runs `command` into `out` and returns the named files' text, then removes `out`. */
async function texts(out: string, files: readonly string[], command: () => Promise<number>): Promise<string[]> {
  const code = await command();
  assert.ok(code === 0 || code === 1, `exit ${code}`);
  const read = await Promise.all(files.map((f) => readFile(join(out, f), 'utf8')));
  await rm(out, { recursive: true, force: true });
  return read;
}

test('compare.html and tune pages: byte-identical when run twice, different with other seeds', async () => {
  const dir = await mkdtemp(join(tmpdir(), 'fairway-pages-determinism-'));
  try {
    const scenario = join(dir, 'scenario.yaml');
    const variant = join(dir, 'variant.yaml');
    const objectives = join(dir, 'objectives.yaml');
    await writeFile(scenario, SCENARIO);
    await writeFile(variant, VARIANT);
    await writeFile(objectives, OBJECTIVES);
    const out = join(dir, 'out');

    const compare = (seeds: string) => () => runSimCompare([scenario, '--variant', variant, '--seeds', seeds, '--workers', '1', '--out', out], sink);
    const [first] = await texts(out, ['compare.html'], compare('1..2'));
    const [second] = await texts(out, ['compare.html'], compare('1..2'));
    assert.match(first!, /<figure>/, 'compare.html has its plots');
    assert.ok(first === second, 'compare.html differs between two runs with the same seeds');
    const [other] = await texts(out, ['compare.html'], compare('3..4'));
    assert.ok(other !== first, 'compare.html does not depend on the seeds');

    const tuneFiles = ['compare.html', 'tune.json'];
    const tune = (seeds: string) => () =>
      runSimTune([scenario, '--objectives', objectives, '--seeds', seeds, '--budget', '4', '--workers', '1', '--out', out], sink);
    const a = await texts(out, tuneFiles, tune('1'));
    const b = await texts(out, tuneFiles, tune('1'));
    assert.match(a[0]!, /<figure>/, "tune's compare.html has its plots");
    for (const [i, file] of tuneFiles.entries()) assert.ok(a[i] === b[i], `tune's ${file} differs between two runs with the same seeds`);
    const c = await texts(out, tuneFiles, tune('2'));
    assert.ok(c[1] !== a[1], 'tune.json does not depend on the seeds');
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});

test.run();
