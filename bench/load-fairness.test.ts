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

test('a long run-queue stall of the server makes a run unfair; short ones do not', () => {
  assert.equal(unfairness(0.98, [run(3, 3)], 98.6), ["the server's main thread waited 99 ms at once for its core"]);
  assert.equal(unfairness(0.98, [run(3, 3)], 12), []);
  assert.equal(unfairness(0.98, [run(3, 3)], 12, 100), ["the hypervisor took the server's core for 100 ms at once"]);
});

test('every driver run is judged, not only the first', () => {
  assert.equal(unfairness(1, [run(1, 1), { ...run(1, 30), what: 'calibration' }]), [
    "the calibration's driver sent 1% of its requests 30 ms or more behind their arrivals",
  ]);
});

test.run();
