// Does APF isolate priority levels on one event loop? Two real `fairway serve` processes (LevelDB,
// APF on, tokens), one with `--execution-threads=0` (every stage on the main thread) and one with the
// default pool, over the same ≥ 3,000 FlowSchemas (a ≈3 MB LIST). In each, two users GET one object
// in a closed loop — `admin` (exempt level) and a node (`system` level) — first on a quiet server,
// then while a third user in `global-default` keeps 12 LISTs of the whole collection in flight. All
// load comes from wrk (bench/wrk.ts). Rounds alternate between the two servers; medians are printed.
//
//   node --import tsx bench/isolation.bench.ts [--objects=3000] [--seconds=8] [--rounds=3] [--flood=12]
//   BENCH_QUICK=1 …   (one short round)
//
// Goals: with the default pool, each user's GET p99 during the flood ≤ 3× its quiet p99
// in the same run, and the flood's LIST throughput ≥ 0.8× the inline server's. Prints a table, then
// one JSON line (`{"bench":"isolation",...}`).
import { cp, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { availableParallelism, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { prefillFlowSchemas } from '../api/testing/prefill.ts';
import { startServerProcess, type ServerProcess } from '../api/testing/server-process.ts';
import { defaultThreadCount } from '../workers/piscina-executor.ts';
import { processCpuSeconds } from './fixtures.ts';
import { requestsPerSecond, requireWrk, runWrk, type WrkResult } from './wrk.ts';

const arg = (name: string, fallback: number) => Number(process.argv.find((a) => a.startsWith(`--${name}=`))?.split('=')[1] ?? fallback);
const QUICK = process.env.BENCH_QUICK === '1';
const OBJECTS = Math.max(3_000, arg('objects', 3_000));
const SECONDS = arg('seconds', QUICK ? 3 : 8);
const ROUNDS = arg('rounds', QUICK ? 1 : 3);
const FLOOD = arg('flood', 12);
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

interface RoundResult {
  quiet: { admin: WrkResult; node: WrkResult };
  flood: { admin: WrkResult; node: WrkResult; lists: WrkResult; listCpuMs: number; maxLoopDelayMs: number; loopUtilization: number };
}

/** The event-loop gauges over the window since the previous scrape (event-loop-metrics.ts). */
async function loopWindow(server: ServerProcess): Promise<{ maxDelayMs: number; utilization: number }> {
  const text = (await server.client.get('/metrics')).text;
  const value = (name: string) => Number(/^(\S+) (\S+)$/m.exec(text.split('\n').find((l) => l.startsWith(`${name} `)) ?? '')?.[2] ?? Number.NaN);
  return { maxDelayMs: value('fairway_event_loop_delay_max_seconds') * 1000, utilization: value('fairway_event_loop_utilization') };
}

const getLoad = (server: ServerProcess, token: string, seconds: number) => runWrk({ url: `${server.url}${GET_PATH}`, token, connections: 1, seconds });
const listFlood = (server: ServerProcess, seconds: number) =>
  runWrk({ url: `${server.url}${FS_PATH}`, token: TOKENS.flooder, connections: FLOOD, seconds, timeoutSeconds: 30 });

async function round(server: ServerProcess): Promise<RoundResult> {
  const [admin, node] = await Promise.all([getLoad(server, server.token, SECONDS), getLoad(server, TOKENS.node, SECONDS)]);
  const flooding = listFlood(server, SECONDS + 2);
  const cpuBefore = processCpuSeconds(server.pid);
  await new Promise((resolve) => setTimeout(resolve, 1_000));
  await loopWindow(server);
  const [floodAdmin, floodNode] = await Promise.all([getLoad(server, server.token, SECONDS), getLoad(server, TOKENS.node, SECONDS)]);
  const loop = await loopWindow(server);
  const lists = await flooding;
  const listCpuMs = ((processCpuSeconds(server.pid) - cpuBefore) * 1000) / Math.max(1, lists.requests);
  for (const r of [admin, node, floodAdmin, floodNode, lists]) {
    if (r.non2xx > 0 || r.timeouts > 0 || r.connectErrors + r.readErrors + r.writeErrors > 0) throw new Error(`failed requests: ${JSON.stringify(r)}`);
  }
  return {
    quiet: { admin, node },
    flood: { admin: floodAdmin, node: floodNode, lists, listCpuMs, maxLoopDelayMs: loop.maxDelayMs, loopUtilization: loop.utilization },
  };
}

async function main(): Promise<void> {
  requireWrk();
  const dir = await mkdtemp(join(tmpdir(), 'fairway-isolation-'));
  const modes: Mode[] = [
    { name: 'inline', label: '--execution-threads=0', args: ['--execution-threads=0'] },
    { name: 'pool', label: `default (${defaultThreadCount()} thread${defaultThreadCount() === 1 ? '' : 's'})`, args: [] },
  ];
  try {
    const tokenFile = join(dir, 'tokens.csv');
    await writeFile(
      tokenFile,
      `${TOKENS.flooder},flooder,uid-flooder,"system:authenticated"\n${TOKENS.node},system:node:bench-node,uid-node,"system:nodes,system:authenticated"\n`,
    );
    const template = join(dir, 'template');
    await prefillFlowSchemas(template, { count: OBJECTS });
    for (const mode of modes) {
      const dataDir = join(dir, mode.name);
      await cp(template, dataDir, { recursive: true });
      mode.server = await startServerProcess({ dataDir, storageBackend: 'leveldb', args: [`--token-auth-file=${tokenFile}`, ...mode.args] });
    }
    const probe = await modes[0]!.server!.client.get(FS_PATH);
    console.log(
      `node ${process.version}, ${availableParallelism()} cores, load average ${loadavg()
        .map((l) => l.toFixed(1))
        .join(' ')}`,
    );
    console.log(
      `${OBJECTS} bulk FlowSchemas; LIST body ${(Buffer.byteLength(probe.text) / 1e6).toFixed(2)} MB; ${ROUNDS} round(s) of ${SECONDS} s per phase; ` +
        `flood: ${FLOOD} LISTs in flight`,
    );
    // Warm-up: JIT, the watch cache's per-object JSON, TLS sessions.
    for (const mode of modes) {
      await Promise.all([listFlood(mode.server!, 2), getLoad(mode.server!, mode.server!.token, 2), getLoad(mode.server!, TOKENS.node, 2)]);
    }
    const results = new Map<Mode['name'], RoundResult[]>(modes.map((m) => [m.name, []]));
    for (let r = 0; r < ROUNDS; r++) {
      // Alternate which server goes first, so a change in machine load hits both alike.
      for (const mode of r % 2 === 0 ? modes : [...modes].reverse()) results.get(mode.name)!.push(await round(mode.server!));
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
    };
    const ms = (us: number) => us / 1000;
    console.log(
      '\n| server | user (level) | quiet p50 / p99 ms | flood p50 / p99 ms | p99 flood ÷ quiet (goal ≤ 3) | flood LIST/s | server CPU ms per LIST | ' +
        'worst loop delay ms | loop utilisation |',
    );
    console.log('|---|---|---|---|---|---|---|---|---|');
    const listRates: Record<string, number> = {};
    for (const mode of modes) {
      const rounds = results.get(mode.name)!;
      const listsPerSecond = median(rounds.map((x) => requestsPerSecond(x.flood.lists)));
      listRates[mode.name] = listsPerSecond;
      const users: Record<string, unknown> = {};
      for (const user of ['admin', 'node'] as const) {
        const quietP50 = median(rounds.map((x) => ms(x.quiet[user].p50Us)));
        const quietP99 = median(rounds.map((x) => ms(x.quiet[user].p99Us)));
        const floodP50 = median(rounds.map((x) => ms(x.flood[user].p50Us)));
        const floodP99 = median(rounds.map((x) => ms(x.flood[user].p99Us)));
        const ratio = median(rounds.map((x) => x.flood[user].p99Us / x.quiet[user].p99Us));
        users[user] = { quietP50, quietP99, floodP50, floodP99, p99Ratio: ratio, p99Ratios: rounds.map((x) => x.flood[user].p99Us / x.quiet[user].p99Us) };
        console.log(
          `| ${mode.label} | ${user === 'admin' ? 'admin (exempt)' : 'node (system)'} | ${quietP50.toFixed(2)} / ${quietP99.toFixed(2)} | ` +
            `${floodP50.toFixed(2)} / ${floodP99.toFixed(2)} | ${ratio.toFixed(2)}× | ${listsPerSecond.toFixed(1)} | ` +
            `${median(rounds.map((x) => x.flood.listCpuMs)).toFixed(1)} | ${median(rounds.map((x) => x.flood.maxLoopDelayMs)).toFixed(1)} | ` +
            `${median(rounds.map((x) => x.flood.loopUtilization)).toFixed(2)} |`,
        );
      }
      summary[mode.name] = {
        label: mode.label,
        users,
        listsPerSecond,
        listsPerSecondRounds: rounds.map((x) => requestsPerSecond(x.flood.lists)),
        listCpuMs: median(rounds.map((x) => x.flood.listCpuMs)),
        maxLoopDelayMs: median(rounds.map((x) => x.flood.maxLoopDelayMs)),
        loopUtilization: median(rounds.map((x) => x.flood.loopUtilization)),
      };
    }
    const throughputRatio = listRates.pool! / listRates.inline!;
    summary.listThroughputRatio = throughputRatio;
    summary.loadavg = loadavg();
    console.log(`\nflood LIST throughput, default pool ÷ inline: ${throughputRatio.toFixed(2)}× (goal ≥ 0.8)`);
    console.log(JSON.stringify(summary));
  } finally {
    for (const mode of modes) await mode.server?.stop();
    await rm(dir, { recursive: true, force: true });
  }
}

await main();
