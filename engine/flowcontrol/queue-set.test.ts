import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { SimClock } from '../sim-clock.ts';
import { countingClock } from '../testing/counting-clock.ts';
import { GO_HIGH_R, GO_R_DECREMENT, INTERNAL_REBASE_R, QueueSet, checkQueuingConfig, type Admission, type Decision, type QueuingConfig } from './queue-set.ts';
import type { WorkEstimate } from './work-estimate.ts';

const ONE_SEAT: WorkEstimate = { initialSeats: 1, finalSeats: 0, additionalLatencyMs: 0 };
const QUEUING: QueuingConfig = { desiredNumQueues: 4, queueLengthLimit: 50, handSize: 1 };

interface Tracked {
  id: string;
  decisions: Decision[];
  admission: Admission;
}

function harness(config: QueuingConfig, concurrencyLimit: number) {
  const clock = new SimClock();
  const rejections: string[] = [];
  const qs = new QueueSet<string>(clock, config, { rejected: (id, reason) => rejections.push(`${id}:${reason}`) });
  qs.setConfig(config, concurrencyLimit);
  const start = (id: string, flowHash = 0n, workEstimate: WorkEstimate = ONE_SEAT, waitLimitMs = 15_000): Tracked => {
    const decisions: Decision[] = [];
    const admission = qs.startRequest({ flowHash, workEstimate, waitLimitMs, descriptor: id }, (d) => decisions.push(d));
    return { id, decisions, admission };
  };
  return { clock, qs, start, rejections };
}

const kinds = (t: Tracked) => t.decisions.map((d) => (d.kind === 'execute' ? 'execute' : `reject:${d.reason}`));

test('exempt levels execute at once, beyond any limit, and still count their seats', () => {
  const { qs, start } = harness({ desiredNumQueues: -1, queueLengthLimit: 0, handSize: 0 }, 0);
  const a = start('a');
  const b = start('b', 0n, { initialSeats: 5, finalSeats: 0, additionalLatencyMs: 0 });
  assert.equal(kinds(a), ['execute']);
  assert.equal(kinds(b), ['execute']);
  assert.is(qs.dump().seatsInUse, 6);
  a.admission.finish();
  b.admission.finish();
  assert.ok(qs.isIdle);
});

test('a Reject-type level rejects with concurrency-limit when its seats are taken', () => {
  const { start, rejections } = harness({ desiredNumQueues: 0, queueLengthLimit: 0, handSize: 0 }, 2);
  const a = start('a');
  const b = start('b');
  const c = start('c');
  assert.equal([kinds(a), kinds(b), kinds(c)], [['execute'], ['execute'], ['reject:concurrency-limit']]);
  assert.equal(rejections, ['c:concurrency-limit']);
  a.admission.finish();
  assert.equal(kinds(start('d')), ['execute']);
});

test('an arrival that meets empty queues is queued and dispatched at once, with every observer call', () => {
  // The fast path in startRequest must be indistinguishable from enqueue-then-dispatch.
  const clock = new SimClock();
  const calls: string[] = [];
  const qs = new QueueSet<string>(clock, QUEUING, {
    queued: (id, length) => calls.push(`queued ${id} ${length}`),
    seatDemandChanged: (demand) => calls.push(`demand ${demand}`),
    dispatched: (id, waitMs) => calls.push(`dispatched ${id} ${waitMs}`),
  });
  qs.setConfig(QUEUING, 2);
  clock.advance(5);
  const a = qs.startRequest({ flowHash: 7n, workEstimate: ONE_SEAT, waitLimitMs: 1000, descriptor: 'a' }, (d) => calls.push(`decide ${d.kind}`));
  assert.equal(calls, ['queued a 1', 'demand 1', 'dispatched a 0', 'demand 1', 'decide execute']);
  const dump = qs.dump();
  const queue = dump.queues.find((q) => q.executingRequests === 1)!;
  // R was 0 (nothing active); the queue's next dispatch R moved by G = 3 ms at one seat (1e-8 seat·s units).
  assert.is(queue.nextDispatchR, 300_000n);
  assert.equal([dump.waitingRequests, dump.executingRequests, dump.seatsInUse, dump.seatsWaiting, dump.dispatched], [0, 1, 1, 0, 1]);
  assert.equal(
    dump.requests.map((r) => [r.descriptor, r.indexInQueue, r.startMs]),
    [['a', -1, 5]],
  );
  // With one request executing and none waiting, the next arrival passes straight through too.
  calls.length = 0;
  qs.startRequest({ flowHash: 7n, workEstimate: ONE_SEAT, waitLimitMs: 1000, descriptor: 'b' }, (d) => calls.push(`decide ${d.kind}`));
  assert.equal(calls, ['queued b 1', 'demand 2', 'dispatched b 0', 'demand 2', 'decide execute']);
  a.finish();
  assert.is(qs.dump().requests.length, 1);
});

