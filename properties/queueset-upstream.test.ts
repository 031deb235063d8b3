// Kubernetes' own fair-queuing scenarios, replayed on Fairway's queue set: the uniform-client
// tests of k8s.io/apiserver v0.32.0 pkg/util/flowcontrol/fairqueuing/queueset/queueset_test.go
// (TestNoRestraint through TestWindup, TestDifferentFlowsWithoutQueuing and TestContextCancel),
// with the upstream parameters and margins. The harness is written here from the upstream
// test's description, on a virtual clock:
//
// - each client has threads; thread j of client i first calls at (90·j + 20·i) ns, a thread of a
//   split client in the second half of the threads only from mid-evaluation, with half its calls;
// - a call asks the queue set for a request of the client's width (initial seats, final seats for
//   `pad` after the execution); once it executes, the thread's next call is due `exec + think`
//   later, and the request finishes after `exec`; a rejected call ends the thread;
// - the time-weighted average of each client's executing initial seats, over the evaluation (or
//   each half of a split one), must be within the margin of the max-min fair share of the
//   scenario's concurrency (or of the expected averages the test gives), or must not, as the test
//   expects; all requests must succeed unless the test expects rejections;
// - the queue set's seat-demand integral must equal the harness's own (relative 1e-10), and the
//   epoch advances must be the count upstream expects.

import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { QueueSet, type Admission, type Decide, type QueuingConfig, type QueueSetRequest } from '../engine/flowcontrol/queue-set.ts';
import { SeatDemandTracker } from '../engine/flowcontrol/seat-demand.ts';
import { SimClock } from '../engine/sim-clock.ts';
import { NoRestraintQueueSet } from './support/no-restraint-queue-set.ts';

const NS = 1e-6; // milliseconds per nanosecond
const SECOND = 1000;
const QUARTER = 91 * 24 * 3600 * SECOND;

interface Client {
  hash: bigint;
  threads: number;
  calls: number;
  execMs: number;
  thinkMs: number;
  initialSeats: number;
  finalSeats: number;
  padMs: number;
  split: boolean;
}

const client = (hash: number, threads: number, calls: number, execMs: number, thinkMs: number): Client => ({
  hash: BigInt(hash),
  threads,
  calls,
  execMs,
  thinkMs,
  initialSeats: 1,
  finalSeats: 1,
  padMs: 0,
  split: false,
});
const wide = (c: Client, initialSeats: number): Client => ({ ...c, initialSeats });
const pad = (c: Client, finalSeats: number, padMs: number): Client => ({ ...c, finalSeats, padMs });
const split = (c: Client): Client => ({ ...c, split: true });

interface Scenario {
  /** A queue set's queuing config, or the negative control that admits everything. */
  queuing: QueuingConfig | 'no-restraint';
  /** The queue set's concurrency limit (qsComplete). */
  limit: number;
  /** The concurrency the fair shares divide (uniformScenario.concurrencyLimit). */
  capacity: number;
  clients: Client[];
  evalMs: number;
  expectFair: boolean[];
  margins: number[];
  expectAllRequests: boolean;
  expectedAverages?: number[] | undefined;
  expectedEpochAdvances?: number;
}

/** Max-min fair allocation of `capacity` among `demands` (the upstream test's fairAlloc). */
function fairAlloc(demands: readonly number[], capacity: number): number[] {
  const order = demands.map((_, i) => i).sort((a, b) => demands[a]! - demands[b]!);
  const alloc = demands.map(() => 0);
  let left = capacity;
  let level = 0;
  let next = 0;
  for (; next < order.length; next++) {
    const demand = demands[order[next]!]!;
    if (demand <= 0) continue;
    const bite = (order.length - next) * (demand - level);
    if (bite > left) break;
    level = demand;
    alloc[order[next]!] = demand;
    left -= bite;
  }
  for (let j = next; j < order.length; j++) alloc[order[j]!] = level + left / (order.length - next);
  return alloc;
}

const close = (x: number, y: number) => {
  const a = Number.isNaN(x) ? 0 : x;
  const b = Number.isNaN(y) ? 0 : y;
  const den = Math.max(Math.abs(a), Math.abs(b));
  return den === 0 || Math.abs(a - b) / den < 1e-10;
};

