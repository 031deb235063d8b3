import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { ceilDiv, goFrexp, goIntDiv, goLog2, goRound, MAX_UINT64, toInt64, toUint64 } from './go-math.ts';

test('goRound sends halves away from zero, like Go math.Round', () => {
  assert.is(goRound(2.5), 3);
  assert.is(goRound(-2.5), -3);
  assert.is(goRound(24.5), 25);
  assert.is(goRound(220.5), 221);
  assert.is(goRound(-0.5), -1);
  assert.is(goRound(2.4999), 2);
  assert.is(goRound(-2.4999), -2);
  // The largest double below 0.5: a naive floor(x + 0.5) would give 1.
  assert.is(goRound(0.49999999999999994), 0);
  assert.is(goRound(4503599627370497), 4503599627370497);
  assert.ok(Number.isNaN(goRound(NaN)));
  assert.is(goRound(Infinity), Infinity);
  assert.is(goRound(-Infinity), -Infinity);
  // Go keeps the sign of a zero result: math.Round(-0.3) is -0.
  assert.ok(Object.is(goRound(-0.3), -0));
  assert.is(goRound(-0.7), -1);
  assert.is(goRound(-4503599627370497), -4503599627370497);
});

test('ceilDiv is exact for integers, including the 11.2 nominal limits', () => {
  assert.is(ceilDiv(600 * 30, 245), 74);
  assert.is(ceilDiv(600 * 5, 245), 13);
  assert.is(ceilDiv(600 * 100, 245), 245);
  assert.is(ceilDiv(870 * 40, 145), 240);
  assert.is(ceilDiv(0, 7), 0);
  assert.is(ceilDiv(-5, 2), -2);
  assert.is(ceilDiv(2 ** 53 - 1, 1), 2 ** 53 - 1);
  assert.is(ceilDiv(2 ** 53 - 1, 2), 2 ** 52);
});

test('goIntDiv truncates toward zero', () => {
  assert.is(goIntDiv(74, 6), 12);
  assert.is(goIntDiv(5, 6), 0);
  assert.is(goIntDiv(-7, 2), -3);
});

test('goFrexp and goLog2 follow Go, exact on powers of two', () => {
  assert.equal(goFrexp(8), { frac: 0.5, exp: 4 });
  assert.equal(goFrexp(-3), { frac: -0.75, exp: 2 });
  assert.equal(goFrexp(5e-324), { frac: 0.5, exp: -1073 });
  assert.equal(goFrexp(0), { frac: 0, exp: 0 });
  for (let k = 0; k <= 40; k++) assert.is(goLog2(2 ** k), k);
  assert.ok(Math.abs(goLog2(10) - Math.log2(10)) < 1e-15);
});

test('uint64 and int64 reinterpretation wraps like Go', () => {
  assert.is(toUint64(-1n), MAX_UINT64);
  assert.is(toUint64(1n << 64n), 0n);
  assert.is(toInt64(MAX_UINT64), -1n);
});

test.run();
