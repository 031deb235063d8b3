// Start-up time of the compiled `fairway` (dist/, build.mjs) against bare node, measured in the
// same run, rounds interleaved, medians of wall time:
//  - `fairway --help` against `node -e 0` (goal ≤ 3×);
//  - a restart of `fairway serve` on an existing LevelDB data dir (certificates and objects already
//    there) until /readyz answers 200, against bench/bare-leveldb-server.mjs, a bare node:https
//    server that opens the same LevelDB with classic-level and listens (goal ≤ 3×). Fairway's own
//    log lines split its time: process start to storage open, to listening, to ready.
// Also the time of a whole build (esbuild over every source file) into a scratch folder.
//
//   node --import tsx bench/startup.bench.ts [--rounds=N] [--objects=K]
//
// BENCH_QUICK=1 for a smoke run. Ends with one JSON line (`{"bench":"startup",...}`).
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { request } from 'node:https';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build, isFresh } from '../build.mjs';
import { freePort, startServerProcess } from '../api/commands/testing/server-process.ts';

const arg = (name: string, fallback: number) => Number(process.argv.find((a) => a.startsWith(`--${name}=`))?.split('=')[1] ?? fallback);
const QUICK = process.env.BENCH_QUICK === '1';
const ROUNDS = arg('rounds', QUICK ? 3 : 9);
const OBJECTS = arg('objects', QUICK ? 20 : 200);
const ROOT = fileURLToPath(new URL('..', import.meta.url));
const LAUNCHER = join(ROOT, 'api', 'fairway.mjs');
const BARE_SERVER = join(ROOT, 'bench', 'bare-leveldb-server.mjs');
const PLC_PATH = '/apis/flowcontrol.apiserver.k8s.io/v1/prioritylevelconfigurations';
/** The launcher runs the sources through tsx under the test runner; the bench measures production. */
const ENV = Object.fromEntries(Object.entries(process.env).filter(([name]) => name !== 'FAIRWAY_TEST'));

const median = (values: readonly number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;
const delay = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

function timeCommand(args: string[]): number {
  const started = performance.now();
  const run = spawnSync(process.execPath, args, { env: ENV, stdio: ['ignore', 'ignore', 'pipe'] });
  if (run.status !== 0) throw new Error(`node ${args.join(' ')}: exit ${run.status}: ${run.stderr.toString('utf8')}`);
  return performance.now() - started;
}

function readyzStatus(port: number): Promise<number> {
  return new Promise((resolve) => {
    const req = request({ host: '127.0.0.1', port, path: '/readyz', agent: false, rejectUnauthorized: false }, (res) => {
      res.resume();
      resolve(res.statusCode ?? 0);
    });
    req.on('error', () => resolve(0));
    req.end();
  });
}

interface Start {
  readyMs: number;
  /** Milliseconds from spawn to each of Fairway's log lines that mark a phase (absent for the baseline). */
  phases: Record<string, number>;
}

const PHASE_LINES: [string, RegExp][] = [
  ['storage open', /\] storage \S+ open/],
  ['listening', /\] Serving securely/],
];

/** klog's `HH:MM:SS.micros` (UTC) → milliseconds since spawn, given the spawn's wall time. */
function phaseTimes(stderr: string, spawnedAtMs: number): Record<string, number> {
  const phases: Record<string, number> = {};
  const dayMs = 86_400_000;
  for (const [name, pattern] of PHASE_LINES) {
    const line = stderr.split('\n').find((l) => pattern.test(l));
    const time = line === undefined ? null : /(\d\d):(\d\d):(\d\d)\.(\d{6})/.exec(line);
    if (time === null) continue;
    const ms = ((Number(time[1]) * 60 + Number(time[2])) * 60 + Number(time[3])) * 1000 + Number(time[4]) / 1000;
    phases[name] = (((ms - (spawnedAtMs % dayMs)) % dayMs) + dayMs) % dayMs;
  }
  return phases;
}