/**
 * A client's executing seats, integrated over whole nanoseconds as Go's clock counts them: the
 * fair shares are checked with margin 0 where every period divides the evaluation exactly.
 */
class ExecutingSeats {
  private seats = 0;
  private lastNs = 0;
  private startNs = 0;
  private area = 0;

  add(delta: number, nowMs: number): void {
    this.advance(nowMs);
    this.seats += delta;
  }

  /** The time-weighted average since the last reset; starts a new period. */
  reset(nowMs: number): number {
    this.advance(nowMs);
    const average = this.area / (this.lastNs - this.startNs);
    this.area = 0;
    this.startNs = this.lastNs;
    return average;
  }

  private advance(nowMs: number): void {
    const nowNs = Math.round(nowMs / NS);
    this.area += this.seats * (nowNs - this.lastNs);
    this.lastNs = nowNs;
  }
}

interface StartRequest {
  startRequest(request: QueueSetRequest<number>, decide: Decide<number>): Admission;
}

/** Plays a scenario; returns what did not hold, in the upstream test's terms. */
function exercise(scenario: Scenario): string[] {
  const problems: string[] = [];
  const clock = new SimClock(0);
  const subject = new SeatDemandTracker(0);
  const check = new SeatDemandTracker(0);
  let epochAdvances = 0;
  const qs: StartRequest =
    scenario.queuing === 'no-restraint'
      ? new NoRestraintQueueSet<number>()
      : new QueueSet<number>(
          clock,
          scenario.queuing,
          { epochAdvanced: () => epochAdvances++, seatDemandChanged: (d) => subject.set(d, clock.now()) },
          scenario.limit,
        );
  const executing = scenario.clients.map(() => new ExecutingSeats());
  let failed = 0;
  const doSplit = scenario.clients.some((c) => c.split);

  const call = (i: number, k: number, calls: number): void => {
    if (k >= calls) return;
    const c = scenario.clients[i]!;
    const width = Math.max(c.initialSeats, c.finalSeats);
    check.add(width, clock.now());
    let admission: Admission | undefined;
    admission = qs.startRequest(
      {
        flowHash: c.hash,
        workEstimate: { initialSeats: c.initialSeats, finalSeats: c.finalSeats, additionalLatencyMs: c.padMs },
        waitLimitMs: 1e18,
        descriptor: i,
      },
      (decision) => {
        if (decision.kind === 'reject') {
          failed++;
          check.add(-width, clock.now());
          return;
        }
        executing[i]!.add(c.initialSeats, clock.now());
        clock.after(c.execMs + c.thinkMs, () => call(i, k + 1, calls));
        clock.after(c.execMs, () => {
          executing[i]!.add(-c.initialSeats, clock.now());
          admission!.finish();
          clock.after(c.padMs, () => check.add(-width, clock.now()));
        });
      },
    );
  };
  scenario.clients.forEach((c, i) => {
    for (let j = 0; j < c.threads; j++) {
      let delayMs = (90 * j + 20 * i) * NS;
      let calls = c.calls;
      if (c.split && j >= Math.floor(c.threads / 2)) {
        delayMs += scenario.evalMs / 2;
        calls = Math.floor(calls / 2);
      }
      clock.after(delayMs, () => call(i, 0, calls));
    }
  });

  const evalTo = (untilMs: number, last: boolean, expectFair: boolean, margin: number) => {
    clock.runUntil(untilMs);
    const demands = scenario.clients.map((c) => {
      const threads = c.split && !last ? Math.floor(c.threads / 2) : c.threads;
      return (threads * c.initialSeats * c.execMs) / (c.thinkMs + c.execMs);
    });
    const averages = executing.map((e) => e.reset(untilMs));
    const fair = scenario.expectedAverages ?? fairAlloc(demands, scenario.capacity);
    scenario.clients.forEach((_, i) => {
      const expected = fair[i]!;
      const gotFair = expected > 0 ? Math.abs((averages[i]! - expected) / expected) <= margin : Math.abs(averages[i]!) <= margin;
      if (gotFair !== expectFair) {
        problems.push(`client ${i} last=${last} expectFair=${expectFair} margin=${margin}: average ${averages[i]} against ${expected}`);
      }
    });
    if (scenario.queuing !== 'no-restraint') {
      const got = subject.results(untilMs);
      const want = check.results(untilMs);
      if (!close(got.durationSeconds, want.durationSeconds)) problems.push(`seat demand duration ${got.durationSeconds} vs ${want.durationSeconds}`);
      if (!close(got.average, want.average)) problems.push(`seat demand average ${got.average} vs ${want.average}`);
      if (!close(got.deviation, want.deviation)) problems.push(`seat demand deviation ${got.deviation} vs ${want.deviation}`);
    }
  };
  if (doSplit) evalTo(scenario.evalMs / 2, false, scenario.expectFair[0]!, scenario.margins[0]!);
  evalTo(scenario.evalMs, true, scenario.expectFair.at(-1)!, scenario.margins.at(-1)!);
  while (clock.step()) {
    // the remaining calls run to completion
  }
  if (scenario.expectAllRequests && failed > 0) problems.push(`expected every request to succeed, ${failed} failed`);
  if (!scenario.expectAllRequests && failed === 0) problems.push('expected failed requests, all succeeded');
  if (epochAdvances !== (scenario.expectedEpochAdvances ?? 0))
    problems.push(`${epochAdvances} epoch advances, expected ${scenario.expectedEpochAdvances ?? 0}`);
  return problems;
}

