import { test } from 'uvu';
import * as assert from 'uvu/assert';
import type { CachedObject } from './cached-object.ts';
import { EventWindow, type CacheEvent } from './event-window.ts';

const event = (revision: number, atMs: number): CacheEvent => ({ revision, name: `n${revision}`, current: undefined, previous: undefined, atMs, views: {} });

test('the count bound drops the oldest events and raises the start revision to the last dropped', () => {
  const window = new EventWindow(3, 1_000_000, 10);
  for (let r = 11; r <= 15; r++) window.append(event(r, 0), 0);
  assert.is(window.size, 3);
  assert.is(window.startRevision, 12);
  assert.equal(
    window.since(12).map((e) => e.revision),
    [13, 14, 15],
  );
  assert.equal(
    window.since(14).map((e) => e.revision),
    [15],
  );
  assert.equal(window.since(15), []);
});

test('the age bound drops events older than maxAgeMs, even without new events', () => {
  const window = new EventWindow(100, 1_000, 0);
  window.append(event(1, 0), 0);
  window.append(event(2, 500), 500);
  window.prune(1_000);
  assert.is(window.startRevision, 0);
  window.prune(1_001);
  assert.is(window.startRevision, 1);
  window.prune(10_000);
  assert.is(window.startRevision, 2, 'never above the newest revision');
  assert.is(window.size, 0);
});

/** An event whose version is `bytes` long as stored (a deletion when `deleted`). */
const sized = (revision: number, bytes: number, deleted = false): CacheEvent => {
  const version = { codecBytes: new Uint8Array(bytes) } as CachedObject;
  return { ...event(revision, 0), current: deleted ? undefined : version, previous: deleted ? version : undefined };
};

test('the byte bound drops the oldest events once their versions hold more than maxBytes', () => {
  const window = new EventWindow(100, 1e9, 0, 1_000);
  for (let r = 1; r <= 3; r++) window.append(sized(r, 300), 0);
  assert.is(window.bytes, 900);
  assert.is(window.startRevision, 0);
  window.append(sized(4, 300), 0);
  assert.is(window.startRevision, 1, 'the oldest went: 1,200 bytes > 1,000');
  assert.is(window.bytes, 900);
  // A deletion counts the version it removed.
  window.append(sized(5, 600, true), 0);
  assert.equal(
    window.since(0).map((e) => e.revision),
    [4, 5],
  );
  assert.is(window.startRevision, 3);
  assert.is(window.bytes, 900);
});

test('the byte bound keeps the newest event however large, and a restart forgets what was counted', () => {
  const window = new EventWindow(100, 1e9, 0, 1_000);
  window.append(sized(1, 10), 0);
  window.append(sized(2, 5_000), 0);
  assert.equal(
    window.since(0).map((e) => e.revision),
    [2],
  );
  assert.is(window.startRevision, 1);
  window.restartAt(7);
  assert.is(window.bytes, 0);
  window.append(sized(8, 900), 0);
  assert.is(window.size, 1);
});

test('revisions never go back; one revision may hold several changes (a transaction)', () => {
  const window = new EventWindow(10, 1_000, 0);
  window.append(event(5, 0), 0);
  window.append(event(5, 0), 0);
  assert.equal(
    window.since(4).map((e) => e.revision),
    [5, 5],
  );
  assert.equal(window.since(5), []);
  assert.throws(() => window.append(event(4, 0), 0), /revision 4 after 5/);
});

test('compaction of the backing array keeps every event', () => {
  const window = new EventWindow(10, 1e9, 0);
  for (let r = 1; r <= 5000; r++) window.append(event(r, 0), 0);
  assert.equal(
    window.since(4990).map((e) => e.revision),
    [4991, 4992, 4993, 4994, 4995, 4996, 4997, 4998, 4999, 5000],
  );
  assert.is(window.startRevision, 4990);
});

test.run();
