// `bench/isolation.bench.ts --trace`: lays each slow GET the wrk clients saw over what the server's
// main thread did meanwhile (bench/isolation-trace.mjs records the server, bench/isolation-trace.lua
// the clients, both on CLOCK_MONOTONIC), and splits its latency into where it went:
//   before  sent by the client → parsed by the server: the request waited for the server's loop
//           (held by other work or a GC pause, or the thread was off its core)
//   server  parsed → handed to the socket
//   after   handed to the socket → read by the client: the client was not running
// Pure: parsed records in, a summary out.

/** One dump of bench/isolation-trace.mjs (times in ms on CLOCK_MONOTONIC). */
export interface ServerTrace {
  at: number;
  /** The main thread's CPU time and run-queue wait so far. */
  cpuMs: number;
  waitMs: number;
  /** At the dump: the JS heap in use, memory outside it (external), and ArrayBuffers' part of that, in MiB. */
  memory?: { heapMb: number; externalMb: number; arrayBuffersMb: number };
  /** [start, duration, V8 GC type, GC callback flags] */
  gc: [number, number, number, number?][];
  /** [start, duration, main thread CPU ms in it, run-queue wait ms in it] */
  gap: [number, number, number, number][];
  /** [parsed, duration, token tail] */
  get: [number, number, string][];
  list: [number, number, string][];
  /** [start, duration, bytes, grants] of the bulk scheduler's turns */
  turn?: [number, number, number, number][];
}

/** One request as the client saw it. */
export interface ClientRequest {
  sent: number;
  received: number;
}

/** v8::GCCallbackFlags' bit for a collection V8 started because memory outside its heap (ArrayBuffers) grew. */
const GC_FLAG_EXTERNAL_MEMORY = 32;

/** V8's GC types (v8::GCType) as perf_hooks reports them. */
const GC_KINDS: Readonly<Record<number, string>> = { 1: 'scavenge', 2: 'minor-mc', 4: 'mark-compact', 8: 'incremental', 16: 'weak-callbacks' };

export function parseClientTrace(text: string): ClientRequest[] {
  const out: ClientRequest[] = [];
  for (const line of text.split('\n')) {
    const [sent, received] = line.split(' ').map(Number);
    if (sent !== undefined && received !== undefined && Number.isFinite(sent) && Number.isFinite(received)) out.push({ sent, received });
  }
  return out;
}

const overlap = (a0: number, a1: number, b0: number, b1: number): number => Math.max(0, Math.min(a1, b1) - Math.max(a0, b0));

export interface SlowSummary {
  requests: number;
  /** Requests slower than the threshold, and their latency in all. */
  slow: number;
  slowMs: number;
  /** Where the slow requests' time went (ms, summed): see the header. Unmatched requests count as `before`. */
  beforeMs: number;
  serverMs: number;
  afterMs: number;
  /** GC pauses of the server during the slow requests (ms of overlap, by kind). */
  gcMs: Record<string, number>;
  /** Loop gaps during the slow requests: ms of overlap, and the part the thread spent off its core. */
  gapMs: number;
  gapWaitMs: number;
  /** Bulk-scheduler turns during the slow requests: ms of overlap. */
  turnMs: number;
}

/**
 * The requests of one client slower than `thresholdMs`, attributed. `server` holds the server's
 * requests of this client only, in order; the client has one connection, so the server's request
 * parsed within [sent, received] is this one.
 */
export function attributeSlow(
  client: readonly ClientRequest[],
  server: readonly [number, number, string][],
  trace: ServerTrace,
  thresholdMs: number,
): SlowSummary {
  const summary: SlowSummary = {
    requests: client.length,
    slow: 0,
    slowMs: 0,
    beforeMs: 0,
    serverMs: 0,
    afterMs: 0,
    gcMs: {},
    gapMs: 0,
    gapWaitMs: 0,
    turnMs: 0,
  };
  let s = 0;
  for (const request of client) {
    while (s < server.length && server[s]![0] < request.sent) s++;
    const latency = request.received - request.sent;
    const match = s < server.length && server[s]![0] <= request.received ? server[s] : undefined;
    if (match !== undefined) s++;
    if (latency <= thresholdMs) continue;
    summary.slow++;
    summary.slowMs += latency;
    if (match === undefined) summary.beforeMs += latency;
    else {
      const [parsed, duration] = match;
      summary.beforeMs += parsed - request.sent;
      summary.serverMs += duration;
      summary.afterMs += Math.max(0, request.received - parsed - duration);
    }
    for (const [start, duration, kind] of trace.gc) {
      const ms = overlap(request.sent, request.received, start, start + duration);
      if (ms > 0) {
        const name = GC_KINDS[kind] ?? String(kind);
        summary.gcMs[name] = (summary.gcMs[name] ?? 0) + ms;
      }
    }
    for (const [start, duration, , waitMs] of trace.gap) {
      const ms = overlap(request.sent, request.received, start, start + duration);
      summary.gapMs += ms;
      if (duration > 0) summary.gapWaitMs += (ms * Math.min(waitMs, duration)) / duration;
    }
    for (const [start, duration] of trace.turn ?? []) summary.turnMs += overlap(request.sent, request.received, start, start + duration);
  }
  return summary;
}

export interface ServerSummary {
  /** GC pauses by kind: count, total and longest ms, and how many V8 started for external memory. */
  gc: Record<string, { count: number; totalMs: number; maxMs: number; external: number }>;
  /** Loop gaps: count, longest, total, and the part of the total the thread was off its core. */
  gaps: { count: number; maxMs: number; totalMs: number; waitMs: number };
  /** Bulk-scheduler turns: count, longest, and how many took longer than 1 ms. */
  turns: { count: number; maxMs: number; over1Ms: number };
}

export function summarizeServer(trace: ServerTrace): ServerSummary {
  const gc: ServerSummary['gc'] = {};
  for (const [, duration, kind, flags] of trace.gc) {
    const name = GC_KINDS[kind] ?? String(kind);
    const entry = (gc[name] ??= { count: 0, totalMs: 0, maxMs: 0, external: 0 });
    entry.count++;
    if (((flags ?? 0) & GC_FLAG_EXTERNAL_MEMORY) !== 0) entry.external++;
    entry.totalMs += duration;
    entry.maxMs = Math.max(entry.maxMs, duration);
  }
  const gaps = { count: 0, maxMs: 0, totalMs: 0, waitMs: 0 };
  for (const [, duration, , waitMs] of trace.gap) {
    gaps.count++;
    gaps.maxMs = Math.max(gaps.maxMs, duration);
    gaps.totalMs += duration;
    gaps.waitMs += Math.min(waitMs, duration);
  }
  const turns = { count: 0, maxMs: 0, over1Ms: 0 };
  for (const [, duration] of trace.turn ?? []) {
    turns.count++;
    turns.maxMs = Math.max(turns.maxMs, duration);
    if (duration > 1) turns.over1Ms++;
  }
  return { gc, gaps, turns };
}
