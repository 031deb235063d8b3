import { IncomingMessage, ServerResponse } from 'node:http';
import { Socket } from 'node:net';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import type { Admission } from '../../engine/flowcontrol/queue-set.ts';
import { SimClock } from '../../engine/sim-clock.ts';
import type { RequestContext } from '../request/http-context.ts';
import { AUTHENTICATED, digestOf, MASTERS, newTestController } from '../filters/testing/apf-fixtures.ts';
import { createApfDebugHandlers, renderPriorityLevels, renderQueues, renderRequests } from './apf-dump.ts';
import { UNDETACHED } from '../request/testing/request-context.ts';

// 2024-01-02T03:04:05.678Z plus half a millisecond.
const T0_MS = Date.UTC(2024, 0, 2, 3, 4, 5, 678) + 0.5;

/** Level tiny (2 seats, one queue of 2): mallory ×3 at T0, one more 1.5 ms later; root (exempt) at T0. */
function scenario() {
  const clock = new SimClock(T0_MS);
  const controller = newTestController({ clock });
  const admit = (user: string, groups: string[]): Admission => controller.admit({ digest: digestOf(user, groups), query: {}, waitLimitMs: 10_000 }, () => {});
  const mallory = [admit('mallory', AUTHENTICATED), admit('mallory', AUTHENTICATED), admit('mallory', AUTHENTICATED)];
  admit('root', MASTERS);
  clock.advance(1.5);
  mallory.push(admit('mallory', AUTHENTICATED));
  return { clock, controller, mallory };
}

const cellsOf = (line: string) => line.split(',').map((c) => c.trim());

test('dump_priority_levels: header, one row per level sorted by name, time-outs counted as cancellations', () => {
  const { clock, controller, mallory } = scenario();
  let lines = renderPriorityLevels(controller.dump()).split('\n');
  assert.is(
    lines[0],
    'PriorityLevelName, ActiveQueues, IsIdle, IsQuiescing, WaitingRequests, ExecutingRequests, DispatchedRequests, RejectedRequests, ' +
      'TimedoutRequests, CancelledRequests',
  );
  assert.equal(
    lines.slice(1, -1).map((l) => cellsOf(l)[0]),
    ['catch-all', 'exempt', 'tiny'],
  );
  assert.is(
    lines[3],
    `${'tiny,'.padEnd(19)}${'1,'.padEnd(14)}${'false,'.padEnd(8)}${'false,'.padEnd(13)}${'2,'.padEnd(17)}${'2,'.padEnd(19)}${'2,'.padEnd(20)}` +
      `${'0,'.padEnd(18)}${'0,'.padEnd(18)}0`,
  );
  assert.is(lines.at(-1), '', 'every row ends with a newline');

  mallory[2]!.cancel(); // the client went away
  clock.advance(10_000); // the other waiting request reaches its wait limit
  lines = renderPriorityLevels(controller.dump()).split('\n');
  assert.equal(cellsOf(lines[3]!), ['tiny', '0', 'false', 'false', '0', '2', '2', '2', '0', '2']);
});

test('dump_queues: one row per queue with SeatSeconds in %d.%08dss', () => {
  const { controller } = scenario();
  const lines = renderQueues(controller.dump()).split('\n');
  assert.is(lines[0], 'PriorityLevelName, Index,  PendingRequests, ExecutingRequests, SeatsInUse, NextDispatchR, InitialSeatsSum, MaxSeatsSum, TotalWorkSum');
  assert.is(lines.length, 3, 'only tiny has a queue');
  // Two dispatches of 1 seat × G (3 ms) each moved the queue's R to 0.006 ss; two wait, 0.003 ss each.
  assert.is(
    lines[1],
    `${'tiny,'.padEnd(19)}${'0,'.padEnd(8)}${'2,'.padEnd(17)}${'2,'.padEnd(19)}${'2,'.padEnd(12)}${'0.00600000ss,'.padEnd(15)}${'2,'.padEnd(17)}` +
      `${'2,'.padEnd(13)}0.00600000ss`,
  );
});

test('dump_requests: waiting in queue order, then executing, then queueless; RFC3339Nano UTC times', () => {
  const { controller } = scenario();
  const lines = renderRequests(controller.dump(), false).split('\n');
  const arriveWidth = '2024-01-02T03:04:05.6785Z,'.length + 1;
  assert.is(
    lines[0],
    `PriorityLevelName, FlowSchemaName, QueueIndex, RequestIndexInQueue, FlowDistingsher, ${'ArriveTime,'.padEnd(arriveWidth)}InitialSeats, ` +
      'FinalSeats, AdditionalLatency, StartTime',
  );
  assert.equal(
    lines.slice(1, -1).map((l) => cellsOf(l).slice(0, 5).join(' ')),
    // A level with a single queue computes no flow distinguisher, as upstream.
    ['exempt exempt -1 -1 ', 'tiny flood 0 0 ', 'tiny flood 0 1 ', 'tiny flood 0 -1 ', 'tiny flood 0 -1 '],
  );
  assert.is(
    lines[3],
    `${'tiny,'.padEnd(19)}${'flood,'.padEnd(16)}${'0,'.padEnd(12)}${'1,'.padEnd(21)}${','.padEnd(17)}` +
      `${'2024-01-02T03:04:05.68Z,'.padEnd(arriveWidth)}${'1,'.padEnd(14)}${'0,'.padEnd(12)}${'0s,'.padEnd(19)}0001-01-01T00:00:00Z`,
  );
  assert.equal(cellsOf(lines[4]!).slice(5), ['2024-01-02T03:04:05.6785Z', '1', '0', '0s', '2024-01-02T03:04:05.6785Z']);
});

test('dump_requests with includeRequestDetails adds who and what, through the HTTP handler', async () => {
  const { controller } = scenario();
  const handlers = createApfDebugHandlers(controller);
  const req = new IncomingMessage(new Socket());
  const res = new ServerResponse(req);
  let body = '';
  res.end = ((chunk: string) => {
    body = chunk;
    return res;
  }) as typeof res.end;
  const context: RequestContext = {
    req,
    res,
    url: new URL('http://localhost/debug/api_priority_and_fairness/dump_requests?includeRequestDetails=1'),
    query: new URLSearchParams('includeRequestDetails=1'),
    requestInfo: digestOf('x', []).requestInfo,
    user: undefined,
    receivedMs: 0,
    deadlineMs: 0,
    signal: new AbortController().signal,
    watchInitialized: Promise.resolve(),
    markWatchInitialized: () => {},
    ...UNDETACHED,
  };
  await handlers.byPath.get('/debug/api_priority_and_fairness/dump_requests')!(context);
  assert.is(res.statusCode, 200);
  assert.is(res.getHeader('content-type'), 'text/plain; charset=utf-8');
  const lines = body.split('\n');
  assert.equal(cellsOf(lines[0]!).slice(10), ['UserName', 'Verb', 'APIPath', 'Namespace', 'Name', 'APIVersion', 'Resource', 'SubResource']);
  assert.equal(cellsOf(lines[2]!).slice(10), ['mallory', 'list', '/api/v1/namespaces/default/pods', 'default', '', 'v1', 'pods', '']);
  // Columns line up: every row's cells start where the header's do.
  const starts = (line: string) => [...line.matchAll(/(?:^|, +)(?=\S)/g)].map((m) => m.index! + m[0].length);
  assert.equal(starts(lines[2]!).slice(0, 10), starts(lines[0]!).slice(0, 10));
});

test.run();
