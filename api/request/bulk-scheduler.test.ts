import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { subscribe, unsubscribe } from 'node:diagnostics_channel';
import { BULK_TURN_CHANNEL, BulkScheduler, type BulkTurn, type BulkWriter } from './bulk-scheduler.ts';

/** A scheduler on a fake clock: each byte written costs `msPerKiB`; `step()` runs one deferred turn. */
function harness(options: { turnMs: number; turnBytes?: number; grantBytes?: number; msPerKiB?: number }) {
  let clock = 0;
  const turns: (() => void)[] = [];
  const scheduler = new BulkScheduler({
    defer: (turn) => turns.push(turn),
    now: () => clock,
    turnMs: options.turnMs,
    turnBytes: options.turnBytes ?? Number.POSITIVE_INFINITY,
    grantBytes: options.grantBytes ?? 64,
  });
  const log: string[] = [];
  /** A writer with `bytes` to send that asks again after each grant while it has more. */
  const writer = (name: string, flow: string, bytes: number): BulkWriter & { left: number } => {
    const w = {
      bulkQueued: false,
      bulkRank: 0,
      left: bytes,
      writeSome(max: number) {
        const n = Math.min(max, w.left);
        w.left -= n;
        clock += (n / 1024) * (options.msPerKiB ?? 1);
        log.push(name);
        if (w.left > 0) scheduler.request(w, flow, w.left);
        return n;
      },
    };
    scheduler.request(w, flow, w.left);
    return w;
  };
  const step = (): string[] => {
    assert.is(turns.length, 1, 'exactly one turn deferred');
    const turn = turns.shift()!;
    log.length = 0;
    turn();
    return [...log];
  };
  return { scheduler, writer, step, pendingTurns: () => turns.length };
}

test('a turn writes for at most turnMs over all writers (at least one grant), the rest waits for the next turn', () => {
  // 64 bytes cost 1/16 ms: four grants fit in a quarter of a millisecond.
  const h = harness({ turnMs: 0.25, grantBytes: 64, msPerKiB: 1 });
  const writers = Array.from({ length: 12 }, (_, i) => h.writer(`w${i}`, 'level', 640));
  const order: string[] = [];
  let turns = 0;
  while (h.scheduler.waiting > 0) {
    const granted = h.step();
    assert.ok(granted.length <= 4, `${granted.length} grants in one turn`);
    order.push(...granted);
    turns++;
  }
  assert.is(turns, (12 * 10) / 4, 'every turn but none was full, every grant a full one');
  assert.ok(
    writers.every((w) => w.left === 0),
    'everything written',
  );
  assert.is(h.pendingTurns(), 0, 'nothing deferred once nobody waits');
  // Equal bodies finish one after another, not all in the last turns.
  assert.equal(
    order,
    writers.flatMap((_, i) => Array.from({ length: 10 }, () => `w${i}`)),
  );

  // A grant larger than the turn: still one write per turn, so a body always makes progress.
  const slow = harness({ turnMs: 0.01, grantBytes: 64, msPerKiB: 100 });
  slow.writer('a', 'x', 128);
  slow.writer('b', 'x', 128);
  assert.equal(slow.step(), ['a']);
  assert.equal(slow.step(), ['a']);
  assert.equal(slow.step(), ['b']);
});

test('within a flow the writer with the fewest bytes left goes first, the older one on a tie', () => {
  const h = harness({ turnMs: 1_000, grantBytes: 64, msPerKiB: 0 });
  h.writer('big', 'level', 64 * 5);
  h.writer('small', 'level', 64 * 2);
  h.writer('mid', 'level', 64 * 3);
  h.writer('small-later', 'level', 64 * 2);
  assert.equal(h.step(), ['small', 'small', 'small-later', 'small-later', 'mid', 'mid', 'mid', 'big', 'big', 'big', 'big', 'big']);
});

test('turnBytes caps a turn whatever the clock says', () => {
  const h = harness({ turnMs: 1_000, turnBytes: 256, grantBytes: 64, msPerKiB: 0 });
  for (let i = 0; i < 6; i++) h.writer(`w${i}`, 'level', 64);
  assert.equal(h.step(), ['w0', 'w1', 'w2', 'w3']);
  assert.equal(h.step(), ['w4', 'w5']);
});

