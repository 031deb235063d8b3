import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { BoundedCache } from './bounded-cache.ts';

test('computes once per key and never grows past its capacity', () => {
  let calls = 0;
  const cache = new BoundedCache<string, number>(3);
  const square = (k: string) => {
    calls++;
    return Number(k) ** 2;
  };
  assert.is(cache.get('2', square), 4);
  assert.is(cache.get('2', square), 4);
  assert.is(calls, 1);
  for (const k of ['3', '4', '5', '6']) cache.get(k, square);
  assert.ok(cache.size <= 3);
  assert.is(cache.get('6', square), 36);
});

test('peek computes nothing; set keeps a value under the same bound', () => {
  const cache = new BoundedCache<string, number>(2);
  assert.is(cache.peek('a'), undefined);
  cache.set('a', 1);
  assert.is(cache.peek('a'), 1);
  assert.is(
    cache.get('a', () => 0),
    1,
    'a value set is not computed again',
  );
  cache.set('b', 2);
  cache.set('c', 3);
  assert.ok(cache.size <= 2);
  assert.is(cache.peek('c'), 3);
});

test.run();
