import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { INT64_MAX, INT64_MIN } from '../go-integer.ts';
import { longestBigIntText } from '../testing/longest-bigint-text.ts';
import { decodeShape, int64, struct } from './schema-decoder.ts';

test('an int64 field of a decoded body written with a megabyte of digits is a type error, read without a BigInt of it', () => {
  const shape = struct({ gracePeriodSeconds: int64 });
  const decode = (literal: string) => decodeShape({ gracePeriodSeconds: Number(literal) }, shape, '', new Map([['gracePeriodSeconds', literal]])).errors;
  assert.equal(decode(String(INT64_MAX)), []);
  assert.equal(decode(String(INT64_MIN)), []);
  assert.is(decode(String(INT64_MAX + 1n)).length, 1);
  assert.is(decode('+5').length, 1, 'not JSON');
  let errors: ReturnType<typeof decode> = [];
  const longest = longestBigIntText(() => {
    errors = decode('9'.repeat(1 << 20));
  });
  assert.is(errors.length, 1);
  assert.match(errors[0]!.detail, 'must be of type int64');
  assert.ok(longest <= 21, `a BigInt was made of ${longest} characters`);
});

test.run();
