import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { spawnSync } from 'node:child_process';
import { mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { reportJson } from './report.ts';
import { runScenario } from './run-scenario.ts';
import { runSimRun } from './cli-run.ts';

const FAIRWAY = fileURLToPath(new URL('../api/fairway.mjs', import.meta.url));

const SCENARIO = `kind: Scenario
name: cli-test
description: Two tenants, one too busy.
duration: 6s
server: {maxRequestsInflight: 10, maxMutatingRequestsInflight: 0}
flows:
  - {name: busy, user: alice, namespace: a, verb: get, resource: pods, objectName: p, arrival: {type: poisson, rate: 600}, service: {type: exponential, mean: 30ms}}
  - {name: calm, user: bob, namespace: b, verb: get, resource: pods, objectName: p, arrival: {type: constant, rate: 5}, service: {type: constant, value: 10ms}}
`;

test('fairway sim run: SEED first, then report.json (as in-process), report.html and SVG plots', async () => {
  const dir = await mkdtemp(join(tmpdir(), 'fairway-cli-'));
  try {
    const scenarioFile = join(dir, 'scenario.yaml');
    await writeFile(scenarioFile, SCENARIO);
    const out = join(dir, 'out');
    const run = spawnSync(process.execPath, [FAIRWAY, 'sim', 'run', scenarioFile, '--seed', '5', '--out', out], { encoding: 'utf8' });
    assert.is(run.status, 0, run.stderr);
    const lines = run.stdout.split('\n');
    assert.is(lines[0], 'SEED=5');
    assert.match(lines[1]!, /NAME=cli-test DURATION=6s FLOWS=2 SERVER_CL=10/);

    const inProcess = await runScenario({ scenarioFile, seed: '5' });
    assert.ok(inProcess.ok);
    if (inProcess.ok) assert.is(await readFile(join(out, 'report.json'), 'utf8'), reportJson(inProcess.report));

    const html = await readFile(join(out, 'report.html'), 'utf8');
    assert.match(html, /<h1>Simulation: cli-test<\/h1>/);
    assert.match(html, /Flow <b>busy<\/b> \(level global-default\) lost/);
    assert.match(html, /fairway sim run .*scenario\.yaml --seed 5/);
    const plots = (await readdir(join(out, 'plots'))).sort();
    assert.ok(plots.includes('current-cl.svg') && plots.includes('level-global-default.svg') && plots.includes('wait-cdf.svg'), plots.join(','));
    // The page is self-contained: every plot is inlined, nothing is fetched.
    assert.is(html.match(/<svg/g)?.length, plots.length);
    assert.not.match(html, /<script|<link|src="http/);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});

test('fairway sim run: an invalid scenario exits 1 naming file, line and field; usage errors exit 2', async () => {
  const dir = await mkdtemp(join(tmpdir(), 'fairway-cli-'));
  try {
    const scenarioFile = join(dir, 'bad.yaml');
    await writeFile(scenarioFile, SCENARIO.replace('rate: 600', 'rate: lots'));
    const run = spawnSync(process.execPath, [FAIRWAY, 'sim', 'run', scenarioFile, '--seed', '1', '--out', join(dir, 'out')], { encoding: 'utf8' });
    assert.is(run.status, 1);
    assert.is(run.stdout, 'SEED=1\n');
    assert.ok(run.stderr.includes(`${scenarioFile}:7: flows[0].arrival.rate: must be a number, got "lots"`), run.stderr);

    const output = { out: '', err: '' };
    const sink = { stdout: (t: string) => void (output.out += t), stderr: (t: string) => void (output.err += t) };
    assert.is(await runSimRun([], sink), 2);
    assert.match(output.err, /no scenario file given/);
    assert.is(await runSimRun([scenarioFile, '--seed', 'xyz'], sink), 2);
    assert.match(output.err, /invalid seed "xyz"/);
    assert.is(await runSimRun([scenarioFile, '--bogus'], sink), 2);
    assert.is(await runSimRun(['--help'], sink), 0);
    assert.match(output.out, /Usage: fairway sim run SCENARIO/);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});

test.run();
