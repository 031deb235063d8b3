import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { stallsOf, stealStallsOf, worstLossMs } from './run-queue-stalls.ts';

test('a stall is a run of intervals each waiting at least the threshold; shorter waits count in the total only', () => {
  // Cumulative waits (ms) at 5 ms reads: +0.2, +4, +5, +0.1, +3, +0.5 → stalls of 9 and 3 ms.
  const waitsMs = [0, 0.2, 4.2, 9.2, 9.3, 12.3, 12.8];
  const samples = waitsMs.map((w, i) => ({ atMs: i * 5, waitNs: w * 1e6, stealMs: 0 }));
  const { stallsMs, totalMs } = stallsOf(samples, 1);
  assert.equal(
    stallsMs.map((s) => Math.round(s * 1000) / 1000),
    [9, 3],
  );
  assert.ok(Math.abs(totalMs - 12.8) < 1e-9);
});

test('a stall still going at the last read is counted; no reads, no stalls', () => {
  const samples = [0, 2, 6].map((w, i) => ({ atMs: i * 5, waitNs: w * 1e6, stealMs: 0 }));
  assert.equal(stallsOf(samples, 1).stallsMs, [6]);
  assert.equal(stallsOf([], 1), { stallsMs: [], totalMs: 0 });
});

test('the most lost within a window: run-queue wait and steal together', () => {
  // Reads every 100 ms: wait +5, +40, +5, +5 ms; steal +10 ms at 300 ms. Within 200 ms: 40 + 5 + 10 = 55 ms (100–300).
  const reads: [number, number, number][] = [
    [0, 0, 0],
    [100, 5, 0],
    [200, 45, 0],
    [300, 50, 10],
    [400, 55, 10],
  ];
  const samples = reads.map(([atMs, waitMs, stealMs]) => ({ atMs, waitNs: waitMs * 1e6, stealMs }));
  assert.is(worstLossMs(samples, 200), 55);
  assert.is(worstLossMs(samples, 1000), 65);
  assert.is(worstLossMs([], 200), 0);
});

test('steal ticks less than the gap apart are one stall', () => {
  // 10 ms ticks read at 5 ms: 0, 5: +10, 15: +10, 20: +10, 100: +10 (alone), 105: +0.
  const steal: [number, number][] = [
    [0, 0],
    [5, 10],
    [10, 10],
    [15, 20],
    [20, 30],
    [100, 40],
    [105, 40],
  ];
  assert.equal(
    stealStallsOf(
      steal.map(([atMs, stealMs]) => ({ atMs, waitNs: 0, stealMs })),
      20,
    ),
    [30, 10],
  );
});

test.run();
