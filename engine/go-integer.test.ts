import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { goParseInt64, goParseUint64, INT64_MAX, INT64_MIN, UINT64_MAX } from './go-integer.ts';
import { longestBigIntText } from './testing/longest-bigint-text.ts';

test('strconv bounds, exactly, with signs and leading zeros', () => {
  assert.is(goParseInt64(String(INT64_MAX)), INT64_MAX);
  assert.is(goParseInt64(String(INT64_MIN)), INT64_MIN);
  assert.is(goParseInt64(`-${'0'.repeat(40)}${-INT64_MIN}`), INT64_MIN);
  assert.is(goParseInt64(`+${'0'.repeat(40)}5`), 5n);
  assert.is(goParseInt64(String(INT64_MAX + 1n)), 'value out of range');
  assert.is(goParseInt64(String(INT64_MIN - 1n)), 'value out of range');
  assert.is(goParseInt64('1_000'), 'invalid syntax');
  assert.is(goParseInt64(''), 'invalid syntax');
  assert.is(goParseUint64(String(UINT64_MAX)), UINT64_MAX);
  assert.is(goParseUint64(`${'0'.repeat(30)}${UINT64_MAX}`), UINT64_MAX);
  assert.is(goParseUint64(String(UINT64_MAX + 1n)), 'value out of range');
  assert.is(goParseUint64('+1'), 'invalid syntax');
  assert.is(goParseUint64('0'.repeat(1 << 20)), 0n);
});

// Every parser of a client's integers is built on these; each checks the same megabyte in its own
// package's tests (work-estimate, store/request-integers, resources/schema-decoder).
test("a client's megabyte of digits is out of range without a BigInt of it", () => {
  const huge = '9'.repeat(1 << 20);
  const longest = longestBigIntText(() => {
    assert.is(goParseInt64(huge), 'value out of range');
    assert.is(goParseInt64(`-${huge}`), 'value out of range');
    assert.is(goParseUint64(huge), 'value out of range');
  });
  assert.ok(longest <= 21, `a BigInt was made of ${longest} characters`);
});

test.run();
