import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { jsonNestingDepth } from './nesting-depth.ts';

test('JSON depth is exact and ignores brackets inside strings', () => {
  assert.is(jsonNestingDepth('{}'), 1);
  assert.is(jsonNestingDepth('{"a":[1,{"b":[]}],"c":{}}'), 4);
  assert.is(jsonNestingDepth('{"a":"[[[[{{{{"}'), 1);
  assert.is(jsonNestingDepth('{"a":"\\"[[[","b":[]}'), 2, 'an escaped quote does not end the string');
  assert.is(jsonNestingDepth('"just a string"'), 0);
  assert.is(jsonNestingDepth('[[['), 3, 'a truncated body counts what it opened');
});

test('JSON depth stops counting just past the limit', () => {
  assert.is(jsonNestingDepth('['.repeat(1_000_000), 10), 11);
});

test.run();