test('requests wait while seats are taken and are dispatched FIFO within a queue', () => {
  const { clock, start } = harness({ desiredNumQueues: 1, queueLengthLimit: 10, handSize: 1 }, 1);
  const a = start('a');
  const b = start('b');
  const c = start('c');
  assert.equal([kinds(a), kinds(b), kinds(c)], [['execute'], [], []]);
  clock.advance(10);
  a.admission.finish();
  assert.equal([kinds(b), kinds(c)], [['execute'], []]);
  b.admission.finish();
  assert.equal(kinds(c), ['execute']);
});

test('queue-full only when seats are all taken and the chosen queue is at its length limit', () => {
  const { start } = harness({ desiredNumQueues: 1, queueLengthLimit: 2, handSize: 1 }, 1);
  start('running');
  const waiting = [start('w1'), start('w2')];
  const late = start('late');
  assert.equal(waiting.map(kinds), [[], []]);
  assert.equal(kinds(late), ['reject:queue-full']);
});

test('a request waiting past its wait limit is rejected with time-out; cancel counts the same', () => {
  const { clock, qs, start } = harness({ desiredNumQueues: 1, queueLengthLimit: 10, handSize: 1 }, 1);
  start('running');
  const patient = start('patient', 0n, ONE_SEAT, 15_000);
  const impatient = start('impatient', 0n, ONE_SEAT, 1_000);
  const gone = start('gone');
  gone.admission.cancel();
  clock.advance(999);
  assert.equal(kinds(impatient), []);
  clock.advance(1);
  assert.equal(kinds(impatient), ['reject:time-out']);
  assert.equal(kinds(gone), ['reject:time-out']);
  assert.equal(kinds(patient), []);
  const dump = qs.dump();
  assert.is(dump.timedOut, 1);
  assert.is(dump.cancelled, 1);
  assert.is(dump.waitingRequests, 1);
});

test('a burst of waiting requests arms one wait-limit timer for the level, not one per request', () => {
  const sim = new SimClock();
  const { clock, armed } = countingClock(sim);
  const outcomes: string[] = [];
  const qs = new QueueSet<string>(clock, { desiredNumQueues: 4, queueLengthLimit: 200, handSize: 2 }, {}, 1);
  const running = qs.startRequest({ flowHash: 0n, workEstimate: ONE_SEAT, waitLimitMs: 1_000, descriptor: 'running' }, () => {});
  for (let i = 0; i < 100; i++) {
    qs.startRequest({ flowHash: BigInt(i), workEstimate: ONE_SEAT, waitLimitMs: 1_000, descriptor: `w${i}` }, (d, r) =>
      outcomes.push(`${r.descriptor}:${d.kind}`),
    );
    sim.advance(1);
  }
  assert.is(armed(), 1);
  // The first is dispatched; the others still end on time, in arrival order, on that one timer re-armed.
  running.finish();
  sim.advance(1_000);
  assert.is(outcomes[0], 'w0:execute');
  assert.equal(
    outcomes.slice(1),
    Array.from({ length: 99 }, (_, i) => `w${i + 1}:reject`),
  );
  assert.is(qs.dump().timedOut, 99);
});

test('a wide head blocks its level; a request wider than the limit runs alone', () => {
  const { start } = harness({ desiredNumQueues: 1, queueLengthLimit: 10, handSize: 1 }, 4);
  const narrow = start('narrow');
  const wide = start('wide', 0n, { initialSeats: 4, finalSeats: 0, additionalLatencyMs: 0 });
  const behind = start('behind');
  // 3 seats are free, but the 4-seat head waits and nobody overtakes it.
  assert.equal([kinds(narrow), kinds(wide), kinds(behind)], [['execute'], [], []]);
  narrow.admission.finish();
  assert.equal([kinds(wide), kinds(behind)], [['execute'], []]);
  wide.admission.finish();
  assert.equal(kinds(behind), ['execute']);
  behind.admission.finish();
  const huge = start('huge', 0n, { initialSeats: 9, finalSeats: 0, additionalLatencyMs: 0 });
  assert.equal(kinds(huge), ['execute']);
  const next = start('next');
  assert.equal(kinds(next), [], 'nothing runs beside an over-wide request');
});

