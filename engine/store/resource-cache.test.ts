import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { makeCachedObject, objectJsonBytes, onEncodingsReleased, type CachedObject, type StoredForm } from './cached-object.ts';
import { ResourceCache } from './resource-cache.ts';
import { addedEventFor, type WatchEvent } from './watch-event.ts';
import { eventViewFor } from './watcher.ts';

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

test("a LIST is counted as kube-apiserver 1.32 counts its watch cache's: every object handed over (a limit's tail too), objects returned", () => {
  const cache = cacheOf(['a1', 'a2', 'b1', 'b2', 'b3']);
  const list = (...args: Parameters<ResourceCache['page']>) => {
    const page = cache.page(...args);
    cache.recordList(page);
    return page;
  };
  list('latest', '', 0, undefined, true);
  assert.equal(cache.listCounts, { lists: 1, fetched: 5, returned: 5 }, 'a full LIST returns what it fetches');
  const startsWithB = (c: CachedObject) => c.name.startsWith('b');
  list('latest', '', 0, startsWithB, false);
  assert.equal(cache.listCounts, { lists: 2, fetched: 10, returned: 8 }, 'a selector is handed every object and returns its matches');
  const page = list('latest', '', 1, startsWithB, false);
  assert.equal([names(page.items), page.more], [['b1'], true]);
  assert.equal(cache.listCounts, { lists: 3, fetched: 15, returned: 9 }, 'a limited page: every object, though paging stopped early');
  assert.is(list('latest', 'b2', 0, undefined, false).fetched, 2, 'a page from a continue key: the objects from there on');
  cache.page('latest', '', 0, undefined, false);
  assert.is(cache.listCounts.lists, 4, "a watch's initial listing (page without recordList) is no LIST");
  // At an older revision: the objects then, not now (a1 deleted since, c1 and a0 created since, b2 changed).
  cache.apply(2, 'a1', undefined, 0);
  cache.apply(3, 'c1', object('c1', 3), 0);
  cache.apply(4, 'a0', object('a0', 4), 0);
  cache.apply(5, 'b2', object('b2', 5), 0);
  const old = list(1, '', 0, undefined, false);
  assert.equal([names(old.items), old.fetched], [['a1', 'a2', 'b1', 'b2', 'b3'], 5]);
  assert.equal([names(list(1, 'a2', 0, undefined, false).items), cache.listCounts], [['a2', 'b1', 'b2', 'b3'], { lists: 6, fetched: 26, returned: 20 }]);
});

test('a LIST narrowed to one name reads that one object, as it was at the revision asked for', () => {
  const cache = cacheOf(['a', 'b', 'c']);
  const page = cache.namedPage('latest', 'b', '', undefined);
  assert.equal([names(page.items), page.more, page.fetched], [['b'], false, 1]);
  assert.equal([names(cache.namedPage('latest', 'x', '', undefined).items), cache.namedPage('latest', 'x', '', undefined).fetched], [[], 0]);
  assert.equal(cache.namedPage('latest', 'b', '', (c) => c.name !== 'b').fetched, 1, 'fetched, then filtered out');
  assert.is(cache.namedPage('latest', 'a', 'b', undefined).items.length, 0, 'behind the continue key');
  cache.apply(2, 'b', undefined, 0);
  cache.apply(3, 'd', object('d', 3), 0);
  assert.equal(
    [
      names(cache.namedPage(1, 'b', '', undefined).items),
      names(cache.namedPage(1, 'd', '', undefined).items),
      cache.namedPage('latest', 'b', '', undefined).fetched,
    ],
    [['b'], [], 0],
  );
});

const released: StoredForm[] = [];
onEncodingsReleased((form) => released.push(form));

test("a replaced or deleted version keeps no encodings: its JSON, its events' lines, what listeners keep", () => {
  const cache = cacheOf([]);
  const before = released.length;
  let encoded = 0;
  const line = (event: WatchEvent) => `${++encoded}:${event.objectBytes().toString()}`;
  const first = object('a', 2);
  const added = cache.apply(2, 'a', first, 0);
  const view = eventViewFor(added, undefined)!;
  assert.is(view.encode(line), `1:${objectJsonBytes(first).toString()}`);
  addedEventFor(first).encode(line);
  assert.ok(first.jsonBytes !== undefined);

  const second = object('a', 3);
  cache.apply(3, 'a', second, 0);
  assert.is(first.jsonBytes, undefined, 'its JSON');
  assert.is(first.jsonLine, undefined);
  assert.equal(released.slice(before), [first], 'listeners are told');
  assert.is(addedEventFor(first).encode(line).split(':')[0], '3', 'its initial-listing event is a new one');
  assert.is(view.encode(line).split(':')[0], '4', 'the event that brought it makes its line again');
  assert.is(view.encode(line).split(':')[0], '4', 'once');
  assert.is(cache.page(2, '', 0, undefined, false).items[0], first, 'still served at its revision');

  objectJsonBytes(second);
  cache.apply(4, 'a', undefined, 0);
  assert.is(second.jsonBytes, undefined, 'a deletion releases the last version too');
  assert.equal(released.slice(before), [first, second], 'current versions are not released');
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
