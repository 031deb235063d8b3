// `fairway sim import` against a running `fairway serve`: the scenario it writes holds the
// server's configuration as manifests (no status, managedFields or server-set metadata), the
// server concurrency limit behind its NominalCLs, and the object counts /metrics reports; it loads
// and simulates as written.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { spawn, spawnSync } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parse } from 'yaml';
import { startServerProcess, type ServerProcess } from '../commands/testing/server-process.ts';
import { sampleValue } from '../testing/metrics.ts';
import { loadScenarioFile } from '../../sim/scenario-load.ts';

const FAIRWAY = fileURLToPath(new URL('../fairway.mjs', import.meta.url));
const FLOWCONTROL = '/apis/flowcontrol.apiserver.k8s.io/v1';

let server: ServerProcess;
let dir: string;

test.before(async () => {
  server = await startServerProcess({ args: ['--max-requests-inflight=200', '--max-mutating-requests-inflight=100'] });
  dir = await mkdtemp(join(tmpdir(), 'fairway-import-'));
});

test.after(async () => {
  await server.stop();
  await rm(dir, { recursive: true, force: true });
});

test('sim import writes the live configuration, limits and object counts as a scenario that simulates', async () => {
  const plc = {
    apiVersion: 'flowcontrol.apiserver.k8s.io/v1',
    kind: 'PriorityLevelConfiguration',
    metadata: { name: 'batch', labels: { team: 'data' } },
    spec: {
      type: 'Limited',
      limited: { nominalConcurrencyShares: 15, limitResponse: { type: 'Queue', queuing: { queues: 8, handSize: 2, queueLengthLimit: 20 } } },
    },
  };
  const fs = {
    apiVersion: 'flowcontrol.apiserver.k8s.io/v1',
    kind: 'FlowSchema',
    metadata: { name: 'batch-jobs' },
    spec: {
      priorityLevelConfiguration: { name: 'batch' },
      matchingPrecedence: 700,
      distinguisherMethod: { type: 'ByUser' },
      rules: [
        {
          subjects: [{ kind: 'Group', group: { name: 'batch' } }],
          resourceRules: [{ verbs: ['list'], apiGroups: [''], resources: ['pods'], namespaces: ['*'] }],
        },
      ],
    },
  };
  assert.is((await server.client.request('POST', `${FLOWCONTROL}/prioritylevelconfigurations`, { body: plc })).status, 201);
  assert.is((await server.client.request('POST', `${FLOWCONTROL}/flowschemas`, { body: fs })).status, 201);

  // Fairway's own /metrics counts what it stores, as kube-apiserver does.
  const stored = (await server.client.get(`${FLOWCONTROL}/prioritylevelconfigurations`)).json().items.length;
  let metrics = '';
  for (let i = 0; i < 100; i++) {
    metrics = (await server.client.get('/metrics')).text;
    if (
      sampleValue(metrics, 'apiserver_storage_objects', { resource: 'prioritylevelconfigurations.flowcontrol.apiserver.k8s.io' }) === stored &&
      metrics.includes('priority_level="batch"')
    )
      break;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  assert.is(sampleValue(metrics, 'apiserver_storage_objects', { resource: 'prioritylevelconfigurations.flowcontrol.apiserver.k8s.io' }), stored);

  const out = join(dir, 'live', 'imported.yaml');
  const run = spawnSync(process.execPath, [FAIRWAY, 'sim', 'import', '--kubeconfig', server.kubeconfigPath, '--context', 'fairway', '--out', out], {
    encoding: 'utf8',
  });
  assert.is(run.status, 0, run.stderr);
  assert.ok(run.stdout.includes('server concurrency limit 300'), run.stdout + run.stderr);
  assert.match(run.stdout + run.stderr, /wrote .*imported\.yaml: \d+ PriorityLevelConfigurations, \d+ FlowSchemas, server concurrency limit 300/);
  const scenario = parse(await readFile(out, 'utf8'));
  assert.is(scenario.kind, 'Scenario');
  assert.is(scenario.bootstrap, 'none');
  assert.is(scenario.server.maxRequestsInflight + scenario.server.maxMutatingRequestsInflight, 300);
  assert.is(scenario.objectCounts['prioritylevelconfigurations.flowcontrol.apiserver.k8s.io'], stored);
  assert.ok(scenario.objectCounts['flowschemas.flowcontrol.apiserver.k8s.io'] >= 14);
  const batch = scenario.objects.find(
    (o: { kind: string; metadata: { name: string } }) => o.kind === 'PriorityLevelConfiguration' && o.metadata.name === 'batch',
  );
  assert.equal(batch.metadata, { name: 'batch', labels: { team: 'data' } });
  assert.is(batch.spec.limited.nominalConcurrencyShares, 15);
  for (const object of scenario.objects) {
    assert.equal(Object.keys(object).sort(), ['apiVersion', 'kind', 'metadata', 'spec'], object.metadata.name);
    assert.not.ok(
      'managedFields' in object.metadata || 'uid' in object.metadata || 'resourceVersion' in object.metadata || 'creationTimestamp' in object.metadata,
      object.metadata.name,
    );
  }

  // It loads as written (no warnings) and simulates with a flow added.
  const text = await readFile(out, 'utf8');
  await writeFile(
    out,
    `${text.replace('flows: []\n', '')}flows:\n  - {name: lists, user: eve, groups: [batch, system:authenticated], namespace: x, verb: list, ` +
      'resource: pods, objects: 50, arrival: {type: poisson, rate: 20}, service: {type: constant, value: 20ms}}\n',
  );
  const loaded = await loadScenarioFile(out);
  assert.ok(loaded.ok, loaded.ok ? '' : loaded.errors.join('\n'));
  if (loaded.ok) {
    assert.equal(loaded.loaded.warnings, []);
    assert.ok(loaded.loaded.config.priorityLevels.some((p) => p.metadata?.name === 'batch'));
  }
  const sim = spawnSync(process.execPath, [FAIRWAY, 'sim', 'run', out, '--seed', '1', '--no-plots', '--strict', '--out', join(dir, 'run')], {
    encoding: 'utf8',
  });
  assert.is(sim.status, 0, sim.stderr);
  const report = JSON.parse(await readFile(join(dir, 'run', 'report.json'), 'utf8'));
  assert.is(report.flows.lists.priorityLevel, 'batch');
  assert.is(
    report.levels.batch.nominalCL,
    Number(
      /priority_level="batch"\} (\d+)/.exec(
        metrics
          .split('\n')
          .filter((l) => l.startsWith('apiserver_flowcontrol_nominal_limit_seats'))
          .join('\n'),
      )![1],
    ),
  );
});

