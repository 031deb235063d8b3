import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { errorCodeOf, isApiError } from '../../engine/status/errors.ts';
import { checkNestingDepth, MAX_BODY_NESTING_DEPTH } from './nesting-depth.ts';

test('checkNestingDepth throws the registry 400 past MAX_BODY_NESTING_DEPTH only', () => {
  const nested = (levels: number) => `${'['.repeat(levels)}${']'.repeat(levels)}`;
  checkNestingDepth(nested(MAX_BODY_NESTING_DEPTH));
  for (const text of [nested(MAX_BODY_NESTING_DEPTH + 1)]) {
    try {
      checkNestingDepth(text);
      assert.unreachable('one level more must throw');
    } catch (error) {
      assert.ok(isApiError(error), String(error));
      assert.is(errorCodeOf(error.status), 'FW_ERR_REQUEST_NESTING_TOO_DEEP');
      assert.is(error.status.code, 400);
      assert.is(error.status.message, `the request body nests objects and lists more than ${MAX_BODY_NESTING_DEPTH} levels deep`);
    }
  }
});

test.run();
