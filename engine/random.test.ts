import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { createPrng } from './random.ts';

test('same seed gives the same stream; different seeds differ', () => {
  const draw = (seed: number | string) => {
    const p = createPrng(seed);
    return Array.from({ length: 8 }, () => p.next());
  };
  const a = createPrng(42);
  const b = createPrng(42);
  const c = createPrng(43);
  const sa = Array.from({ length: 100 }, () => a.next());
  const sb = Array.from({ length: 100 }, () => b.next());
  const sc = Array.from({ length: 100 }, () => c.next());
  assert.equal(sa, sb);
  assert.not.equal(sa, sc);
  assert.ok(draw('4b825dc642cb6eb9a060e54bf8d69288fbee4904').every((x) => x >= 0 && x < 1));
});

test('int() is uniform enough over a small range', () => {
  const p = createPrng('uniform');
  const counts = new Array(10).fill(0);
  for (let i = 0; i < 100_000; i++) counts[p.int(10)]++;
  // chi-square with 9 degrees of freedom; 27.88 is the 0.999 quantile.
  const chi = counts.reduce((s, c) => s + (c - 10_000) ** 2 / 10_000, 0);
  assert.ok(chi < 27.88, `chi-square ${chi}`);
});

test('fork() yields an independent, reproducible stream', () => {
  const a = createPrng(7).fork('flows');
  const b = createPrng(7).fork('flows');
  const c = createPrng(7).fork('faults');
  assert.is(a.next(), b.next());
  assert.is.not(createPrng(7).fork('flows').next(), c.next());
});

test.run();
