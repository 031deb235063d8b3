import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { DroppedRequestsStats, DroppedRequestsTracker, MAX_RETRY_AFTER_SECONDS } from './retry-after.ts';

test('11.8: the upstream dropped-requests sequence', () => {
  const stats = new DroppedRequestsStats();
  assert.is(stats.retryAfter(0), 1);
  // [second, drops during that second, Retry-After afterwards]
  const rows: [number, number, number][] = [
    [0, 5, 1],
    [1, 11, 2],
    [2, 1, 2],
    [3, 11, 4],
    [4, 1, 4],
    [7, 1, 8],
    [11, 1, 8],
    [15, 1, 7],
    [17, 1, 6],
    [21, 14, 5],
    [22, 1, 10],
  ];
  for (const [second, drops, expected] of rows) {
    for (let i = 0; i < drops; i++) stats.recordDropped(second + i / (drops + 1)); // spread within the second
    assert.is(stats.retryAfter(second), expected, `after second ${second}`);
  }
});

test('the value never exceeds 32 and decays by one per quiet second with drops', () => {
  const stats = new DroppedRequestsStats();
  let second = 100;
  for (let i = 0; i < 40; i++, second++) {
    for (let k = 0; k < 200; k++) stats.recordDropped(second);
  }
  assert.is(stats.retryAfter(), MAX_RETRY_AFTER_SECONDS);
  // One lone drop per window: fewer than retryAfter drops in the window, so it shrinks by 1 each time.
  second += 100;
  stats.recordDropped(second);
  assert.is(stats.retryAfter(), 31);
  stats.recordDropped(second + 1);
  assert.is(stats.retryAfter(), 30);
});

test('the tracker keeps one value per priority level; unknown or quiet levels say 1', () => {
  const tracker = new DroppedRequestsTracker();
  assert.is(tracker.retryAfter('never-dropped', 0), 1);
  for (let i = 0; i < 5; i++) tracker.recordDropped('busy', 0);
  for (let i = 0; i < 5; i++) tracker.recordDropped('busy', 1);
  tracker.recordDropped('quiet', 1);
  assert.is(tracker.retryAfter('busy', 1), 2);
  assert.is(tracker.retryAfter('quiet', 1), 1);
  tracker.forget('busy');
  assert.is(tracker.retryAfter('busy', 2), 1);
});

test.run();