test('final seats are held for the additional latency after finish, without delaying the caller', () => {
  const { clock, qs, start } = harness({ desiredNumQueues: 1, queueLengthLimit: 10, handSize: 1 }, 3);
  const write = start('write', 0n, { initialSeats: 1, finalSeats: 3, additionalLatencyMs: 5 });
  const next = start('next');
  assert.equal(kinds(write), ['execute']);
  assert.equal(kinds(next), []);
  write.admission.finish();
  assert.is(qs.dump().seatsInUse, 3);
  assert.equal(kinds(next), []);
  clock.advance(5);
  assert.equal(kinds(next), ['execute']);
});

test('final seats wider than the limit are clipped and the latency stretched to keep the work', () => {
  const { qs, start } = harness({ desiredNumQueues: 1, queueLengthLimit: 10, handSize: 1 }, 2);
  start('write', 0n, { initialSeats: 1, finalSeats: 4, additionalLatencyMs: 5 });
  const dumped = qs.dump().requests[0]!;
  assert.is(dumped.workEstimate.finalSeats, 2);
  assert.is(dumped.workEstimate.additionalLatencyMs, 10);
});

test('shrinking the number of queues removes surplus queues only as they empty', () => {
  const { qs, start } = harness({ desiredNumQueues: 8, queueLengthLimit: 10, handSize: 1 }, 1);
  const running = start('running', 5n);
  start('waiting', 6n);
  qs.setConfig({ desiredNumQueues: 2, queueLengthLimit: 10, handSize: 1 }, 1);
  assert.is(qs.dump().queues.length, 8);
  running.admission.finish();
  const remaining = qs.dump().queues.length;
  assert.ok(remaining < 8 && remaining >= 2, `${remaining} queues left`);
});

test('lowering the limit never preempts; raising it dispatches at once', () => {
  const { qs, start } = harness({ desiredNumQueues: 1, queueLengthLimit: 10, handSize: 1 }, 2);
  start('a');
  start('b');
  const c = start('c');
  qs.setConcurrencyLimit(1);
  assert.is(qs.dump().executingRequests, 2);
  qs.setConcurrencyLimit(3);
  assert.equal(kinds(c), ['execute']);
});

test('two backlogged flows in different queues share the seats equally', () => {
  const { clock, start } = harness(QUEUING, 2);
  // With a hand of one, flow hashes 0 and 1 deal queues 0 and 1.
  const pending = [
    ...Array.from({ length: 40 }, () => start('heavy', 0n, ONE_SEAT, 60_000)),
    ...Array.from({ length: 20 }, () => start('light', 1n, ONE_SEAT, 60_000)),
  ];
  const served = { heavy: 0, light: 0 };
  const done = new Set<Tracked>();
  // Every 10 ms, everything executing finishes; count who got the seats.
  for (let tick = 0; tick < 10; tick++) {
    clock.advance(10);
    for (const t of pending.filter((p) => !done.has(p) && kinds(p)[0] === 'execute')) {
      served[t.id as 'heavy' | 'light']++;
      done.add(t);
      t.admission.finish();
    }
  }
  assert.ok(Math.abs(served.heavy - served.light) <= 1, `heavy ${served.heavy}, light ${served.light}`);
  assert.ok(served.heavy + served.light >= 18, 'the seats were kept busy');
});

test('a flow key finds the hand its flow hash deals, and is dealt again when the number of queues changes', () => {
  const config: QueuingConfig = { desiredNumQueues: 8, queueLengthLimit: 50, handSize: 2 };
  const placements = (withKeys: boolean, grow: boolean): string[] => {
    const qs = new QueueSet<string>(new SimClock(), config);
    const keys = [{}, {}, {}];
    const place = (round: string) => {
      for (let i = 0; i < 12; i++) {
        const flow = i % 3;
        const request = { flowHash: BigInt(flow * 7919 + 1), flowKey: withKeys ? keys[flow] : undefined, workEstimate: ONE_SEAT, waitLimitMs: 60_000 };
        qs.startRequest({ ...request, descriptor: `${round}${i}` }, () => {});
      }
    };
    place('a');
    if (grow) qs.setConfig({ ...config, desiredNumQueues: 64 }, 0);
    place('b');
    return qs.dump().requests.map((r) => `${r.descriptor}@${r.queueIndex}`);
  };
  const grown = placements(false, true);
  assert.not.equal(grown.slice(12), placements(false, false).slice(12), 'growing deals other hands');
  assert.equal(placements(true, false), placements(false, false));
  assert.equal(placements(true, true), grown);
});

