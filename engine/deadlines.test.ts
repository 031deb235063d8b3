import fc from 'fast-check';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import type { Clock } from './clock.ts';
import { Deadlines } from './deadlines.ts';
import { SimClock } from './sim-clock.ts';
import { countingClock } from './testing/counting-clock.ts';

class Entry {
  deadlineSlot = -1;
  deadlineSeq = 0;
  constructor(
    readonly name: string,
    public deadlineMs: number,
  ) {}
}

/** A virtual clock that counts the timers armed on it. */
function countingSimClock(): { clock: SimClock; armed: () => number; view: Clock } {
  const clock = new SimClock(0);
  const { clock: view, armed } = countingClock(clock);
  return { clock, armed, view };
}

function setUp() {
  const { clock, armed, view } = countingSimClock();
  const expired: string[] = [];
  const deadlines = new Deadlines<Entry>(view, (e) => expired.push(`${e.name}@${clock.now()}`));
  return { clock, armed, deadlines, expired };
}

test('each entry expires at its deadline, in order, on one timer', () => {
  const { clock, deadlines, expired } = setUp();
  deadlines.add(new Entry('a', 100));
  clock.advance(10);
  deadlines.add(new Entry('b', 110));
  deadlines.add(new Entry('c', 110));
  clock.advance(89);
  assert.equal(expired, []);
  assert.is(clock.pending, 1, 'one timer for three deadlines');
  clock.advance(1);
  assert.equal(expired, ['a@100']);
  clock.advance(10);
  assert.equal(expired, ['a@100', 'b@110', 'c@110']);
  assert.is(deadlines.size, 0);
});

test('entries due at the same instant run in the order they were added, whatever order the heap saw them in', () => {
  const { clock, deadlines, expired } = setUp();
  for (const [name, at] of [
    ['x', 50],
    ['a', 20],
    ['y', 50],
    ['b', 20],
    ['z', 50],
    ['c', 20],
  ] as const)
    deadlines.add(new Entry(name, at));
  clock.advance(100);
  assert.equal(expired, ['a@20', 'b@20', 'c@20', 'x@50', 'y@50', 'z@50']);
});

test('a deleted entry never expires; the timer then serves the next one', () => {
  const { clock, deadlines, expired } = setUp();
  const a = new Entry('a', 100);
  const b = new Entry('b', 150);
  deadlines.add(a);
  deadlines.add(b);
  deadlines.delete(a);
  assert.is(a.deadlineSlot, -1);
  deadlines.delete(a);
  assert.is(deadlines.size, 1, 'deleting twice is a no-op');
  clock.advance(149);
  assert.equal(expired, []);
  clock.advance(1);
  assert.equal(expired, ['b@150']);
});

test('an emptied heap keeps its one timer until it fires, finding nothing due, and then holds none; the next add arms again', () => {
  const { clock, armed, deadlines, expired } = setUp();
  const a = new Entry('a', 100);
  deadlines.add(a);
  deadlines.delete(a);
  assert.is(clock.pending, 1, 'not cancelled: the next request would arm it again');
  clock.advance(200);
  assert.is(clock.pending, 0);
  assert.equal(expired, []);
  deadlines.add(new Entry('b', 300));
  clock.advance(100);
  assert.equal(expired, ['b@300']);
  assert.is(armed(), 2);
  assert.is(clock.pending, 0, 'nothing left once the last entry expired');
});

test('requests served one at a time (the heap emptied after each) arm one timer between them all', () => {
  const { clock, armed, deadlines, expired } = setUp();
  for (let i = 0; i < 1_000; i++) {
    clock.advance(1);
    const entry = new Entry(`r${i}`, clock.now() + 60_000);
    deadlines.add(entry);
    deadlines.delete(entry);
  }
  assert.is(armed(), 1);
  clock.advance(60_000);
  assert.equal(expired, []);
  assert.is(clock.pending, 0);
});

test("deadlines in arrival order (the server's own time-out) arm one timer however many come and go", () => {
  const { clock, armed, deadlines, expired } = setUp();
  const open: Entry[] = [];
  for (let i = 0; i < 1_000; i++) {
    clock.advance(1);
    const entry = new Entry(`r${i}`, clock.now() + 60_000);
    deadlines.add(entry);
    open.push(entry);
    // Requests end in about the order they came, a few out of turn.
    if (open.length > 20) deadlines.delete(open.splice(i % 7 === 0 ? 10 : 0, 1)[0]!);
  }
  assert.is(armed(), 1, 'the timer armed for the first deadline is kept while later ones come and the earliest leave');
  assert.is(deadlines.size, 20);
  clock.advance(60_000);
  assert.is(expired.length, 20);
  assert.is(armed(), 1 + 20, 'then one wake-up where the first timer was armed, and one per due time left');
});

test('an earlier deadline re-arms the one timer; a later one does not', () => {
  const { clock, armed, deadlines, expired } = setUp();
  deadlines.add(new Entry('server', 60_000));
  deadlines.add(new Entry('later', 70_000));
  assert.is(armed(), 1);
  deadlines.add(new Entry('own', 5_000));
  assert.is(armed(), 2);
  assert.is(clock.pending, 1, 'the timer for the later deadline is gone');
  clock.advance(5_000);
  assert.equal(expired, ['own@5000']);
  clock.advance(65_000);
  assert.equal(expired, ['own@5000', 'server@60000', 'later@70000']);
});

