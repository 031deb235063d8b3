import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { makeCachedObject, type CachedObject } from './cached-object.ts';
import { ResourceCache } from './resource-cache.ts';

const PREFIX = '/registry/things/';
const object = (name: string, revision: number): CachedObject =>
  makeCachedObject(PREFIX + name, name, { kind: 'Thing', apiVersion: 'v1', metadata: { name } }, revision, new Uint8Array(), false);

function cacheOf(names: string[]): ResourceCache {
  const cache = new ResourceCache(PREFIX, { capacity: 100, maxAgeMs: 60_000 }, 1);
  for (const name of names) cache.load(object(name, 1));
  return cache;
}

const names = (items: readonly CachedObject[]) => items.map((c) => c.name);

test('every full latest page shares one array, in key order, until the next change', () => {
  const cache = cacheOf(['charlie', 'alpha', 'bravo']);
  const first = cache.page('latest', '', 0, undefined, true);
  const second = cache.page('latest', '', 0, undefined, true);
  assert.equal(names(first.items), ['alpha', 'bravo', 'charlie']);
  assert.is(second.items, first.items, 'no array per LIST');
  assert.is(first.more, false);
  assert.is(first.remaining, undefined);

  cache.apply(2, 'able', object('able', 2), 0);
  const after = cache.page('latest', '', 0, undefined, true);
  assert.is.not(after.items, first.items);
  assert.equal(names(after.items), ['able', 'alpha', 'bravo', 'charlie']);
  assert.equal(names(first.items), ['alpha', 'bravo', 'charlie'], 'a list already handed out keeps its items');

  cache.apply(3, 'alpha', undefined, 0);
  assert.equal(names(cache.page('latest', '', 0, undefined, true).items), ['able', 'bravo', 'charlie']);
  cache.apply(4, 'bravo', object('bravo', 4), 0);
  assert.is(cache.page('latest', '', 0, undefined, true).items.find((c) => c.name === 'bravo')!.modRevision, 4, 'an update is seen too');
});

test('pages with a limit, a start, a filter or at an older revision are their own arrays', () => {
  const cache = cacheOf(['a', 'b', 'c']);
  const whole = cache.page('latest', '', 0, undefined, true).items;
  const limited = cache.page('latest', '', 2, undefined, true);
  assert.equal(names(limited.items), ['a', 'b']);
  assert.is(limited.more, true);
  assert.is(limited.remaining, 1);
  assert.equal(names(cache.page('latest', 'b', 0, undefined, true).items), ['b', 'c']);
  assert.equal(names(cache.page('latest', '', 0, (c) => c.name !== 'b', false).items), ['a', 'c']);
  cache.apply(2, 'b', undefined, 0);
  assert.equal(names(cache.page(1, '', 0, undefined, true).items), ['a', 'b', 'c'], 'the state at revision 1 still has b');
  assert.equal(names(whole), ['a', 'b', 'c']);
});

test.run();
