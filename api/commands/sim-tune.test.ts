// `fairway sim tune` end to end through the CLI: a small scenario whose objective fails as
// configured, the recommendation that meets it, the same result at one and two workers, the
// closest candidate and exit 1 when the budget is too small, and objectives that name nothing.

import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { spawnSync } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parse } from 'yaml';
import { fmtSeconds } from '../../sim/report/format.ts';
import { runScenario } from '../../sim/run/run-scenario.ts';

const FAIRWAY = fileURLToPath(new URL('../fairway.mjs', import.meta.url));

// Service accounts share workload-low; the lister's 10-seat LISTs hold up the controller's GETs.
const SCENARIO = [
  'kind: Scenario',
  'name: tune-test',
  'duration: 30s',
  'server: {maxRequestsInflight: 60, maxMutatingRequestsInflight: 30}',
  'objectCounts: {pods: 5000}',
  'flows:',
  '  - {name: lister, user: "system:serviceaccount:ci:lister", groups: [system:serviceaccounts, system:authenticated], verb: list, ' +
    'resource: pods, start: 12s, arrival: {type: poisson, rate: 12}, service: {type: lognormal, median: 300ms, p99: 1s}}',
  '  - {name: ctrl-gets, user: "system:serviceaccount:apps:ctrl", groups: [system:serviceaccounts, system:authenticated], namespace: apps, ' +
    'verb: get, resource: configmaps, objectName: c, arrival: {type: poisson, rate: 40}, service: {type: exponential, mean: 10ms}}',
  '',
].join('\n');

const OBJECTIVES = `kind: TuneObjectives
objectives:
  - flows: "ctrl-*"
    waitP99: 100ms
    rejected: 0%
changes:
  modify: [workload-low]
  createFor: [lister]
`;

const run = (args: string[]) => spawnSync(process.execPath, [FAIRWAY, 'sim', 'tune', ...args], { encoding: 'utf8' });

