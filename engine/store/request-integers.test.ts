// The store's parsers of a client's integers (a label selector's `gt`/`lt`, a resourceVersion) read a
// megabyte of digits as out of range, as engine/go-integer.ts does, without making a BigInt of it.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { longestBigIntText } from '../testing/longest-bigint-text.ts';
import { parseInt64 } from './label-validation.ts';
import { parseResourceVersion } from './list-options.ts';
import { isStoreErrorCode } from './store-errors.ts';

test("a client's megabyte of digits is out of range without a BigInt of it", () => {
  const huge = '9'.repeat(1 << 20);
  const longest = longestBigIntText(() => {
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

test.run();
