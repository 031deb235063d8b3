import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { topSnapshot } from './top-model.ts';

const F = 'apiserver_flowcontrol_';
/** A wait histogram's series (buckets 0.1, 0.5, 1, +Inf cumulative) for one FlowSchema of level `pl`. */
function waits(fs: string, pl: string, execute: string, cumulative: [number, number, number, number], sum: number): string[] {
  const labels = `execute="${execute}",flow_schema="${fs}",priority_level="${pl}"`;
  return [
    ...(['0.1', '0.5', '1', '+Inf'] as const).map((le, i) => `${F}request_wait_duration_seconds_bucket{${labels},le="${le}"} ${cumulative[i]}`),
    `${F}request_wait_duration_seconds_sum{${labels}} ${sum}`,
    `${F}request_wait_duration_seconds_count{${labels}} ${cumulative[3]}`,
  ];
}

const BEFORE = [
  `${F}dispatched_requests_total{flow_schema="a",priority_level="busy"} 100`,
  `${F}dispatched_requests_total{flow_schema="b",priority_level="busy"} 50`,
  `${F}rejected_requests_total{flow_schema="a",priority_level="busy",reason="queue-full"} 10`,
  ...waits('a', 'busy', 'true', [100, 100, 100, 100], 1),
  ...waits('b', 'busy', 'true', [50, 50, 50, 50], 0.5),
  ...waits('a', 'busy', 'false', [0, 0, 0, 0], 0),
].join('\n');

const AFTER = [
  `${F}nominal_limit_seats{priority_level="busy"} 40`,
  `${F}lower_limit_seats{priority_level="busy"} 30`,
  `${F}current_limit_seats{priority_level="busy"} 35`,
  `${F}nominal_limit_seats{priority_level="idle"} 10`,
  `${F}current_executing_seats{flow_schema="a",priority_level="busy"} 20`,
  `${F}current_executing_seats{flow_schema="b",priority_level="busy"} 15`,
  `${F}current_executing_requests{flow_schema="a",priority_level="busy"} 10`,
  `${F}current_executing_requests{flow_schema="b",priority_level="busy"} 15`,
  `${F}current_inqueue_requests{flow_schema="a",priority_level="busy"} 7`,
  `${F}current_inqueue_seats{flow_schema="a",priority_level="busy"} 14`,
  `${F}dispatched_requests_total{flow_schema="a",priority_level="busy"} 180`,
  `${F}dispatched_requests_total{flow_schema="b",priority_level="busy"} 70`,
  `${F}rejected_requests_total{flow_schema="a",priority_level="busy",reason="queue-full"} 30`,
  `${F}rejected_requests_total{flow_schema="a",priority_level="busy",reason="time-out"} 4`,
  // In the window: a's 80 dispatched waited 0.1–0.5 s (70) and 0.5–1 s (10); b's 20 under 0.1 s.
  ...waits('a', 'busy', 'true', [100, 170, 180, 180], 30),
  ...waits('b', 'busy', 'true', [70, 70, 70, 70], 1),
  // Requests that timed out in their queue waited long, but never executed: not in the p99.
  ...waits('a', 'busy', 'false', [0, 0, 0, 4], 240),
].join('\n');

test('rates over the interval from counter deltas, by level, FlowSchema and rejection reason', () => {
  const snapshot = topSnapshot({ before: BEFORE, after: AFTER, elapsedSeconds: 4 });
  assert.is(snapshot.intervalSeconds, 4);
  const busy = snapshot.levels.find((l) => l.name === 'busy')!;
  assert.is(busy.dispatched, (80 + 20) / 4);
  assert.is(busy.rejected, (20 + 4) / 4);
  assert.equal(busy.rejectedByReason, { 'queue-full': 5, 'time-out': 1 });
  assert.equal([busy.nominal, busy.lendable, busy.limit, busy.seatsInUse, busy.executing, busy.queued, busy.queuedSeats], [40, 10, 35, 35, 25, 7, 14]);
  const a = snapshot.flowSchemas.find((f) => f.name === 'a')!;
  assert.equal([a.level, a.dispatched, a.rejected, a.seatsInUse, a.queued], ['busy', 20, 6, 20, 7]);
  const idle = snapshot.levels.find((l) => l.name === 'idle')!;
  assert.equal([idle.nominal, idle.dispatched, idle.rejected, idle.waitP99], [10, 0, 0, undefined]);
});

test('wait p99 over the interval: the buckets’ deltas summed over the level’s FlowSchemas, executed requests only', () => {
  const snapshot = topSnapshot({ before: BEFORE, after: AFTER, elapsedSeconds: 4 });
  // 100 executed in the window: 20 ≤ 0.1 s, 70 in (0.1, 0.5], 10 in (0.5, 1]. Rank 99 falls in
  // (0.5, 1] at 9 of its 10: 0.5 + 0.5 × 9/10.
  const busy = snapshot.levels.find((l) => l.name === 'busy')!;
  assert.ok(Math.abs(busy.waitP99! - 0.95) < 1e-9, String(busy.waitP99));
  // b alone: all 20 under 0.1 s, so p99 is 0.099 by interpolation in (0, 0.1].
  const b = snapshot.flowSchemas.find((f) => f.name === 'b')!;
  assert.ok(Math.abs(b.waitP99! - 0.099) < 1e-9, String(b.waitP99));
});

test('one scrape: gauges, but no rates or p99 yet; a restarted server’s counters count from 0', () => {
  const first = topSnapshot({ after: AFTER, elapsedSeconds: 0 });
  const busy = first.levels.find((l) => l.name === 'busy')!;
  assert.equal([busy.seatsInUse, busy.dispatched, busy.rejected, busy.waitP99, first.intervalSeconds], [35, undefined, undefined, undefined, undefined]);
  // The server restarted between the scrapes: the "before" counters are higher than the "after" ones.
  const restarted = topSnapshot({ before: AFTER, after: BEFORE, elapsedSeconds: 10 });
  assert.is(restarted.levels.find((l) => l.name === 'busy')!.dispatched, 15);
});

test('flows from dump_requests: waiting and executing requests per FlowSchema × distinguisher, seats summed', () => {
  const dump = [
    'PriorityLevelName, FlowSchemaName, QueueIndex, RequestIndexInQueue, FlowDistingsher, ArriveTime, InitialSeats, FinalSeats, AdditionalLatency, StartTime',
    'busy,              a,              3,          0,                   alice,           t,          1,            0,          0s,                t0',
    'busy,              a,              3,          1,                   alice,           t,          2,            0,          0s,                t0',
    'busy,              a,              3,          -1,                  alice,           t,          1,            0,          0s,                t',
    'busy,              a,              5,          -1,                  bob,             t,          4,            0,          0s,                t',
    'exempt,            exempt,         -1,         -1,                  ,                t,          1,            0,          0s,                t',
  ].join('\n');
  const snapshot = topSnapshot({ after: AFTER, elapsedSeconds: 0, dumpRequests: dump });
  assert.equal(
    snapshot.flows!.map((f) => [f.flowSchema, f.flow, f.level, f.waiting, f.executing, f.seats]),
    [
      ['a', 'alice', 'busy', 2, 1, 4],
      ['a', 'bob', 'busy', 0, 1, 4],
      ['exempt', '', 'exempt', 0, 1, 1],
    ],
  );
});

test.run();
