import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { bucketByLogarithm, bucketOf, DurationHistogram } from './histogram.ts';
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

const double = new Float64Array(1);
const doubleBits = new BigInt64Array(double.buffer);

/** The double `steps` representable values above `x` (below, when negative); `x` positive and finite. */
function ulpsAway(x: number, steps: number): number {
  double[0] = x;
  doubleBits[0] = doubleBits[0]! + BigInt(steps);
  return double[0]!;
}

test("the bucket from the bits is the logarithm's, for every double near every bucket bound", () => {
  // The computed logarithm's error (a few units in its last place) moves a bound by some 50 doubles at
  // most; farther from the bounds both give the same bucket by construction.
  const wrong: number[] = [];
  let checked = 0;
  for (let k = 0; 0.001 * 1.01 ** k < 2e7; k++) {
    const bound = 0.001 * 1.01 ** k;
    for (let d = -128; d <= 128; d++) {
      const ms = ulpsAway(bound, d);
      if (bucketOf(ms) !== bucketByLogarithm(ms)) wrong.push(ms);
      checked++;
    }
  }
  assert.equal(wrong, []);
  assert.ok(checked > 2000 * 257, `${checked} checked`);
});

test("the bucket from the bits is the logarithm's for zero, negatives, the tiny, the huge and the non-finite", () => {
  const prng = createPrng(11);
  const samples = [0, -0, -1, 1e-300, 5e-324, 0.000999, 0.001, 0.0010001, 1, 20, 1e7, 1e8, 1e300, Infinity, -Infinity, Number.NaN];
  for (let i = 0; i < 200_000; i++) samples.push(Math.exp(prng.next() * 40 - 12));
  assert.equal(
    samples.filter((ms) => !Object.is(bucketOf(ms), bucketByLogarithm(ms))),
    [],
  );
});

test.run();