test('sim import --traffic: flows that reproduce the observed load, classified as the server classified it; --merge keeps the operator’s flows', async () => {
  // A selective LIST: `lister` lists FlowSchemas with a label selector that 3 of them match, so each
  // LIST tests every FlowSchema (100 more than the defaults) and returns 3.
  const selective = {
    apiVersion: 'flowcontrol.apiserver.k8s.io/v1',
    kind: 'FlowSchema',
    metadata: { name: 'selective-lists' },
    spec: {
      priorityLevelConfiguration: { name: 'batch' },
      matchingPrecedence: 650,
      rules: [
        {
          subjects: [{ kind: 'Group', group: { name: 'listers' } }],
          resourceRules: [{ verbs: ['list'], apiGroups: ['flowcontrol.apiserver.k8s.io'], resources: ['flowschemas'], clusterScope: true }],
        },
      ],
    },
  };
  assert.is((await server.client.request('POST', `${FLOWCONTROL}/flowschemas`, { body: selective })).status, 201);
  for (let i = 0; i < 100; i++) {
    const filler = {
      ...selective,
      metadata: { name: `filler-${i}`, labels: { selected: i < 3 ? 'yes' : 'no' } },
      spec: { ...selective.spec, matchingPrecedence: 9000, rules: [{ ...selective.spec.rules[0], subjects: [{ kind: 'Group', group: { name: 'nobody' } }] }] },
    };
    assert.is((await server.client.request('POST', `${FLOWCONTROL}/flowschemas`, { body: filler })).status, 201);
  }
  const asLister = { headers: { 'Impersonate-User': 'lister', 'Impersonate-Group': 'listers' } };
  const out = join(dir, 'traffic.yaml');
  const importing = spawn(process.execPath, [FAIRWAY, 'sim', 'import', '--kubeconfig', server.kubeconfigPath, '--traffic', '3s', '--out', out], {
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  importing.stdout.on('data', (c: Buffer) => (stdout += c.toString('utf8')));
  importing.stderr.on('data', (c: Buffer) => (stderr += c.toString('utf8')));
  const exited = new Promise<number | null>((resolve) => importing.once('exit', resolve));
  // The admin's GETs (FlowSchema exempt) while the window is open.
  let sent = 0;
  let done = false;
  void exited.then(() => (done = true));
  while (!done) {
    assert.is((await server.client.get(`${FLOWCONTROL}/flowschemas/exempt`)).status, 200);
    sent++;
    const listed = await server.client.get(`${FLOWCONTROL}/flowschemas?labelSelector=selected%3Dyes`, asLister);
    assert.equal([listed.status, listed.json().items.length], [200, 3]);
  }
  assert.is(await exited, 0, stderr);
  assert.match(stdout, /\d+ observed flows/);
  const scenario = parse(await readFile(out, 'utf8'));
  const exempt = scenario.flows.find((f: { name: string }) => f.name === 'observed-exempt');
  assert.ok(exempt !== undefined, JSON.stringify(scenario.flows));
  assert.ok(exempt.groups.includes('system:masters'));
  // The window held part of what was sent (the import's own GETs count too).
  assert.ok(exempt.arrival.rate > 0 && exempt.arrival.rate * 3 <= sent + 10, `rate ${exempt.arrival.rate}/s, ${sent} sent`);
  // The selective LISTs: their seats give the objects scanned, /metrics' watch-cache LIST counters how few are returned.
  const lists = scenario.flows.find((f: { name: string }) => f.name === 'observed-selective-lists');
  assert.ok(lists !== undefined, JSON.stringify(scenario.flows));
  assert.equal([lists.verb, lists.resource, lists.apiGroup], ['list', 'flowschemas', 'flowcontrol.apiserver.k8s.io']);
  // Seats give 100 objects, not the 115 FlowSchemas: the work estimator prices a LIST by the object count
  // polled at the server's start and then every minute or more, as kube's registry polls it, and the
  // last poll came before the fillers (2 seats once a poll sees them).
  assert.ok(lists.objects >= 100 && lists.returns >= 0 && lists.returns < lists.objects / 10, JSON.stringify(lists));
  assert.not.match(stderr, /apiserver_cache_list/);
  // Counted as a kube-apiserver 1.32 counts the LISTs its watch cache serves; none reached storage.
  const exposed = (await server.client.get('/metrics')).text;
  assert.match(exposed, /^apiserver_cache_list_fetched_objects_total\{index="",resource_prefix="\/flowschemas"\} \d+$/m);
  assert.not.match(exposed, /apiserver_storage_list_/);

  // Simulated, each observed flow lands in the FlowSchema it is named after.
  const sim = spawnSync(process.execPath, [FAIRWAY, 'sim', 'run', out, '--seed', '1', '--no-plots', '--strict', '--out', join(dir, 'traffic-run')], {
    encoding: 'utf8',
  });
  assert.is(sim.status, 0, sim.stderr);
  const report = JSON.parse(await readFile(join(dir, 'traffic-run', 'report.json'), 'utf8'));
  for (const flow of scenario.flows as { name: string }[]) assert.is(`observed-${report.flows[flow.name].flowSchema}`, flow.name);

  // --merge into the operator's scenario: its flow and duration stay, the configuration is refreshed.
  const mine = join(dir, 'mine.yaml');
  await writeFile(
    mine,
    'kind: Scenario\nname: mine\nduration: 20s\nflows:\n  - {name: lists, user: eve, groups: [system:authenticated], namespace: x, verb: list, ' +
      'resource: pods, objects: 50, arrival: {type: poisson, rate: 5}, service: {type: constant, value: 20ms}}\n',
  );
  const merge = spawnSync(process.execPath, [FAIRWAY, 'sim', 'import', '--kubeconfig', server.kubeconfigPath, '--merge', mine], { encoding: 'utf8' });
  assert.is(merge.status, 0, merge.stderr);
  const merged = parse(await readFile(mine, 'utf8'));
  assert.equal([merged.duration, merged.bootstrap, merged.flows.map((f: { name: string }) => f.name)], ['20s', 'none', ['lists']]);
  assert.ok(merged.objects.some((o: { metadata: { name: string } }) => o.metadata.name === 'batch'));
});

test('sim import: an unknown context and an unreachable server are errors naming them', async () => {
  const out = join(dir, 'x.yaml');
  const context = spawnSync(process.execPath, [FAIRWAY, 'sim', 'import', '--kubeconfig', server.kubeconfigPath, '--context', 'nope', '--out', out], {
    encoding: 'utf8',
  });
  assert.is(context.status, 1);
  assert.match(context.stderr, /context was not found for specified context: nope/);
  const kubeconfig = join(dir, 'bad.kubeconfig');
  await writeFile(kubeconfig, (await readFile(server.kubeconfigPath, 'utf8')).replace(`:${server.port}`, ':1'));
  const down = spawnSync(process.execPath, [FAIRWAY, 'sim', 'import', '--kubeconfig', kubeconfig, '--out', out], { encoding: 'utf8' });
  assert.is(down.status, 1);
  assert.match(down.stderr, /fairway sim import: https:\/\/127\.0\.0\.1:1: .*ECONNREFUSED/);
  // Without --kubeconfig: kubectl's default, $KUBECONFIG, else ~/.kube/config; a missing one is named.
  const env: NodeJS.ProcessEnv = { ...process.env, HOME: dir };
  delete env.KUBECONFIG;
  const home = spawnSync(process.execPath, [FAIRWAY, 'sim', 'import', '--out', out], { encoding: 'utf8', env });
  assert.is(home.status, 1);
  assert.match(home.stderr, new RegExp(`unable to read ${join(dir, '.kube', 'config').replace(/[.]/g, '\\.')}`));
});

test.run();
