import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { unfairness, type DriverRun } from './load-fairness.ts';

const run = (clientCpuSeconds: number, maxSendLagMs: number): DriverRun => ({
  what: 'mixed run',
  result: { flows: [], clientCpuSeconds, maxSendLagMs, sendLagP99Ms: maxSendLagMs },
  seconds: 20,
});

test('a server on its core and a driver idle enough and on time: fair', () => {
  assert.equal(unfairness(0.95, [run(9, 10)]), []);
});

test('each cause is named: the core share, a busy driver, a late driver', () => {
  assert.equal(unfairness(0.85, [run(11, 10.5)]), [
    "the server ran 0.85 of its event loop's busy time",
    "the mixed run's driver used 0.55 of its core",
    "the mixed run's driver fell 11 ms behind",
  ]);
});

test('every driver run is judged, not only the first', () => {
  assert.equal(unfairness(1, [run(1, 1), { ...run(1, 30), what: 'calibration' }]), ["the calibration's driver fell 30 ms behind"]);
});

test.run();
