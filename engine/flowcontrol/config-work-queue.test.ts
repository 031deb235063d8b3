import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { SimClock } from '../sim-clock.ts';
import { CONFIG_DIGEST_MIN_INTERVAL_MS, CONFIG_RETRY_BASE_MS, OneKeyWorkQueue } from './config-work-queue.ts';

test('a burst of adds runs the work at most once per interval, and once more after the burst', () => {
  const clock = new SimClock(0);
  const runsAt: number[] = [];
  const queue = new OneKeyWorkQueue(clock, () => runsAt.push(clock.now()));
  for (let t = 0; t < 2000; t++) {
    queue.add();
    clock.advance(1);
  }
  clock.advance(1000);
  assert.is(runsAt[0], 0, 'an isolated change is taken up at once');
  for (let i = 1; i < runsAt.length; i++) assert.ok(runsAt[i]! - runsAt[i - 1]! >= CONFIG_DIGEST_MIN_INTERVAL_MS);
  assert.ok(runsAt.length <= 2000 / CONFIG_DIGEST_MIN_INTERVAL_MS + 1, `${runsAt.length} runs for 2000 adds in 2 s`);
  assert.is(runsAt.at(-1), 2000, 'the last change is digested');
  assert.is(queue.runs, runsAt.length);
  assert.not.ok(queue.pending);
});

test('an add during a run schedules one more run; nothing pending means no run', () => {
  const clock = new SimClock(0);
  let runs = 0;
  const queue: OneKeyWorkQueue = new OneKeyWorkQueue(clock, () => {
    runs++;
    if (runs === 1) queue.add();
  });
  queue.add();
  clock.advance(0);
  assert.is(runs, 1);
  clock.advance(CONFIG_DIGEST_MIN_INTERVAL_MS);
  assert.is(runs, 2);
  clock.advance(10_000);
  assert.is(runs, 2);
});

// apf_controller.go: a failed sync is re-added with the item exponential backoff (200 ms, doubling,
// at most 8 h); a plain Add in between is taken up without waiting for the backoff.
test('a failing run is retried with exponential backoff; a new add cuts the backoff short', () => {
  const clock = new SimClock(0);
  const attempts: number[] = [];
  let failing = true;
  const errors: number[] = [];
  const queue = new OneKeyWorkQueue(
    clock,
    () => {
      attempts.push(clock.now());
      if (failing) throw new Error('boom');
    },
    { onError: (_e, failures) => errors.push(failures) },
  );
  queue.add();
  clock.advance(CONFIG_RETRY_BASE_MS * (1 + 2 + 4));
  assert.equal(attempts, [0, 200, 600, 1400]);
  assert.equal(errors, [1, 2, 3, 4]);
  clock.advance(500);
  queue.add();
  clock.advance(CONFIG_DIGEST_MIN_INTERVAL_MS);
  assert.equal(attempts.slice(4), [1900], 'taken up after the minimum interval, not the 1.6 s backoff');
  failing = false;
  clock.advance(3200);
  assert.is(attempts.length, 6);
  assert.is(queue.runs, 1);
  clock.advance(60_000);
  assert.is(attempts.length, 6, 'nothing left to do');
});

test('stop cancels what is scheduled', () => {
  const clock = new SimClock(0);
  let runs = 0;
  const queue = new OneKeyWorkQueue(clock, () => runs++);
  queue.add();
  queue.stop();
  queue.add();
  clock.advance(1000);
  assert.is(runs, 0);
});

test.run();
