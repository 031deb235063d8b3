// `fairway sim run` and `fairway sim compare` end to end through the command's launcher (here, above
// sim/, since the launcher and the command table are the API layer's).
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { spawnSync } from 'node:child_process';
import { mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { reportJson } from '../../sim/report.ts';
import { runScenario } from '../../sim/run/run-scenario.ts';
import { runSimRun } from '../../sim/cli/cli-run.ts';

const FAIRWAY = fileURLToPath(new URL('../fairway.mjs', import.meta.url));

const SCENARIO = [
  'kind: Scenario',
  'name: cli-test',
  'description: Two tenants, one too busy.',
  'duration: 6s',
  'server: {maxRequestsInflight: 10, maxMutatingRequestsInflight: 0}',
  'flows:',
  '  - {name: busy, user: alice, namespace: a, verb: get, resource: pods, objectName: p, ' +
    'arrival: {type: poisson, rate: 600}, service: {type: exponential, mean: 30ms}}',
  '  - {name: calm, user: bob, namespace: b, verb: get, resource: pods, objectName: p, ' +
    'arrival: {type: constant, rate: 5}, service: {type: constant, value: 10ms}}',
  '',
].join('\n');

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

    const inProcess = await runScenario({ scenarioFile, seed: '5', suggestions: true });
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

test('fairway sim and fairway sim --help list the subcommands', () => {
  for (const args of [['sim'], ['sim', '--help']]) {
    const run = spawnSync(process.execPath, [FAIRWAY, ...args], { encoding: 'utf8' });
    assert.is(run.status, args.length === 1 ? 2 : 0);
    for (const sub of ['compare', 'import', 'run', 'sweep', 'tune']) assert.match(run.stdout, new RegExp(`^  sim ${sub} +\\S`, 'm'));
  }
});

test('--strict: a warning is an error, exit 1, nothing simulated', async () => {
  const dir = await mkdtemp(join(tmpdir(), 'fairway-cli-'));
  try {
    const scenarioFile = join(dir, 'lists.yaml');
    await writeFile(
      scenarioFile,
      `${SCENARIO}  - {name: lister, user: carol, verb: list, resource: secrets, arrival: {type: constant, rate: 1}, service: {type: constant, value: 10ms}}\n`,
    );
    const out = join(dir, 'out');
    const lenient = spawnSync(process.execPath, [FAIRWAY, 'sim', 'run', scenarioFile, '--seed', '1', '--no-plots', '--out', out], { encoding: 'utf8' });
    assert.is(lenient.status, 0, lenient.stderr);
    assert.ok(lenient.stderr.includes(`warning: ${scenarioFile}: flows[2] ("lister"): list of secrets has no object count`), lenient.stderr);
    const strict = spawnSync(process.execPath, [FAIRWAY, 'sim', 'run', scenarioFile, '--seed', '1', '--strict', '--out', join(dir, 'strict')], {
      encoding: 'utf8',
    });
    assert.is(strict.status, 1);
    assert.ok(strict.stderr.includes(`error: ${scenarioFile}: flows[2] ("lister"): list of secrets has no object count`), strict.stderr);
    assert.match(strict.stderr, /1 warning with --strict; nothing was simulated/);
    assert.is(strict.stdout, 'SEED=1\n');
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});

test('fairway sim compare: per flow and level verdicts, winners and losers first, every run linked', async () => {
  const dir = await mkdtemp(join(tmpdir(), 'fairway-cli-'));
  try {
    const scenarioFile = join(dir, 'scenario.yaml');
    const variant = join(dir, 'roomy.yaml');
    const noop = join(dir, 'noop.yaml');
    await writeFile(scenarioFile, SCENARIO);
    // More queues and a longer queue limit for global-default: the busy tenant loses less.
    await writeFile(
      variant,
      'apiVersion: flowcontrol.apiserver.k8s.io/v1\nkind: PriorityLevelConfiguration\nmetadata: {name: global-default, annotations: ' +
        '{apf.kubernetes.io/autoupdate-spec: "false"}}\nspec: {type: Limited, limited: {nominalConcurrencyShares: 20, lendablePercent: 50, ' +
        'limitResponse: {type: Queue, queuing: {queues: 128, handSize: 6, queueLengthLimit: 400}}}}\n',
    );
    await writeFile(
      noop,
      'apiVersion: flowcontrol.apiserver.k8s.io/v1\nkind: PriorityLevelConfiguration\nmetadata: {name: global-default}\nspec: {type: Limited, ' +
        'limited: {nominalConcurrencyShares: 99, limitResponse: {type: Reject}}}\n',
    );
    const out = join(dir, 'out');
    const run = spawnSync(
      process.execPath,
      [FAIRWAY, 'sim', 'compare', scenarioFile, '--variant', variant, '--seeds', '1..3', '--workers', '2', '--no-plots', '--out', out],
      { encoding: 'utf8' },
    );
    assert.is(run.status, 0, run.stderr);
    assert.match(run.stdout, /^SEEDS=1\.\.3\n/);
    const comparison = JSON.parse(await readFile(join(out, 'compare.json'), 'utf8'));
    assert.is(comparison.kind, 'SimulationComparison');
    assert.equal(comparison.seeds, ['1', '2', '3']);
    const v = comparison.variants[0];
    assert.is(v.name, 'roomy');
    const busy = v.flows.find((f: { name: string }) => f.name === 'busy');
    assert.is(busy.metrics.rejectedFraction.verdict, 'better', JSON.stringify(busy.metrics.rejectedFraction));
    assert.is(busy.metrics['rejected.queue-full'].verdict, 'better');
    assert.ok(busy.metrics.rejectedFraction.baseline.min <= busy.metrics.rejectedFraction.baseline.max);
    assert.ok(busy.metrics.rejectedFraction.delta < 0);
    // Rows that changed come before rows within seed noise.
    const order = v.flows.map((f: { verdict: string }) => (f.verdict === 'noise' ? 1 : 0));
    assert.equal(order, [...order].sort());
    assert.ok(v.levels.some((l: { name: string }) => l.name === 'global-default'));
    assert.is(comparison.runs.length, 6);
    const html = await readFile(join(out, 'compare.html'), 'utf8');
    for (const r of comparison.runs) {
      assert.ok(html.includes(`href="${r.html}"`), r.html);
      assert.match(await readFile(join(out, r.html), 'utf8'), /<h1>Simulation: cli-test<\/h1>/);
    }
    // A variant the ensurer undoes changes nothing: a warning, an error with --strict.
    const strict = spawnSync(process.execPath, [FAIRWAY, 'sim', 'compare', scenarioFile, '--variant', noop, '--strict', '--out', join(dir, 'noop')], {
      encoding: 'utf8',
    });
    assert.is(strict.status, 1);
    assert.ok(strict.stderr.includes(`error: ${noop}: the variant changes nothing the controller digests`), strict.stderr);
    assert.is(spawnSync(process.execPath, [FAIRWAY, 'sim', 'compare', scenarioFile, '--out', out], { encoding: 'utf8' }).status, 2);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});

test.run();