const queuing = (desiredNumQueues: number, queueLengthLimit: number, handSize: number): QueuingConfig => ({ desiredNumQueues, queueLengthLimit, handSize });

const scenarios: Record<string, Scenario> = {};

for (const [name, capacity, margin, fair] of [
  ['no-competition', 10, 0.001, true],
  ['with-competition', 2, 0.25, false],
] as const) {
  scenarios[`TestNoRestraint/${name}`] = {
    queuing: 'no-restraint',
    limit: 0,
    capacity,
    clients: [client(1001001001, 5, 15, SECOND, SECOND), client(2002002002, 2, 15, SECOND, SECOND / 2)],
    evalMs: 18 * SECOND,
    expectFair: [fair],
    margins: [margin],
    expectAllRequests: true,
  };
}

scenarios.TestBaseline = {
  queuing: queuing(9, 8, 3),
  limit: 1,
  capacity: 1,
  clients: [client(1001001001, 1, 21, SECOND, 0)],
  evalMs: 20 * SECOND,
  expectFair: [true],
  margins: [0],
  expectAllRequests: true,
};

for (const limit of [0, 2]) {
  scenarios[`TestExampt/concurrency=${limit}`] = {
    queuing: queuing(-1, 2, 3),
    limit,
    capacity: 1,
    clients: [wide(client(1001001001, 5, 20, SECOND, SECOND), 3)],
    evalMs: 40 * SECOND,
    expectFair: [true],
    expectedAverages: [7.5],
    margins: [0.00000001],
    expectAllRequests: true,
  };
}

