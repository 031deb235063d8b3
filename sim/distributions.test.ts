import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { createPrng } from '../engine/random.ts';
import { arrivalProcess, NORMAL_Z_P99, serviceMeanMs, serviceSampler } from './distributions.ts';

const N = 40_000;

test('service samplers have the configured mean, median and p99', () => {
  const prng = createPrng(3);
  const exp = serviceSampler({ type: 'exponential', meanMs: 40 });
  let sum = 0;
  for (let i = 0; i < N; i++) sum += exp.nextMs(prng);
  assert.ok(Math.abs(sum / N - 40) < 1, `exponential mean ${sum / N}`);

  const logn = serviceSampler({ type: 'lognormal', medianMs: 100, p99Ms: 1000 });
  const xs = Array.from({ length: N }, () => logn.nextMs(prng)).sort((a, b) => a - b);
  const median = xs[N / 2]!;
  const p99 = xs[Math.floor(0.99 * N)]!;
  assert.ok(Math.abs(median - 100) < 4, `lognormal median ${median}`);
  assert.ok(Math.abs(p99 - 1000) < 80, `lognormal p99 ${p99}`);

  assert.is(serviceSampler({ type: 'constant', valueMs: 7 }).nextMs(prng), 7);
});

test('a service distribution’s mean: a log-normal’s is above its median by e^(σ²/2)', () => {
  assert.is(serviceMeanMs({ type: 'constant', valueMs: 7 }), 7);
  assert.is(serviceMeanMs({ type: 'exponential', meanMs: 12 }), 12);
  // p99 = median × e^z99: σ = 1, so the mean is 100 × e^0.5 ≈ 164.87 ms.
  const mean = serviceMeanMs({ type: 'lognormal', medianMs: 100, p99Ms: 100 * Math.exp(NORMAL_Z_P99) });
  assert.ok(Math.abs(mean - 164.872) < 1e-3, `mean ${mean}`);
});

test('constant and poisson arrivals have the configured rate', () => {
  const prng = createPrng(4);
  const constant = arrivalProcess({ type: 'constant', ratePerSecond: 50 }, 1000);
  let t = constant.first(prng);
  assert.is(t, 1020);
  assert.is(constant.next(prng, t), 1040);

  const poisson = arrivalProcess({ type: 'poisson', ratePerSecond: 200 }, 0);
  let count = 0;
  for (t = poisson.first(prng); t < 100_000; t = poisson.next(prng, t)) count++;
  assert.ok(Math.abs(count - 20_000) < 500, `poisson count ${count}`);
});

test('burst arrivals fall only inside the on-windows, at the burst rate', () => {
  const prng = createPrng(5);
  const burst = arrivalProcess({ type: 'burst', ratePerSecond: 100, onMs: 2000, offMs: 8000 }, 500);
  let count = 0;
  for (let t = burst.first(prng); t < 100_500; t = burst.next(prng, t)) {
    const phase = (t - 500) % 10_000;
    assert.ok(t >= 500 && phase < 2000, `arrival at ${t} is in an off-window`);
    count++;
  }
  // 10 windows of 2 s at 100/s.
  assert.ok(Math.abs(count - 2000) < 150, `burst count ${count}`);
});

test.run();