// fairqueuing/queueset/queueset.go: R is a uint64 wound back only at highR = 1.5·(2^63−1) units
// (years at full concurrency). Here R is a double kept exact by moving a BigInt origin, which must
// be invisible: the R a dump shows keeps rising, and dispatch stays fair across the moves.
test('virtual time does not roll over where Kubernetes does not: R keeps rising across internal rebases, dispatch stays fair', () => {
  const epochs: boolean[] = [];
  const clock = new SimClock();
  const qs = new QueueSet<string>(clock, { desiredNumQueues: 2, queueLengthLimit: 1000, handSize: 1 }, { epochAdvanced: (ok) => epochs.push(ok) }, 1000);
  const start = (id: string, flowHash: bigint, waitLimitMs: number): Tracked => {
    const decisions: Decision[] = [];
    return { id, decisions, admission: qs.startRequest({ flowHash, workEstimate: ONE_SEAT, waitLimitMs, descriptor: id }, (d) => decisions.push(d)) };
  };
  // 999 long requests keep R advancing (two active queues: 500 seat·s per second) for 30 virtual
  // hours, past 2^52 units; two backlogged flows in separate queues get one seat an hour.
  const long = Array.from({ length: 999 }, () => start('long', 0n, 60_000));
  const backlog = [...Array.from({ length: 40 }, () => start('a', 0n, 1e9)), ...Array.from({ length: 40 }, () => start('b', 1n, 1e9))];
  const served = { a: 0, b: 0 };
  const done = new Set<Tracked>();
  let previous = qs.dump().currentR;
  for (let hour = 0; hour < 30; hour++) {
    clock.advance(3_600_000);
    const now = qs.dump().currentR;
    assert.ok(now >= previous, `R went from ${previous} back to ${now}`);
    previous = now;
    long.pop()?.admission.finish();
    for (const t of backlog.filter((b) => !done.has(b) && kinds(b)[0] === 'execute')) {
      served[t.id as 'a' | 'b']++;
      done.add(t);
      t.admission.finish();
    }
  }
  assert.ok(previous > BigInt(INTERNAL_REBASE_R), `R reached ${previous}, past the internal rebase point`);
  assert.equal(epochs, [], 'no upstream epoch advance so early');
  assert.ok(served.a + served.b >= 25, `served ${served.a + served.b}`);
  assert.ok(Math.abs(served.a - served.b) <= 1, `a ${served.a}, b ${served.b}`);
});

test('the upstream epoch advance happens at highR: R and readings in use go back by rDecrement, idle queues read 0', () => {
  const epochs: boolean[] = [];
  const clock = new SimClock();
  const qs = new QueueSet<string>(clock, { desiredNumQueues: 2, queueLengthLimit: 10, handSize: 1 }, { epochAdvanced: (ok) => epochs.push(ok) }, 2000);
  const wide = () =>
    qs.startRequest(
      { flowHash: 0n, workEstimate: { initialSeats: 2000, finalSeats: 0, additionalLatencyMs: 0 }, waitLimitMs: 1e12, descriptor: 'w' },
      () => {},
    );
  // One request 2000 seats wide on one active queue advances R by 2000 seat·s per second:
  // highR (1.38e11 seat·s) comes after about 2.2 virtual years.
  const first = wide();
  const secondsToHighR = Number(GO_HIGH_R / 100_000_000n) / 2000;
  clock.advance((secondsToHighR - 3600) * 1000);
  // A fresh request, so that the reading in use is recent (one left far behind R would wrap,
  // which upstream reports as a failed advance).
  first.finish();
  const second = wide();
  const before = qs.dump();
  assert.equal(epochs, []);
  assert.ok(before.currentR < GO_HIGH_R);
  clock.advance(7200 * 1000);
  const after = qs.dump();
  assert.equal(epochs, [true]);
  assert.ok(after.currentR < before.currentR, 'wound back');
  assert.ok(after.currentR + GO_R_DECREMENT > before.currentR);
  assert.is(after.queues[1]!.nextDispatchR, 0n, 'an idle queue reads 0 after the advance, as upstream sets it');
  assert.is(after.queues[0]!.nextDispatchR, before.queues[0]!.nextDispatchR - GO_R_DECREMENT, 'a queue in use moved with R');
  second.finish();
  assert.ok(qs.isIdle);
});

