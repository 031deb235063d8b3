// API server throughput and latency: GET by name and LIST against `fairway serve` (a child process,
// memory backend, APF on, the admin's token) and against a bare node:https server (another child
// process) that returns the very same bytes, measured in the same run by the same keep-alive load
// client in this process. Reports req/s, the Fairway/bare ratio, and p50/p99 latency.
//
//   node --import tsx bench/api.bench.ts [--requests=N] [--concurrency=C] [--objects=K] [--rounds=R] [--profile=DIR]
//
// Each endpoint is measured in R rounds, each round the baseline then Fairway back to back; the
// round with the median ratio is printed (the machine is shared, so single rounds are noisy).
// Two ratios: throughput (req/s, bounded by this process's HTTPS client on a 2-core machine) and
// capacity (server CPU time per request, read from /proc, baseline over Fairway): the share of
// the bare server's throughput a CPU-bound Fairway would keep. BENCH_QUICK=1 for a smoke run.
// Ends with one JSON line (`{"bench":"api",...}`) holding every figure.
import { spawn } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { Agent, request } from 'node:https';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { startServerProcess } from '../api/testing/server-process.ts';
import { processCpuSeconds } from './fixtures.ts';

const arg = (name: string, fallback: number) => Number(process.argv.find((a) => a.startsWith(`--${name}=`))?.split('=')[1] ?? fallback);
const QUICK = process.env.BENCH_QUICK === '1';
const REQUESTS = arg('requests', QUICK ? 2_000 : 20_000);
const CONCURRENCY = arg('concurrency', 16);
const OBJECTS = arg('objects', 100);
const ROUNDS = arg('rounds', 3);
const WARMUP = Math.min(3_000, REQUESTS / 4);
const PLC_PATH = '/apis/flowcontrol.apiserver.k8s.io/v1/prioritylevelconfigurations';

interface Target {
  pid: number;
  port: number;
  ca: string;
  agent: Agent;
}

interface Measurement {
  requestsPerSecond: number;
  p50Ms: number;
  p99Ms: number;
  /** Server CPU time (user + system) per request. */
  cpuUsPerRequest: number;
}

const cpuSeconds = processCpuSeconds;

function get(target: Target, path: string, token: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = request(
      { host: '127.0.0.1', port: target.port, path, method: 'GET', agent: target.agent, ca: target.ca, headers: { Authorization: `Bearer ${token}`, Accept: 'application/json' } },
      (res) => {
        let bytes = 0;
        res.on('data', (chunk: Buffer) => (bytes += chunk.length));
        res.on('end', () => (res.statusCode === 200 ? resolve(bytes) : reject(new Error(`${path}: HTTP ${res.statusCode}`))));
      },
    );
    req.on('error', reject);
    req.end();
  });
}

async function load(target: Target, path: string, token: string, count: number): Promise<Measurement> {
  const latenciesMs: number[] = [];
  let next = 0;
  const cpuBefore = cpuSeconds(target.pid);
  const started = process.hrtime.bigint();
  const worker = async () => {
    while (next < count) {
      next++;
      const t0 = process.hrtime.bigint();
      await get(target, path, token);
      latenciesMs.push(Number(process.hrtime.bigint() - t0) / 1e6);
    }
  };
  await Promise.all(Array.from({ length: CONCURRENCY }, worker));
  const seconds = Number(process.hrtime.bigint() - started) / 1e9;
  const cpuUsPerRequest = ((cpuSeconds(target.pid) - cpuBefore) * 1e6) / count;
  latenciesMs.sort((a, b) => a - b);
  const pct = (p: number) => latenciesMs[Math.min(latenciesMs.length - 1, Math.floor((p / 100) * latenciesMs.length))]!;
  return { requestsPerSecond: count / seconds, p50Ms: pct(50), p99Ms: pct(99), cpuUsPerRequest };
}

async function startBare(responses: Record<string, string>, certPem: string, keyPem: string, dir: string): Promise<{ pid: number; port: number; stop(): void }> {
  const responsesPath = join(dir, 'responses.json');
  await writeFile(responsesPath, JSON.stringify(responses));
  await writeFile(join(dir, 'cert.pem'), certPem);
  await writeFile(join(dir, 'key.pem'), keyPem);
  const script = join(dirname(fileURLToPath(import.meta.url)), 'bare-https-server.ts');
  const child = spawn(process.execPath, ['--import', 'tsx', script, responsesPath, join(dir, 'cert.pem'), join(dir, 'key.pem')], { stdio: ['ignore', 'pipe', 'inherit'] });
  const port = await new Promise<number>((resolve, reject) => {
    child.stdout.once('data', (chunk: Buffer) => resolve(Number(chunk.toString('utf8').trim())));
    child.once('exit', (code) => reject(new Error(`bare server exited with ${code}`)));
  });
  return { pid: child.pid!, port, stop: () => child.kill('SIGTERM') };
}

