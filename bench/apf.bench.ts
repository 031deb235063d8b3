// What API Priority and Fairness costs the server: loopback throughput of a node:http server running
// the API server's request path with the APF filter (plus the flow-control metrics it feeds) in
// front of a trivial handler, against the same server without it, in the same run; and the admit +
// finish cost per request through the controller on the real clock.
//
//   node --import tsx bench/apf.bench.ts                 (about 40 s on 2 cores)
//   BENCH_QUICK=1 node --import tsx bench/apf.bench.ts   (shorter rounds, a smoke run)
//
// The load comes from wrk (a C client, faster than the server it loads; `apf-users.lua` sends as four
// users in turn), keep-alive connections, a fixed number of requests in flight; rounds alternate
// off/on so drift hits both alike. Server CPU per request is reported beside req/s. Prints a table,
// then one JSON line (`{"bench":"apf",...}`). Figures are recorded in docs/benchmarks.md.
// It fails (exit code 1) if seats are still held once the load has ended, if APF rejected any
// request, or if APF on serves under a quarter of APF off: the signs of seats not being released.

import { fileURLToPath } from 'node:url';
import { realClock } from '../engine/clock.ts';
import { FlowController, type FlowControlObserver } from '../engine/flowcontrol/controller.ts';
import type { RequestInfo } from '../engine/request/request-info.ts';
import { createPriorityAndFairnessFilter } from '../api/filters/priority-and-fairness.ts';
import { createFairwayMetrics } from '../api/metrics/fairway-metrics.ts';
import { defaultApfConfig } from '../api/filters/testing/apf-fixtures.ts';
import type { ApiServer } from '../api/assembly/request-path.ts';
import { BENCH_POD_PATH, seatsHeld, startBenchServer } from './apf-bench-server.ts';
import { requestsPerSecond, requireWrk, runWrk } from './wrk.ts';

const QUICK = process.env['BENCH_QUICK'] === '1';
const ROUND_MS = QUICK ? 1_000 : 2_000;
const ROUNDS = QUICK ? 2 : 8;
const IN_FLIGHT = 32;
/** wrk's script: four users in turn (four APF flows), and wrk's summary as a JSON line. */
const USERS_SCRIPT = fileURLToPath(new URL('./apf-users.lua', import.meta.url));
const median = (xs: number[]): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? Number.NaN;

// --- the load generator (child process) ------------------------------------------------------

// --- the server under test ----------------------------------------------------------------------

const requestInfo: RequestInfo = {
  isResourceRequest: true,
  path: BENCH_POD_PATH,
  verb: 'get',
  apiPrefix: 'api',
  apiGroup: '',
  apiVersion: 'v1',
  namespace: 'default',
  resource: 'pods',
  subresource: '',
  name: 'p',
};

function newController(observer?: FlowControlObserver): FlowController {
  const controller = new FlowController({
    clock: realClock(),
    serverConcurrencyLimit: 600,
    defaultWaitLimitMs: 15_000,
    estimator: { objectCount: () => ({ count: 50 }), watchCount: () => 0 },
    observer,
  });
  controller.configure(defaultApfConfig());
  return controller;
}

interface Round {
  perSecond: number;
  /** Server-process CPU time (user + system) per request served: insensitive to other processes. */
  cpuMicrosPerRequest: number;
}

async function measure(port: number): Promise<Round> {
  const cpuBefore = process.cpuUsage();
  const result = await runWrk({ url: `http://127.0.0.1:${port}${BENCH_POD_PATH}`, connections: IN_FLIGHT, seconds: ROUND_MS / 1000, script: USERS_SCRIPT });
  const cpu = process.cpuUsage(cpuBefore);
  if (result.non2xx + result.connectErrors + result.readErrors + result.writeErrors + result.timeouts > 0) {
    throw new Error(`wrk saw errors: ${JSON.stringify(result)}`);
  }
  return { perSecond: requestsPerSecond(result), cpuMicrosPerRequest: (cpu.user + cpu.system) / result.requests };
}

function admitFinishMicros(controller: FlowController, n: number): number {
  const digest = { user: { name: 'alice', groups: ['system:authenticated'] }, requestInfo };
  const query = new URLSearchParams();
  const pass = () => {
    for (let i = 0; i < n; i++) controller.admit({ digest, query }, () => {}).finish();
  };
  pass(); // warm-up
  const start = process.hrtime.bigint();
  pass();
  return Number(process.hrtime.bigint() - start) / 1000 / n;
}

