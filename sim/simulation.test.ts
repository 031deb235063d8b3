import { POOL_WORK_MIN_OBJECTS } from './execution-model.ts';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { buildReport, reportJson, type SimulationReport } from './report.ts';
import { loadScenarioText } from './scenario-load.ts';
import { runSimulation } from './simulation.ts';

async function simulate(yaml: string, seed = '1'): Promise<SimulationReport> {
  const loaded = await loadScenarioText(yaml, 'test.yaml');
  if (!loaded.ok) throw new Error(loaded.errors.join('\n'));
  return buildReport(runSimulation({ loaded: loaded.loaded, seed }));
}

const flow = (name: string, user: string, rate: number, extra = '') => `  - name: ${name}
    user: ${user}
    namespace: ns-${name}
    verb: get
    resource: pods
    objectName: p
    arrival: {type: poisson, rate: ${rate}}
    service: {type: exponential, mean: 30ms}
${extra}`;

const overloaded = (flows: string) => `kind: Scenario
duration: 20s
server: {maxRequestsInflight: 20, maxMutatingRequestsInflight: 10}
flows:
${flows}`;

test('the same scenario and seed give byte-identical reports; another seed gives another history', async () => {
  const yaml = overloaded(flow('a', 'alice', 600) + flow('b', 'bob', 300));
  const first = reportJson(await simulate(yaml, '7'));
  const second = reportJson(await simulate(yaml, '7'));
  assert.is(first, second);
  assert.is.not(reportJson(await simulate(yaml, '8')), first);
  const hash = 'ab'.repeat(20);
  assert.is(reportJson(await simulate(yaml, hash)), reportJson(await simulate(yaml, hash)));
});

test('adding a flow leaves the other flows’ arrivals exactly as they were', async () => {
  const alone = await simulate(overloaded(flow('a', 'alice', 600)));
  const together = await simulate(overloaded(flow('z', 'zed', 400) + flow('a', 'alice', 600)));
  assert.is(together.flows.a!.arrived, alone.flows.a!.arrived);
  assert.equal(together.series.flows.a!.arrived, alone.series.flows.a!.arrived);
  // ...while what the engine did with them may change: zed competes for the same seats.
  assert.ok(together.flows.a!.waitSeconds.p99! > alone.flows.a!.waitSeconds.p99!);
});

test('every request is accounted for, and no level ever runs more seats than its limit allows', async () => {
  const report = await simulate(overloaded(flow('a', 'alice', 900) + flow('b', 'bob', 200) + flow('c', 'carol', 50)));
  for (const [name, f] of Object.entries(report.flows)) {
    assert.is(f.arrived, f.dispatched + f.rejectedTotal + f.waitingAtEnd, name);
    assert.is(f.dispatched, f.completed + f.executingAtEnd, name);
    assert.is(
      report.series.flows[name]!.arrived.reduce((s, x) => s + x, 0),
      f.arrived,
      name,
    );
  }
  const level = report.levels['global-default']!;
  assert.ok(level.rejectedTotal > 0, 'the overload is real');
  assert.ok(level.seatsInUse.max <= level.currentCL.max, `${level.seatsInUse.max} seats > CurrentCL ${level.currentCL.max}`);
  assert.is(
    report.totals.arrived,
    Object.values(report.flows).reduce((s, f) => s + f.arrived, 0),
  );
});

test('a request waits at most a quarter of its timeout, then is rejected with time-out', async () => {
  const report = await simulate(
    [
      'kind: Scenario',
      'duration: 30s',
      'server: {maxRequestsInflight: 4, maxMutatingRequestsInflight: 0}',
      'bootstrap: mandatory',
      'objects:',
      '  - apiVersion: flowcontrol.apiserver.k8s.io/v1',
      '    kind: PriorityLevelConfiguration',
      '    metadata: {name: slow}',
      '    spec: {type: Limited, limited: {nominalConcurrencyShares: 95, limitResponse: {type: ' +
        'Queue, queuing: {queues: 1, handSize: 1, queueLengthLimit: 1000}}}}',
      '  - apiVersion: flowcontrol.apiserver.k8s.io/v1',
      '    kind: FlowSchema',
      '    metadata: {name: slow}',
      '    spec: {priorityLevelConfiguration: {name: slow}, matchingPrecedence: 100, rules: [{subjects: [{kind: Group, group: {name: ' +
        'system:authenticated}}], resourceRules: [{verbs: ["*"], apiGroups: ["*"], resources: ["*"], namespaces: ["*"]}]}]}',
      'flows:',
      `${flow('a', 'alice', 400, '    timeout: 4s\n')}`,
    ].join('\n'),
  );
  const a = report.flows.a!;
  assert.ok(a.rejected['time-out'] > 0);
  assert.is(a.rejected['queue-full'], 0);
  assert.ok(a.waitSeconds.max! <= 1, `waited ${a.waitSeconds.max}s with a 1s wait limit`);
  assert.ok(a.waitSeconds.p99! > 0.9);
});

test('a Reject level turns overload into concurrency-limit rejections; masters are exempt', async () => {
  const report = await simulate(`kind: Scenario
duration: 10s
server: {maxRequestsInflight: 10, maxMutatingRequestsInflight: 0}
bootstrap: mandatory
flows:
${flow('anon', 'someone', 400)}${flow('root', 'root', 400, '    groups: [system:masters]\n')}`);
  assert.is(report.flows.anon!.priorityLevel, 'catch-all');
  assert.ok(report.flows.anon!.rejected['concurrency-limit'] > 0);
  assert.is(report.flows.anon!.waitSeconds.max, 0);
  assert.is(report.flows.root!.priorityLevel, 'exempt');
  assert.is(report.flows.root!.rejectedTotal, 0);
  assert.is(report.flows.root!.dispatched, report.flows.root!.arrived);
});

