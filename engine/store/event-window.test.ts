import { test } from 'uvu';
import * as assert from 'uvu/assert';
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
