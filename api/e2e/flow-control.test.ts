// End to end, API Priority and Fairness on a running `fairway serve`:
// - at the default configuration (--max-requests-inflight 400 + --max-mutating-requests-inflight
//   200 = ServerCL 600), /metrics reports the concurrency limits of apf-semantics 11.2;
// - one user flooding a small Reject level with slow LISTs gets 429 with Retry-After, while
//   system:masters (exempt) and another level's user keep succeeding (scenario:
//   api/commands/testing/overload.ts).
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { startServerProcess, type ServerProcess } from '../commands/testing/server-process.ts';
import { FLOOD_LEVEL, PLC_PATH, probe, startFlood, startOverloadServer, type OverloadServer } from '../commands/testing/overload.ts';
import { sampleValue, scrape, series } from '../testing/metrics.ts';
import { timedRequest } from '../testing/load.ts';
import { TOO_MANY_REQUESTS_TEXT } from '../../engine/status/errors.ts';
import { FLOW_SCHEMA_UID_HEADER, PRIORITY_LEVEL_UID_HEADER } from '../filters/priority-and-fairness.ts';

// apf-semantics 11.2 (ServerCL 600): NominalCL, MinCL (lower) and MaxCL (upper) per level.
const REFERENCE_600: Record<string, { nominal: number; lower: number; upper: number }> = {
  exempt: { nominal: 0, lower: 0, upper: 600 },
  'catch-all': { nominal: 13, lower: 13, upper: 613 },
  system: { nominal: 74, lower: 50, upper: 674 },
  'node-high': { nominal: 98, lower: 73, upper: 698 },
  'leader-election': { nominal: 25, lower: 25, upper: 625 },
  'workload-high': { nominal: 98, lower: 49, upper: 698 },
  'workload-low': { nominal: 245, lower: 24, upper: 845 },
  'global-default': { nominal: 49, lower: 24, upper: 649 },
};

let defaults: ServerProcess;
let overload: OverloadServer;

test.before(async () => {
  [defaults, overload] = await Promise.all([
    startServerProcess(),
    // 150 objects of ~64 KB: one LIST is ~10 MB, more than loopback socket buffers take, and 2 seats.
    // It also shows the metrics 1.32 hides, as --show-hidden-metrics-for-version=1.31 asks.
    startOverloadServer({ bulkObjects: 150, annotationBytes: 64_000, start: { args: ['--show-hidden-metrics-for-version=1.31'] } }),
  ]);
});

test.after(async () => {
  const codes = await Promise.all([defaults.stop(), overload.close()]);
  assert.equal(codes, [0, 0], 'both servers exit 0 on SIGTERM');
});

test('/metrics at the default configuration (ServerCL 600) gives the reference concurrency limits', async () => {
  const endpoint = { url: defaults.url, caPem: defaults.caPem };
  let text = await scrape(endpoint, defaults.token);
  // The controller digests the bootstrap configuration just after /readyz passes.
  for (let attempt = 0; series(text, 'apiserver_flowcontrol_nominal_limit_seats').length < 8 && attempt < 100; attempt++) {
    await new Promise((resolve) => setTimeout(resolve, 50));
    text = await scrape(endpoint, defaults.token);
  }
  // request_concurrency_limit, deprecated in 1.30, is hidden in 1.32.
  assert.is(series(text, 'apiserver_flowcontrol_request_concurrency_limit').length, 0);
  const levels = series(text, 'apiserver_flowcontrol_nominal_limit_seats')
    .map((s) => s.labels.priority_level)
    .sort();
  assert.equal(levels, Object.keys(REFERENCE_600).sort(), 'one nominal_limit_seats series per default level');
  for (const [level, expected] of Object.entries(REFERENCE_600)) {
    const labels = { priority_level: level };
    assert.is(sampleValue(text, 'apiserver_flowcontrol_nominal_limit_seats', labels), expected.nominal, `${level} nominal`);
    assert.is(sampleValue(text, 'apiserver_flowcontrol_lower_limit_seats', labels), expected.lower, `${level} lower`);
    assert.is(sampleValue(text, 'apiserver_flowcontrol_upper_limit_seats', labels), expected.upper, `${level} upper`);
  }
});

test('a flood of slow LISTs on a Reject level gets 429 with Retry-After; exempt and another level keep succeeding', async () => {
  const before = await scrape(overload.endpoint, overload.tokens.admin);
  const flood = await startFlood(overload, { workers: 10, holdMs: 1_000, backoffMs: 0 });
  const [exempt, other] = await Promise.all([probe(overload, overload.tokens.admin, 2_000), probe(overload, overload.tokens.bob, 2_000)]);
  const result = await flood.stop();

  assert.ok(result.counts.get(429) > 0, `the flood is rejected: ${result.counts}`);
  assert.ok(result.counts.get(200) > 0, `the level still serves the flood one LIST at a time: ${result.counts}`);
  // The hidden metrics the overload server was asked to show equal the ones that replaced them.
  const shown = await scrape(overload.endpoint, overload.tokens.admin);
  for (const level of ['exempt', 'global-default']) {
    const labels = { priority_level: level };
    assert.is(
      sampleValue(shown, 'apiserver_flowcontrol_request_concurrency_limit', labels),
      sampleValue(shown, 'apiserver_flowcontrol_nominal_limit_seats', labels),
      `${level} request_concurrency_limit`,
    );
  }
  assert.ok(series(shown, 'apiserver_flowcontrol_request_concurrency_in_use').length > 0, 'request_concurrency_in_use is shown');
  assert.equal(result.failures, [], 'no 5xx and no broken connection for the flood');
  assert.is(result.counts.total, result.counts.get(200) + result.counts.get(429), `only 200 and 429: ${result.counts}`);
  assert.is(result.missingRetryAfter, 0, 'every 429 carries Retry-After');
  for (const seconds of result.retryAfterSeconds) assert.ok(Number.isInteger(seconds) && seconds >= 1 && seconds <= 32, `Retry-After ${seconds}`);

  const rejection = result.sampleRejection!;
  assert.is(rejection.text, `${TOO_MANY_REQUESTS_TEXT}\n`);
  assert.is(rejection.headers['content-type'], 'text/plain; charset=utf-8');
  const level = await timedRequest(overload.endpoint, `${PLC_PATH}/${FLOOD_LEVEL}`, { token: overload.tokens.admin });
  assert.is(rejection.headers[PRIORITY_LEVEL_UID_HEADER.toLowerCase()], JSON.parse(level.text).metadata.uid, 'the 429 names the flooded level');
  assert.ok(rejection.headers[FLOW_SCHEMA_UID_HEADER.toLowerCase()], 'and its FlowSchema');

  for (const [who, run] of [
    ['system:masters (exempt)', exempt],
    ['bob (e2e-other)', other],
  ] as const) {
    assert.ok(run.counts.total > 0, `${who} sent requests`);
    assert.equal(run.failures, [], `${who}: every request succeeds during the flood`);
  }

  const after = await scrape(overload.endpoint, overload.tokens.admin);
  const rejected = (text: string) =>
    sampleValue(text, 'apiserver_flowcontrol_rejected_requests_total', { priority_level: FLOOD_LEVEL, reason: 'concurrency-limit' }) ?? 0;
  assert.is(rejected(after) - rejected(before), result.counts.get(429), 'the metric counts exactly the 429s the flood saw');
  for (const levelName of ['exempt', 'e2e-other']) {
    assert.is(
      series(after, 'apiserver_flowcontrol_rejected_requests_total').filter((s) => s.labels.priority_level === levelName).length,
      0,
      `nothing rejected at ${levelName}`,
    );
  }
});

test.run();
