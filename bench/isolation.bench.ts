// Does APF isolate priority levels on one event loop? Two real `fairway serve` processes (LevelDB,
// APF on, tokens), one with `--execution-threads=0` (every stage on the main thread) and one with the
// default pool, over the same ≥ 3,000 FlowSchemas (a ≈3 MB LIST). In each, two users GET one object
// in a closed loop — `admin` (exempt level) and a node (`system` level) — first on a quiet server,
// then while a third user in `global-default` keeps 12 LISTs of the whole collection in flight. All
// load comes from wrk (bench/wrk.ts). Rounds alternate between the two servers; medians are printed.
// On the pooled server the flood runs once per encoding (JSON, YAML, and the Table `kubectl get`
// asks for), since each encoding's LIST does different work on the main thread; the inline server,
// there to show what the pool buys, gets the JSON flood only.
//
//   node --import tsx bench/isolation.bench.ts [--objects=3000] [--seconds=8] [--rounds=3] [--flood=12] [--trace] [--only=pool|inline]
//     [--flood-nice=N] [--floods=json,yaml,table]
//   BENCH_QUICK=1 …   (one short round)
//
// --trace: the servers run with bench/isolation-trace.mjs preloaded and the GET clients stamp each
// request (bench/isolation-trace.lua), and each round prints where the slow GETs' time went (the
// server's loop, the server's handling, the client) and what the server's main thread did meanwhile:
// GC pauses, loop gaps (on or off its core), bulk-scheduler turns (bench/isolation-trace.ts).
//
// Goals: with the default pool, each user's GET p99 during the flood ≤ 3× its quiet p99
// in the same run, and the flood's LIST throughput ≥ 0.8× the inline server's. Prints a table, then
// one JSON line (`{"bench":"isolation",...}`).
import { cp, mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { availableParallelism, loadavg, tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { prefillFlowSchemas } from '../api/testing/prefill.ts';
import { startServerProcess, type ServerProcess } from '../api/commands/testing/server-process.ts';
import { defaultThreadCount } from '../workers/piscina-executor.ts';
import { processCpuSeconds } from './fixtures.ts';
import { attributeSlow, parseClientTrace, summarizeServer, type ServerSummary, type ServerTrace, type SlowSummary } from './isolation-trace.ts';
import { requestsPerSecond, requireWrk, runWrk, type WrkResult } from './wrk.ts';

const arg = (name: string, fallback: number) => Number(process.argv.find((a) => a.startsWith(`--${name}=`))?.split('=')[1] ?? fallback);
const QUICK = process.env.BENCH_QUICK === '1';
const OBJECTS = Math.max(3_000, arg('objects', 3_000));
const SECONDS = arg('seconds', QUICK ? 3 : 8);
const ROUNDS = arg('rounds', QUICK ? 1 : 3);
const FLOOD = arg('flood', 12);
const TRACE = process.argv.includes('--trace');
/**
 * Niceness added to the flood's client (default 0: the servers' priority). On two cores the flood's
 * wrk and the server's main thread each want a core; a positive value lets the server's main thread
 * go first, as it would with its clients on other machines.
 */
const FLOOD_NICE = arg('flood-nice', 0);
/** One server only (no throughput ratio): for repeating rounds of one configuration faster. */
const ONLY = process.argv.find((a) => a.startsWith('--only='))?.slice('--only='.length);
/** The flood's Accept header per encoding: Table as kubectl 1.32 sends it. */
const FLOOD_ACCEPT = {
  json: 'application/json',
  yaml: 'application/yaml',
  table: 'application/json;as=Table;v=v1;g=meta.k8s.io,application/json;as=Table;v=v1beta1;g=meta.k8s.io,application/json',
} as const;
type FloodEncoding = keyof typeof FLOOD_ACCEPT;
const FLOODS = (process.argv.find((a) => a.startsWith('--floods='))?.slice('--floods='.length) ?? 'json,yaml,table').split(',') as FloodEncoding[];
for (const f of FLOODS) if (!(f in FLOOD_ACCEPT)) throw new Error(`--floods: unknown encoding ${f}: use ${Object.keys(FLOOD_ACCEPT).join(', ')}`);
const HERE = dirname(fileURLToPath(import.meta.url));
const GROUP = 'flowcontrol.apiserver.k8s.io';
const FS_PATH = `/apis/${GROUP}/v1/flowschemas`;
const GET_PATH = `${FS_PATH}/bulk-00007`;
const TOKENS = { flooder: 'isolation-flooder-token-0001', node: 'isolation-node-token-000002' } as const;

const median = (xs: number[]): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? Number.NaN;

interface Mode {
  name: 'inline' | 'pool';
  label: string;
  args: string[];
  server?: ServerProcess;
}

interface PhaseTrace {
  server: ServerSummary;
  /** The main thread's CPU time and run-queue wait during the phase. */
  mainCpuMs: number;
  mainWaitMs: number;
  /** The server's memory at the phase's end (bench/isolation-trace.mjs). */
  memory: ServerTrace['memory'];
  /** Each user's requests above 3× the user's quiet p99 of the round, attributed. */
  admin: SlowSummary;
  node: SlowSummary;
}

interface RoundResult {
  quiet: { admin: WrkResult; node: WrkResult };
  flood: { admin: WrkResult; node: WrkResult; lists: WrkResult; listCpuMs: number; maxLoopDelayMs: number; loopUtilization: number };
  trace?: { quiet: PhaseTrace; flood: PhaseTrace };
}

/** The event-loop gauges over the window since the previous scrape (event-loop-metrics.ts). */
async function loopWindow(server: ServerProcess): Promise<{ maxDelayMs: number; utilization: number }> {
  const text = (await server.client.get('/metrics')).text;
  const value = (name: string) => Number(/^(\S+) (\S+)$/m.exec(text.split('\n').find((l) => l.startsWith(`${name} `)) ?? '')?.[2] ?? Number.NaN);
  return { maxDelayMs: value('fairway_event_loop_delay_max_seconds') * 1000, utilization: value('fairway_event_loop_utilization') };
}

let traceDir = '';
let traceFiles = 0;

/** A client trace file for the next GET load (with --trace). */
const clientTraceFile = () => join(traceDir, `client-${traceFiles++}.txt`);

/**
 * The GET clients run 5 nice levels ahead of the servers and the flood's client (-20 under the usual
 * `nice -n -15`): on two cores the flood's wrk, decrypting hundreds of MB/s, and the server's main
 * thread keep both cores busy, and a probe that waits for a core after its response arrived counts
 * that wait as server latency (--trace showed slow GETs whose time was mostly after the server had
 * sent the response). Servers elsewhere have their clients on other machines.
 */
const PROBE_NICE_INCREMENT = -5;

const getLoad = (server: ServerProcess, token: string, seconds: number, traceFile?: string) =>
  runWrk({
    url: `${server.url}${GET_PATH}`,
    token,
    connections: 1,
    seconds,
    niceIncrement: PROBE_NICE_INCREMENT,
    ...(traceFile !== undefined ? { script: join(HERE, 'isolation-trace.lua'), scriptArgs: [traceFile] } : {}),
  });

const dumps = new Map<number, number>();

/** Has the traced server write what it recorded since the previous call (bench/isolation-trace.mjs). */
async function serverTrace(server: ServerProcess): Promise<ServerTrace> {
  const n = dumps.get(server.pid) ?? 0;
  dumps.set(server.pid, n + 1);
  const file = join(traceDir, `${server.pid}-${n}.json`);
  process.kill(server.pid, 'SIGUSR2');
  for (let i = 0; ; i++) {
    const text = await readFile(file, 'utf8').catch(() => undefined);
    if (text !== undefined) return JSON.parse(text) as ServerTrace;
    if (i === 400) throw new Error(`the server wrote no trace to ${file}`);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

/** Attributes a phase's slow GETs: `start` is the dump at the phase's start, `end` the one at its end. */
async function phaseTrace(
  server: ServerProcess,
  start: ServerTrace,
  end: ServerTrace,
  files: { admin: string; node: string },
  quiet: { admin: WrkResult; node: WrkResult },
): Promise<PhaseTrace> {
  const user = async (name: 'admin' | 'node', token: string) => {
    const client = parseClientTrace(await readFile(files[name], 'utf8'));
    const tail = token.slice(-6);
    return attributeSlow(
      client,
      end.get.filter((g) => g[2] === tail),
      end,
      (3 * quiet[name].p99Us) / 1000,
    );
  };
  return {
    server: summarizeServer(end),
    mainCpuMs: end.cpuMs - start.cpuMs,
    mainWaitMs: end.waitMs - start.waitMs,
    memory: end.memory,
    admin: await user('admin', server.token),
    node: await user('node', TOKENS.node),
  };
}
const listFlood = (server: ServerProcess, seconds: number, encoding: FloodEncoding) =>
  runWrk({
    url: `${server.url}${FS_PATH}`,
    token: TOKENS.flooder,
    connections: FLOOD,
    seconds,
    timeoutSeconds: 30,
    niceIncrement: FLOOD_NICE,
    headers: { Accept: FLOOD_ACCEPT[encoding] },
  });

/** The floods a server gets: the inline server only JSON's (it is the comparison for the pool). */
const floodsOf = (mode: Mode): FloodEncoding[] => (mode.name === 'inline' ? ['json'] : FLOODS);

async function round(server: ServerProcess, encoding: FloodEncoding): Promise<RoundResult> {
  const files = TRACE ? [0, 1, 2, 3].map(clientTraceFile) : [];
  const quietStart = TRACE ? await serverTrace(server) : undefined;
  const [admin, node] = await Promise.all([getLoad(server, server.token, SECONDS, files[0]), getLoad(server, TOKENS.node, SECONDS, files[1])]);
  const quietEnd = TRACE ? await serverTrace(server) : undefined;
  const flooding = listFlood(server, SECONDS + 2, encoding);
  const cpuBefore = processCpuSeconds(server.pid);
  await new Promise((resolve) => setTimeout(resolve, 1_000));
  await loopWindow(server);
  const floodStart = TRACE ? await serverTrace(server) : undefined;
  const [floodAdmin, floodNode] = await Promise.all([getLoad(server, server.token, SECONDS, files[2]), getLoad(server, TOKENS.node, SECONDS, files[3])]);
  const floodEnd = TRACE ? await serverTrace(server) : undefined;
  const loop = await loopWindow(server);
  const lists = await flooding;
  const listCpuMs = ((processCpuSeconds(server.pid) - cpuBefore) * 1000) / Math.max(1, lists.requests);
  for (const r of [admin, node, floodAdmin, floodNode, lists]) {
    if (r.non2xx > 0 || r.timeouts > 0 || r.connectErrors + r.readErrors + r.writeErrors > 0) throw new Error(`failed requests: ${JSON.stringify(r)}`);
  }
  const quiet = { admin, node };
  const trace =
    quietStart !== undefined && quietEnd !== undefined && floodStart !== undefined && floodEnd !== undefined
      ? {
          quiet: await phaseTrace(server, quietStart, quietEnd, { admin: files[0]!, node: files[1]! }, quiet),
          flood: await phaseTrace(server, floodStart, floodEnd, { admin: files[2]!, node: files[3]! }, quiet),
        }
      : undefined;
  return {
    quiet,
    flood: { admin: floodAdmin, node: floodNode, lists, listCpuMs, maxLoopDelayMs: loop.maxDelayMs, loopUtilization: loop.utilization },
    ...(trace !== undefined ? { trace } : {}),
  };
}

const f1 = (x: number) => x.toFixed(1);
const mib = (x: number | undefined) => (x === undefined ? '?' : f1(x));

/** One line per phase and user: the slow GETs' time by where it went, and the server meanwhile. */
function printTrace(label: string, r: number, result: RoundResult): void {
  if (result.trace === undefined) return;
  for (const phase of ['quiet', 'flood'] as const) {
    const t = result.trace[phase];
    const gc = Object.entries(t.server.gc)
      .map(([kind, g]) => `${kind} ${g.count}× ${f1(g.totalMs)} ms (max ${f1(g.maxMs)}${g.external > 0 ? `, ${g.external} for external memory` : ''})`)
      .join(', ');
    console.log(
      `  ${label} round ${r + 1} ${phase}: main thread ${f1(t.mainCpuMs)} ms CPU, ${f1(t.mainWaitMs)} ms waiting for a core; GC ${gc || 'none'}; ` +
        `loop gaps > 3 ms ${t.server.gaps.count} (max ${f1(t.server.gaps.maxMs)}, ${f1(t.server.gaps.totalMs)} ms, ${f1(t.server.gaps.waitMs)} off core); ` +
        `bulk turns ${t.server.turns.count} (max ${t.server.turns.maxMs.toFixed(2)} ms, ${t.server.turns.over1Ms} over 1 ms); ` +
        `heap ${mib(t.memory?.heapMb)} MiB, external ${mib(t.memory?.externalMb)} (ArrayBuffers ${mib(t.memory?.arrayBuffersMb)})`,
    );
    for (const user of ['admin', 'node'] as const) {
      const s = t[user];
      const gcs = Object.entries(s.gcMs)
        .map(([kind, ms]) => `${kind} ${f1(ms)}`)
        .join(', ');
      const p99 = result[phase][user].p99Us / 1000;
      console.log(
        `    ${user}: p99 ${p99.toFixed(2)} ms, ${s.slow} of ${s.requests} above 3× quiet p99 (${f1(s.slowMs)} ms: before parse ${f1(s.beforeMs)}, ` +
          `in server ${f1(s.serverMs)}, after send ${f1(s.afterMs)}); during them: GC ${gcs || 'none'}, loop gaps ${f1(s.gapMs)} ms ` +
          `(${f1(s.gapWaitMs)} off core), bulk turns ${f1(s.turnMs)} ms`,
      );
    }
  }
}

async function main(): Promise<void> {
  requireWrk();
  const dir = await mkdtemp(join(tmpdir(), 'fairway-isolation-'));
  const modes: Mode[] = (
    [
      { name: 'inline', label: '--execution-threads=0', args: ['--execution-threads=0'] },
      { name: 'pool', label: `default (${defaultThreadCount()} thread${defaultThreadCount() === 1 ? '' : 's'})`, args: [] },
    ] satisfies Mode[]
  ).filter((m) => ONLY === undefined || m.name === ONLY);
  if (modes.length === 0) throw new Error(`--only=${ONLY}: use pool or inline`);
  try {
    const tokenFile = join(dir, 'tokens.csv');
    await writeFile(
      tokenFile,
      `${TOKENS.flooder},flooder,uid-flooder,"system:authenticated"\n${TOKENS.node},system:node:bench-node,uid-node,"system:nodes,system:authenticated"\n`,
    );
    if (TRACE) {
      traceDir = join(dir, 'trace');
      await mkdir(traceDir);
      process.env.FAIRWAY_TRACE_DIR = traceDir;
    }
    const template = join(dir, 'template');
    await prefillFlowSchemas(template, { count: OBJECTS });
    for (const mode of modes) {
      const dataDir = join(dir, mode.name);
      await cp(template, dataDir, { recursive: true });
      mode.server = await startServerProcess({
        dataDir,
        storageBackend: 'leveldb',
        args: [`--token-auth-file=${tokenFile}`, ...mode.args],
        ...(TRACE ? { nodeArgs: ['--import', join(HERE, 'isolation-trace.mjs')] } : {}),
      });
    }
    const probe = await modes[0]!.server!.client.get(FS_PATH);
    console.log(
      `node ${process.version}, ${availableParallelism()} cores, load average ${loadavg()
        .map((l) => l.toFixed(1))
        .join(' ')}`,
    );
    console.log(
      `${OBJECTS} bulk FlowSchemas; LIST body ${(Buffer.byteLength(probe.text) / 1e6).toFixed(2)} MB; ${ROUNDS} round(s) of ${SECONDS} s per phase; ` +
        `flood: ${FLOOD} LISTs in flight (${FLOODS.join(', ')})`,
    );
    // Warm-up: JIT, the watch cache's per-object JSON, TLS sessions.
    for (const mode of modes) {
      for (const encoding of floodsOf(mode)) await listFlood(mode.server!, 2, encoding);
      await Promise.all([getLoad(mode.server!, mode.server!.token, 2), getLoad(mode.server!, TOKENS.node, 2)]);
    }
    const key = (mode: Mode, encoding: FloodEncoding) => `${mode.name}:${encoding}`;
    const results = new Map<string, RoundResult[]>(modes.flatMap((m) => floodsOf(m).map((e) => [key(m, e), []] as const)));
    for (let r = 0; r < ROUNDS; r++) {
      // Alternate which server goes first, so a change in machine load hits both alike.
      for (const mode of r % 2 === 0 ? modes : [...modes].reverse()) {
        for (const encoding of floodsOf(mode)) {
          const result = await round(mode.server!, encoding);
          results.get(key(mode, encoding))!.push(result);
          printTrace(`${mode.name} ${encoding}`, r, result);
        }
      }
    }
    const summary: Record<string, unknown> = {
      bench: 'isolation',
      node: process.version,
      cores: availableParallelism(),
      objects: OBJECTS,
      listBytes: Buffer.byteLength(probe.text),
      rounds: ROUNDS,
      seconds: SECONDS,
      flood: FLOOD,
      floodNice: FLOOD_NICE,
      floods: FLOODS,
    };
    const ms = (us: number) => us / 1000;
    console.log(
      '\n| server | flood | user (level) | quiet p50 / p99 ms | flood p50 / p99 ms | p99 flood ÷ quiet (goal ≤ 3) | flood LIST/s | server CPU ms per LIST | ' +
        'worst loop delay ms | loop utilisation |',
    );
    console.log('|---|---|---|---|---|---|---|---|---|---|');
    const listRates: Record<string, number> = {};
    const roundsMet: string[] = [];
    for (const mode of modes) {
      for (const encoding of floodsOf(mode)) {
        const rounds = results.get(key(mode, encoding))!;
        const listsPerSecond = median(rounds.map((x) => requestsPerSecond(x.flood.lists)));
        if (encoding === 'json') listRates[mode.name] = listsPerSecond;
        const users: Record<string, unknown> = {};
        for (const user of ['admin', 'node'] as const) {
          const quietP50 = median(rounds.map((x) => ms(x.quiet[user].p50Us)));
          const quietP99 = median(rounds.map((x) => ms(x.quiet[user].p99Us)));
          const floodP50 = median(rounds.map((x) => ms(x.flood[user].p50Us)));
          const floodP99 = median(rounds.map((x) => ms(x.flood[user].p99Us)));
          const ratio = median(rounds.map((x) => x.flood[user].p99Us / x.quiet[user].p99Us));
          users[user] = { quietP50, quietP99, floodP50, floodP99, p99Ratio: ratio, p99Ratios: rounds.map((x) => x.flood[user].p99Us / x.quiet[user].p99Us) };
          console.log(
            `| ${mode.label} | ${encoding} | ${user === 'admin' ? 'admin (exempt)' : 'node (system)'} | ${quietP50.toFixed(2)} / ${quietP99.toFixed(2)} | ` +
              `${floodP50.toFixed(2)} / ${floodP99.toFixed(2)} | ${ratio.toFixed(2)}× | ${listsPerSecond.toFixed(1)} | ` +
              `${median(rounds.map((x) => x.flood.listCpuMs)).toFixed(1)} | ${median(rounds.map((x) => x.flood.maxLoopDelayMs)).toFixed(1)} | ` +
              `${median(rounds.map((x) => x.flood.loopUtilization)).toFixed(2)} |`,
          );
        }
        // The goal is per round, not only for the median round: a round meets it when both users do.
        const ratios = (x: RoundResult) => [x.flood.admin.p99Us / x.quiet.admin.p99Us, x.flood.node.p99Us / x.quiet.node.p99Us];
        const roundsMeetingGoal = rounds.filter((x) => ratios(x).every((ratio) => ratio <= 3)).length;
        roundsMet.push(
          `${mode.label}, ${encoding} flood: ${roundsMeetingGoal} of ${rounds.length} rounds within 3× (admin / node by round: ${rounds
            .map((x) =>
              ratios(x)
                .map((ratio) => ratio.toFixed(1))
                .join(' / '),
            )
            .join(', ')})`,
        );
        summary[key(mode, encoding)] = {
          label: mode.label,
          flood: encoding,
          roundsMeetingGoal,
          users,
          listsPerSecond,
          listsPerSecondRounds: rounds.map((x) => requestsPerSecond(x.flood.lists)),
          listCpuMs: median(rounds.map((x) => x.flood.listCpuMs)),
          maxLoopDelayMs: median(rounds.map((x) => x.flood.maxLoopDelayMs)),
          loopUtilization: median(rounds.map((x) => x.flood.loopUtilization)),
          ...(TRACE ? { trace: rounds.map((x) => x.trace) } : {}),
        };
      }
    }
    summary.loadavg = loadavg();
    console.log('');
    for (const line of roundsMet) console.log(line);
    if (modes.length === 2) {
      const throughputRatio = listRates.pool! / listRates.inline!;
      summary.listThroughputRatio = throughputRatio;
      console.log(`\nflood LIST throughput, default pool ÷ inline: ${throughputRatio.toFixed(2)}× (goal ≥ 0.8)`);
    }
    console.log(JSON.stringify(summary));
  } finally {
    for (const mode of modes) await mode.server?.stop();
    await rm(dir, { recursive: true, force: true });
  }
}

await main();
