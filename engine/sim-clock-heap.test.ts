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

// The calendar (the next quarter second, quarter-millisecond slots) and the heap (later events)
// hold one total order between them: events scheduled from inside events, far and near, in fractions
// of a slot and on slot edges, across chunks of runUntil and idle stretches, run as a sorted list says.
test('events near and far, scheduled as others run, run in (due, seq) order across the calendar and the heap', () => {
  const prng = createPrng(5);
  const clock = new SimClock(3.3);
  const scheduled: { due: number; seq: number; cancelled: boolean }[] = [];
  const ran: number[] = [];
  const delay = (): number => {
    const kind = prng.int(5);
    if (kind === 0) return prng.int(8) / 4; // on slot edges, with ties
    if (kind === 1) return prng.next() * 3;
    if (kind === 2) return prng.next() * 400; // either side of the calendar's span
    if (kind === 3) return 250 + prng.next() * 20;
    return prng.next() * 5000;
  };
  const add = (): void => {
    const mine = scheduled.length;
    const delayMs = delay();
    const entry = { due: clock.now() + delayMs, seq: mine, cancelled: false };
    scheduled.push(entry);
    const fire = (): void => {
      ran.push(mine);
      if (scheduled.length < 20_000 && prng.next() < 0.9) add();
      if (scheduled.length < 20_000 && prng.next() < 0.2) add();
    };
    if (prng.next() < 0.5) clock.schedule(delayMs, fire);
    else {
      const cancel = clock.after(delayMs, fire);
      if (prng.next() < 0.1) {
        cancel();
        entry.cancelled = true;
      }
    }
  };
  for (let i = 0; i < 300; i++) add();
  for (let t = 3.3; clock.pending > 0; t += prng.next() < 0.1 ? 20_000 : prng.next() * 50) clock.runUntil(t);
  const expected = scheduled.filter((e) => !e.cancelled).sort((a, b) => a.due - b.due || a.seq - b.seq);
  assert.ok(expected.length > 10_000, `${expected.length} events`);
  assert.equal(
    ran,
    expected.map((e) => e.seq),
  );
  assert.is(clock.eventCount, expected.length);
});

test('step and nextDueMs see the earlier of the calendar and the heap', () => {
  const clock = new SimClock();
  const order: string[] = [];
  clock.after(900, () => order.push('far'));
  clock.schedule(0.3, () => order.push('near'));
  const cancel = clock.after(0.1, () => order.push('cancelled'));
  cancel();
  assert.is(clock.pending, 2);
  assert.is(clock.nextDueMs(), 0.3);
  assert.ok(clock.step());
  assert.is(clock.nextDueMs(), 900);
  assert.ok(clock.step());
  assert.is(clock.now(), 900);
  assert.not.ok(clock.step());
  assert.is(clock.nextDueMs(), undefined);
  assert.equal(order, ['near', 'far']);
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
