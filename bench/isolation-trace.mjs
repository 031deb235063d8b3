// Preloaded into a `fairway serve` process by `bench/isolation.bench.ts --trace` (node --import):
// a timeline of what the server's main thread did, on CLOCK_MONOTONIC (process.hrtime), the clock
// bench/isolation-trace.lua stamps the wrk clients' requests with, so a slow GET can be laid over
// what happened in the server at that moment. Recorded:
//   gc     every garbage collection pause (PerformanceObserver 'gc'): start, duration, kind, flags
//   gap    every gap of more than GAP_MS between two ticks of a 1 ms timer (the loop was held, or the
//          thread was off its core), with the main thread's CPU time and run-queue wait during it
//          (/proc/thread-self/schedstat), so "busy" and "not scheduled" are told apart
//   get    every GET of one object over HTTP/1.1: parsed (http.server.request.start) to handed to
//          the socket (http.server.response.finish), and whose token it carried
//   list   every LIST: the same two instants
//   turn   every turn of the bulk scheduler (its diagnostics channel): start, duration, bytes, grants
// SIGUSR2 writes what was recorded since the previous signal to `$FAIRWAY_TRACE_DIR/<pid>-<n>.json`
// (n counts the dumps from 0; with the main thread's CPU time and run-queue wait so far, and the
// heap's and ArrayBuffers' size) and starts
// afresh. Diagnosis only: the 1 ms timer and the schedstat
// reads cost the loop about 1 % of a core.
import { subscribe } from 'node:diagnostics_channel';
import { openSync, readSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { PerformanceObserver, performance } from 'node:perf_hooks';

const DIR = process.env.FAIRWAY_TRACE_DIR;
const GAP_MS = 2;
const nowMs = () => Number(process.hrtime.bigint()) / 1e6;
// performance.now() and process.hrtime share uv_hrtime's monotonic clock; only the origin differs.
const perfToMono = nowMs() - performance.now();

// Records of `width` numbers in one growing Float64Array: outside the JS heap, so tracing a phase
// does not itself fill the old generation it is watching.
class Series {
  constructor(width) {
    this.width = width;
    this.values = new Float64Array(width * 4096);
    this.count = 0;
  }
  push(...values) {
    if ((this.count + 1) * this.width > this.values.length) {
      const grown = new Float64Array(this.values.length * 2);
      grown.set(this.values);
      this.values = grown;
    }
    this.values.set(values, this.count++ * this.width);
  }
  toJSON() {
    return Array.from({ length: this.count }, (_, i) => Array.from(this.values.subarray(i * this.width, (i + 1) * this.width)));
  }
}
/** Token tails, numbered in the series. */
const tokens = [];
const tokenIndex = (tail) => {
  const i = tokens.indexOf(tail);
  return i >= 0 ? i : tokens.push(tail) - 1;
};
const fresh = () => ({ gc: new Series(4), gap: new Series(4), get: new Series(3), list: new Series(3), turn: new Series(4) });
let records = fresh();

new PerformanceObserver((list) => {
  for (const e of list.getEntries()) records.gc.push(e.startTime + perfToMono, e.duration, e.detail?.kind ?? e.kind, e.detail?.flags ?? e.flags ?? 0);
}).observe({ entryTypes: ['gc'] });

// The main thread's own CPU time and run-queue wait, in ns.
const schedFd = openSync('/proc/thread-self/schedstat', 'r');
const schedBuf = Buffer.alloc(128);
const sched = () => {
  const n = readSync(schedFd, schedBuf, 0, schedBuf.length, 0);
  const [cpu, wait] = schedBuf.toString('latin1', 0, n).split(' ');
  return [Number(cpu), Number(wait)];
};
let last = nowMs();
let lastSched = sched();
setInterval(() => {
  const t = nowMs();
  const s = sched();
  if (t - last > GAP_MS + 1) records.gap.push(last, t - last, (s[0] - lastSched[0]) / 1e6, (s[1] - lastSched[1]) / 1e6);
  last = t;
  lastSched = s;
}, 1).unref();

const started = new WeakMap();
subscribe('http.server.request.start', ({ request, response }) => {
  if (request.method !== 'GET') return;
  const auth = request.headers.authorization ?? '';
  started.set(response, [nowMs(), request.url.includes('/flowschemas/') ? 'get' : 'list', tokenIndex(auth.slice(-6))]);
});
subscribe('http.server.response.finish', ({ response }) => {
  const s = started.get(response);
  if (s === undefined) return;
  started.delete(response);
  records[s[1]].push(s[0], nowMs() - s[0], s[2]);
});

// The server's bulk scheduler times its turns with performance.now().
subscribe('fairway:bulk-scheduler:turn', ({ startMs, durationMs, bytes, grants }) => records.turn.push(startMs + perfToMono, durationMs, bytes, grants));

let dumps = 0;
process.on('SIGUSR2', () => {
  if (DIR === undefined) return;
  const [cpu, wait] = sched();
  const file = join(DIR, `${process.pid}-${dumps++}.json`);
  const { heapUsed, external, arrayBuffers } = process.memoryUsage();
  const mb = (bytes) => bytes / 1048576;
  const memory = { heapMb: mb(heapUsed), externalMb: mb(external), arrayBuffersMb: mb(arrayBuffers) };
  const named = (series) => series.toJSON().map(([at, duration, token]) => [at, duration, tokens[token]]);
  const dump = { at: nowMs(), cpuMs: cpu / 1e6, waitMs: wait / 1e6, memory, ...records, get: named(records.get), list: named(records.list) };
  writeFileSync(`${file}.tmp`, JSON.stringify(dump));
  renameSync(`${file}.tmp`, file);
  records = fresh();
});