// The decide callback is the caller's; dispatch calls it from inside other requests' calls.
// fairqueuing/queueset/queueset.go finishes a request whose execution panicked (Finish defers the
// release) and the panic surfaces in that request's own goroutine only.
test('a decide callback that throws inside dispatch does not escape into the unrelated caller, and the books stay right', () => {
  const clock = new SimClock();
  const failures: string[] = [];
  const qs = new QueueSet<string>(
    clock,
    { desiredNumQueues: 1, queueLengthLimit: 10, handSize: 1 },
    { decideFailed: (id, error) => failures.push(`${id}: ${(error as Error).message}`) },
    1,
  );
  const a = qs.startRequest({ flowHash: 0n, workEstimate: ONE_SEAT, waitLimitMs: 15_000, descriptor: 'a' }, () => {});
  const b = qs.startRequest({ flowHash: 0n, workEstimate: ONE_SEAT, waitLimitMs: 15_000, descriptor: 'b' }, () => {
    throw new Error('b broke');
  });
  const cDecisions: Decision[] = [];
  qs.startRequest({ flowHash: 0n, workEstimate: ONE_SEAT, waitLimitMs: 15_000, descriptor: 'c' }, (d) => cDecisions.push(d));
  assert.is(qs.dump().waitingRequests, 2);
  a.finish(); // dispatches b, whose callback throws
  assert.is(qs.dump().executingRequests, 1, 'b was dispatched; its queue was booked');
  assert.equal(failures, []);
  clock.advance(0);
  assert.equal(failures, ['b: b broke'], 'reported to the observer');
  assert.equal(
    cDecisions.map((d) => d.kind),
    ['execute'],
    'b was finished for its owner, so c runs',
  );
  b.finish(); // the owner's late finish is harmless
  const dump = qs.dump();
  assert.is(dump.executingRequests, 1);
  assert.is(dump.seatsInUse, 1);
  assert.is(dump.queues[0]!.pendingRequests, 0);
});

test('a decide callback that throws at arrival throws to the caller that started that request', () => {
  const clock = new SimClock();
  const qs = new QueueSet<string>(clock, { desiredNumQueues: 1, queueLengthLimit: 10, handSize: 1 }, {}, 1);
  assert.throws(
    () =>
      qs.startRequest({ flowHash: 0n, workEstimate: ONE_SEAT, waitLimitMs: 15_000, descriptor: 'x' }, () => {
        throw new Error('mine');
      }),
    /mine/,
  );
  assert.ok(qs.isIdle, 'the request was finished before the error went back');
  assert.is(qs.dump().seatsInUse, 0);
});

test('without an observer hook the error is rethrown on a clock task of its own', () => {
  const clock = new SimClock();
  const qs = new QueueSet<string>(clock, { desiredNumQueues: 1, queueLengthLimit: 10, handSize: 1 }, {}, 1);
  const a = qs.startRequest({ flowHash: 0n, workEstimate: ONE_SEAT, waitLimitMs: 15_000, descriptor: 'a' }, () => {});
  qs.startRequest({ flowHash: 0n, workEstimate: ONE_SEAT, waitLimitMs: 15_000, descriptor: 'b' }, () => {
    throw new Error('late');
  });
  a.finish();
  assert.throws(() => clock.advance(0), /late/);
  assert.ok(qs.isIdle);
});

test('checkQueuingConfig reports a dealer that cannot be built', () => {
  assert.is(
    checkQueuingConfig({ desiredNumQueues: 512, queueLengthLimit: 50, handSize: 8 }),
    'required entropy bits of deckSize 512 and handSize 8 is greater than 60',
  );
  assert.is(checkQueuingConfig({ desiredNumQueues: 64, queueLengthLimit: 50, handSize: 8 }), undefined);
  assert.is(checkQueuingConfig({ desiredNumQueues: 0, queueLengthLimit: 0, handSize: 0 }), undefined);
});

test.run();
