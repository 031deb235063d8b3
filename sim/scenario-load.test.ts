import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadScenarioText, type LoadResult } from './scenario-load.ts';

const FLOW = `  - name: a
    user: alice
    verb: get
    resource: pods
    arrival: {type: poisson, rate: 5}
    service: {type: constant, value: 10ms}
`;

const errorsOf = (result: LoadResult): string[] => (result.ok ? [] : result.errors);

test('a valid scenario loads with its defaults', async () => {
  const result = await loadScenarioText(`kind: Scenario\nduration: 30s\nflows:\n${FLOW}`, 'ok.yaml');
  assert.ok(result.ok, errorsOf(result).join('\n'));
  if (!result.ok) return;
  const { scenario, config } = result.loaded;
  assert.is(scenario.name, 'ok');
  assert.is(scenario.durationMs, 30_000);
  assert.is(scenario.server.maxRequestsInflight + scenario.server.maxMutatingRequestsInflight, 600);
  const flow = scenario.flows[0]!;
  assert.equal(flow.groups, ['system:authenticated']);
  assert.is(flow.timeoutMs, 60_000);
  assert.is(flow.waitLimitMs, 15_000);
  // bootstrap: suggested by default: 8 levels, 13 schemas.
  assert.is(config.priorityLevels.length, 8);
  assert.is(config.flowSchemas.length, 13);
});

test('sizes are read as Kubernetes reads a quantity: a fraction of a byte rounds up, so a positive size stays positive', async () => {
  const memoryOf = async (memory: string) => {
    const result = await loadScenarioText(`kind: Scenario\nduration: 30s\nserver: {cpus: 2, memory: ${memory}}\nflows:\n${FLOW}`, 'ok.yaml');
    assert.ok(result.ok, errorsOf(result).join('\n'));
    return result.ok ? result.loaded.scenario.server.memoryBytes : undefined;
  };
  assert.is(await memoryOf('0.4'), 1);
  assert.is(await memoryOf('1.5Ki'), 1536);
  assert.is(await memoryOf('2Gi'), 2 * 1024 ** 3);
});

test('every scenario mistake is reported with the file, its line and the field path', async () => {
  const text = [
    'kind: Scenario', //                      1
    'duration: 2 minutes', //                 2
    'bootstrap: some', //                     3
    'server: {maxRequestsInflight: -4}', //   4
    'flows:', //                              5
    '  - name: a', //                         6
    '    user: alice', //                     7
    '    verb: fetch', //                     8
    '    resource: pods', //                  9
    '    arival: {type: poisson, rate: 5}', // 10
    '    service: {type: lognormal, median: 2s, p99: 1s}', // 11
    '  - name: a', //                         12
    '    user: bob', //                       13
    '    verb: get', //                       14
    '    resource: pods', //                  15
    '    arrival: {type: burst, rate: 0, on: 1s}', // 16
    '    service: {type: exponential, mean: 40}', // 17
    '',
  ].join('\n');
  const errors = errorsOf(await loadScenarioText(text, 'bad.yaml'));
  const expect = (fragment: string) =>
    assert.ok(
      errors.some((e) => e.includes(fragment)),
      `missing ${JSON.stringify(fragment)} in\n${errors.join('\n')}`,
    );
  expect('bad.yaml:2: duration: must be a duration such as "40ms", "2s" or "1m30s"');
  expect('bad.yaml:3: bootstrap: must be one of suggested, mandatory, none, got "some"');
  expect('bad.yaml:4: server.maxRequestsInflight: must be at least 0, got -4');
  expect('bad.yaml:8: flows[0].verb: must be one of get, list, watch');
  expect('bad.yaml:10: flows[0].arival: unknown field');
  expect('bad.yaml:6: flows[0].arrival: required');
  expect('bad.yaml:11: flows[0].service.p99: must not be shorter than the median');
  expect('bad.yaml:12: flows[1].name: duplicate flow name "a" (also flows[0])');
  expect('bad.yaml:16: flows[1].arrival.rate: must be greater than 0, got 0');
  expect('bad.yaml:16: flows[1].arrival.off: required');
  expect('bad.yaml:17: flows[1].service.mean: must be a duration');
});

