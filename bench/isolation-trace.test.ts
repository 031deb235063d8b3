import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { attributeSlow, parseClientTrace, summarizeServer, type ServerTrace } from './isolation-trace.ts';

const trace = (parts: Partial<ServerTrace>): ServerTrace => ({ at: 0, cpuMs: 0, waitMs: 0, gc: [], gap: [], get: [], list: [], turn: [], ...parts });

test('parseClientTrace reads "sent received" lines and skips anything else', () => {
  assert.equal(parseClientTrace('10.5 11.25\n\n20 23\ngarbage\n'), [
    { sent: 10.5, received: 11.25 },
    { sent: 20, received: 23 },
  ]);
});

test('a slow request is split into before parse, in server and after send, and fast ones are left out', () => {
  const client = [
    { sent: 0, received: 1 },
    { sent: 2, received: 12 },
    { sent: 13, received: 14 },
  ];
  const server: [number, number, string][] = [
    [0.2, 0.5, 'tok'],
    [8, 1, 'tok'],
    [13.2, 0.5, 'tok'],
  ];
  const s = attributeSlow(client, server, trace({}), 3);
  assert.is(s.requests, 3);
  assert.is(s.slow, 1);
  assert.is(s.slowMs, 10);
  assert.is(s.beforeMs, 6);
  assert.is(s.serverMs, 1);
  assert.is(s.afterMs, 3);
});

test('a slow request the server never saw counts wholly as before parse', () => {
  const s = attributeSlow([{ sent: 0, received: 10 }], [[20, 1, 'tok']], trace({}), 3);
  assert.is(s.beforeMs, 10);
  assert.is(s.serverMs, 0);
});

test('GC pauses, loop gaps and bulk turns count only where they overlap a slow request', () => {
  const s = attributeSlow(
    [
      { sent: 10, received: 20 },
      { sent: 30, received: 31 },
    ],
    [],
    trace({
      gc: [
        [8, 4, 4],
        [15, 1, 1],
        [30, 1, 1],
      ],
      gap: [[18, 4, 1, 2]],
      turn: [[19, 0.5, 65536, 1]],
    }),
    3,
  );
  assert.equal(s.gcMs, { 'mark-compact': 2, scavenge: 1 });
  assert.is(s.gapMs, 2);
  assert.is(s.gapWaitMs, 1);
  assert.is(s.turnMs, 0.5);
});

test('summarizeServer counts pauses by kind, gaps with their off-core part, and long turns', () => {
  const s = summarizeServer(
    trace({
      gc: [
        [0, 2, 1],
        [5, 3, 1, 32],
        [9, 40, 4, 4],
      ],
      gap: [
        [0, 4, 3, 1],
        [10, 6, 0, 9],
      ],
      turn: [
        [0, 0.4, 1, 1],
        [1, 1.5, 1, 1],
      ],
    }),
  );
  assert.equal(s.gc, { scavenge: { count: 2, totalMs: 5, maxMs: 3, external: 1 }, 'mark-compact': { count: 1, totalMs: 40, maxMs: 40, external: 0 } });
  assert.equal(s.gaps, { count: 2, maxMs: 6, totalMs: 10, waitMs: 7 });
  assert.equal(s.turns, { count: 2, maxMs: 1.5, over1Ms: 1 });
});

test.run();
