// The main thread as a run-to-completion FIFO on the shared CPUs: a slice waits for the one
// running, and a slice beside pool work on one core gets half of it; a pause (server.pauses) stops
// it inside the running slice, or as a slice of its own when idle, and keeps a core busy. Then
// whole runs with `server.mainThread`, against hand-computed latencies.

import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { SimClock } from '../engine/sim-clock.ts';
import { serviceSampler } from './distributions.ts';
import { MainThread } from './main-thread.ts';
import { buildReport } from './report.ts';
import { loadScenarioText } from './scenario-load.ts';
import { streamPrng } from './seed.ts';
import { SharedCpu } from './shared-cpu.ts';
import { runSimulation } from './simulation.ts';

function harness(cpus: number) {
  const clock = new SimClock(0);
  const finished: [string, number][] = [];
  const cpu = new SharedCpu(clock, cpus, () => {});
  const main = new MainThread(cpu, true);
  const slice = (name: string, ms: number) => main.run(ms, () => finished.push([name, clock.now()]));
  const pool = (name: string, ms: number) => cpu.start({ serviceMs: ms, cpuDemand: 1, memoryBytes: 0, fire: () => finished.push([name, clock.now()]) });
  return { clock, finished, slice, pool, main };
}

const near = (actual: number, expected: number) => assert.ok(Math.abs(actual - expected) < 1e-6, `${actual} ≠ ${expected}`);

test('a GET arriving during a LIST’s 10 ms slice waits for the rest of it; slices run one at a time, in order', () => {
  const h = harness(4);
  h.slice('list', 10);
  h.clock.runUntil(4);
  h.slice('get', 1);
  h.slice('get2', 1);
  assert.is(h.main.queued, 2);
  h.clock.runUntil(100);
  // Cores to spare, yet the GET runs 10–11 ms and the next 11–12 ms: one thread.
  assert.equal(h.finished, [
    ['list', 10],
    ['get', 11],
    ['get2', 12],
  ]);
  assert.is(h.main.queued, 0);
});

test('a slice shares a core with pool work: both at half speed while they overlap', () => {
  const h = harness(1);
  h.pool('encode', 30);
  h.slice('get', 10);
  h.clock.runUntil(100);
  // Demand 2 on 1 core: the slice's 10 ms take 20; the encoding did 10 by then and its last 20 run alone.
  assert.is(h.finished[0]![0], 'get');
  near(h.finished[0]![1], 20);
  assert.is(h.finished[1]![0], 'encode');
  near(h.finished[1]![1], 40);
});

test('a pause of an idle main thread holds the slices that arrive during it', () => {
  const h = harness(4);
  h.main.pause(5);
  h.clock.runUntil(1);
  h.slice('get', 2);
  h.clock.runUntil(100);
  // The pause runs 0–5; the GET, ready at 1, runs 5–7.
  assert.equal(h.finished, [['get', 7]]);
});

test('a pause lands inside the running slice: it ends that much later, and the slices behind it wait as long', () => {
  const h = harness(4);
  h.slice('list', 10);
  h.clock.runUntil(1);
  h.slice('get', 2);
  h.clock.runUntil(3);
  h.main.pause(4);
  h.clock.runUntil(12);
  // A second pause during the first one's extension (10–14) extends it again.
  h.main.pause(1);
  h.clock.runUntil(100);
  // The LIST's 10 ms of CPU end at 10, its pauses at 15; the GET runs 15–17.
  assert.equal(h.finished, [
    ['list', 15],
    ['get', 17],
  ]);
  assert.is(h.main.queued, 0);
});

test('a pause keeps a core busy: pool work on the one core shares it with the collector', () => {
  const h = harness(1);
  h.pool('encode', 10);
  h.main.pause(10);
  h.slice('get', 1);
  h.clock.runUntil(100);
  // Demand 2 on one core from 0 to 20: the pause's 10 ms and the encoding's take 20; the GET runs 20–21.
  near(h.finished[0]![1], 20);
  assert.is(h.finished[1]![0], 'get');
  near(h.finished[1]![1], 21);
});

const scenario = (cpus: number, mainThread: string) => `kind: Scenario
duration: 2s
server: {cpus: ${cpus}${mainThread}}
flows:
  - name: lists
    user: lister
    verb: list
    resource: configmaps
    objects: 1000
    arrival: {type: constant, rate: 1}
    service: {type: constant, value: 30ms}
    cpu: 30ms
${mainThread === '' ? '' : '    mainThreadCpu: 10ms\n'}  - name: gets
    user: getter
    verb: get
    resource: configmaps
    objectName: one
    start: 4ms
    arrival: {type: constant, rate: 1}
    service: {type: constant, value: 1ms}
    cpu: 1ms
`;

async function latenciesMs(yaml: string): Promise<Record<string, number>> {
  const loaded = await loadScenarioText(yaml, 'main-thread.yaml');
  if (!loaded.ok) throw new Error(loaded.errors.join('\n'));
  const result = runSimulation({ loaded: loaded.loaded, seed: '1' });
  return Object.fromEntries(result.flows.map((f) => [f.name, f.latency.maxMs]));
}