test("server.workEstimator sets the estimator's tunables (Kubernetes' WorkEstimatorConfig), defaults otherwise, errors by field", async () => {
  const loaded = await loadScenarioText(
    `kind: Scenario\nduration: 30s\nserver:\n  workEstimator: {maximumSeatsLimit: 4, listWorkEstimatorConfig: {objectsPerSeat: 50}}\nflows:\n${FLOW}`,
    'we.yaml',
  );
  assert.ok(loaded.ok, errorsOf(loaded).join('\n'));
  if (!loaded.ok) return;
  assert.equal(loaded.loaded.scenario.server.workEstimator, {
    minimumSeats: 1,
    maximumSeatsLimit: 4,
    objectsPerSeat: 50,
    mutatingEnabled: true,
    eventAdditionalDurationMs: 5,
    watchesPerSeat: 10,
  });
  const plain = await loadScenarioText(`kind: Scenario\nduration: 30s\nflows:\n${FLOW}`, 'ok.yaml');
  assert.ok(plain.ok && plain.loaded.scenario.server.workEstimator.maximumSeatsLimit === 10);
  const errors = errorsOf(
    await loadScenarioText(
      `kind: Scenario\nduration: 30s\nserver:\n  workEstimator: {mutatingWorkEstimatorConfig: {watchesPerSeat: 0}}\nflows:\n${FLOW}`,
      'bad.yaml',
    ),
  );
  assert.ok(
    errors.some((e) => e.includes('server.workEstimator.mutatingWorkEstimatorConfig.watchesPerSeat: Invalid value: 0: must be a number greater than 0')),
    errors.join('\n'),
  );
});

test('an inline manifest with thousands of field errors: the first 100, then how many more', async () => {
  // Each bad finalizer is reported on the list and on its item: 1,000 errors.
  const finalizers = Array.from({ length: 500 }, (_, i) => `-bad${i}`).join(', ');
  const text = `kind: Scenario
duration: 10s
objects:
  - apiVersion: flowcontrol.apiserver.k8s.io/v1
    kind: PriorityLevelConfiguration
    metadata: {name: many, finalizers: [${finalizers}]}
    spec: {type: Limited, limited: {limitResponse: {type: Reject}}}
`;
  const errors = errorsOf(await loadScenarioText(text, 'many.yaml'));
  assert.is(errors.length, 101, errors.slice(-2).join('\n'));
  assert.is(errors.at(-1), 'many.yaml: objects[0]: and 900 more errors');
});

test('the capacity model and replicas: sizes as Kubernetes quantities, defaults, and errors naming the field', async () => {
  const flow = FLOW.replace('    resource: pods\n', '    resource: pods\n    cpu: 3ms\n    objectSize: 2Ki\n    clients: 4\n');
  const loaded = await loadScenarioText(
    `kind: Scenario\nduration: 30s\nserver: {cpus: 8, memory: 16Gi, replicas: 3, replicaAssignment: round-robin}\nflows:\n${flow}`,
    'cap.yaml',
  );
  assert.ok(loaded.ok, errorsOf(loaded).join('\n'));
  if (!loaded.ok) return;
  const { server, flows } = loaded.loaded.scenario;
  assert.equal([server.cpus, server.memoryBytes, server.replicas, server.replicaAssignment, server.executorThreads], [8, 16 * 2 ** 30, 3, 'round-robin', 7]);
  assert.equal([flows[0]!.cpuMs, flows[0]!.objectBytes, flows[0]!.clients], [3, 2048, 4]);
  const plain = await loadScenarioText(`kind: Scenario\nduration: 30s\nserver: {executorThreads: none, cpus: 2}\nflows:\n${FLOW}`, 'p.yaml');
  assert.ok(plain.ok);
  if (!plain.ok) return;
  assert.equal(
    [plain.loaded.scenario.server.executorThreads, plain.loaded.scenario.server.memoryBytes, plain.loaded.scenario.server.replicas],
    [null, null, 1],
  );
  assert.equal(
    [plain.loaded.scenario.flows[0]!.cpuMs, plain.loaded.scenario.flows[0]!.objectBytes, plain.loaded.scenario.flows[0]!.clients],
    [undefined, 4096, 1],
  );

  const errors = errorsOf(
    await loadScenarioText(
      'kind: Scenario\nduration: 30s\nserver: {cores: 4, memory: 12GB, replicas: 0, replicaAssignment: sticky}\nflows:\n' +
        FLOW.replace('    resource: pods\n', '    resource: pods\n    objectSize: -1\n    cpu: 5\n'),
      'bad.yaml',
    ),
  );
  for (const expected of [
    'bad.yaml:3: server.cores: renamed to cpus',
    'bad.yaml:3: server.memory: must be a size in bytes such as 4096, "4Ki", "512Mi" or "16Gi", got "12GB"',
    'bad.yaml:3: server.replicas: must be at least 1, got 0',
    'bad.yaml:3: server.replicaAssignment: must be one of random, round-robin',
    'flows[0].objectSize: must be a size in bytes',
    'flows[0].cpu: must be a duration',
  ])
    assert.ok(
      errors.some((e) => e.includes(expected)),
      `${expected}\n${errors.join('\n')}`,
    );
});

