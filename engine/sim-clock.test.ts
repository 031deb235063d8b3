import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { SimClock } from './sim-clock.ts';

test('events run by due time, then by insertion order', () => {
  const clock = new SimClock();
  const order: string[] = [];
  clock.after(10, () => order.push('b@10'));
  clock.after(5, () => order.push('a@5'));
  clock.after(10, () => order.push('c@10'));
  clock.after(0, () => order.push('now'));
  clock.runUntil(20);
  assert.equal(order, ['now', 'a@5', 'b@10', 'c@10']);
  assert.is(clock.now(), 20);
});

test('callbacks see their due time and may schedule more events', () => {
  const clock = new SimClock(100);
  const seen: number[] = [];
  clock.after(1, () => {
    seen.push(clock.now());
    clock.after(1, () => seen.push(clock.now()));
  });
  clock.advance(5);
  assert.equal(seen, [101, 102]);
});

test('cancelled events never run; time never goes backwards', () => {
  const clock = new SimClock();
  let ran = false;
  const cancel = clock.after(3, () => {
    ran = true;
  });
  cancel();
  clock.advance(10);
  assert.is(ran, false);
  assert.is(clock.pending, 0);
  assert.throws(() => clock.runUntil(5), /backwards/);
});

test('many cancelled events do not accumulate, and cancelling a fired event is harmless', () => {
  const clock = new SimClock();
  let fired = 0;
  const early = clock.after(1, () => fired++);
  clock.advance(1);
  early();
  const cancels = Array.from({ length: 5000 }, (_, i) => clock.after(1000 + i, () => fired++));
  clock.after(10, () => fired++);
  for (const cancel of cancels) cancel();
  assert.is(clock.pending, 1);
  clock.advance(10_000);
  assert.is(fired, 2);
  assert.is(clock.pending, 0);
});

test.run();
