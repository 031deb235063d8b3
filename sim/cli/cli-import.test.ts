// `fairway sim import` against a server that answers what it likes: every answer is bounded,
// checked before use, and the scenario file is written only if it loads as `sim run` loads it.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { existsSync } from 'node:fs';
import { mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { mandatoryPriorityLevels, suggestedPriorityLevels } from '../../engine/resources/bootstrap.ts';
import { runSimImport } from './cli-import.ts';
import { loadScenarioFile } from '../scenario-load.ts';
import { FS_PATH, LEASES_PATH, listBody, METRICS_PATH, PLC_PATH, startHostileServer, type HostileServer } from '../import/testing/hostile-api-server.ts';

let dir: string;
let server: HostileServer;

test.before(async () => {
  dir = await mkdtemp(join(tmpdir(), 'fairway-sim-import-'));
  server = await startHostileServer(dir);
});

test.before.each(() => {
  server.answers.clear();
  server.answers.set(PLC_PATH, { body: listBody('PriorityLevelConfiguration', levels) });
  server.answers.set(FS_PATH, { body: listBody('FlowSchema', []) });
  server.answers.set(METRICS_PATH, { body: metrics(NOMINAL_600) });
  server.answers.set(LEASES_PATH, { body: JSON.stringify({ kind: 'LeaseList', items: [lease('apiserver-a')] }) });
});

const lease = (name: string) => ({ metadata: { name, namespace: 'kube-system', labels: { 'apiserver.kubernetes.io/identity': 'kube-apiserver' } } });

test.after(async () => {
  await server.close();
  await rm(dir, { recursive: true, force: true });
});

const levels = [...mandatoryPriorityLevels(), ...suggestedPriorityLevels()];
// apf-semantics 11.2: the suggested configuration's NominalCLs at ServerCL 600.
const NOMINAL_600: Record<string, string> = {
  exempt: '0',
  'catch-all': '13',
  system: '74',
  'node-high': '98',
  'leader-election': '25',
  'workload-high': '98',
  'workload-low': '245',
  'global-default': '49',
};

function metrics(nominal: Record<string, string>, storage: Record<string, string> = { pods: '12' }): string {
  const lines = ['# TYPE apiserver_flowcontrol_nominal_limit_seats gauge'];
  for (const [level, value] of Object.entries(nominal)) lines.push(`apiserver_flowcontrol_nominal_limit_seats{priority_level="${level}"} ${value}`);
  lines.push('# TYPE apiserver_storage_objects gauge');
  for (const [resource, value] of Object.entries(storage)) lines.push(`apiserver_storage_objects{resource="${resource}"} ${value}`);
  return `${lines.join('\n')}\n`;
}

async function importTo(name: string, ...flags: string[]): Promise<{ code: number; stdout: string; stderr: string; out: string }> {
  return importWith({}, name, ...flags);
}

async function importWith(limits: { maxResponseBytes?: number }, name: string, ...flags: string[]) {
  const out = join(dir, name);
  let stdout = '';
  let stderr = '';
  const code = await runSimImport(
    ['--kubeconfig', server.kubeconfig, '--out', out, ...flags],
    { stdout: (t) => (stdout += t), stderr: (t) => (stderr += t) },
    limits,
  );
  return { code, stdout, stderr, out };
}

/** Nothing was written: no scenario file and no temporary file beside it. */
async function assertNothingWritten(out: string): Promise<void> {
  assert.not.ok(existsSync(out), `${out} must not be written`);
  assert.equal(
    (await readdir(dir)).filter((f) => f.endsWith('.tmp')),
    [],
  );
}

test('without --kubeconfig: $KUBECONFIG, as kubectl (the one lookup fairway top uses too)', async () => {
  const saved = process.env.KUBECONFIG;
  process.env.KUBECONFIG = server.kubeconfig;
  try {
    let stderr = '';
    const out = join(dir, 'from-env.yaml');
    const code = await runSimImport(['--out', out], { stdout: () => {}, stderr: (t) => (stderr += t) });
    assert.is(code, 0, stderr);
    assert.ok(existsSync(out));
  } finally {
    if (saved === undefined) delete process.env.KUBECONFIG;
    else process.env.KUBECONFIG = saved;
  }
});

test('a well-behaved server: a scenario that loads, exit 0', async () => {
  const result = await importTo('good.yaml');
  assert.is(result.code, 0, result.stderr);
  assert.match(result.stdout, /8 PriorityLevelConfigurations, 0 FlowSchemas, server concurrency limit \d+/);
  const loaded = await loadScenarioFile(result.out);
  assert.ok(loaded.ok, JSON.stringify(loaded));
});

test('replicas: counted from the kube-apiserver identity leases; unreadable (403) or absent (404): left unset, and said', async () => {
  server.answers.set(LEASES_PATH, { body: JSON.stringify({ kind: 'LeaseList', items: ['a', 'b', 'c'].map((n) => lease(`apiserver-${n}`)) }) });
  const three = await importTo('replicas.yaml');
  assert.is(three.code, 0, three.stderr);
  assert.match(three.stdout, /, 3 replicas \(identity leases\)/);
  const loaded = await loadScenarioFile(three.out);
  assert.ok(loaded.ok && loaded.loaded.scenario.server.replicas === 3, JSON.stringify(loaded.ok || loaded.errors));

  server.answers.set(LEASES_PATH, { status: 403, body: '{"kind":"Status","message":"forbidden"}' });
  const forbidden = await importTo('forbidden.yaml');
  assert.is(forbidden.code, 0, forbidden.stderr);
  assert.match(forbidden.stderr, /warning: GET \S+leases\S*: HTTP 403 \(the identity leases cannot be read here\): server.replicas left unset/);
  assert.not.match(await readFile(forbidden.out, 'utf8'), /replicas/);

  server.answers.delete(LEASES_PATH);
  const absent = await importTo('absent.yaml');
  assert.is(absent.code, 0, absent.stderr);
  assert.match(absent.stderr, /HTTP 404 .*server.replicas left unset/);
});

test('items as a 1 MB string: an error naming the URL at once, not a million objects', async () => {
  server.answers.set(PLC_PATH, { body: listBody('PriorityLevelConfiguration', 'x'.repeat(1_000_000)) });
  const result = await importTo('string-items.yaml');
  assert.is(result.code, 1);
  assert.is(
    result.stderr,
    `fairway sim import: ${server.url}: GET ${server.url}${PLC_PATH}: items must be a list of PriorityLevelConfiguration objects, ` +
      'got a string of 1000000 characters\n',
  );
  await assertNothingWritten(result.out);
});

test('a server that trickles one byte at a time: the total deadline ends the request', async () => {
  server.answers.set(FS_PATH, { trickleEveryMs: 20 });
  const result = await importTo('trickle.yaml', '--request-timeout=300ms');
  assert.is(result.code, 1);
  assert.is(result.stderr, `fairway sim import: ${server.url}: GET ${server.url}${FS_PATH}: no complete answer within 0.3 s (--request-timeout)\n`);
  await assertNothingWritten(result.out);
});

test('a response larger than the cap: an error naming the URL', async () => {
  server.answers.set(METRICS_PATH, { body: `${'# padding\n'.repeat(10_000)}${metrics(NOMINAL_600)}` });
  const result = await importWith({ maxResponseBytes: 50_000 }, 'large.yaml');
  assert.is(result.code, 1);
  assert.is(result.stderr, `fairway sim import: ${server.url}: GET ${server.url}${METRICS_PATH}: response larger than 50000 bytes\n`);
  await assertNothingWritten(result.out);
});

test('NaN, Inf and fractional metric samples are skipped with a warning naming them; the scenario loads', async () => {
  server.answers.set(METRICS_PATH, {
    body: metrics({ ...NOMINAL_600, 'workload-low': 'NaN', 'global-default': '+Inf' }, { pods: '2.5', secrets: '-Inf', configmaps: '7' }),
  });
  const result = await importTo('nan.yaml');
  assert.is(result.code, 0, result.stderr);
  for (const sample of [
    'apiserver_flowcontrol_nominal_limit_seats{priority_level="workload-low"} is "NaN"',
    'apiserver_flowcontrol_nominal_limit_seats{priority_level="global-default"} is "+Inf"',
    'apiserver_storage_objects{resource="pods"} is "2.5"',
    'apiserver_storage_objects{resource="secrets"} is "-Inf"',
  ])
    assert.ok(result.stderr.includes(`warning: /metrics: ${sample}, not a count: skipped\n`), `${sample}\n${result.stderr}`);
  const loaded = await loadScenarioFile(result.out);
  assert.ok(loaded.ok, JSON.stringify(loaded));
  assert.equal(loaded.loaded.scenario.objectCounts, { configmaps: 7 });
});

test('garbage items are skipped with a warning naming each; the valid ones make a scenario that loads', async () => {
  const good = levels.find((l) => l.metadata?.name === 'catch-all')!;
  const exempt = levels.find((l) => l.metadata?.name === 'exempt')!;
  server.answers.set(PLC_PATH, {
    body: listBody('PriorityLevelConfiguration', [
      42,
      'text',
      null,
      { metadata: { name: 'bogus' }, spec: { type: 'Bogus' } },
      { metadata: { name: 'typed' }, spec: { type: 'Limited', limited: { nominalConcurrencyShares: 'many' } } },
      { apiVersion: 'flowcontrol.apiserver.k8s.io/v1beta1', metadata: { name: 'old' }, spec: good.spec },
      { spec: good.spec },
      good,
      { ...good, spec: { ...good.spec, limited: { ...good.spec?.limited, nominalConcurrencyShares: 99 } } },
      exempt,
    ]),
  });
  server.answers.set(METRICS_PATH, { body: metrics({ exempt: '0', 'catch-all': '600' }) });
  const result = await importTo('garbage.yaml');
  assert.is(result.code, 0, result.stderr);
  const source = `GET ${server.url}${PLC_PATH}`;
  const warnings = result.stderr.split('\n').filter((l) => l.startsWith('warning: GET'));
  assert.equal(
    warnings.map((w) => w.slice(0, w.indexOf(':', `warning: ${source}: items[0]`.length))),
    [
      `warning: ${source}: items[0]`,
      `warning: ${source}: items[1]`,
      `warning: ${source}: items[2]`,
      `warning: ${source}: items[3] (PriorityLevelConfiguration "bogus")`,
      `warning: ${source}: items[4] (PriorityLevelConfiguration "typed")`,
      `warning: ${source}: items[5] (PriorityLevelConfiguration "old")`,
      `warning: ${source}: items[6] (PriorityLevelConfiguration without a name)`,
      `warning: ${source}: items[8] (PriorityLevelConfiguration "catch-all")`,
    ],
  );
  assert.ok(
    warnings.every((w) => w.endsWith(': skipped')),
    warnings.join('\n'),
  );
  assert.match(result.stdout, /wrote .*garbage\.yaml: 2 PriorityLevelConfigurations, 0 FlowSchemas, server concurrency limit 600/);
  const loaded = await loadScenarioFile(result.out);
  assert.ok(loaded.ok, JSON.stringify(loaded));
  assert.equal(
    loaded.loaded.scenario.objects.map((o) => (o.object.metadata as { name: string }).name),
    ['catch-all', 'exempt'],
  );
});

test('a list answer nested a million levels deep: an error naming the URL, no stack overflow', async () => {
  server.answers.set(FS_PATH, { body: `{"items":[{"spec":${'['.repeat(1_000_000)}${']'.repeat(1_000_000)}}]}` });
  const result = await importTo('deep.yaml');
  assert.is(result.code, 1);
  assert.is(result.stderr, `fairway sim import: ${server.url}: GET ${server.url}${FS_PATH}: the answer nests more than 256 levels deep\n`);
  await assertNothingWritten(result.out);
});

test('a scenario that would not load is not written: the loader says why, exit 1', async () => {
  // Every level's NominalCL 0: no server concurrency limit gives that, and a scenario needs one.
  server.answers.set(METRICS_PATH, { body: metrics(Object.fromEntries(Object.keys(NOMINAL_600).map((level) => [level, '0']))) });
  const zero = await importTo('zero.yaml');
  assert.is(zero.code, 1);
  assert.match(zero.stderr, /the scenario made from its answers does not load, so .*zero\.yaml was not written:\n {2}.*must be greater than 0/);
  await assertNothingWritten(zero.out);
  // A scenario already there is left as it was.
  const kept = join(dir, 'kept.yaml');
  await writeFile(kept, 'the operator wrote this\n');
  const again = await importTo('kept.yaml');
  assert.is(again.code, 1);
  assert.is(await readFile(kept, 'utf8'), 'the operator wrote this\n');
});

test('--request-timeout: a negative value is a usage error', async () => {
  const result = await importTo('flags.yaml', '--request-timeout=-1s');
  assert.is(result.code, 2);
  assert.match(result.stderr, /--request-timeout can not be negative/);
});

test.run();