test('inline manifests go through the server’s validation, errors pointing at the field’s line', async () => {
  const text = `kind: Scenario
duration: 10s
objects:
  - apiVersion: flowcontrol.apiserver.k8s.io/v1
    kind: PriorityLevelConfiguration
    metadata: {name: busy}
    spec:
      type: Limited
      limited:
        nominalConcurrencyShares: 10
        lendablePercent: 101
        limitResponse: {type: Reject}
  - apiVersion: flowcontrol.apiserver.k8s.io/v1
    kind: FlowSchema
    metadata: {name: fs}
    spec: {priorityLevelConfiguration: {name: busy}, matchingPrecedence: 20000}
  - apiVersion: v1
    kind: ConfigMap
    metadata: {name: nope}
`;
  const errors = errorsOf(await loadScenarioText(text, 'objects.yaml'));
  assert.ok(
    errors.some((e) => e.startsWith('objects.yaml:11: objects[0].spec.limited.lendablePercent: Invalid value: 101: must be between 0 and 100, inclusive')),
    errors.join('\n'),
  );
  assert.ok(
    errors.some((e) => e.startsWith('objects.yaml:16: objects[1].spec.matchingPrecedence: Invalid value: 20000')),
    errors.join('\n'),
  );
  assert.ok(
    errors.some((e) => e.startsWith('objects.yaml:17: objects[2]: unknown kind: apiVersion "v1", kind "ConfigMap"')),
    errors.join('\n'),
  );
});