const format = (m: Measurement) =>
  `${m.requestsPerSecond.toFixed(0).padStart(7)} req/s   p50 ${m.p50Ms.toFixed(2).padStart(6)} ms   p99 ${m.p99Ms.toFixed(2).padStart(6)} ms   cpu ${m.cpuUsPerRequest.toFixed(0).padStart(4)} µs/req`;

async function main(): Promise<void> {
  const profileDir = process.argv.find((a) => a.startsWith('--profile='))?.split('=')[1];
  const fairway = await startServerProcess({ storageBackend: 'memory', ...(profileDir ? { nodeArgs: ['--cpu-prof', `--cpu-prof-dir=${profileDir}`] } : {}) });
  const dir = await mkdtemp(join(tmpdir(), 'fairway-bench-'));
  let bare: { pid: number; port: number; stop(): void } | undefined;
  const summary: Record<string, unknown> = { bench: 'api', node: process.version, concurrency: CONCURRENCY, requests: REQUESTS, objects: OBJECTS };
  try {
    for (let i = 0; i < OBJECTS; i++) {
      const name = `bench-${String(i).padStart(4, '0')}`;
      const created = await fairway.client.request('POST', PLC_PATH, {
        body: { metadata: { name, labels: { bench: 'yes' } }, spec: { type: 'Limited', limited: { nominalConcurrencyShares: 10, limitResponse: { type: 'Reject' } } } },
      });
      if (created.status !== 201) throw new Error(`creating ${name}: ${created.text}`);
    }
    const getPath = `${PLC_PATH}/bench-0000`;
    const listPath = `${PLC_PATH}?labelSelector=bench%3Dyes`;
    const accept = { Accept: 'application/json' };
    const responses = { [getPath]: (await fairway.client.get(getPath, { headers: accept })).text, [listPath]: (await fairway.client.get(listPath, { headers: accept })).text };
    const certPem = await readFile(join(fairway.dataDir, 'pki', 'apiserver.crt'), 'utf8');
    const keyPem = await readFile(join(fairway.dataDir, 'pki', 'apiserver.key'), 'utf8');
    bare = await startBare(responses, certPem, keyPem, dir);

    const targets = {
      fairway: { pid: fairway.pid, port: fairway.port, ca: fairway.caPem, agent: new Agent({ keepAlive: true, maxSockets: CONCURRENCY }) },
      bare: { pid: bare.pid, port: bare.port, ca: fairway.caPem, agent: new Agent({ keepAlive: true, maxSockets: CONCURRENCY }) },
    };
    console.log(`node ${process.version}, ${CONCURRENCY} keep-alive connections, ${REQUESTS} requests per measurement`);
    console.log(`GET body ${Buffer.byteLength(responses[getPath]!)} bytes; LIST body ${Buffer.byteLength(responses[listPath]!)} bytes (${OBJECTS} objects)`);
    for (const [label, path] of [
      ['GET by name', getPath],
      ['LIST', listPath],
    ] as const) {
      const count = label === 'LIST' ? Math.max(1_000, Math.floor(REQUESTS / 10)) : REQUESTS;
      await load(targets.bare, path, fairway.token, Math.min(WARMUP, count));
      await load(targets.fairway, path, fairway.token, Math.min(WARMUP, count));
      const rounds: { baseline: Measurement; measured: Measurement; ratio: number }[] = [];
      for (let round = 0; round < ROUNDS; round++) {
        const baseline = await load(targets.bare, path, fairway.token, count);
        const measured = await load(targets.fairway, path, fairway.token, count);
        rounds.push({ baseline, measured, ratio: measured.requestsPerSecond / baseline.requestsPerSecond });
      }
      const ratios = rounds.map((r) => r.ratio).sort((a, b) => a - b);
      const median = rounds.find((r) => r.ratio === ratios[Math.floor(ratios.length / 2)])!;
      console.log(`${label.padEnd(12)} bare    ${format(median.baseline)}`);
      const capacity = median.baseline.cpuUsPerRequest / median.measured.cpuUsPerRequest;
      console.log(`${label.padEnd(12)} fairway ${format(median.measured)}`);
      console.log(`${''.padEnd(12)} throughput ratio ${median.ratio.toFixed(2)}x (rounds: ${rounds.map((r) => r.ratio.toFixed(2)).join(', ')}), capacity ratio ${capacity.toFixed(2)}x`);
      summary[label === 'LIST' ? 'list' : 'get'] = { bare: median.baseline, fairway: median.measured, throughputRatio: median.ratio, capacityRatio: capacity, rounds: rounds.map((r) => r.ratio) };
    }
    targets.fairway.agent.destroy();
    targets.bare.agent.destroy();
    console.log(JSON.stringify(summary));
  } finally {
    bare?.stop();
    await fairway.stop();
    await rm(dir, { recursive: true, force: true });
  }
}

await main();
