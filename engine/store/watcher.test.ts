import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { makeCachedObject } from './cached-object.ts';
import { encodeObject } from './codec.ts';
import type { CacheEvent } from './event-window.ts';
import { CacheWatcher } from './watcher.ts';
import { bookmarkEvent } from './watch-event.ts';

const obj = (name: string, revision: number) =>
  makeCachedObject(`/r/${name}`, name, { metadata: { name } }, revision, encodeObject({ metadata: { name } }), false);
const added = (revision: number): CacheEvent => ({ revision, name: 'a', current: obj('a', revision), previous: undefined, atMs: 0, views: {} });
const info = { group: 'g', resource: 'rs', kind: 'R', apiVersion: 'g/v1' };

function watcher(bufferSize = 10, afterRevision = 0) {
  let ended = 0;
  const w = new CacheWatcher({ filter: undefined, bufferSize, bookmarks: true, afterRevision, onEnd: () => void ended++ });
  return { w, ended: () => ended };
}

test('concurrent pulls are served in order', async () => {
  const { w } = watcher();
  const first = w.next();
  const second = w.next();
  w.deliver(added(1));
  w.deliver(added(2));
  assert.is((await first).value?.resourceVersion, '1');
  assert.is((await second).value?.resourceVersion, '2');
  w.stop();
  assert.is((await w.next()).done, true);
});

test('a full buffer ends the watcher with one ERROR and tells the cache once', async () => {
  const { w, ended } = watcher(2);
  w.deliver(added(1));
  w.deliver(added(2));
  w.offerBookmark(bookmarkEvent(info, 2), 2);
  assert.is(w.pending, 2, 'a bookmark is not queued into a full buffer');
  w.deliver(added(3));
  w.deliver(added(4));
  assert.is(ended(), 1);
  const only = await w.next();
  assert.is(only.value?.type, 'ERROR');
  assert.is((await w.next()).done, true);
});

test('changes at or below the start revision are skipped, bookmarks below it too', async () => {
  const { w } = watcher(10, 5);
  w.deliver(added(5));
  w.offerBookmark(bookmarkEvent(info, 4), 4);
  w.deliver(added(6));
  assert.is((await w.next()).value?.resourceVersion, '6');
  assert.is(w.pending, 0);
});

test.run();