for (const s of [
  { think: SECOND, pad: 0, finalSeats: 1, conc: 1, nClients: 1 },
  { think: SECOND, pad: 0, finalSeats: 1, conc: 2, nClients: 1 },
  { think: SECOND, pad: 0, finalSeats: 2, conc: 2, nClients: 1 },
  { think: SECOND, pad: 0, finalSeats: 1, conc: 1, nClients: 2 },
  { think: SECOND, pad: 0, finalSeats: 1, conc: 2, nClients: 2 },
  { think: SECOND, pad: 0, finalSeats: 2, conc: 2, nClients: 2 },
  { think: 0, pad: SECOND, finalSeats: 1, conc: 1, nClients: 1, exp: [0.5] },
  { think: 0, pad: SECOND, finalSeats: 1, conc: 2, nClients: 1 },
  { think: 0, pad: SECOND, finalSeats: 2, conc: 2, nClients: 1, exp: [0.5] },
  { think: 0, pad: SECOND, finalSeats: 1, conc: 1, nClients: 2, exp: [0.25, 0.25] },
  { think: 0, pad: SECOND, finalSeats: 1, conc: 2, nClients: 2, exp: [0.5, 0.5] },
  { think: 0, pad: SECOND, finalSeats: 2, conc: 2, nClients: 2, exp: [0.25, 0.25] },
  { think: SECOND, pad: SECOND / 2, finalSeats: 1, conc: 1, nClients: 1 },
  { think: SECOND, pad: SECOND / 2, finalSeats: 1, conc: 2, nClients: 1 },
  { think: SECOND, pad: SECOND / 2, finalSeats: 2, conc: 2, nClients: 1 },
  { think: SECOND, pad: SECOND / 2, finalSeats: 1, conc: 1, nClients: 2, exp: [1 / 3, 1 / 3] },
  { think: SECOND, pad: SECOND / 2, finalSeats: 1, conc: 2, nClients: 2 },
  { think: SECOND, pad: SECOND / 2, finalSeats: 2, conc: 2, nClients: 2, exp: [1 / 3, 1 / 3] },
  { think: SECOND / 2, pad: SECOND, finalSeats: 1, conc: 1, nClients: 1, exp: [0.5] },
  { think: SECOND / 2, pad: SECOND, finalSeats: 1, conc: 2, nClients: 1 },
  { think: SECOND / 2, pad: SECOND, finalSeats: 2, conc: 2, nClients: 1, exp: [0.5] },
  { think: SECOND / 2, pad: SECOND, finalSeats: 1, conc: 1, nClients: 2, exp: [0.25, 0.25] },
  { think: SECOND / 2, pad: SECOND, finalSeats: 1, conc: 2, nClients: 2, exp: [0.5, 0.5] },
  { think: SECOND / 2, pad: SECOND, finalSeats: 2, conc: 2, nClients: 2, exp: [0.25, 0.25] },
]) {
  scenarios[`TestSeparations/think=${s.think}ms,finalSeats=${s.finalSeats},pad=${s.pad}ms,nClients=${s.nClients},conc=${s.conc}`] = {
    queuing: queuing(9, 8, 3),
    limit: s.conc,
    capacity: s.conc,
    clients: [pad(client(1001001001, 1, 25, SECOND, s.think), s.finalSeats, s.pad), pad(client(2002002002, 1, 25, SECOND, s.think), s.finalSeats, s.pad)].slice(
      0,
      s.nClients,
    ),
    // A multiple of every period involved, so that the margin can be 0.
    evalMs: 24 * SECOND,
    expectFair: [true],
    margins: [0],
    expectAllRequests: true,
    expectedAverages: s.exp,
  };
}

scenarios.TestUniformFlowsHandSize1 = {
  queuing: queuing(9, 8, 1),
  limit: 4,
  capacity: 4,
  clients: [client(1001001001, 8, 20, SECOND, SECOND - NS), client(2002002002, 8, 20, SECOND, SECOND - NS)],
  evalMs: 50 * SECOND,
  expectFair: [true],
  margins: [0.01],
  expectAllRequests: true,
};

scenarios.TestUniformFlowsHandSize3 = {
  queuing: queuing(8, 16, 3),
  limit: 4,
  capacity: 4,
  clients: [client(400900100100, 8, 30, SECOND, SECOND - NS), client(300900200200, 8, 30, SECOND, SECOND - NS)],
  evalMs: 60 * SECOND,
  expectFair: [true],
  margins: [0.03],
  expectAllRequests: true,
};

scenarios.TestDifferentFlowsExpectEqual = {
  queuing: queuing(9, 8, 1),
  limit: 4,
  capacity: 4,
  clients: [client(1001001001, 8, 20, SECOND, SECOND), client(2002002002, 7, 30, SECOND, SECOND / 2)],
  evalMs: 40 * SECOND,
  expectFair: [true],
  margins: [0.01],
  expectAllRequests: true,
};

// R passes Kubernetes' epoch threshold (1.5·2^63 units) eight times over 40 quarters.
scenarios.TestSeatSecondsRollover = {
  queuing: queuing(9, 8, 1),
  limit: 2000,
  capacity: 2000,
  clients: [wide(client(1001001001, 8, 20, QUARTER, QUARTER), 500), wide(client(2002002002, 7, 30, QUARTER, QUARTER / 2), 500)],
  evalMs: 40 * QUARTER,
  expectFair: [true],
  margins: [0.01],
  expectAllRequests: true,
  expectedEpochAdvances: 8,
};

