import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { unfairness, type DriverRun } from './load-fairness.ts';

const run = (clientCpuSeconds: number, sendLagP99Ms: number, maxSendLagMs = sendLagP99Ms): DriverRun => ({
  what: 'mixed run',
  result: { flows: [], clientCpuSeconds, maxSendLagMs, sendLagP99Ms, startedAtMs: 0, lateSends: [] },
  seconds: 20,
});

test('a server on its core and a driver idle enough and on time: fair', () => {
  assert.equal(unfairness(0.95, [run(9, 10)]), []);
});

test('each cause is named: the core share, a busy driver, a late driver', () => {
  assert.equal(unfairness(0.85, [run(11, 10.5)]), [
    "the server ran 0.85 of its event loop's busy time",
    "the mixed run's driver used 0.55 of its core",
    "the mixed run's driver sent 1% of its requests 11 ms or more behind their arrivals",
  ]);
});

test('a single late send (a GC pause in the driver) does not make a run unfair: the p99 lag is judged', () => {
  assert.equal(unfairness(0.98, [run(3, 3, 40)]), []);
});

test('a server that lost much of its core within half a second makes a run unfair; a little does not', () => {
  assert.equal(unfairness(0.98, [run(3, 3)], 98.6), ["the server's main thread lost 99 ms of its core within 500 ms"]);
  assert.equal(unfairness(0.98, [run(3, 3)], 33), []);
});

test('every driver run is judged, not only the first', () => {
  assert.equal(unfairness(1, [run(1, 1), { ...run(1, 30), what: 'calibration' }]), [
    "the calibration's driver sent 1% of its requests 30 ms or more behind their arrivals",
  ]);
});

test.run();
