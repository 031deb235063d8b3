import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { DurationHistogram } from './histogram.ts';
import { createPrng } from '../engine/random.ts';

test('percentiles are within 0.5% of the exact nearest-rank values', () => {
  const prng = createPrng(7);
  const h = new DurationHistogram();
  const values: number[] = [];
  for (let i = 0; i < 20_000; i++) {
    const v = Math.exp(prng.next() * 12 - 4); // 0.018 ms .. 2.9 s, spread over decades
    values.push(v);
    h.record(v);
  }
  values.sort((a, b) => a - b);
  for (const q of [0.01, 0.5, 0.9, 0.99, 0.999]) {
    const exact = values[Math.ceil(q * values.length) - 1]!;
    const approx = h.quantileMs(q)!;
    assert.ok(Math.abs(approx - exact) / exact < 0.005, `q=${q}: ${approx} vs ${exact}`);
  }
  assert.is(h.count, 20_000);
  assert.is(h.maxMs, values[values.length - 1]);
  assert.is(h.minMs, values[0]);
});

test('zero waits have their own bucket; empty histograms have no percentiles', () => {
  const h = new DurationHistogram();
  assert.is(h.quantileMs(0.5), undefined);
  assert.is(h.meanMs, undefined);
  for (let i = 0; i < 90; i++) h.record(0);
  for (let i = 0; i < 10; i++) h.record(250);
  assert.is(h.quantileMs(0.5), 0);
  assert.is(h.quantileMs(0.9), 0);
  assert.ok(Math.abs(h.quantileMs(0.95)! - 250) / 250 < 0.005);
  assert.is(h.meanMs, 25);
  const cdf = h.cdf();
  assert.equal(cdf[0], [0, 0.9]);
  assert.is(cdf[cdf.length - 1]![1], 1);
});

test.run();