test('deleting from the middle keeps the heap in order (the last entry may have to move up into the hole)', () => {
  const { clock, deadlines, expired } = setUp();
  const byDue = new Map<number, Entry>();
  // Slots 0..6 hold 1, 10, 2, 11, 12, 3, 4: deleting 11 (slot 3) puts 4 below 10.
  for (const at of [1, 10, 2, 11, 12, 3, 4]) {
    const entry = new Entry(String(at), at);
    byDue.set(at, entry);
    deadlines.add(entry);
  }
  assert.is(byDue.get(11)!.deadlineSlot, 3);
  deadlines.delete(byDue.get(11)!);
  deadlines.add(new Entry('13', 13));
  clock.advance(20);
  assert.equal(expired, ['1@1', '2@2', '3@3', '4@4', '10@10', '12@12', '13@13']);
});

test('an entry added again moves to its new deadline', () => {
  const { clock, deadlines, expired } = setUp();
  const a = new Entry('a', 100);
  deadlines.add(a);
  deadlines.add(new Entry('b', 200));
  a.deadlineMs = 300;
  deadlines.add(a);
  assert.is(deadlines.size, 2);
  clock.advance(300);
  assert.equal(expired, ['b@200', 'a@300']);
});

test("an entry due may add itself again (a watch's bookmark, then its timeout), and only one timer is left armed", () => {
  const { clock, armed, view } = countingSimClock();
  const seen: string[] = [];
  const deadlines: Deadlines<Entry> = new Deadlines<Entry>(view, (e) => {
    seen.push(`${e.name}@${clock.now()}`);
    if (e.name === 'bookmark') {
      e.deadlineMs += 1_000;
      (e as { name: string }).name = 'timeout';
      deadlines.add(e);
      deadlines.add(new Entry('now', clock.now()));
    }
  });
  deadlines.add(new Entry('bookmark', 4_000));
  deadlines.add(new Entry('other', 4_500));
  clock.advance(4_000);
  assert.equal(seen, ['bookmark@4000', 'now@4000'], 'an entry added due already runs in the same turn');
  assert.is(clock.pending, 1);
  assert.is(armed(), 2, 'armed once more, for the earliest left, when the due entries are done');
  clock.advance(1_000);
  assert.equal(seen, ['bookmark@4000', 'now@4000', 'other@4500', 'timeout@5000']);
  assert.is(clock.pending, 0);
});

test('a timer that fires early (a real clock rounds) runs nothing before its time and re-arms', () => {
  const clock = new SimClock(0);
  let early = true;
  const view: Clock = {
    now: () => clock.now(),
    after: (delayMs, callback) => clock.after(early ? delayMs - 0.5 : delayMs, callback),
  };
  const expired: number[] = [];
  const deadlines = new Deadlines<Entry>(view, () => expired.push(clock.now()));
  deadlines.add(new Entry('a', 10));
  early = false;
  clock.advance(9.5);
  assert.equal(expired, []);
  assert.is(clock.pending, 1);
  clock.advance(0.5);
  assert.equal(expired, [10]);
});

type Op = { kind: 'add'; id: number; delayMs: number } | { kind: 'delete'; id: number } | { kind: 'advance'; byMs: number };

const opArbitrary: fc.Arbitrary<Op> = fc.oneof(
  {
    arbitrary: fc.record({ kind: fc.constant('add' as const), id: fc.nat(15), delayMs: fc.oneof(fc.nat(50), fc.nat(2_000), fc.constantFrom(0, 10, 30)) }),
    weight: 4,
  },
  { arbitrary: fc.record({ kind: fc.constant('delete' as const), id: fc.nat(15) }), weight: 2 },
  { arbitrary: fc.record({ kind: fc.constant('advance' as const), byMs: fc.oneof(fc.nat(40), fc.constant(0)) }), weight: 3 },
);

test('any interleaving of add, delete and time fires exactly the entries still added whose time has come, in time order, on at most one timer', () => {
  fc.assert(
    fc.property(fc.array(opArbitrary, { maxLength: 200, size: 'max' }), (ops) => {
      const clock = new SimClock(0);
      const entries = Array.from({ length: 16 }, (_, id) => new Entry(String(id), 0));
      // The model: what is added, with its due time and the order it was added in.
      const model = new Map<number, { dueMs: number; order: number }>();
      let order = 0;
      const fired: { id: number; atMs: number }[] = [];
      const deadlines = new Deadlines<Entry>(clock, (e) => fired.push({ id: Number(e.name), atMs: clock.now() }));
      for (const op of ops) {
        if (op.kind === 'add') {
          const entry = entries[op.id]!;
          entry.deadlineMs = clock.now() + op.delayMs;
          deadlines.add(entry);
          model.set(op.id, { dueMs: entry.deadlineMs, order: order++ });
        } else if (op.kind === 'delete') {
          deadlines.delete(entries[op.id]!);
          model.delete(op.id);
        } else {
          const untilMs = clock.now() + op.byMs;
          const due = [...model.entries()].filter(([, m]) => m.dueMs <= untilMs).sort(([, a], [, b]) => a.dueMs - b.dueMs || a.order - b.order);
          fired.length = 0;
          clock.runUntil(untilMs);
          assert.equal(
            fired,
            due.map(([id, m]) => ({ id, atMs: m.dueMs })),
          );
          for (const [id] of due) model.delete(id);
        }
        assert.is(deadlines.size, model.size);
        assert.ok(clock.pending <= 1, 'one timer at most');
        if (model.size > 0) assert.is(clock.pending, 1, 'a timer while anything is due');
        for (const [id, entry] of entries.entries()) assert.is(entry.deadlineSlot >= 0, model.has(id));
      }
    }),
    { seed: 7, numRuns: 300 },
  );
});

test.run();
