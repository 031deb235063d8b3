import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { goParseInt64, goParseUint64, INT64_MAX, INT64_MIN, UINT64_MAX } from './go-integer.ts';
import { parseGoInt64, parseListOptions } from './flowcontrol/work-estimate.ts';
import { parseInt64 } from './store/label-validation.ts';
import { parseResourceVersion } from './store/list-options.ts';
import { isStoreErrorCode } from './store/store-errors.ts';
import { decodeShape, int64, struct } from './config/object-shape.ts';
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

test("a client's megabyte of digits is out of range without a BigInt of it, in every parser of request integers", () => {
  const huge = '9'.repeat(1 << 20);
  const longest = longestBigIntText(() => {
    assert.is(goParseInt64(huge), 'value out of range');
    assert.is(goParseInt64(`-${huge}`), 'value out of range');
    assert.is(goParseUint64(huge), 'value out of range');
    assert.is(parseGoInt64(huge), undefined);
    assert.ok('error' in parseListOptions({ limit: huge }));
    assert.is(parseInt64(huge), undefined);
    try {
      parseResourceVersion(huge);
      assert.unreachable('refused');
    } catch (error) {
      assert.ok(isStoreErrorCode(error, 'FW_ERR_STORE_INVALID_RESOURCE_VERSION'));
      assert.match((error as Error).message, 'value out of range');
    }
  });
  assert.ok(longest <= 21, `a BigInt was made of ${longest} characters`);
});

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
