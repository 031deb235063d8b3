// What a request costs with the main thread modelled: its slice there, and the rest of its time
// and CPU after it.

import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { BASE_CPU_MS, mainThreadSplitOf, variedCostOf } from './request-cost.ts';

test('an explicit slice leaves the rest of the CPU for the rest of the service time', () => {
  // 30 ms of CPU, 10 on the main thread: 20 ms of CPU over the remaining 40 ms is half a core.
  assert.equal(mainThreadSplitOf(30, 10, false, 50), { sliceMs: 10, poolMs: 0, restMs: 40, restDemand: 0.5 });
  // Pool work: the 20 ms are the pool thread's, and the last 20 ms of the 50 use no CPU (the client reads).
  assert.equal(mainThreadSplitOf(30, 10, true, 50), { sliceMs: 10, poolMs: 20, restMs: 20, restDemand: 0 });
});

test('without one, pool work leaves the main thread a small request’s cost and other work is all main thread', () => {
  assert.equal(mainThreadSplitOf(30, undefined, true, 30), { sliceMs: BASE_CPU_MS, poolMs: 30 - BASE_CPU_MS, restMs: 0, restDemand: 0 });
  assert.equal(mainThreadSplitOf(2, undefined, false, 5), { sliceMs: 2, poolMs: 0, restMs: 3, restDemand: 0 });
  // A request cheaper than the base cost on the pool: the slice is all of it.
  assert.equal(mainThreadSplitOf(0.2, undefined, true, 1), { sliceMs: 0.2, poolMs: 0, restMs: 0.8, restDemand: 0 });
});

test('a slice longer than the service time leaves nothing after it', () => {
  assert.equal(mainThreadSplitOf(3, 3, false, 2), { sliceMs: 3, poolMs: 0, restMs: 0, restDemand: 0 });
  assert.equal(mainThreadSplitOf(5, 1, true, 2), { sliceMs: 1, poolMs: 4, restMs: 0, restDemand: 0 });
});

test('varied: CPU and slice follow the drawn service time, averaging the flow’s cpu and mainThreadCpu; the slice at most the service time', () => {
  // cpu 30 ms, mainThreadCpu 10 ms, mean service 40 ms: a 20 ms request gets 15 and 5 ms, an 80 ms one 60 and 20 ms
  // (means of the two: 37.5 = 30 × 50 / 40 and 12.5 = 10 × 50 / 40).
  assert.equal(variedCostOf(30, 10, 20, 40), { cpuMs: 15, sliceMs: 5 });
  assert.equal(variedCostOf(30, 10, 80, 40), { cpuMs: 60, sliceMs: 20 });
  // A slice as large as the mean service time would exceed a slow request's own time: capped there.
  assert.equal(variedCostOf(50, 50, 100, 40), { cpuMs: 125, sliceMs: 100 });
  // A distribution with no time at all keeps the flow's constants.
  assert.equal(variedCostOf(30, 10, 0, 0), { cpuMs: 30, sliceMs: 10 });
});

test.run();
