import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { formatGoDuration, goDurationToMs, parseGoDuration } from './go-duration.ts';
import { longestBigIntText } from './testing/longest-bigint-text.ts';

const ns = (text: string): bigint => {
  const parsed = parseGoDuration(text);
  if (!parsed.ok) throw new Error(parsed.error);
  return parsed.nanoseconds;
};

test('parses every unit, fractions, signs and sums, as time.ParseDuration', () => {
  assert.is(ns('3s'), 3_000_000_000n);
  assert.is(ns('1h2m3.5s'), 3_723_500_000_000n);
  assert.is(ns('1.5ms'), 1_500_000n);
  assert.is(ns('250us'), 250_000n);
  assert.is(ns('7µs'), 7_000n);
  assert.is(ns('7μs'), 7_000n);
  assert.is(ns('.5s'), 500_000_000n);
  assert.is(ns('-1.5s'), -1_500_000_000n);
  assert.is(ns('+2ns'), 2n);
  assert.is(ns('0'), 0n);
  assert.is(goDurationToMs(ns('1.5ms')), 1.5);
});

test('refuses malformed durations with Go error texts', () => {
  assert.equal(parseGoDuration(''), { ok: false, error: 'time: invalid duration ""' });
  assert.equal(parseGoDuration('3'), { ok: false, error: 'time: missing unit in duration "3"' });
  assert.equal(parseGoDuration('3d'), { ok: false, error: 'time: unknown unit "d" in duration "3d"' });
  assert.equal(parseGoDuration('s'), { ok: false, error: 'time: invalid duration "s"' });
  assert.equal(parseGoDuration('.s'), { ok: false, error: 'time: invalid duration ".s"' });
  assert.equal(parseGoDuration('9999999999h'), { ok: false, error: 'time: invalid duration "9999999999h"' });
});

test('formats as Duration.String', () => {
  assert.is(formatGoDuration(0n), '0s');
  assert.is(formatGoDuration(999n), '999ns');
  assert.is(formatGoDuration(1_500n), '1.5µs');
  assert.is(formatGoDuration(250_000_000n), '250ms');
  assert.is(formatGoDuration(3_000_000_000n), '3s');
  assert.is(formatGoDuration(ns('90s')), '1m30s');
  assert.is(formatGoDuration(ns('2h')), '2h0m0s');
  assert.is(formatGoDuration(ns('-1500ms')), '-1.5s');
  assert.is(formatGoDuration(ns('1h0m0.25s')), '1h0m0.25s');
});

test('a unit named like an Object.prototype property is an unknown unit, as any other', () => {
  for (const unit of ['__proto__', 'constructor', 'toString', 'hasOwnProperty'])
    assert.equal(parseGoDuration(`1${unit}`), { ok: false, error: `time: unknown unit "${unit}" in duration "1${unit}"` });
});

test('a megabyte of digits is read as Go reads it, without a BigInt of it: a whole part past 2^63 is invalid, a fraction counts to 19 digits', () => {
  const many = '9'.repeat(1 << 20);
  let whole: ReturnType<typeof parseGoDuration> | undefined;
  let fraction: ReturnType<typeof parseGoDuration> | undefined;
  let zeros: ReturnType<typeof parseGoDuration> | undefined;
  const longest = longestBigIntText(() => {
    whole = parseGoDuration(`${many}s`);
    fraction = parseGoDuration(`0.${many}h`);
    zeros = parseGoDuration(`${'0'.repeat(1 << 20)}1.5s`);
  });
  assert.equal(whole, { ok: false, error: `time: invalid duration ${JSON.stringify(`${many}s`)}` });
  assert.equal(fraction, { ok: true, nanoseconds: ns(`0.${'9'.repeat(19)}h`) });
  assert.equal(zeros, { ok: true, nanoseconds: 1_500_000_000n });
  assert.ok(longest <= 21, `a BigInt was made of ${longest} characters`);
  assert.is(ns('9223372036854775807ns'), 9_223_372_036_854_775_807n);
  assert.not.ok(parseGoDuration('9223372036854775808ns').ok);
  assert.not.ok(parseGoDuration('10000000000000000000ns').ok);
});

test.run();