test('sim tune: the recommendation meets the objective in every seed, the same at 1 and 2 workers', async () => {
  const dir = await mkdtemp(join(tmpdir(), 'fairway-tune-'));
  try {
    const scenario = join(dir, 'scenario.yaml');
    const objectives = join(dir, 'objectives.yaml');
    await writeFile(scenario, SCENARIO);
    await writeFile(objectives, OBJECTIVES);
    // As configured, the controller waits behind the LISTs.
    const before = await runScenario({ scenarioFile: scenario, seed: '1' });
    assert.ok(before.ok && before.report.flows['ctrl-gets']!.waitSeconds.p99! > 0.1, 'the objective fails as configured');

    const outs = [join(dir, 'w1'), join(dir, 'w2')];
    const first = run([scenario, '--objectives', objectives, '--seeds', '1..2', '--workers', '1', '--no-plots', '--out', outs[0]!]);
    assert.is(first.status, 0, first.stdout + first.stderr);
    assert.match(first.stdout, /^SEEDS=1\.\.2 SEARCH_SEED=1\n/);
    assert.match(first.stdout, /MET by candidate \d+/);
    const second = run([scenario, '--objectives', objectives, '--seeds', '1..2', '--workers', '2', '--no-plots', '--out', outs[1]!]);
    assert.is(second.status, 0, second.stderr);
    for (const file of ['tune.json', 'recommended.yaml'])
      assert.is(await readFile(join(outs[1]!, file), 'utf8'), await readFile(join(outs[0]!, file), 'utf8'), `${file} at 1 and 2 workers`);

    const tune = JSON.parse(await readFile(join(outs[0]!, 'tune.json'), 'utf8'));
    assert.is(tune.met, true);
    assert.equal(tune.seeds, ['1', '2']);
    assert.is(tune.searchSeed, '1');
    assert.ok(tune.candidatesTried >= 2 && tune.candidates.length === tune.candidatesTried);
    assert.is(tune.baseline[0].met, false);
    assert.is(tune.objectives[0].waitP99Seconds.met, true);
    assert.ok(tune.objectives[0].waitP99Seconds.worst <= 0.1);
    // The objectives table: each measure with its limit, the baseline's and the recommendation's worst.
    assert.match(first.stdout, /^objective +limit +baseline +recommended +margin$/m);
    assert.equal(
      tune.objectivesTable.map((r: { what: string; met: boolean }) => [r.what, r.met]),
      [
        ['ctrl-* wait p99', true],
        ['ctrl-* rejected', true],
      ],
    );
    assert.is(tune.objectivesTable[0].baseline, `${fmtSeconds(tune.baseline[0].waitP99Seconds.worst)} (ctrl-gets)`);
    assert.equal([tune.objectivesTable[0].objective, tune.objectivesTable[0].label], [0, '[0] ctrl-* wait p99']);
    // Each candidate not met says why: its failing rows, at the worst flow and seed.
    const baselineWait = tune.baseline[0].waitP99Seconds;
    assert.equal(tune.candidates[0].changes, []);
    assert.equal(tune.candidates[0].failing, [
      { objective: '[0] ctrl-* wait p99', worst: `${fmtSeconds(baselineWait.worst)} (ctrl-gets)`, limit: '100 ms', seed: baselineWait.seed },
    ]);
    for (const c of tune.candidates) assert.is(c.met ? c.failing : c.failing?.length > 0, c.met ? undefined : true, JSON.stringify(c));
    assert.match(first.stdout, /why, and what it costs:\n/);
    assert.match(tune.effects.at(-1), /^Measured cost: /);

    // The manifests are what kubectl would apply; a changed suggested level opts out of the ensurer.
    const text = await readFile(join(outs[0]!, 'recommended.yaml'), 'utf8');
    const documents = text
      .split(/^---$/m)
      .slice(1)
      .map((d) => parse(d));
    assert.ok(documents.length >= 1);
    for (const d of documents) {
      assert.is(d.apiVersion, 'flowcontrol.apiserver.k8s.io/v1');
      assert.is(d.metadata.uid, undefined);
      if (d.metadata.name === 'workload-low') assert.is(d.metadata.annotations['apf.kubernetes.io/autoupdate-spec'], 'false');
    }
    // Applied as a variant, it meets the objective in each seed, with nothing for the ensurer to undo.
    for (const seed of ['1', '2']) {
      const after = await runScenario({ scenarioFile: scenario, seed, variantFiles: [join(outs[0]!, 'recommended.yaml')] });
      assert.ok(after.ok);
      if (!after.ok) continue;
      assert.equal(after.loaded.warnings, []);
      assert.ok(after.report.flows['ctrl-gets']!.waitSeconds.p99! <= 0.1, `seed ${seed}`);
      assert.is(after.report.flows['ctrl-gets']!.rejectedTotal, 0);
      // Each changed level's sentence quotes the NominalCL the level really had in the run.
      for (const d of documents.filter((x) => x.kind === 'PriorityLevelConfiguration')) {
        const nominal = after.report.levels[d.metadata.name]!.nominalCL;
        assert.ok(
          tune.effects.some((e: string) => e.startsWith(`${d.metadata.name}: `) && new RegExp(`NominalCL (\\d+ → )?${nominal} seats`).test(e)),
          `${d.metadata.name} NominalCL ${nominal}: ${tune.effects.join(' | ')}`,
        );
      }
    }
    // Tuned on top of that recommendation as a what-if, nothing more is needed.
    const onTop = run([
      scenario,
      '--objectives',
      objectives,
      '--seeds',
      '1..2',
      '--workers',
      '1',
      '--no-plots',
      '--out',
      join(dir, 'v'),
      '--variant',
      join(outs[0]!, 'recommended.yaml'),
    ]);
    assert.is(onTop.status, 0, onTop.stdout + onTop.stderr);
    assert.match(onTop.stdout, /MET: the configuration as it is meets every objective/);
    assert.equal(JSON.parse(await readFile(join(dir, 'v', 'tune.json'), 'utf8')).variantFiles, [join(outs[0]!, 'recommended.yaml')]);
    const html = await readFile(join(outs[0]!, 'compare.html'), 'utf8');
    assert.match(html, /baseline vs recommended/);
    assert.match(html, /href="baseline\/seed-1\/report\.html"/);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});

test('sim tune: a budget too small exits 1 with the closest candidate and what still fails; objectives naming nothing are errors', async () => {
  const dir = await mkdtemp(join(tmpdir(), 'fairway-tune-'));
  try {
    const scenario = join(dir, 'scenario.yaml');
    const objectives = join(dir, 'objectives.yaml');
    await writeFile(scenario, SCENARIO);
    await writeFile(objectives, OBJECTIVES);
    const out = join(dir, 'out');
    const small = run([scenario, '--objectives', objectives, '--seeds', '1', '--budget', '1', '--workers', '1', '--no-plots', '--out', out]);
    assert.is(small.status, 1, small.stderr);
    assert.match(small.stdout, /NOT MET within the budget/);
    assert.match(small.stdout, /objectives\[0\]: ctrl-gets wait p99 [\d.]+ (ms|s) in seed 1 \(limit 100 ms\)/);
    const tune = JSON.parse(await readFile(join(out, 'tune.json'), 'utf8'));
    assert.is(tune.met, false);
    assert.match(await readFile(join(out, 'closest.yaml'), 'utf8'), /objectives NOT met/);

    await writeFile(objectives, OBJECTIVES.replace('"ctrl-*"', '"nobody-*"').replace('createFor: [lister]', 'createFor: [ghost]'));
    const none = run([scenario, '--objectives', objectives, '--seeds', '1', '--workers', '1', '--out', out]);
    assert.is(none.status, 1);
    assert.ok(none.stderr.includes(`${objectives}: objectives[0].flows: "nobody-*" matches no flow of the scenario`), none.stderr);
    assert.ok(none.stderr.includes(`${objectives}: changes.createFor: "ghost" matches no flow`), none.stderr);

    await writeFile(objectives, 'kind: TuneObjectives\nobjectives:\n  - flows: a\n    rejected: lots\n');
    const bad = run([scenario, '--objectives', objectives, '--out', out]);
    assert.is(bad.status, 1);
    assert.ok(bad.stderr.includes(`${objectives}:4: objectives[0].rejected: must be a percentage such as "1%" or "0%", got "lots"`), bad.stderr);
    assert.is(run([scenario, '--out', out]).status, 2);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});

test.run();
