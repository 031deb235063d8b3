import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { makeCachedObject } from './cached-object.ts';
import { encodeObject } from './codec.ts';
import type { CacheEvent } from './event-window.ts';
import { CacheWatcher, watchDeadlines } from './watcher.ts';
import { bookmarkEvent } from './watch-event.ts';
import { SimClock } from '../sim-clock.ts';

const obj = (name: string, revision: number) =>
  makeCachedObject(`/r/${name}`, name, { metadata: { name } }, revision, encodeObject({ metadata: { name } }), false);
const added = (revision: number): CacheEvent => ({ revision, name: 'a', current: obj('a', revision), previous: undefined, atMs: 0, views: {} });
const info = { group: 'g', resource: 'rs', kind: 'R', apiVersion: 'g/v1' };

function watcher(bufferSize = 10, afterRevision = 0, bookmarks = true) {
  let ended = 0;
  let near = 0;
  const owner = {
    watcherEnded: () => void ended++,
    timeoutNear: (w: CacheWatcher) => {
      near++;
      w.offerBookmark(bookmarkEvent(info, 7), 7);
    },
  };
  const w = new CacheWatcher({ filter: undefined, bufferSize, bookmarks, afterRevision, owner });
  return { w, ended: () => ended, near: () => near };
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

test('a timeout ends the watch on the shared deadlines, a bookmark watcher getting its last bookmark 1 s before', async () => {
  const clock = new SimClock();
  const deadlines = watchDeadlines(clock);
  const a = watcher();
  const b = watcher(10, 0, false);
  const c = watcher();
  a.w.endAfter(deadlines, clock.now(), 5_000);
  b.w.endAfter(deadlines, clock.now(), 3_000);
  c.w.endAfter(deadlines, clock.now(), 500);
  assert.is(clock.pending, 1, 'one timer for every watch');
  clock.runUntil(600);
  assert.equal([a.ended(), b.ended(), c.ended(), c.near()], [0, 0, 1, 0], 'a timeout within the bookmark lead gets no bookmark');
  clock.runUntil(3_999);
  assert.equal([a.ended(), a.near(), b.ended()], [0, 0, 1]);
  clock.runUntil(4_000);
  assert.equal([a.near(), a.ended()], [1, 0]);
  assert.is(a.w.takeNext()?.type, 'BOOKMARK');
  clock.runUntil(5_000);
  assert.is(a.ended(), 1);
  assert.is(deadlines.size, 0);
  assert.is(clock.pending, 0, 'no timer left once every watch ended');
});

test('a watch that ends early leaves the deadlines; the others still time out in order', () => {
  const clock = new SimClock();
  const deadlines = watchDeadlines(clock);
  const watches = [4, 2, 9, 2, 7].map((seconds) => {
    const made = watcher(10, 0, false);
    made.w.endAfter(deadlines, clock.now(), seconds * 1_000);
    return made;
  });
  watches[2]!.w.stop();
  watches[0]!.w.stop();
  assert.is(deadlines.size, 3);
  const endedAt: number[] = [];
  for (let t = 0; t <= 10_000; t += 500) {
    clock.runUntil(t);
    for (const [i, made] of watches.entries()) if (made.ended() === 1 && !endedAt.includes(i) && i !== 0 && i !== 2) endedAt.push(i);
  }
  assert.equal(endedAt, [1, 3, 4]);
  assert.is(clock.pending, 0);
});

test('a consumer set while events are ready is woken at once', () => {
  const { w } = watcher();
  w.deliver(added(1));
  let woken = 0;
  w.setConsumer({ watchReady: () => void woken++ });
  assert.is(woken, 1);
  assert.is(w.takeNext()?.resourceVersion, '1');
  assert.is(w.takeNext(), undefined);
  assert.not.ok(w.stopped, 'waiting, not ended');
});

test.run();