async function main(): Promise<void> {
  requireWrk();
  const clock = realClock();
  const metrics = createFairwayMetrics();
  const controller = newController(metrics.flowControl.observer);
  metrics.flowControl.attach(controller);
  // Admit + finish first, on controllers nothing else has used, so that the HTTP rounds' books
  // (queue virtual times, the metrics' series) are not part of the figure.
  const n = QUICK ? 50_000 : 300_000;
  const withMetrics = admitFinishMicros(controller, n);
  const bare = admitFinishMicros(newController(), n);
  const apf = createPriorityAndFairnessFilter({ controller, enforce: true, clock, observer: metrics.apfFilterObserver });
  const off = await startBenchServer([]);
  const on = await startBenchServer([apf]);

  const offRounds: Round[] = [];
  const onRounds: Round[] = [];
  for (let round = 0; round < ROUNDS; round++) {
    // Pairs back to back, alternating which goes first, so that load from other processes and a
    // warming machine hit both sides alike; the ratio is taken per pair.
    if (round % 2 === 0) {
      offRounds.push(await measure(off.port));
      onRounds.push(await measure(on.port));
    } else {
      onRounds.push(await measure(on.port));
      offRounds.push(await measure(off.port));
    }
  }
  await allEnded([off.api, on.api]);
  off.server.close();
  on.server.close();
  metrics.stop();
  const global = controller.dump().levels.find((l) => l.name === 'global-default')!.queueSet;
  const held = seatsHeld(controller);

  const offMedian = median(offRounds.map((r) => r.perSecond));
  const onMedian = median(onRounds.map((r) => r.perSecond));
  const pairRatio = median(onRounds.map((r, i) => r.perSecond / offRounds[i]!.perSecond));
  const offCpu = median(offRounds.map((r) => r.cpuMicrosPerRequest));
  const onCpu = median(onRounds.map((r) => r.cpuMicrosPerRequest));
  const results = {
    bench: 'apf',
    node: process.version,
    quick: QUICK,
    inFlight: IN_FLIGHT,
    roundMs: ROUND_MS,
    offPerSecond: offRounds.map((r) => Math.round(r.perSecond)),
    onPerSecond: onRounds.map((r) => Math.round(r.perSecond)),
    throughputRatio: pairRatio,
    offServerCpuMicrosPerRequest: offCpu,
    onServerCpuMicrosPerRequest: onCpu,
    serverCapacityRatio: offCpu / onCpu,
    dispatchedThroughApf: global.dispatched,
    rejectedThroughApf: global.rejected,
    admitFinishMicros: withMetrics,
    admitFinishMicrosWithoutMetrics: bare,
  };
  console.log(`server, ${IN_FLIGHT} in flight, ${ROUNDS} rounds of ${ROUND_MS} ms per side   req/s (median)   server CPU µs/request (median)`);
  console.log(`  APF off                                          ${String(Math.round(offMedian)).padStart(8)}   ${offCpu.toFixed(1).padStart(8)}`);
  console.log(`  APF on (filter + metrics)                        ${String(Math.round(onMedian)).padStart(8)}   ${onCpu.toFixed(1).padStart(8)}`);
  console.log(`  throughput ratio on/off (median of pairs)        ${pairRatio.toFixed(3)}`);
  console.log(`  server capacity ratio (CPU per request off/on)   ${(offCpu / onCpu).toFixed(3)}`);
  console.log(`admit + finish per request (global-default, real clock):`);
  console.log(`  with the metrics observer      ${withMetrics.toFixed(2)} µs`);
  console.log(`  without an observer            ${bare.toFixed(2)} µs`);
  console.log(JSON.stringify(results));
  failIfImplausible(held, global.rejected, pairRatio);
}

/** Waits (at most 5 s) for the requests the last round left in flight: their responses may still be closing. */
async function allEnded(servers: ApiServer[]): Promise<void> {
  for (let i = 0; i < 500 && servers.some((s) => s.inFlight > 0); i++) await new Promise((resolve) => setTimeout(resolve, 10));
}

function failIfImplausible(held: { seatsInUse: number; waiting: number }, rejected: number, pairRatio: number): void {
  const problems: string[] = [];
  if (held.seatsInUse !== 0 || held.waiting !== 0)
    problems.push(`after the load: ${held.seatsInUse} seats in use, ${held.waiting} requests waiting (want 0 and 0)`);
  if (rejected !== 0) problems.push(`APF rejected ${rejected} requests (32 in flight never exceed global-default's share)`);
  if (!(pairRatio >= 0.25)) problems.push(`APF on served ${pairRatio.toFixed(3)}× the requests of APF off`);
  if (problems.length === 0) return;
  console.error(`apf bench: implausible result, seats are probably not released:\n  ${problems.join('\n  ')}`);
  process.exitCode = 1;
}

// Last, so that every module-level constant above is initialised.
await main();
