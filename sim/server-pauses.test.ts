// `server.pauses`: the pauses' times come from their own seeded streams, and a whole run's GETs wait
// for them (how a pause stops the main thread: sim/main-thread.test.ts).

import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { SimClock } from '../engine/sim-clock.ts';
import { exponentialMs } from './distributions.ts';
import { buildReport } from './report.ts';
import { loadScenarioText } from './scenario-load.ts';
import { streamPrng } from './seed.ts';
import { pauseShare, schedulePauses } from './server-pauses.ts';
import { runSimulation } from './simulation.ts';

const near = (actual: number, expected: number) => assert.ok(Math.abs(actual - expected) < 1e-6, `${actual} ≠ ${expected}`);

test('pause starts: exponential gaps of mean `every`, each kind from its own stream, none from `until` on', () => {
  const clock = new SimClock(0);
  const seen: [number, number, number][] = [];
  const specs = [
    { everyMs: 100, duration: { type: 'constant' as const, valueMs: 2 } },
    { everyMs: 300, duration: { type: 'constant' as const, valueMs: 20 } },
  ];
  const prngOf = (i: number) => streamPrng('7', `pauses:${i}`);
  schedulePauses(clock, specs, prngOf, 1000, (ms) => seen.push([clock.now(), ms, ms === 2 ? 0 : 1]));
  clock.runUntil(5000);
  // A constant duration draws nothing: each kind's starts are the running sums of its stream's gaps below 1000 ms.
  const expected: [number, number, number][] = [];
  specs.forEach((spec, i) => {
    const prng = prngOf(i);
    for (let t = exponentialMs(prng, spec.everyMs); t < 1000; t += exponentialMs(prng, spec.everyMs)) expected.push([t, spec.duration.valueMs, i]);
  });
  expected.sort((a, b) => a[0] - b[0]);
  assert.ok(expected.length > 5, `some pauses in a second (${expected.length})`);
  assert.is(seen.length, expected.length);
  seen.forEach((s, k) => {
    near(s[0], expected[k]![0]);
    assert.is(s[2], expected[k]![2]);
  });
});

test('measured lengths: each pause draws one of them, after its gap, from the same stream', () => {
  const clock = new SimClock(0);
  const seen: [number, number][] = [];
  const valuesMs = [0.5, 1, 40];
  schedulePauses(
    clock,
    [{ everyMs: 50, duration: { type: 'measured', valuesMs } }],
    () => streamPrng('9', 'p'),
    500,
    (ms) => seen.push([clock.now(), ms]),
  );
  clock.runUntil(1000);
  const prng = streamPrng('9', 'p');
  const expected: [number, number][] = [];
  for (let t = exponentialMs(prng, 50); t < 500; t += exponentialMs(prng, 50)) expected.push([t, valuesMs[prng.int(valuesMs.length)]!]);
  assert.ok(expected.length > 3 && new Set(expected.map(([, ms]) => ms)).size > 1, 'several pauses, of several lengths');
  assert.is(seen.length, expected.length);
  seen.forEach(([t, ms], k) => {
    near(t, expected[k]![0]);
    assert.is(ms, expected[k]![1]);
  });
});

test('pauseShare: Σ mean duration ÷ every', () => {
  near(
    pauseShare([
      { everyMs: 100, duration: { type: 'constant', valueMs: 2 } },
      { everyMs: 1000, duration: { type: 'exponential', meanMs: 50 } },
    ]),
    0.07,
  );
  near(pauseShare([{ everyMs: 100, duration: { type: 'measured', valuesMs: [1, 2, 6] } }]), 0.03);
  near(pauseShare([]), 0);
});

/** A GET every 10 ms from 505 to 595 ms, on a main thread paused 50 ms at 500 ms (`every` chosen so the first gap is 500). */
function pausedRun(seed: string, withPauses: boolean) {
  const firstGap = exponentialMs(streamPrng(seed, 'pauses:0:replica-0'), 1);
  const everyMs = 500 / firstGap;
  const pauses = withPauses ? `, pauses: [{every: ${everyMs}ms, duration: {type: constant, value: 50ms}}]` : '';
  const yaml = `kind: Scenario
duration: 1s
server: {cpus: 2, mainThread: true${pauses}}
flows:
  - {name: gets, user: u, verb: get, resource: pods, objectName: p, start: 495ms, stop: 600ms, cpu: 1ms, mainThreadCpu: 1ms,
     arrival: {type: constant, rate: 100}, service: {type: constant, value: 1ms}}
`;
  return { everyMs, yaml };
}

