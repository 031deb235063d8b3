// Is the simulator right about a real server? The same engine runs in `fairway serve`, so drive a
// real one, measure, then simulate the same workload with what was measured, and print both:
//
// 1. A real `fairway serve` (LevelDB, APF on, the default worker pool of cores − 1 threads) over
//    ≥ 3,000 stored FlowSchemas. Three flows of three levels, from an open-loop client process
//    (bench/open-loop-driver.ts, Poisson arrivals as the simulator's): `lists`, a user in
//    global-default LISTing every FlowSchema as kubectl get does (a Table: CPU-heavy, on the pool);
//    `node-gets` (level system) and `admin-gets` (exempt), GETs by name.
// 2. Calibration: each flow alone, one request at a time, gives its uncontended latency (median and p99:
//    the simulator's log-normal service time) and the server's CPU per request (all threads): the
//    flow's `cpu` in the capacity model (docs/simulator.md, "A server with finite capacity").
// 3. The mixed run: all three at once, the lists at a rate that keeps the pool busy. Measured per
//    flow: latency p50/p99 at the client, 429s; per level: queue wait p50/p99 from the server's
//    apiserver_flowcontrol_request_wait_duration_seconds (the window's bucket deltas).
// 4. The simulator, with that scenario: server `cpus` as the cores the server is pinned to (all
//    but the driver's one; executorThreads follows as for `fairway serve`), the measured service
//    times and CPU per request,
//    the same rates and duration, seeds 1..3; the medians over seeds beside the measured figures.
//
// Goal (docs/benchmarks.md): the simulated p99 latency of each flow within 25% of the measured.
//
//   node --import tsx bench/sim-vs-serve.bench.ts [--objects=3000] [--seconds=20] [--list-load=0.8]
//   BENCH_QUICK=1 …   (short runs)
import { spawnSync } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { availableParallelism, tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { stringify } from 'yaml';
import { prefillFlowSchemas } from '../api/testing/prefill.ts';
import { startServerProcess, type ServerProcess } from '../api/testing/server-process.ts';
import { histogramDelta, histogramQuantile, histograms } from '../engine/prometheus-delta.ts';
import { parseExposition } from '../engine/prometheus-text.ts';
import { runScenario } from '../sim/run/run-scenario.ts';
import { pinToCpus, processCpuSeconds, table } from './fixtures.ts';
import { runWrk } from './wrk.ts';
import type { DriverConfig, DriverFlow, DriverResult, FlowResult } from './open-loop-driver.ts';

const arg = (name: string, fallback: number) => Number(process.argv.find((a) => a.startsWith(`--${name}=`))?.split('=')[1] ?? fallback);
const QUICK = process.env.BENCH_QUICK === '1';
const OBJECTS = Math.max(3_000, arg('objects', 3_000));
const SECONDS = arg('seconds', QUICK ? 8 : 20);
const CALIBRATION_SECONDS = QUICK ? 4 : 8;
/** The pool's busy fraction the lists alone would cause (at their calibrated CPU per LIST). */
const LIST_LOAD = arg('list-load', 0.8);
const WARMUP_SECONDS = 2;
/**
 * The server gets every core but the last, the driver the last (taskset): the model is told the
 * server's cores, and a driver decrypting megabytes of LISTs must not take them from the server
 * behind the model's back, as it would on shared cores.
 */
const SERVER_CORES = Math.max(1, availableParallelism() - 1);
const SERVER_CPUS = `0-${SERVER_CORES - 1}`;
const CLIENT_CPUS = `${Math.min(SERVER_CORES, availableParallelism() - 1)}`;
const HERE = dirname(fileURLToPath(import.meta.url));
const GROUP = 'flowcontrol.apiserver.k8s.io';
const FS_PATH = `/apis/${GROUP}/v1/flowschemas`;
const TOKENS = { lister: 'sim-vs-serve-lister-token-01', node: 'sim-vs-serve-node-token-0002' } as const;
const TABLE_ACCEPT = 'application/json;as=Table;v=v1;g=meta.k8s.io,application/json;as=Table;v=v1beta1;g=meta.k8s.io,application/json';

interface FlowPlan {
  /** The driver's flow (its rate set per run). */
  driver: Omit<DriverFlow, 'rate'>;
  /** The level its requests go to (for the server's wait histogram). */
  level: string;
  /** The scenario flow, less arrival and service. */
  scenario: Record<string, unknown>;
  mixedRate: number;
}

const quantile = (sorted: readonly number[], q: number): number => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? Number.NaN;
const median = (xs: readonly number[]): number =>
  quantile(
    [...xs].sort((a, b) => a - b),
    0.5,
  );

function runDriver(config: DriverConfig): DriverResult {
  const run = spawnSync('taskset', ['-c', CLIENT_CPUS, process.execPath, '--import', 'tsx', join(HERE, 'open-loop-driver.ts'), JSON.stringify(config)], {
    encoding: 'utf8',
    maxBuffer: 256 * 1024 * 1024,
  });
  if (run.status !== 0) throw new Error(`open-loop driver failed: ${run.stderr}`);
  return JSON.parse(run.stdout) as DriverResult;
}

/** A level's queue-wait quantile over a window, from two scrapes of the wait histogram (execute="true"). */
function waitQuantile(before: string, after: string, level: string, q: number): number | undefined {
  const keyOf = (labels: Record<string, string>) => (labels.priority_level === level && labels.execute === 'true' ? level : undefined);
  const family = 'apiserver_flowcontrol_request_wait_duration_seconds';
  return histogramQuantile(q, histogramDelta(histograms(parseExposition(before), family, keyOf), histograms(parseExposition(after), family, keyOf), level));
}

const ms = (seconds: number) => `${Math.max(0.001, Math.round(seconds * 1e6) / 1e3)}ms`;
const fmt = (msValue: number | undefined | null) => (msValue === undefined || msValue === null || Number.isNaN(msValue) ? '—' : `${msValue.toFixed(1)} ms`);

async function main(): Promise<void> {
  const dir = await mkdtemp(join(tmpdir(), 'fairway-sim-vs-serve-'));
  let server: ServerProcess | undefined;
  try {
    const tokenFile = join(dir, 'tokens.csv');
    await writeFile(
      tokenFile,
      `${TOKENS.lister},lister,uid-lister,"system:authenticated"\n${TOKENS.node},system:node:bench-node,uid-node,"system:nodes,system:authenticated"\n`,
    );
    const dataDir = join(dir, 'data');
    await prefillFlowSchemas(dataDir, { count: OBJECTS });
    if (availableParallelism() < 2) throw new Error('sim-vs-serve needs two cores: the server on one, its driver on another');
    server = await startServerProcess({ dataDir, storageBackend: 'leveldb', args: [`--token-auth-file=${tokenFile}`] });
    if (!pinToCpus(server.pid, SERVER_CPUS)) throw new Error('taskset could not pin the server to its cores');
    const plans: Record<string, FlowPlan> = {
      lists: {
        driver: { name: 'lists', path: FS_PATH, token: TOKENS.lister, accept: TABLE_ACCEPT },
        level: 'global-default',
        scenario: { name: 'lists', user: 'lister', groups: ['system:authenticated'], verb: 'list', apiGroup: GROUP, resource: 'flowschemas', objects: OBJECTS },
        mixedRate: 0,
      },
      'node-gets': {
        driver: { name: 'node-gets', path: `${FS_PATH}/bulk-00007`, token: TOKENS.node },
        level: 'system',
        scenario: {
          name: 'node-gets',
          user: 'system:node:bench-node',
          groups: ['system:nodes', 'system:authenticated'],
          verb: 'get',
          apiGroup: GROUP,
          resource: 'flowschemas',
          objectName: 'bulk-00007',
        },
        mixedRate: 100,
      },
      'admin-gets': {
        driver: { name: 'admin-gets', path: `${FS_PATH}/bulk-00011`, token: server.token },
        level: 'exempt',
        scenario: {
          name: 'admin-gets',
          user: 'admin',
          groups: ['system:masters', 'system:authenticated'],
          verb: 'get',
          apiGroup: GROUP,
          resource: 'flowschemas',
          objectName: 'bulk-00011',
        },
        mixedRate: 30,
      },
    };
    const base = { url: server.url, caPem: server.caPem, warmupSeconds: WARMUP_SECONDS, seed: 1 };

    // Calibration: each flow alone, one request at a time (wrk, one connection, on the driver's
    // core) for many requests, so the server's idle CPU does not count against few of them and
    // every request finds the caches and the JIT as the mixed run does.
    const calibration: Record<string, { medianMs: number; p99Ms: number; meanMs: number; cpuMs: number }> = {};
    for (const [name, plan] of Object.entries(plans)) {
      const load = {
        url: `${server.url}${plan.driver.path}`,
        token: plan.driver.token,
        headers: { Accept: plan.driver.accept ?? 'application/json' },
        connections: 1,
        cpus: CLIENT_CPUS,
      };
      await runWrk({ ...load, seconds: 1 });
      const cpuBefore = processCpuSeconds(server.pid);
      const solo = await runWrk({ ...load, seconds: CALIBRATION_SECONDS });
      const cpuSeconds = processCpuSeconds(server.pid) - cpuBefore;
      if (solo.non2xx > 0 || solo.requests === 0) throw new Error(`calibrating ${name}: ${JSON.stringify(solo)}`);
      calibration[name] = {
        medianMs: solo.p50Us / 1000,
        p99Ms: solo.p99Us / 1000,
        meanMs: solo.meanUs / 1000,
        cpuMs: (cpuSeconds * 1000) / solo.requests,
      };
    }
    // The lists' rate: LIST_LOAD of the server's cores.
    plans.lists!.mixedRate = Math.max(0.5, Math.round(((LIST_LOAD * SERVER_CORES) / (calibration.lists!.cpuMs / 1000)) * 100) / 100);

    // The mixed run, with the server's wait histograms around it.
    const before = (await server.client.get('/metrics')).text;
    const cpuBefore = processCpuSeconds(server.pid);
    const mixed = runDriver({ ...base, seconds: SECONDS + WARMUP_SECONDS, flows: Object.values(plans).map((p) => ({ ...p.driver, rate: p.mixedRate })) });
    const serverCpu = processCpuSeconds(server.pid) - cpuBefore;
    const after = (await server.client.get('/metrics')).text;

    // The simulator, with what was measured.
    const cores = SERVER_CORES;
    const scenario = {
      kind: 'Scenario',
      name: 'sim-vs-serve',
      duration: `${SECONDS + WARMUP_SECONDS}s`,
      server: { maxRequestsInflight: 400, maxMutatingRequestsInflight: 200, cpus: cores },
      objectCounts: { [`flowschemas.${GROUP}`]: OBJECTS },
      flows: Object.entries(plans).map(([name, plan]) => {
        const c = calibration[name]!;
        return {
          ...plan.scenario,
          arrival: { type: 'poisson', rate: plan.mixedRate },
          service:
            c.p99Ms > c.medianMs
              ? { type: 'lognormal', median: ms(c.medianMs / 1000), p99: ms(c.p99Ms / 1000) }
              : { type: 'constant', value: ms(c.medianMs / 1000) },
          cpu: ms(c.cpuMs / 1000),
        };
      }),
    };
    const scenarioFile = join(dir, 'scenario.yaml');
    await writeFile(scenarioFile, stringify(scenario));
    const simulated: Record<string, { p50: number[]; p99: number[]; waitP99: number[]; rejected: number[] }> = {};
    for (const seed of ['1', '2', '3']) {
      const outcome = await runScenario({ scenarioFile, seed });
      if (!outcome.ok) throw new Error(`the scenario does not load: ${outcome.errors.join('; ')}`);
      for (const name of Object.keys(plans)) {
        const f = outcome.report.flows[name];
        const s = (simulated[name] ??= { p50: [], p99: [], waitP99: [], rejected: [] });
        s.p50.push((f?.latencySeconds.p50 ?? Number.NaN) * 1000);
        s.p99.push((f?.latencySeconds.p99 ?? Number.NaN) * 1000);
        s.waitP99.push((f?.waitSeconds.p99 ?? Number.NaN) * 1000);
        s.rejected.push(f?.rejectedTotal ?? 0);
      }
    }

    const rows: [string, string][] = [];
    const summary: Record<string, unknown> = {};
    for (const [name, plan] of Object.entries(plans)) {
      const measured = mixed.flows.find((f: FlowResult) => f.name === name)!;
      const m = { p50: quantile(measured.latenciesMs, 0.5), p99: quantile(measured.latenciesMs, 0.99) };
      const waitP99 = waitQuantile(before, after, plan.level, 0.99);
      const s = simulated[name]!;
      const sim = { p50: median(s.p50), p99: median(s.p99), waitP99: median(s.waitP99), rejected: median(s.rejected) };
      const ratio = sim.p99 / m.p99;
      rows.push([
        name,
        `${plan.mixedRate}/s: measured p50 ${fmt(m.p50)} p99 ${fmt(m.p99)} wait p99 ${fmt(waitP99 === undefined ? undefined : waitP99 * 1000)} ` +
          `429s ${measured.statuses['429'] ?? 0}; simulated p50 ${fmt(sim.p50)} p99 ${fmt(sim.p99)} wait p99 ${fmt(sim.waitP99)} rejected ${sim.rejected}; ` +
          `p99 sim/measured ${ratio.toFixed(2)}${Math.abs(ratio - 1) <= 0.25 ? '' : ' (outside 25%)'}`,
      ]);
      summary[name] = {
        rate: plan.mixedRate,
        calibration: calibration[name],
        measured: { ...m, waitP99Ms: waitP99 === undefined ? null : waitP99 * 1000, rejected: measured.statuses['429'] ?? 0 },
        simulated: sim,
        p99Ratio: Number(ratio.toFixed(3)),
      };
    }
    table(
      `sim vs serve: ${OBJECTS} FlowSchemas, ${SECONDS} s measured after ${WARMUP_SECONDS} s warm-up, ${cores} cores; ` +
        `server CPU ${(serverCpu / (SECONDS + WARMUP_SECONDS)).toFixed(2)} cores busy, client CPU ${mixed.clientCpuSeconds.toFixed(1)} s, ` +
        `worst send lag ${mixed.maxSendLagMs.toFixed(1)} ms`,
      rows,
    );
    process.stdout.write(`${JSON.stringify({ bench: 'sim-vs-serve', objects: OBJECTS, seconds: SECONDS, cores, scenario, ...summary })}\n`);
  } finally {
    await server?.stop();
    await rm(dir, { recursive: true, force: true });
  }
}

await main();
