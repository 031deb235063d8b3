import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createPrng } from '../engine/random.ts';
import { parseAuditLog, parseTimestamp, readAuditLog } from './audit-log.ts';
import { buildReport } from './report.ts';
import { loadScenarioText } from './scenario-load.ts';
import { runSimulation } from './simulation.ts';

const BASE_MS = Date.parse('2026-11-20T10:00:00Z');
const iso = (ms: number) => {
  const whole = Math.floor(ms);
  const micros = Math.round((ms - whole) * 1000);
  return new Date(whole).toISOString().replace('Z', `${String(micros).padStart(3, '0')}Z`);
};

interface Generated {
  text: string;
  perUser: Map<string, number>;
  serviceMsByAuditId: Map<string, number>;
}

/** A small audit log as the log backend writes it: two stages per request, some noise. */
function generateLog(requests: number, ratePerSecond: number, seed = 1): Generated {
  const prng = createPrng(seed);
  const users = ['alice', 'bob', 'system:serviceaccount:ci:runner'];
  const lines: string[] = [];
  const perUser = new Map<string, number>();
  const serviceMsByAuditId = new Map<string, number>();
  let t = BASE_MS;
  for (let i = 0; i < requests; i++) {
    t += (-Math.log(1 - prng.next()) * 1000) / ratePerSecond;
    const user = users[i % users.length]!;
    const serviceMs = 5 + Math.round(prng.next() * 40_000) / 1000;
    const auditID = `id-${i}`;
    const groups = user.startsWith('system:serviceaccount:')
      ? ['system:serviceaccounts', 'system:serviceaccounts:ci', 'system:authenticated']
      : ['system:authenticated'];
    const base = {
      kind: 'Event',
      apiVersion: 'audit.k8s.io/v1',
      level: 'Metadata',
      auditID,
      requestURI: '/api/v1/namespaces/team/pods?limit=500',
      verb: 'list',
      user: { username: user, groups },
      objectRef: { resource: 'pods', namespace: 'team', apiVersion: 'v1' },
      requestReceivedTimestamp: iso(t),
    };
    lines.push(JSON.stringify({ ...base, stage: 'RequestReceived', stageTimestamp: iso(t) }));
    lines.push(JSON.stringify({ ...base, stage: 'ResponseComplete', stageTimestamp: iso(t + serviceMs), responseStatus: { metadata: {}, code: 200 } }));
    perUser.set(user, (perUser.get(user) ?? 0) + 1);
    serviceMsByAuditId.set(auditID, serviceMs);
  }
  // Noise the replay must ignore: a duplicate, an exec session, a blank line.
  lines.push(lines[1]!);
  lines.push(
    JSON.stringify({
      auditID: 'exec-1',
      stage: 'ResponseComplete',
      verb: 'create',
      user: { username: 'alice' },
      objectRef: { resource: 'pods', subresource: 'exec', namespace: 'team', name: 'p' },
      requestReceivedTimestamp: iso(BASE_MS),
      stageTimestamp: iso(BASE_MS + 60_000),
    }),
  );
  lines.push('');
  return { text: lines.join('\n'), perUser, serviceMsByAuditId };
}

test('timestamps keep microseconds; only ResponseComplete events count, once each', () => {
  assert.is(parseTimestamp('2026-11-20T10:00:00.000250Z'), BASE_MS + 0.25);
  assert.is(parseTimestamp('2026-11-20T11:00:00+01:00'), BASE_MS);
  assert.is(parseTimestamp('yesterday'), undefined);

  const { text, serviceMsByAuditId } = generateLog(30, 10);
  const log = parseAuditLog(text, 'audit.log');
  assert.equal(log.errors, []);
  assert.is(log.requests.length, 30);
  assert.equal(log.skipped, { otherStage: 30, duplicate: 1, longRunning: 1, blank: 1 });
  assert.is(log.requests[0]!.arrivalMs, 0);
  for (let i = 1; i < log.requests.length; i++) assert.ok(log.requests[i]!.arrivalMs >= log.requests[i - 1]!.arrivalMs);
  const expected = [...serviceMsByAuditId.values()];
  log.requests.forEach((r, i) => assert.ok(Math.abs(r.serviceMs - expected[i]!) < 0.002, `${r.serviceMs} vs ${expected[i]}`));
  assert.equal(log.requests[0]!.query, { limit: '500' });
  assert.is(log.requests[0]!.shape.resource, 'pods');
});

test('impersonation, the APF wait annotation and watches shape what is replayed', () => {
  const event = (extra: Record<string, unknown>) =>
    JSON.stringify({
      stage: 'ResponseComplete',
      verb: 'get',
      user: { username: 'admin', groups: ['system:masters'] },
      objectRef: { resource: 'pods', namespace: 'a', name: 'p' },
      requestReceivedTimestamp: iso(BASE_MS),
      stageTimestamp: iso(BASE_MS + 100),
      ...extra,
    });
  const log = parseAuditLog(
    [
      event({ impersonatedUser: { username: 'bob', groups: ['dev'] } }),
      event({ annotations: { 'apiserver.latency.k8s.io/apf-queue-wait': '30ms' } }),
      event({ verb: 'watch', stageTimestamp: iso(BASE_MS + 300_000) }),
      event({ objectRef: undefined, requestURI: '/healthz?verbose=1' }),
    ].join('\n'),
    'x.log',
  );
  assert.equal(log.errors, []);
  const [impersonated, annotated, watch, nonResource] = log.requests;
  assert.is(impersonated!.shape.user, 'bob');
  assert.equal(impersonated!.shape.groups, ['dev']);
  assert.is(annotated!.serviceMs, 70);
  assert.is(watch!.serviceMs, 0);
  assert.is(nonResource!.shape.nonResourcePath, '/healthz');
});