test('grants go round robin over flows (priority levels) first, then to the writers of a flow', () => {
  const h = harness({ turnMs: 1, grantBytes: 64, msPerKiB: 4 });
  // One body in the exempt level, eleven in global-default: the exempt body gets every other grant.
  h.writer('exempt', 'exempt', 64 * 20);
  for (let i = 0; i < 11; i++) h.writer(`flood${i}`, 'global-default', 64 * 20);
  const order: string[] = [];
  for (let t = 0; t < 10; t++) order.push(...h.step());
  assert.is(order.length, 40);
  assert.is(order.filter((n) => n === 'exempt').length, 20, `the exempt level gets half the grants (${order.join(' ')})`);
  assert.is(order.filter((n) => n === 'flood0').length, 20, 'the flood level spends its half on one body at a time');
  assert.is(h.scheduler.waiting, 10, 'the exempt body and the first flood body are done');
  assert.equal(h.step(), ['flood1', 'flood1', 'flood1', 'flood1'], 'the flood level has the turns to itself once the exempt level is done');
});

test('a writer asking twice is queued once; a flow that empties leaves the ring; one turn is deferred at a time', () => {
  const h = harness({ turnMs: 1_000, grantBytes: 64, msPerKiB: 0 });
  const w = h.writer('w', 'a', 64);
  h.scheduler.request(w, 'a', 64);
  assert.is(h.scheduler.waiting, 1);
  h.writer('v', 'b', 64);
  assert.is(h.pendingTurns(), 1);
  assert.equal(h.step(), ['w', 'v']);
  assert.is(h.scheduler.waiting, 0);
  assert.is(h.pendingTurns(), 0);
  h.writer('u', 'a', 64);
  assert.equal(h.step(), ['u']);
});

test('a flow holds each waiting writer once, however often the writers ask', () => {
  const h = harness({ turnMs: 1_000, turnBytes: 64 * 1_000, grantBytes: 64, msPerKiB: 0 });
  for (let i = 0; i < 3; i++) h.writer(`w${i}`, 'level', 64 * 100_000);
  for (let t = 0; t < 50; t++) h.step();
  assert.is(h.scheduler.waiting, 3);
});

test('a writer that throws does not stop the others', () => {
  let clock = 0;
  const turns: (() => void)[] = [];
  const scheduler = new BulkScheduler({ defer: (turn) => turns.push(turn), now: () => clock, turnMs: 1, turnBytes: 1_000, grantBytes: 10 });
  const wrote: string[] = [];
  scheduler.request(
    {
      bulkQueued: false,
      bulkRank: 0,
      writeSome() {
        throw new Error('boom');
      },
    },
    'a',
    10,
  );
  scheduler.request(
    {
      bulkQueued: false,
      bulkRank: 0,
      writeSome(max) {
        wrote.push('b');
        clock += 1;
        return max;
      },
    },
    'b',
    10,
  );
  assert.throws(() => turns.shift()!(), /boom/);
  assert.is(turns.length, 1, 'the next turn is deferred anyway');
  turns.shift()!();
  assert.equal(wrote, ['b']);
});

test('each turn is published on the diagnostics channel with its start, duration, bytes and grants', () => {
  const turns: BulkTurn[] = [];
  const onTurn = (message: unknown) => turns.push(message as BulkTurn);
  subscribe(BULK_TURN_CHANNEL, onTurn);
  try {
    // 64 bytes cost 1/16 ms: a turn of 0.125 ms makes two grants.
    const h = harness({ turnMs: 0.125, grantBytes: 64, msPerKiB: 1 });
    h.writer('a', 'level', 160);
    h.step();
    h.step();
    assert.equal(turns, [
      { startMs: 0, durationMs: 0.125, bytes: 128, grants: 2 },
      { startMs: 0.125, durationMs: 32 / 1024, bytes: 32, grants: 1 },
    ]);
  } finally {
    unsubscribe(BULK_TURN_CHANNEL, onTurn);
  }
});

test.run();