test('LISTs are priced by object count and writes by watchers, through the real estimator', async () => {
  const report = await simulate(
    [
      'kind: Scenario',
      'duration: 5s',
      'objectCounts: {pods: 350}',
      'flows:',
      '  - {name: small-list, user: u1, namespace: a, verb: list, resource: pods, arrival: {type: constant, rate: 10}, service: {type: constant, value: 5ms}}',
      '  - {name: big-list, user: u2, namespace: a, verb: list, resource: pods, objects: 5000, ' +
        'arrival: {type: constant, rate: 10}, service: {type: constant, value: 5ms}}',
      '  - {name: watched-write, user: u3, namespace: a, verb: create, resource: configmaps, watchers: ' +
        '45, arrival: {type: constant, rate: 10}, service: {type: constant, value: 5ms}}',
      '  - {name: plain-write, user: u4, namespace: a, verb: create, resource: configmaps, ' +
        'arrival: {type: constant, rate: 10}, service: {type: constant, value: 5ms}}',
      '',
    ].join('\n'),
  );
  assert.is(report.flows['small-list']!.seatsPerRequest, 4); // ceil(350 / 100)
  assert.is(report.flows['big-list']!.seatsPerRequest, 8); // global-default's maxSeats
  assert.is(report.flows['watched-write']!.seatsPerRequest, 5); // ceil(45 / 10) final seats
  assert.is(report.flows['plain-write']!.seatsPerRequest, 1);
});

const storm = (server: string) =>
  [
    'kind: Scenario',
    'duration: 10s',
    `server: {${server}}`,
    'flows:',
    "  - {name: lister, user: 'system:serviceaccount:ci:lister', groups: [system:serviceaccounts, system:authenticated], namespace: ci, " +
      'verb: list, resource: pods, objects: 3000, arrival: {type: poisson, rate: 40}, service: {type: constant, value: 40ms}}',
    `${flow('reader', 'alice', 100)}`,
  ].join('\n');

test("executorThreads is the server's --execution-threads: big LISTs wait for its threads, holding their seats; small requests do not", async () => {
  const unmodelled = await simulate(storm(''));
  const oneThread = await simulate(storm('executorThreads: 1'));
  assert.is(unmodelled.scenario.server.executorThreads, null);
  assert.is(oneThread.scenario.server.executorThreads, 1);
  // 40 LISTs/s of 40 ms need 1.6 threads: on one they queue.
  assert.ok(oneThread.flows.lister!.latencySeconds.p99! > 5 * unmodelled.flows.lister!.latencySeconds.p99!);
  assert.ok(oneThread.levels['workload-low']!.seatsInUse.mean > 2 * unmodelled.levels['workload-low']!.seatsInUse.mean);
  // A GET (in another level) is not pool work: its latency is its service time either way.
  assert.equal(oneThread.flows.reader!.latencySeconds, unmodelled.flows.reader!.latencySeconds);
  assert.is(POOL_WORK_MIN_OBJECTS, 82);
});

test("executorThreads 0 is the main thread alone, one LIST at a time; the default follows cpus as the server's does", async () => {
  const inline = await simulate(storm('executorThreads: 0'));
  const oneThread = await simulate(storm('executorThreads: 1'));
  assert.is(inline.scenario.server.executorThreads, 0);
  assert.equal(inline.flows.lister!.latencySeconds, oneThread.flows.lister!.latencySeconds);
  assert.is((await simulate(storm('cpus: 4'))).scenario.server.executorThreads, 3);
  assert.is((await simulate(storm('cpus: 1'))).scenario.server.executorThreads, 1);
  assert.is((await simulate(storm('cpus: 8, executorThreads: 2'))).scenario.server.executorThreads, 2);
});

// A label-selector LIST: it scans 20,000 objects (seats, CPU) and returns none. LISTs every 25 ms
// of 40 ms each need 1.6 pool threads, so on one they would queue without end.
const selectorLists = (returns: string) =>
  [
    'kind: Scenario',
    'duration: 10s',
    'server: {cpus: 2, memory: 16Gi, executorThreads: 1}',
    'flows:',
    `  - {name: selector, user: u1, namespace: a, verb: list, resource: flowschemas, apiGroup: flowcontrol.apiserver.k8s.io, objects: 20000${returns}, ` +
      'arrival: {type: constant, rate: 40}, service: {type: constant, value: 40ms}}',
    '',
  ].join('\n');

test('a LIST that returns none of the objects it scans stays off the pool and holds no response memory; its objects still price it', async () => {
  const scansAll = await simulate(selectorLists(''));
  const returnsNone = await simulate(selectorLists(', returns: 0'));
  assert.is(returnsNone.capacity!.peakMemoryBytes, 0);
  assert.ok(scansAll.capacity!.peakMemoryBytes > 0);
  // Off the pool nothing waits for the one thread: the latency is the service time.
  assert.is(returnsNone.flows.selector!.latencySeconds.p99, 0.04);
  assert.ok(scansAll.flows.selector!.latencySeconds.p99! > 1);
  // Seats and CPU still come from the 20,000 objects it scans.
  assert.is(returnsNone.flows.selector!.seatsPerRequest, scansAll.flows.selector!.seatsPerRequest);
  assert.ok(returnsNone.capacity!.meanCpuBusy > 0.5);
  // returns equal to objects is the default.
  assert.is(reportJson(await simulate(selectorLists(', returns: 20000'))), reportJson(scansAll));
});

test.run();