test('bad lines are errors naming the file, the line and the field', () => {
  const log = parseAuditLog(
    [
      '{"stage":"ResponseComplete"',
      JSON.stringify({ stage: 'ResponseComplete', verb: 'get', user: {} }),
      JSON.stringify({ verb: 'get', user: { username: 'a' }, requestReceivedTimestamp: 'noon' }),
    ].join('\n'),
    'bad.log',
  );
  assert.is(log.errors.length, 3);
  assert.match(log.errors[0]!, /^bad\.log:1: invalid JSON/);
  assert.is(log.errors[1], 'bad.log:2: user.username: required');
  assert.is(log.errors[2], 'bad.log:3: requestReceivedTimestamp: want an RFC 3339 time, got "noon"');
});

test("replay: yesterday's traffic through today's configuration, and through a tighter one", async () => {
  const dir = await mkdtemp(join(tmpdir(), 'fairway-audit-'));
  try {
    const { text, perUser } = generateLog(3000, 200, 5);
    const file = join(dir, 'audit.log');
    await writeFile(file, text);
    const log = await readAuditLog(file);
    assert.equal(log.errors, []);

    const replay = async (server: string) => {
      const loaded = await loadScenarioText(`kind: Scenario\nduration: 30s\n${server}objectCounts: {pods: 600}\n`, 'replay.yaml');
      if (!loaded.ok) throw new Error(loaded.errors.join('\n'));
      return buildReport(runSimulation({ loaded: loaded.loaded, seed: '1', auditLog: log, auditGrouping: 'user' }));
    };
    const roomy = await replay('');
    for (const [user, count] of perUser) {
      const flow = roomy.flows[`audit:${user}`]!;
      assert.is(flow.arrived, count, user);
      assert.is(flow.rejectedTotal, 0, user);
      assert.is(flow.source, 'audit-log');
      assert.is(flow.seatsPerRequest, 6, user); // 600 pods / 100, below every level’s maxSeats
    }
    assert.is(roomy.flows['audit:alice']!.priorityLevel, 'global-default');
    assert.is(roomy.flows['audit:system:serviceaccount:ci:runner']!.priorityLevel, 'workload-low');
    assert.is(roomy.audit!.replayed, 3000);
    assert.is(roomy.audit!.beyondDuration, 0);
    // Nobody waited, so each request took exactly its logged time: latency p99 stays within the
    // log's 5-45 ms service times.
    assert.ok(roomy.flows['audit:alice']!.latencySeconds.p99! <= 0.0452);

    const tight = await replay('server: {maxRequestsInflight: 30, maxMutatingRequestsInflight: 0}\n');
    const rejected = Object.values(tight.flows).reduce((s, f) => s + f.rejectedTotal, 0);
    const waited = Object.values(tight.flows).some((f) => (f.waitSeconds.p99 ?? 0) > 0.01);
    assert.ok(rejected > 0 && waited, `a twentieth of the seats should hurt: ${rejected} rejected`);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});

test('--group-by: a controller’s lease renewals and its LISTs are separate flows by default, one flow when grouped by user', async () => {
  const controller = { username: 'system:kube-controller-manager', groups: ['system:authenticated'] };
  const lines: string[] = [];
  for (let i = 0; i < 40; i++) {
    const t = BASE_MS + i * 100;
    const renew = i % 2 === 0;
    lines.push(
      JSON.stringify({
        auditID: `a-${i}`,
        stage: 'ResponseComplete',
        verb: renew ? 'update' : 'list',
        user: controller,
        userAgent: renew
          ? 'kube-controller-manager/v1.32.0 (linux/amd64) kubernetes/abc1234/leader-election'
          : 'kube-controller-manager/v1.32.0 (linux/amd64) kubernetes/abc1234/shared-informers',
        requestURI: renew ? '/apis/coordination.k8s.io/v1/namespaces/kube-system/leases/kube-controller-manager' : '/api/v1/pods?limit=500',
        objectRef: renew
          ? { resource: 'leases', apiGroup: 'coordination.k8s.io', namespace: 'kube-system', name: 'kube-controller-manager' }
          : { resource: 'pods' },
        requestReceivedTimestamp: iso(t),
        stageTimestamp: iso(t + 5),
      }),
    );
  }
  const log = parseAuditLog(lines.join('\n'), 'kcm.log');
  assert.equal(log.errors, []);
  const loaded = await loadScenarioText('kind: Scenario\nduration: 10s\nobjectCounts: {pods: 300}\n', 'replay.yaml');
  if (!loaded.ok) throw new Error(loaded.errors.join('\n'));
  const flows = (grouping?: 'user' | 'flowschema' | 'verb+resource' | 'user-agent') =>
    buildReport(runSimulation({ loaded: loaded.loaded, seed: '1', auditLog: log, auditGrouping: grouping })).flows;
  const byDefault = flows();
  assert.equal(Object.keys(byDefault).sort(), [
    'audit:system:kube-controller-manager/kube-controller-manager',
    'audit:system:kube-controller-manager/system-leader-election',
  ]);
  assert.is(byDefault['audit:system:kube-controller-manager/system-leader-election']!.priorityLevel, 'leader-election');
  assert.is(byDefault['audit:system:kube-controller-manager/system-leader-election']!.arrived, 20);
  assert.equal(Object.keys(flows('user')), ['audit:system:kube-controller-manager']);
  assert.equal(Object.keys(flows('flowschema')).sort(), ['audit:kube-controller-manager', 'audit:system-leader-election']);
  assert.equal(Object.keys(flows('verb+resource')).sort(), ['audit:list pods', 'audit:update leases.coordination.k8s.io']);
  assert.is(Object.keys(flows('user-agent')).length, 2);
});

test.run();
