// An open-loop load client, run as its own process: each flow sends requests at Poisson arrival
// times whatever the server does (as the simulator's flows arrive), over its own keep-alive HTTPS
// agent, and records each request's latency and status. wrk is closed-loop (a connection waits for
// its answer before the next request), which a simulator of open arrivals cannot be compared with;
// at the tens to hundreds of requests per second the comparison uses, a Node client keeps up (it
// reports its own CPU, and how late it sent, so a run where it did not is seen).
//
//   node --import tsx bench/open-loop-driver.ts '<json DriverConfig>'   → one JSON line, DriverResult
import { Agent, request } from 'node:https';
import { performance } from 'node:perf_hooks';

export interface DriverFlow {
  name: string;
  path: string;
  token: string;
  accept?: string;
  /** Requests per second (Poisson). */
  rate: number;
}

export interface DriverConfig {
  url: string;
  caPem: string;
  seconds: number;
  /** Requests sent before this many seconds are not recorded (warm-up). */
  warmupSeconds: number;
  seed: number;
  flows: DriverFlow[];
}

export interface FlowResult {
  name: string;
  /** Requests sent after the warm-up (recorded). */
  sent: number;
  /** Requests sent in all, warm-up included (what the server's CPU counters saw). */
  sentAll: number;
  /** Latency in ms of each recorded request that got an answer, sorted. */
  latenciesMs: number[];
  /** Each recorded answer as [sent, ms since `startedAtMs`; latency ms], in the order they came back: when the slow ones were sent. */
  answers: [number, number][];
  statuses: Record<string, number>;
  errors: number;
}

export interface DriverResult {
  flows: FlowResult[];
  /** The client's own CPU seconds, and its worst and 99th-percentile lateness sending a request (ms). */
  clientCpuSeconds: number;
  maxSendLagMs: number;
  sendLagP99Ms: number;
  /** The driver's start, ms since the epoch (the clock the server's GC log and the bench's reads can be put on). */
  startedAtMs: number;
  /** Each send LATE_SEND_MS or more behind its arrival, as [due, ms since the start; lag ms]: was the client stalled when the server's answers were slow? */
  lateSends: [number, number][];
}

const LATE_SEND_MS = 10;

/** xorshift32: the driver's arrivals are reproducible per seed. */
function prng(seed: number): () => number {
  let s = seed >>> 0 || 1;
  return () => {
    s ^= s << 13;
    s >>>= 0;
    s ^= s >>> 17;
    s ^= s << 5;
    s >>>= 0;
    return s / 0x1_0000_0000;
  };
}

export async function drive(config: DriverConfig): Promise<DriverResult> {
  const start = performance.now();
  const cpuStart = process.cpuUsage();
  const sendLagsMs: number[] = [];
  const lateSends: [number, number][] = [];
  const pending: Promise<void>[] = [];
  const results = config.flows.map((flow, index): FlowResult => {
    const agent = new Agent({ keepAlive: true, maxSockets: 256, ca: config.caPem });
    const result: FlowResult = { name: flow.name, sent: 0, sentAll: 0, latenciesMs: [], answers: [], statuses: {}, errors: 0 };
    const random = prng(config.seed * 7919 + index);
    let due = 0;
    const next = () => {
      due += (-Math.log(1 - random()) / flow.rate) * 1000;
      if (due >= config.seconds * 1000) return;
      setTimeout(fire, Math.max(0, due - (performance.now() - start)));
    };
    const fire = () => {
      const sentAt = performance.now();
      const lagMs = sentAt - start - due;
      sendLagsMs.push(lagMs);
      if (lagMs >= LATE_SEND_MS) lateSends.push([due, lagMs]);
      const recorded = due >= config.warmupSeconds * 1000;
      if (recorded) result.sent++;
      result.sentAll++;
      pending.push(
        new Promise<void>((resolve) => {
          const req = request(
            new URL(flow.path, config.url),
            { agent, headers: { Authorization: `Bearer ${flow.token}`, Accept: flow.accept ?? 'application/json' } },
            (res) => {
              res.on('data', () => {});
              res.on('end', () => {
                if (recorded) {
                  const latencyMs = performance.now() - sentAt;
                  result.latenciesMs.push(latencyMs);
                  result.answers.push([sentAt - start, latencyMs]);
                  const code = String(res.statusCode);
                  result.statuses[code] = (result.statuses[code] ?? 0) + 1;
                }
                resolve();
              });
            },
          );
          req.on('error', () => {
            if (recorded) result.errors++;
            resolve();
          });
          req.end();
        }),
      );
      next();
    };
    next();
    return result;
  });
  await new Promise((resolve) => setTimeout(resolve, config.seconds * 1000 + 100));
  await Promise.all(pending);
  for (const r of results) r.latenciesMs.sort((a, b) => a - b);
  const cpu = process.cpuUsage(cpuStart);
  sendLagsMs.sort((a, b) => a - b);
  const lagAt = (q: number) => Math.max(0, sendLagsMs[Math.min(sendLagsMs.length - 1, Math.floor(q * sendLagsMs.length))] ?? 0);
  return {
    flows: results,
    clientCpuSeconds: (cpu.user + cpu.system) / 1e6,
    maxSendLagMs: lagAt(1),
    sendLagP99Ms: lagAt(0.99),
    startedAtMs: performance.timeOrigin + start,
    lateSends,
  };
}

if (process.argv[1]?.endsWith('open-loop-driver.ts') && process.argv[2] !== undefined) {
  const result = await drive(JSON.parse(process.argv[2]) as DriverConfig);
  // Exit once the line is written: a pipe may take it in pieces, and exiting at once cut it short.
  process.stdout.write(`${JSON.stringify(result)}\n`, () => process.exit(0));
}