async function timeStart(args: string[], port: number): Promise<Start> {
  const spawnedAtMs = Date.now();
  const started = performance.now();
  const child: ChildProcess = spawn(process.execPath, args, { env: ENV, stdio: ['ignore', 'ignore', 'pipe'] });
  let stderr = '';
  child.stderr!.on('data', (chunk: Buffer) => (stderr += chunk.toString('utf8')));
  const exited = new Promise<number | null>((resolve) => child.once('exit', resolve));
  let exitCode: number | null | undefined;
  void exited.then((code) => (exitCode = code));
  try {
    for (;;) {
      if (exitCode !== undefined) throw new Error(`node ${args.join(' ')} exited with ${exitCode}:\n${stderr}`);
      if ((await readyzStatus(port)) === 200) break;
      await delay(5);
    }
    const readyMs = performance.now() - started;
    child.kill('SIGTERM');
    // The next start needs the port and the LevelDB lock.
    await exited;
    return { readyMs, phases: phaseTimes(stderr, spawnedAtMs) };
  } finally {
    if (exitCode === undefined) child.kill('SIGKILL');
  }
}

async function main(): Promise<void> {
  const summary: Record<string, unknown> = { bench: 'startup', node: process.version, rounds: ROUNDS, objects: OBJECTS };
  if (!isFresh()) await build();
  const scratch = await mkdtemp(join(tmpdir(), 'fairway-build-bench-'));
  try {
    const buildMs = await build(ROOT, scratch);
    console.log(`build (esbuild, every source file): ${buildMs.toFixed(0)} ms`);
    summary.buildMs = buildMs;
  } finally {
    await rm(scratch, { recursive: true, force: true });
  }

  const bareNode: number[] = [];
  const help: number[] = [];
  timeCommand(['-e', '0']);
  timeCommand([LAUNCHER, '--help']);
  for (let round = 0; round < ROUNDS * 2; round++) {
    bareNode.push(timeCommand(['-e', '0']));
    help.push(timeCommand([LAUNCHER, '--help']));
  }
  const helpRatio = median(help) / median(bareNode);
  console.log(`node -e 0           ${median(bareNode).toFixed(0).padStart(6)} ms (median of ${bareNode.length})`);
  console.log(`fairway --help      ${median(help).toFixed(0).padStart(6)} ms  → ${helpRatio.toFixed(2)}× bare node (goal ≤ 3×)`);
  summary.help = { bareNodeMs: median(bareNode), helpMs: median(help), ratio: helpRatio };

  // A data dir as a restart finds it: certificates, the bootstrap configuration and OBJECTS more.
  const first = await startServerProcess({ storageBackend: 'leveldb' });
  const dataDir = first.dataDir;
  try {
    for (let i = 0; i < OBJECTS; i++) {
      const body = {
        metadata: { name: `startup-${i}` },
        spec: { type: 'Limited', limited: { nominalConcurrencyShares: 1, limitResponse: { type: 'Reject' } } },
      };
      const created = await first.client.request('POST', PLC_PATH, { body });
      if (created.status !== 201) throw new Error(`creating startup-${i}: ${created.text}`);
    }
    await first.stop({ keepData: true });
    await readFile(join(dataDir, 'pki', 'apiserver.crt'));

    const bare: Start[] = [];
    const fairway: Start[] = [];
    for (let round = 0; round < ROUNDS; round++) {
      const port = await freePort();
      bare.push(await timeStart([BARE_SERVER, dataDir, String(port)], port));
      fairway.push(await timeStart([LAUNCHER, 'serve', `--data-dir=${dataDir}`, `--secure-port=${port}`, '--storage-backend=leveldb'], port));
    }
    const bareMs = median(bare.map((s) => s.readyMs));
    const fairwayMs = median(fairway.map((s) => s.readyMs));
    const ratio = fairwayMs / bareMs;
    console.log(`bare https + LevelDB ready ${bareMs.toFixed(0).padStart(6)} ms (median of ${ROUNDS})`);
    console.log(`fairway serve ready        ${fairwayMs.toFixed(0).padStart(6)} ms  → ${ratio.toFixed(2)}× bare (goal ≤ 3×; ${OBJECTS} objects stored)`);
    const phases: Record<string, number> = {};
    for (const [name] of PHASE_LINES) {
      const times = fairway.map((s) => s.phases[name]).filter((t): t is number => t !== undefined);
      if (times.length > 0) phases[name] = median(times);
    }
    console.log(
      `  fairway phases (median ms from spawn): ${Object.entries(phases)
        .map(([n, t]) => `${n} ${t.toFixed(0)}`)
        .join(', ')}, ready ${fairwayMs.toFixed(0)}`,
    );
    summary.restart = { bareMs, fairwayMs, ratio, phases, rounds: fairway.map((s, i) => s.readyMs / bare[i]!.readyMs) };
  } finally {
    await rm(dataDir, { recursive: true, force: true });
  }
  console.log(JSON.stringify(summary));
}

await main();
