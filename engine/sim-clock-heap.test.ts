import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { createPrng } from './random.ts';
import { SimClock } from './sim-clock.ts';

// An oracle for the total order: sort all scheduled events by (due time, scheduling order).
test('many events with ties and cancellations run in (due, seq) order, like a sorted list', () => {
  const prng = createPrng(11);
  const clock = new SimClock();
  const expected: { due: number; seq: number }[] = [];
  const ran: number[] = [];
  let seq = 0;
  for (let i = 0; i < 5000; i++) {
    const due = prng.int(50); // many ties
    const mine = seq++;
    const pooled = prng.next() < 0.5;
    let cancel: (() => void) | undefined;
    if (pooled) clock.schedule(due, () => ran.push(mine));
    else cancel = clock.after(due, () => ran.push(mine));
    if (cancel !== undefined && prng.next() < 0.6) cancel();
    else expected.push({ due, seq: mine });
  }
  assert.is(clock.pending, expected.length);
  clock.runUntil(100);
  expected.sort((a, b) => a.due - b.due || a.seq - b.seq);
  assert.equal(
    ran,
    expected.map((e) => e.seq),
  );
  assert.is(clock.pending, 0);
  assert.is(clock.eventCount, expected.length);
});

test('cancelling after the event ran is harmless, and a reused event keeps later order intact', () => {
  const clock = new SimClock();
  const order: string[] = [];
  const cancel = clock.after(1, () => order.push('a'));
  clock.schedule(1, () => {
    order.push('b');
    clock.schedule(0, () => order.push('c'));
    clock.after(0, () => order.push('d'));
  });
  clock.runUntil(1);
  cancel();
  clock.schedule(1, () => order.push('e'));
  clock.runUntil(5);
  assert.equal(order, ['a', 'b', 'c', 'd', 'e']);
  assert.is(clock.pending, 0);
});

test.run();
