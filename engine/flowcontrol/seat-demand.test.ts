import { test } from 'uvu';
import * as assert from 'uvu/assert';
import {
  createSeatDemandIntegrator,
  resetDemand,
  SEAT_DEMAND_SMOOTHING_COEFFICIENT,
  SeatDemandTracker,
  setDemand,
  smoothDemand,
  updateSeatDemandStats,
  ZERO_SEAT_DEMAND_STATS,
} from './seat-demand.ts';

const near = (a: number, b: number) => Math.abs(a - b) < 1e-9;

test('a constant demand averages to itself with zero deviation', () => {
  const t = new SeatDemandTracker(1_000, 0);
  t.set(7, 1_000);
  const r = t.reset(11_000);
  assert.is(r.durationSeconds, 10);
  assert.ok(near(r.average, 7));
  assert.is(r.deviation, 0);
  assert.equal([r.min, r.max], [0, 7]);
});

test('the average is time-weighted and the deviation is the population one', () => {
  const t = new SeatDemandTracker(0);
  t.set(10, 5_000); // 0 for 5 s, then 10 for 5 s
  let r = t.reset(10_000);
  assert.ok(near(r.average, 5));
  assert.ok(near(r.deviation, 5));
  // 2 for 1 s, 4 for 3 s: mean 3.5, E[x²] = (4 + 48)/4 = 13, variance 0.75.
  t.set(2, 10_000);
  t.add(2, 11_000);
  r = t.reset(14_000);
  assert.ok(near(r.average, 3.5));
  assert.ok(near(r.deviation, Math.sqrt(0.75)));
  assert.equal([r.min, r.max], [2, 10]); // 10 carried in as the value at the start of the period
});

test('after a reset min and max restart at the current value, so a burst shows in the next period too', () => {
  const igr = createSeatDemandIntegrator(0);
  setDemand(igr, 970, 0);
  const first = resetDemand(igr, 10_000);
  assert.is(first.max, 970);
  setDemand(igr, 0, 10_000);
  const second = resetDemand(igr, 20_000);
  assert.equal([second.min, second.max], [0, 970]);
  const third = resetDemand(igr, 30_000);
  assert.equal([third.min, third.max], [0, 0]);
});

test('an empty period reports NaN average and deviation', () => {
  const t = new SeatDemandTracker(5_000, 3);
  const r = t.reset(5_000);
  assert.is(r.durationSeconds, 0);
  assert.ok(Number.isNaN(r.average));
  assert.ok(Number.isNaN(r.deviation));
  assert.is(r.max, 3);
});

test('a clock step backwards adds no time', () => {
  const t = new SeatDemandTracker(10_000, 4);
  t.set(8, 9_000);
  const r = t.reset(10_000);
  assert.is(r.durationSeconds, 0);
  assert.is(r.max, 8);
});

test('smoothing: the envelope wins when demand rises, decays by 0.977 per period when it falls', () => {
  const A = SEAT_DEMAND_SMOOTHING_COEFFICIENT;
  const obs = (average: number, deviation: number, max: number, durationSeconds = 10) => ({ durationSeconds, average, deviation, min: 0, max });
  assert.equal(smoothDemand(0, obs(5, 1, 9.5)), { highWatermark: 10, smoothed: 6 });
  const decayed = smoothDemand(100, obs(5, 1, 9));
  assert.is(decayed.highWatermark, 9);
  assert.ok(near(decayed.smoothed, A * 100 + (1 - A) * 6));
  // A NaN deviation (negative rounding of the variance) counts as 0.
  assert.equal(smoothDemand(0, obs(4, NaN, 4)), { highWatermark: 4, smoothed: 4 });
});

test('smoothing: a period of zero duration moves only the high watermark', () => {
  const zero = { durationSeconds: 0, average: NaN, deviation: NaN, min: 3, max: 3 };
  assert.equal(smoothDemand(42, zero), { highWatermark: 3, smoothed: 42 });
  const prev = { avg: 2, stdDev: 1, highWatermark: 8, smoothed: 42 };
  assert.equal(updateSeatDemandStats(prev, zero), { avg: 2, stdDev: 1, highWatermark: 3, smoothed: 42 });
  const next = updateSeatDemandStats(ZERO_SEAT_DEMAND_STATS, { durationSeconds: 10, average: 2.5, deviation: 0.5, min: 2, max: 2.5 });
  assert.equal(next, { avg: 2.5, stdDev: 0.5, highWatermark: 3, smoothed: 3 });
});

test.run();
