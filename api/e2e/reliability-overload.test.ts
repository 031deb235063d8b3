// Reliability 1 (docs/reliability.md), overload isolation on a running `fairway serve`: one user floods a
// Reject level of capacity one LIST with ten closed-loop clients (10×) that read each admitted
// 10 MB LIST slowly and retry a 429 at once. Before, during and after the flood, a
// system:masters client (exempt) and a client of another level send small requests back to back.
// Asserted: the flood gets 429 with Retry-After and nothing else fails, nobody gets a 5xx, the two
// probes never fail, and after the flood the level is idle and serves the flooding user again.
// Measured (printed, recorded in docs/reliability.md, never asserted): p50/p99 per phase.
// FAIRWAY_LONG=1: 10 s phases instead of 1.5 s.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import {
  FLOOD_LEVEL,
  FS_PATH,
  probe,
  startFlood,
  startOverloadServer,
  summarize,
  type OverloadServer,
  type ProbeResult,
} from '../commands/testing/overload.ts';
import { timedRequest } from '../testing/load.ts';

const LONG = process.env.FAIRWAY_LONG === '1';
const PHASE_MS = LONG ? 10_000 : 1_500;
const FLOOD_WORKERS = 10;

let target: OverloadServer;

test.before(async () => {
  target = await startOverloadServer({ bulkObjects: 150, annotationBytes: 64_000 });
});

test.after(async () => {
  assert.is(await target.close(), 0, 'the server exits 0 on SIGTERM');
});

const probes = () => Promise.all([probe(target, target.tokens.admin, PHASE_MS), probe(target, target.tokens.bob, PHASE_MS)]);

const describe = (phase: string, [exempt, other]: ProbeResult[]) => {
  const e = summarize(exempt!.latenciesMs);
  const o = summarize(other!.latenciesMs);
  const ms = (value: number) => value.toFixed(2);
  return `${phase}: exempt n=${e.requests} p50=${ms(e.p50Ms)} p99=${ms(e.p99Ms)} ms; other level n=${o.requests} p50=${ms(o.p50Ms)} p99=${ms(o.p99Ms)} ms`;
};

/** The ExecutingRequests and WaitingRequests columns of a level in dump_priority_levels. */
async function levelLoad(name: string): Promise<{ executing: number; waiting: number }> {
  const dump = await timedRequest(target.endpoint, '/debug/api_priority_and_fairness/dump_priority_levels', { token: target.tokens.admin });
  const header = dump.text
    .split('\n')[0]!
    .split(',')
    .map((cell) => cell.trim());
  const row = dump.text
    .split('\n')
    .find((line) => line.split(',')[0]!.trim() === name)!
    .split(',')
    .map((cell) => cell.trim());
  return { executing: Number(row[header.indexOf('ExecutingRequests')]), waiting: Number(row[header.indexOf('WaitingRequests')]) };
}

test('a 10× flood of one level is shed with 429s; exempt and another level keep working; the server recovers', async () => {
  const before = await probes();
  const flood = await startFlood(target, { workers: FLOOD_WORKERS, holdMs: 1_000, backoffMs: 0 });
  const during = await probes();
  const result = await flood.stop();
  const after = await probes();

  const lines = [
    describe('before', before),
    describe('during', during),
    describe('after', after),
    `flood: ${result.counts} (Retry-After seen: ${[...new Set(result.retryAfterSeconds)].sort((a, b) => a - b).join(', ')})`,
  ];
  console.log(`\n  reliability-overload (${LONG ? 'long' : 'short'} form)\n  ${lines.join('\n  ')}`);

  assert.ok(result.counts.get(429) > result.counts.get(200), `the flood is mostly shed: ${result.counts}`);
  assert.equal(result.failures, [], 'no 5xx and no broken connection in the flood');
  assert.is(result.counts.total, result.counts.get(200) + result.counts.get(429), `the flood sees only 200 and 429: ${result.counts}`);
  assert.is(result.missingRetryAfter, 0, 'every 429 has Retry-After');
  for (const [phase, runs] of [
    ['before', before],
    ['during', during],
    ['after', after],
  ] as const) {
    for (const run of runs) {
      assert.ok(run.counts.total > 0, `${phase}: probes ran`);
      assert.equal(run.failures, [], `${phase}: every probe request succeeds`);
    }
  }

  // Recovery: nothing left executing or waiting at the flooded level, and its user is served again.
  assert.equal(await levelLoad(FLOOD_LEVEL), { executing: 0, waiting: 0 });
  const again = await timedRequest(target.endpoint, FS_PATH, { token: target.tokens.flooder, discardBody: true });
  assert.is(again.status, 200, 'the flooding user is served once the flood stops');
});

test.run();
