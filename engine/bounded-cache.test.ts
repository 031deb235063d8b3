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

test.run();
