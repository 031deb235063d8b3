import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { SimClock } from '../../engine/sim-clock.ts';
import { DeadlineQueue } from './deadline-queue.ts';

const entry = (name: string, deadlineMs: number) => ({ name, deadlineMs });

test('each entry expires at its deadline, in order, on one timer', () => {
  const clock = new SimClock(0);
  const expired: string[] = [];
  const queue = new DeadlineQueue<ReturnType<typeof entry>>(clock, (e) => expired.push(`${e.name}@${clock.now()}`));
  queue.add(entry('a', 100));
  clock.advance(10);
  queue.add(entry('b', 110));
  queue.add(entry('c', 110));
  clock.advance(89);
  assert.equal(expired, []);
  assert.is(clock.pending, 1, 'one timer for three deadlines');
  clock.advance(1);
  assert.equal(expired, ['a@100']);
  clock.advance(10);
  assert.equal(expired, ['a@100', 'b@110', 'c@110']);
  assert.is(queue.size, 0);
});

test('a deleted entry never expires; the timer then serves the next one', () => {
  const clock = new SimClock(0);
  const expired: string[] = [];
  const queue = new DeadlineQueue<ReturnType<typeof entry>>(clock, (e) => expired.push(`${e.name}@${clock.now()}`));
  const a = entry('a', 100);
  const b = entry('b', 150);
  queue.add(a);
  queue.add(b);
  queue.delete(a);
  clock.advance(149);
  assert.equal(expired, []);
  clock.advance(1);
  assert.equal(expired, ['b@150']);
});

test('an emptied queue holds no timer (an idle server keeps nothing pending), and re-arms on the next add', () => {
  const clock = new SimClock(0);
  const expired: string[] = [];
  const queue = new DeadlineQueue<ReturnType<typeof entry>>(clock, (e) => expired.push(`${e.name}@${clock.now()}`));
  const a = entry('a', 100);
  queue.add(a);
  queue.delete(a);
  assert.is(clock.pending, 0);
  clock.advance(200);
  queue.add(entry('b', 300));
  clock.advance(100);
  assert.equal(expired, ['b@300']);
});

test.run();