test('a whole run: the GETs that arrive during a pause wait for its end, one slice at a time', async () => {
  const seed = '3';
  const { everyMs, yaml } = pausedRun(seed, true);
  const prng = streamPrng(seed, 'pauses:0:replica-0');
  near(exponentialMs(prng, everyMs), 500);
  assert.ok(500 + exponentialMs(prng, everyMs) > 700, 'the second pause starts after the GETs are done');
  const loaded = await loadScenarioText(yaml, 'paused.yaml');
  if (!loaded.ok) throw new Error(loaded.errors.join('\n'));
  const gets = runSimulation({ loaded: loaded.loaded, seed }).flows[0]!;
  // The GETs at 505…545 wait for 550 and run in turn; the first, 550–551, takes 46 ms, the longest.
  near(gets.latency.maxMs, 46);
  // The report gives the pauses' share of the main thread's time: 50 ms every `everyMs`.
  assert.is(buildReport(runSimulation({ loaded: loaded.loaded, seed })).scenario.server.mainThreadPauseShare, Math.round((50 / everyMs) * 1e4) / 1e4);
  const plain = await loadScenarioText(pausedRun(seed, false).yaml, 'plain.yaml');
  if (!plain.ok) throw new Error(plain.errors.join('\n'));
  near(runSimulation({ loaded: plain.loaded, seed }).flows[0]!.latency.maxMs, 1);
  assert.not.ok('mainThreadPauseShare' in buildReport(runSimulation({ loaded: plain.loaded, seed })).scenario.server);
});

test('the mean latency of a main thread with pauses follows the priority-queue formula (docs/simulator.md)', async () => {
  // Poisson GETs of 1 ms slices at 400/s (ρ = 0.4), pauses of 2 ms every 20 ms (π = 0.1). A slice waits
  // W = R ÷ ((1 − π)(1 − π − ρ)), R = ½ (λ E[m²] + E[D²] ÷ every) = ½ (0.4 + 0.2) = 0.3 ms: W = 2/3 ms;
  // the pauses landing inside its own ms stretch it to m ÷ (1 − π) = 10/9 ms. Mean latency 16/9 ms.
  const yaml = `kind: Scenario
duration: 60s
server: {cpus: 1, mainThread: true, pauses: [{every: 20ms, duration: {type: constant, value: 2ms}}]}
flows:
  - {name: gets, user: u, verb: get, resource: pods, objectName: p, cpu: 1ms, mainThreadCpu: 1ms,
     arrival: {type: poisson, rate: 400}, service: {type: constant, value: 1ms}}
`;
  const loaded = await loadScenarioText(yaml, 'formula.yaml');
  if (!loaded.ok) throw new Error(loaded.errors.join('\n'));
  const meanMs = runSimulation({ loaded: loaded.loaded, seed: '1' }).flows[0]!.latency.meanMs!;
  // 24,000 requests: within 5% of the formula (without the pauses it would be 1 + 0.2 ÷ 0.6 = 4/3 ms).
  assert.ok(Math.abs(meanMs / (16 / 9) - 1) < 0.05, `mean ${meanMs} ms, formula ${16 / 9} ms`);
});

test('server.pauses: errors name the field', async () => {
  const errorsOf = async (server: string) => {
    const loaded = await loadScenarioText(
      `kind: Scenario\nduration: 2s\nserver: ${server}\nflows:\n` +
        '  - {name: g, user: u, verb: get, resource: pods, objectName: p, arrival: {type: constant, rate: 1}, service: {type: constant, value: 1ms}}\n',
      'bad.yaml',
    );
    return loaded.ok ? '' : loaded.errors.join('\n');
  };
  const pause = '{every: 100ms, duration: {type: constant, value: 1ms}}';
  assert.match(await errorsOf(`{cpus: 1, pauses: [${pause}]}`), /server\.pauses: needs server\.mainThread: true/);
  assert.match(await errorsOf('{cpus: 1, mainThread: true, pauses: [{duration: {type: constant, value: 1ms}}]}'), /server\.pauses\[0\]\.every: required/);
  assert.match(await errorsOf('{cpus: 1, mainThread: true, pauses: [{every: 1s}]}'), /server\.pauses\[0\]\.duration: required/);
  assert.match(await errorsOf('{cpus: 1, mainThread: true, pauses: [{every: 1s, length: 2ms}]}'), /server\.pauses\[0\]\.length/);
  assert.match(await errorsOf(`{cpus: 1, mainThread: true, pauses: [${pause}, {every: 10ms, duration: {type: constant, value: 10ms}}]}`), /take 101%/);
  assert.is(await errorsOf(`{cpus: 1, mainThread: true, pauses: [${pause}]}`), '');
  assert.is(await errorsOf('{cpus: 1, mainThread: true, pauses: [{every: 100ms, durations: [0.8ms, 12ms]}]}'), '');
  assert.match(
    await errorsOf('{cpus: 1, mainThread: true, pauses: [{every: 100ms, durations: [1ms], duration: {type: constant, value: 1ms}}]}'),
    /server\.pauses\[0\]\.durations: give duration \(a distribution\) or durations \(measured lengths\), not both/,
  );
  assert.match(
    await errorsOf('{cpus: 1, mainThread: true, pauses: [{every: 100ms, durations: [1ms, 7]}]}'),
    /server\.pauses\[0\]\.durations\[1\]: must be a positive duration/,
  );
  assert.match(
    await errorsOf('{cpus: 1, mainThread: true, pauses: [{every: 100ms, durations: []}]}'),
    /server\.pauses\[0\]\.durations: must list at least one/,
  );
});

test.run();