test('manifest files are read relative to the scenario and reported with their own file and line', async () => {
  const dir = await mkdtemp(join(tmpdir(), 'fairway-sim-'));
  try {
    await writeFile(
      join(dir, 'levels.yaml'),
      `apiVersion: flowcontrol.apiserver.k8s.io/v1
kind: PriorityLevelConfiguration
metadata: {name: good}
spec: {type: Limited, limited: {nominalConcurrencyShares: 5, limitResponse: {type: Reject}}}
---
apiVersion: flowcontrol.apiserver.k8s.io/v1
kind: PriorityLevelConfiguration
metadata: {name: bad}
spec: {type: Limited, limited: {nominalConcurrencyShares: -1, limitResponse: {type: Reject}}}
`,
    );
    const scenarioFile = join(dir, 'scenario.yaml');
    const errors = errorsOf(await loadScenarioText(`kind: Scenario\nduration: 1s\nfiles: [levels.yaml, missing.yaml]\n`, scenarioFile));
    assert.ok(
      errors.some(
        (e) =>
          e ===
          `${join(dir, 'levels.yaml')}:6: PriorityLevelConfiguration/bad: spec.limited.nominalConcurrencyShares: Invalid value: -1: must be a ` +
            'non-negative integer',
      ),
      errors.join('\n'),
    );
    assert.ok(
      errors.some((e) => e.startsWith(`${join(dir, 'missing.yaml')}: cannot read: no such file or directory`)),
      errors.join('\n'),
    );
    assert.is(errors.length, 2);

    await writeFile(
      join(dir, 'levels.yaml'),
      'apiVersion: flowcontrol.apiserver.k8s.io/v1\nkind: PriorityLevelConfiguration\nmetadata: {name: good}\nspec: {type: Limited, limited: ' +
        '{nominalConcurrencyShares: 5, limitResponse: {type: Reject}}}\n',
    );
    const ok = await loadScenarioText(`kind: Scenario\nduration: 1s\nbootstrap: none\nfiles: [levels.yaml]\n`, scenarioFile);
    assert.ok(ok.ok, errorsOf(ok).join('\n'));
    if (ok.ok)
      assert.equal(
        ok.loaded.config.priorityLevels.map((p) => p.metadata?.name),
        ['good'],
      );
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});

test('an edit to a suggested object is undone as the server’s ensurer would, unless auto-update is off', async () => {
  const plc = (annotations: string) => `kind: Scenario
duration: 1s
objects:
  - apiVersion: flowcontrol.apiserver.k8s.io/v1
    kind: PriorityLevelConfiguration
    metadata: {name: global-default${annotations}}
    spec: {type: Limited, limited: {nominalConcurrencyShares: 200, limitResponse: {type: Reject}}}
`;
  const shares = (result: LoadResult) =>
    result.ok ? result.loaded.config.priorityLevels.find((p) => p.metadata?.name === 'global-default')?.spec?.limited?.nominalConcurrencyShares : undefined;

  const reverted = await loadScenarioText(plc(''), 'edit.yaml');
  assert.is(shares(reverted), 20);
  assert.ok(reverted.ok && reverted.loaded.warnings.some((w) => w.includes('apf.kubernetes.io/autoupdate-spec: "false"')));

  const kept = await loadScenarioText(plc(`, annotations: {apf.kubernetes.io/autoupdate-spec: "false"}`), 'edit.yaml');
  assert.is(shares(kept), 200);
  assert.ok(kept.ok && kept.loaded.warnings.length === 0);
});

test('unparsable YAML and a missing kind are reported, never thrown', async () => {
  const broken = errorsOf(await loadScenarioText('kind: Scenario\nflows: [\n', 'broken.yaml'));
  assert.is(broken.length, 1);
  assert.match(broken[0]!, /^broken\.yaml:\d+: invalid YAML/);
  const noKind = errorsOf(await loadScenarioText('duration: 1s\n', 'nokind.yaml'));
  assert.ok(
    noKind.some((e) => e.startsWith('nokind.yaml:1: kind: required: must be Scenario')),
    noKind.join('\n'),
  );
  const notMap = errorsOf(await loadScenarioText('- 1\n- 2\n', 'list.yaml'));
  assert.ok(
    notMap.some((e) => e.includes('must be a mapping, got a list')),
    notMap.join('\n'),
  );
});

test('no silent no-ops: a bad duration is reported once, not again as a stop error', async () => {
  const text =
    'kind: Scenario\nduration: 5x\nflows:\n  - name: late\n    user: a\n    verb: get\n    resource: pods\n    start: 15s\n    arrival: {type: poisson,' +
    ' rate: 5}\n    service: {type: constant, value: 10ms}\n';
  const errors = errorsOf(await loadScenarioText(text, 'd.yaml'));
  assert.is(errors.length, 1, errors.join('\n'));
  assert.match(errors[0]!, /^d\.yaml:2: duration: must be a duration/);
  // A stop before start is still an error when the duration is fine.
  const stop = errorsOf(await loadScenarioText(text.replace('5x', '30s').replace('start: 15s', 'start: 15s\n    stop: 10s'), 'd.yaml'));
  assert.ok(
    stop.some((e) => e.includes('flows[0].stop: must be later than start (15s)')),
    stop.join('\n'),
  );
});

test('no silent no-ops: LISTs without an object count, Dangling FlowSchemas and variants that change nothing warn', async () => {
  const dir = await mkdtemp(join(tmpdir(), 'fairway-warn-'));
  try {
    const list =
      '  - {name: lister, user: bob, verb: list, resource: deployments, apiGroup: apps, arrival: {type: poisson, rate: 5}, service: {type: constant, ' +
      'value: 10ms}}\n  - {name: counted, user: bob, verb: list, resource: pods, arrival: {type: poisson, rate: 5}, service: {type: constant, value: ' +
      '10ms}}\n  - {name: watcher, user: bob, verb: watch, resource: secrets, arrival: {type: poisson, rate: 5}, service: {type: constant, value: ' +
      '0s}}\n';
    const dangling =
      'objects:\n  - apiVersion: flowcontrol.apiserver.k8s.io/v1\n    kind: FlowSchema\n    metadata: {name: orphans}\n    spec:\n      ' +
      'priorityLevelConfiguration: {name: nowhere}\n      matchingPrecedence: 900\n      rules: [{subjects: [{kind: Group, group: {name: x}}], ' +
      'nonResourceRules: [{verbs: ["*"], nonResourceURLs: ["*"]}]}]\n';
    const text = `kind: Scenario\nduration: 30s\nobjectCounts: {pods: 100}\n${dangling}flows:\n${FLOW}${list}`;
    const loaded = await loadScenarioText(text, 'w.yaml');
    assert.ok(loaded.ok);
    if (!loaded.ok) return;
    const warnings = loaded.loaded.warnings;
    assert.ok(
      warnings.some((w) => w.startsWith('w.yaml: flows[1] ("lister"): list of deployments.apps has no object count') && w.endsWith('prices it at 1 seat')),
      warnings.join('\n'),
    );
    assert.not.ok(
      warnings.some((w) => w.includes('"counted"') || w.includes('"watcher"')),
      warnings.join('\n'),
    );
    assert.ok(
      warnings.some((w) => w.includes('FlowSchema "orphans" refers to PriorityLevelConfiguration "nowhere", which does not exist') && w.includes('Dangling')),
      warnings.join('\n'),
    );

    // A variant identical to what is there changes nothing; one that changes a share does not warn.
    const same = join(dir, 'same.yaml');
    await writeFile(
      same,
      'apiVersion: flowcontrol.apiserver.k8s.io/v1\nkind: PriorityLevelConfiguration\nmetadata: {name: workload-low, annotations: ' +
        '{apf.kubernetes.io/autoupdate-spec: "false"}}\nspec: {type: Limited, limited: {nominalConcurrencyShares: 100, lendablePercent: 90, ' +
        'limitResponse: {type: Queue, queuing: {queues: 128, handSize: 6, queueLengthLimit: 50}}}}\n',
    );
    const base = `kind: Scenario\nduration: 30s\nflows:\n${FLOW}`;
    const noop = await loadScenarioText(base, 'v.yaml', { extraFiles: [same] });
    assert.ok(
      noop.ok &&
        noop.loaded.warnings.some(
          (w) => w === `${same}: the variant changes nothing the controller digests (same PriorityLevelConfiguration and FlowSchema specs as without it)`,
        ),
      noop.ok ? noop.loaded.warnings.join('\n') : '',
    );
    const changed = await loadScenarioText(base, 'v.yaml', {
      extraObjects: [
        {
          origin: 'candidate',
          object: {
            apiVersion: 'flowcontrol.apiserver.k8s.io/v1',
            kind: 'PriorityLevelConfiguration',
            metadata: { name: 'workload-low', annotations: { 'apf.kubernetes.io/autoupdate-spec': 'false' } },
            spec: { type: 'Limited', limited: { nominalConcurrencyShares: 200, limitResponse: { type: 'Reject' } } },
          },
        },
      ],
    });
    assert.ok(changed.ok);
    if (changed.ok) assert.equal(changed.loaded.warnings, []);
    // An edit the ensurer undoes is also a variant that changes nothing.
    const undone = await loadScenarioText(base, 'v.yaml', {
      extraObjects: [
        {
          origin: 'candidate',
          object: {
            apiVersion: 'flowcontrol.apiserver.k8s.io/v1',
            kind: 'PriorityLevelConfiguration',
            metadata: { name: 'workload-low' },
            spec: { type: 'Limited', limited: { nominalConcurrencyShares: 200, limitResponse: { type: 'Reject' } } },
          },
        },
      ],
    });
    assert.ok(undone.ok && undone.loaded.warnings.length === 2, undone.ok ? undone.loaded.warnings.join('\n') : '');
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});

test("a flow's returns is part of its objects: at most them, a whole number, and only with them", async () => {
  const load = (fields: string) => loadScenarioText(`kind: Scenario\nduration: 30s\nflows:\n${FLOW}    ${fields}\n`, 'r.yaml');
  const ok = await load('objects: 20000\n    returns: 0');
  assert.ok(ok.ok, errorsOf(ok).join('\n'));
  if (ok.ok) assert.equal([ok.loaded.scenario.flows[0]!.objects, ok.loaded.scenario.flows[0]!.returns], [20_000, 0]);
  const plain = await load('objects: 300');
  if (plain.ok) assert.is(plain.loaded.scenario.flows[0]!.returns, undefined);
  else assert.unreachable(errorsOf(plain).join('\n'));
  assert.equal(errorsOf(await load('objects: 10\n    returns: 11')), ["r.yaml:11: flows[0].returns: must be at most the flow's objects (10), got 11"]);
  assert.equal(errorsOf(await load('returns: 5')), [
    "r.yaml:10: flows[0].returns: needs the flow's objects (the objects it scans, of which it returns this many)",
  ]);
  assert.equal(errorsOf(await load('objects: 10\n    returns: 1.5')), ['r.yaml:11: flows[0].returns: must be a whole number, got 1.5']);
});

test.run();
