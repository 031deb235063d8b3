import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { findDuplicateFields } from './json-duplicates.ts';

test('reports repeated keys with their paths, in order', () => {
  assert.equal(findDuplicateFields('{"a":1,"b":{"c":1,"c":2},"a":3}'), ['b.c', 'a']);
  assert.equal(findDuplicateFields('{"spec":{"rules":[{"x":1},{"y":1,"y":2}]}}'), ['spec.rules[1].y']);
});

test('no duplicates in strings, escapes, nested arrays or empty containers', () => {
  assert.equal(findDuplicateFields('{"a":"\\"a\\":1","b":[[],{}],"c":{"d":[1,2,{"e":null}]}}'), []);
  assert.equal(findDuplicateFields(' [ {"a":1}, {"a":2} ] '), []);
  assert.equal(findDuplicateFields('{"\\u0061":1,"a":2}'), ['a'], 'keys compare after unescaping');
});

test.run();
