import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { append } from './append.ts';

test('appends in order and returns the list', () => {
  const list = [1];
  assert.is(append(list, [2, 3]), list);
  assert.equal(list, [1, 2, 3]);
});

test('a list of a million elements is appended, where a spread push overflows the stack', () => {
  const more = new Array<number>(1_000_000).fill(7);
  assert.throws(() => [].push(...(more as never[])), RangeError);
  assert.is(append([0], more).length, 1_000_001);
});

test.run();