test('server.mainThread: the GET at 1004 ms waits for the LIST’s slice (1000–1010 ms); without it, it does not', async () => {
  const off = await latenciesMs(scenario(2, ''));
  near(off.gets!, 1);
  near(off.lists!, 30);
  // Two cores: the GET's slice runs 1010–1011 beside the LIST's pool part (20 ms at one core).
  const twoCores = await latenciesMs(scenario(2, ', mainThread: true'));
  near(twoCores.gets!, 7);
  near(twoCores.lists!, 30);
  // One core: from 1010 the GET's slice and the LIST's pool part share it, the 1 ms slice takes 2;
  // the LIST did 1 of its 20 ms by 1012 and runs 19 more alone.
  const oneCore = await latenciesMs(scenario(1, ', mainThread: true'));
  near(oneCore.gets!, 8);
  near(oneCore.lists!, 31);
});

test('mainThreadCpuVaries: the LIST’s slice follows its drawn service time, and the GET behind it waits for that slice', async () => {
  // The LIST's one draw from its flow's stream (constant arrivals draw nothing): exponential, mean 30 ms.
  const drawnMs = serviceSampler({ type: 'exponential', meanMs: 30 }).nextMs(streamPrng('1', 'flow:lists'));
  const sliceMs = Math.min(drawnMs, (10 * drawnMs) / 30);
  assert.ok(sliceMs > 4, `seed 1 draws a slice past the GET's arrival (${sliceMs} ms)`);
  const yaml = scenario(2, ', mainThread: true').replace('{type: constant, value: 30ms}', '{type: exponential, mean: 30ms}');
  // The GET arrives 4 ms into the slice, waits for the rest of it, then runs its own 1 ms.
  near((await latenciesMs(yaml.replace('mainThreadCpu: 10ms', 'mainThreadCpu: 10ms\n    mainThreadCpuVaries: true'))).gets!, sliceMs - 4 + 1);
  // Without the option the slice is the constant 10 ms, whatever was drawn.
  near((await latenciesMs(yaml)).gets!, 7);
});

test('a pool thread is held only while the LIST computes, not while its client reads', async () => {
  // Two LISTs (50 ms each alone: 10 ms main thread, 20 ms pool, 20 ms the client reading) at 1000
  // and 1015 ms on one pool thread and two cores. The second's slice runs 1015–1025 and its pool
  // work waits for the first's (1010–1030), runs 1030–1050, and its client reads until 1070: 55 ms.
  const yaml = `kind: Scenario
duration: 2s
server: {cpus: 2, executorThreads: 1, mainThread: true}
flows:
${['a:0ms', 'b:15ms']
  .map((f) => f.split(':'))
  .map(
    ([name, start]) => `  - {name: ${name}, user: ${name}, verb: list, resource: configmaps, objects: 1000, start: ${start}, cpu: 30ms, mainThreadCpu: 10ms,
     arrival: {type: constant, rate: 1}, service: {type: constant, value: 50ms}}`,
  )
  .join('\n')}
`;
  const latencies = await latenciesMs(yaml);
  near(latencies.a!, 50);
  near(latencies.b!, 55);
  // The report says the main thread was modelled; without it the key is absent.
  const loaded = await loadScenarioText(yaml, 'main-thread.yaml');
  if (!loaded.ok) throw new Error(loaded.errors.join('\n'));
  assert.is(buildReport(runSimulation({ loaded: loaded.loaded, seed: '1' })).scenario.server.mainThread, true);
  const plain = await loadScenarioText(scenario(2, ''), 'plain.yaml');
  if (!plain.ok) throw new Error(plain.errors.join('\n'));
  assert.not.ok('mainThread' in buildReport(runSimulation({ loaded: plain.loaded, seed: '1' })).scenario.server);
});

test('a main thread needs cpus, and a flow’s mainThreadCpu needs it and an explicit cpu, and fits in it', async () => {
  const flow = (extra: string) =>
    `  - {name: g, user: u, verb: get, resource: pods, objectName: p, arrival: {type: constant, rate: 1}, service: {type: constant, value: 1ms}${extra}}`;
  const errorsOf = async (server: string, extra: string) => {
    const loaded = await loadScenarioText(`kind: Scenario\nduration: 2s\nserver: ${server}\nflows:\n${flow(extra)}\n`, 'bad.yaml');
    return loaded.ok ? [] : loaded.errors;
  };
  assert.match((await errorsOf('{mainThread: true}', '')).join('\n'), /server\.mainThread: needs server\.cpus/);
  assert.match((await errorsOf('{cpus: 1}', ', mainThreadCpu: 1ms')).join('\n'), /flows\[0\]\.mainThreadCpu: has no effect without server\.mainThread: true/);
  assert.match((await errorsOf('{cpus: 1, mainThread: true}', ', mainThreadCpu: 10s')).join('\n'), /flows\[0\]\.mainThreadCpu: needs the flow's cpu too/);
  assert.match(
    (await errorsOf('{cpus: 1, mainThread: true}', ', cpu: 1ms, mainThreadCpu: 2ms')).join('\n'),
    /flows\[0\]\.mainThreadCpu: must be at most the flow's cpu/,
  );
  assert.equal(await errorsOf('{cpus: 1, mainThread: true}', ', cpu: 2ms, mainThreadCpu: 2ms'), []);
  assert.match(
    (await errorsOf('{cpus: 1, mainThread: true}', ', cpu: 2ms, mainThreadCpuVaries: true')).join('\n'),
    /flows\[0\]\.mainThreadCpuVaries: needs the flow's mainThreadCpu/,
  );
  assert.equal(await errorsOf('{cpus: 1, mainThread: true}', ', cpu: 2ms, mainThreadCpu: 2ms, mainThreadCpuVaries: true'), []);
});

test.run();