scenarios.TestDifferentFlowsExpectUnequal = {
  queuing: queuing(9, 6, 1),
  limit: 3,
  capacity: 3,
  clients: [client(1001001001, 4, 20, SECOND, SECOND - NS), client(2002002002, 2, 20, SECOND, SECOND - NS)],
  evalMs: 20 * SECOND,
  expectFair: [true],
  margins: [0.01],
  expectAllRequests: true,
};

scenarios.TestDifferentWidths = {
  queuing: queuing(64, 13, 7),
  limit: 6,
  capacity: 6,
  clients: [client(10010010010010, 13, 10, SECOND, SECOND - NS), wide(client(20020020020020, 7, 10, SECOND, SECOND - NS), 2)],
  evalMs: 20 * SECOND,
  expectFair: [true],
  margins: [0.155],
  expectAllRequests: true,
};

scenarios.TestTooWide = {
  queuing: queuing(64, 35, 7),
  limit: 6,
  capacity: 6,
  clients: [
    wide(client(40040040040040, 15, 21, SECOND, SECOND - NS), 2),
    wide(client(50050050050050, 15, 21, SECOND, SECOND - NS), 2),
    wide(client(60060060060060, 15, 21, SECOND, SECOND - NS), 2),
    wide(client(70070070070070, 15, 21, SECOND, SECOND - NS), 2),
    wide(client(90090090090090, 15, 21, SECOND, SECOND - NS), 7),
  ],
  evalMs: 225 * SECOND,
  expectFair: [true],
  margins: [0.33],
  expectAllRequests: true,
};

// A flow that cannot use its share for a while (first half) over-uses it later (second half):
// the anti-windup bound keeps the unfairness between 10% and 26%.
for (const [name, margin2, fair2] of [
  ['upper-bound', 0.26, true],
  ['lower-bound', 0.1, false],
] as const) {
  scenarios[`TestWindup/${name}`] = {
    queuing: queuing(9, 6, 1),
    limit: 3,
    capacity: 3,
    clients: [client(1001001001, 2, 40, SECOND, -NS), split(client(2002002002, 2, 40, SECOND, -NS))],
    evalMs: 40 * SECOND,
    expectFair: [true, fair2],
    margins: [0.01, margin2],
    expectAllRequests: true,
  };
}

scenarios.TestDifferentFlowsWithoutQueuing = {
  queuing: queuing(0, 0, 0),
  limit: 4,
  capacity: 4,
  clients: [client(1001001001, 6, 10, SECOND, 57), client(2002002002, 4, 15, SECOND, 750)],
  evalMs: 13 * SECOND,
  expectFair: [false],
  margins: [0.2],
  expectAllRequests: false,
};

for (const [name, scenario] of Object.entries(scenarios)) {
  test(name, () => {
    const problems = exercise(scenario);
    assert.equal(problems, [], problems.join('\n'));
  });
}

// TestContextCancel: with one seat taken, a second request waits; cancelling it 1 s later takes it
// out of its queue (a time-out, as upstream counts cancellations) exactly then, and the queue set
// ends idle once the first finishes.
test('TestContextCancel', () => {
  const clock = new SimClock(0);
  const queued: number[] = [];
  const qs = new QueueSet<number>(clock, queuing(11, 11, 1), { queued: (d) => queued.push(d) }, 1);
  const decisions: string[] = [];
  const first = qs.startRequest(
    { flowHash: 1n, workEstimate: { initialSeats: 1, finalSeats: 0, additionalLatencyMs: 0 }, waitLimitMs: 1e18, descriptor: 1 },
    (d) => decisions.push(`1:${d.kind}`),
  );
  const startedMs = clock.now();
  const second = qs.startRequest(
    { flowHash: 2n, workEstimate: { initialSeats: 1, finalSeats: 0, additionalLatencyMs: 0 }, waitLimitMs: 1e18, descriptor: 2 },
    (d) => {
      decisions.push(`2:${d.kind === 'reject' ? d.reason : d.kind}@${clock.now() - startedMs}`);
    },
  );
  assert.equal(queued, [1, 2], 'both went through a queue');
  clock.after(SECOND, () => second.cancel());
  clock.advance(SECOND);
  assert.equal(decisions, ['1:execute', `2:time-out@${SECOND}`]);
  assert.is(qs.dump().cancelled, 1);
  first.finish();
  assert.ok(qs.isIdle);
});

test.run();
