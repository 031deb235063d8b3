// Watch fan-out over HTTP/2: W watches multiplexed over at most 10 connections (client-go's way:
// many streams per connection), one write, and how long until every watch has the event. Fairway
// (`fairway serve`, memory backend, --http2-max-streams-per-connection so 10 connections carry the
// watches) is measured against a bare node:http2 server that writes the same bytes to the same
// number of streams on the same number of connections (bench/bare-h2-fanout-server.ts), in the
// same run, by the same client processes (bench/watch-fanout-client.ts; several, so the client is
// not the bottleneck). Latency runs from just before the write is sent (Fairway: a create of a
// PriorityLevelConfiguration the watches see as ADDED; baseline: `POST /fire` with that ADDED line)
// to each stream's arrival of the line, on the machine-wide monotonic clock.
//
//   node --import tsx bench/watch-fanout.bench.ts [--watches=10000] [--connections=10] [--clients=2] [--rounds=5]
//
// Reports p50/p99/max delivery per side and their ratios (goal: Fairway p99 ≤ 3× the bare
// server's), server CPU per fan-out, and server memory per watch (RSS growth from opening the
// watches, divided by their number; goal ≤ 10 KB). BENCH_QUICK=1 for a smoke run. Ends with one
// JSON line (`{"bench":"watch-fanout",...}`).
import { fork, spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { startServerProcess } from '../api/commands/testing/server-process.ts';
import { connectH2, type H2Client } from '../api/testing/h2-client.ts';
import { table } from './fixtures.ts';

const arg = (name: string, fallback: number) => Number(process.argv.find((a) => a.startsWith(`--${name}=`))?.split('=')[1] ?? fallback);
const QUICK = process.env.BENCH_QUICK === '1';
const WATCHES = arg('watches', QUICK ? 1_000 : 10_000);
const CONNECTIONS = Math.min(10, arg('connections', 10));
const CLIENTS = Math.max(1, Math.min(CONNECTIONS, arg('clients', 2)));
const ROUNDS = arg('rounds', QUICK ? 2 : 5);
const STREAMS_PER_CONNECTION = Math.ceil(WATCHES / CONNECTIONS);
const PLC_PATH = '/apis/flowcontrol.apiserver.k8s.io/v1/prioritylevelconfigurations';
const HERE = dirname(fileURLToPath(import.meta.url));
const CLOCK_TICKS_PER_SECOND = Number(spawnSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).stdout.trim()) || 100;
const PAGE_BYTES = Number(spawnSync('getconf', ['PAGESIZE'], { encoding: 'utf8' }).stdout.trim()) || 4096;

/** A process's CPU time (user + system) in seconds, from /proc/<pid>/stat. */
function cpuSeconds(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return (Number(fields[11]) + Number(fields[12])) / CLOCK_TICKS_PER_SECOND;
}

/** Resident set size in bytes, from /proc/<pid>/statm. */
function rssBytes(pid: number): number {
  return Number(readFileSync(`/proc/${pid}/statm`, 'utf8').split(' ')[1]) * PAGE_BYTES;
}

const nowMs = () => Number(process.hrtime.bigint()) / 1e6;
const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

interface Client {
  child: ChildProcess;
  next(type: string): Promise<any>;
}

function startClient(): Client {
  const child = fork(join(HERE, 'watch-fanout-client.ts'), [], { execArgv: ['--import', 'tsx'], stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
  const inbox: any[] = [];
  let wake: (() => void) | undefined;
  child.on('message', (message) => {
    inbox.push(message);
    wake?.();
  });
  return {
    child,
    async next(type) {
      for (;;) {
        const at = inbox.findIndex((m) => m.type === type || m.type === 'error');
        if (at >= 0) {
          const [message] = inbox.splice(at, 1);
          if (message.type === 'error') throw new Error(`client: ${message.error}`);
          return message;
        }
        await new Promise<void>((resolve) => (wake = resolve));
      }
    },
  };
}

interface Side {
  pid: number;
  url: string;
  /** Sends the round's write; resolves when the server acknowledged it. */
  fire(marker: string): Promise<void>;
}

interface Round {
  p50Ms: number;
  p99Ms: number;
  maxMs: number;
  missing: number;
  cpuMsPerFanout: number;
}

const percentile = (sorted: readonly number[], p: number) => sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;

/** Opens the watches on `side` through the clients; returns the server's RSS growth per watch. */
async function openWatches(clients: readonly Client[], side: Side, caPem: string, token: string, path: string): Promise<number> {
  await sleep(1_000);
  const before = rssBytes(side.pid);
  const perClient = Math.ceil(CONNECTIONS / clients.length);
  let connectionsLeft = CONNECTIONS;
  for (const client of clients) {
    const connections = Math.min(perClient, connectionsLeft);
    connectionsLeft -= connections;
    client.child.send({ type: 'open', url: side.url, caPem, token, path, connections, streamsPerConnection: STREAMS_PER_CONNECTION });
  }
  await Promise.all(clients.map((client) => client.next('opened')));
  await sleep(2_000);
  return (rssBytes(side.pid) - before) / (CONNECTIONS * STREAMS_PER_CONNECTION);
}

async function measure(clients: readonly Client[], side: Side, marker: string): Promise<{ round: Round; sample: string }> {
  for (const client of clients) client.child.send({ type: 'expect', marker, timeoutMs: 60_000 });
  await Promise.all(clients.map((client) => client.next('armed')));
  const cpuBefore = cpuSeconds(side.pid);
  const startMs = nowMs();
  await side.fire(marker);
  const results = await Promise.all(clients.map((client) => client.next('delivered')));
  const cpuMsPerFanout = (cpuSeconds(side.pid) - cpuBefore) * 1000;
  const latencies = results.flatMap((r) => (r.arrivalsMs as number[]).map((t) => t - startMs)).sort((a, b) => a - b);
  const missing = results.reduce((sum, r) => sum + (r.missing as number), 0);
  return {
    round: {
      p50Ms: percentile(latencies, 50),
      p99Ms: percentile(latencies, 99),
      maxMs: latencies[latencies.length - 1] ?? Number.NaN,
      missing,
      cpuMsPerFanout,
    },
    sample: results.find((r) => r.sample !== '')?.sample ?? '',
  };
}

async function startBare(certPem: string, keyPem: string, dir: string): Promise<{ pid: number; port: number; stop(): void }> {
  await writeFile(join(dir, 'cert.pem'), certPem);
  await writeFile(join(dir, 'key.pem'), keyPem);
  const child = spawn(
    process.execPath,
    ['--import', 'tsx', join(HERE, 'bare-h2-fanout-server.ts'), join(dir, 'cert.pem'), join(dir, 'key.pem'), String(STREAMS_PER_CONNECTION)],
    {
      stdio: ['ignore', 'pipe', 'inherit'],
    },
  );
  const port = await new Promise<number>((resolve, reject) => {
    child.stdout.once('data', (chunk: Buffer) => resolve(Number(chunk.toString('utf8').trim())));
    child.once('exit', (code) => reject(new Error(`bare server exited with ${code}`)));
  });
  return { pid: child.pid!, port, stop: () => child.kill('SIGTERM') };
}

const marker = (round: number) => `fanout-r${String(round).padStart(5, '0')}`;

async function main(): Promise<void> {
  const fairway = await startServerProcess({
    storageBackend: 'memory',
    args: [`--http2-max-streams-per-connection=${STREAMS_PER_CONNECTION}`, '--max-watches-per-user=0'],
  });
  const dir = await mkdtemp(join(tmpdir(), 'fairway-fanout-'));
  let bare: { pid: number; port: number; stop(): void } | undefined;
  const fairwayClients: Client[] = [];
  const bareClients: Client[] = [];
  try {
    // The writers connect once the watches are open: an idle connection is closed after 90 s.
    let admin: H2Client | undefined;
    const rv = (await fairway.client.get(`${PLC_PATH}?limit=1`)).json().metadata.resourceVersion as string;
    const fairwaySide: Side = {
      pid: fairway.pid,
      url: fairway.url,
      async fire(name) {
        const body = JSON.stringify({
          apiVersion: 'flowcontrol.apiserver.k8s.io/v1',
          kind: 'PriorityLevelConfiguration',
          metadata: { name },
          spec: { type: 'Limited', limited: { nominalConcurrencyShares: 1, limitResponse: { type: 'Reject' } } },
        });
        const created = await admin!.request('POST', PLC_PATH, { body, headers: { 'content-type': 'application/json' } });
        if (created.status !== 201) throw new Error(`create: ${created.status} ${created.text}`);
      },
    };
    const certPem = await readFile(join(fairway.dataDir, 'pki', 'apiserver.crt'), 'utf8');
    const keyPem = await readFile(join(fairway.dataDir, 'pki', 'apiserver.key'), 'utf8');
    bare = await startBare(certPem, keyPem, dir);
    const bareUrl = `https://127.0.0.1:${bare.port}`;
    let bareAdmin: H2Client | undefined;
    let lineTemplate = '';
    const bareSide: Side = {
      pid: bare.pid,
      url: bareUrl,
      async fire(name) {
        const fired = await bareAdmin!.request('POST', '/fire', { body: lineTemplate.replaceAll('fanout-r00000', name) });
        if (fired.status !== 200) throw new Error(`fire: ${fired.status}`);
      },
    };

    for (let i = 0; i < CLIENTS; i++) {
      fairwayClients.push(startClient());
      bareClients.push(startClient());
    }
    console.log(
      `node ${process.version}: ${CONNECTIONS * STREAMS_PER_CONNECTION} watches over ${CONNECTIONS} HTTP/2 connections (${STREAMS_PER_CONNECTION} ` +
        `streams each), ${CLIENTS} client processes per side, ${ROUNDS} rounds`,
    );
    const fairwayBytesPerWatch = await openWatches(fairwayClients, fairwaySide, fairway.caPem, fairway.token, `${PLC_PATH}?watch=true&resourceVersion=${rv}`);
    const bareBytesPerWatch = await openWatches(bareClients, bareSide, fairway.caPem, fairway.token, '/watch');
    admin = await connectH2(fairway.url, { token: fairway.token, caPem: fairway.caPem });
    bareAdmin = await connectH2(bareUrl, { caPem: fairway.caPem });

    // Round 0 on Fairway captures the event line the baseline then sends (same bytes, same size).
    const warm = await measure(fairwayClients, fairwaySide, marker(0));
    lineTemplate = warm.sample;
    if (lineTemplate === '') throw new Error('no event line captured');
    await measure(bareClients, bareSide, marker(0));

    const rounds: { fairway: Round; bare: Round; ratio: number }[] = [];
    for (let round = 1; round <= ROUNDS; round++) {
      const baseline = (await measure(bareClients, bareSide, marker(round))).round;
      const measured = (await measure(fairwayClients, fairwaySide, marker(round))).round;
      rounds.push({ fairway: measured, bare: baseline, ratio: measured.p99Ms / baseline.p99Ms });
    }
    const byRatio = [...rounds].sort((a, b) => a.ratio - b.ratio);
    const median = byRatio[Math.floor(byRatio.length / 2)]!;
    const fmt = (r: Round) =>
      `p50 ${r.p50Ms.toFixed(1)} ms   p99 ${r.p99Ms.toFixed(1)} ms   max ${r.maxMs.toFixed(1)} ms   server CPU ${r.cpuMsPerFanout.toFixed(0)} ms` +
      `${r.missing > 0 ? `   MISSING ${r.missing}` : ''}`;
    table(`one write to ${CONNECTIONS * STREAMS_PER_CONNECTION} watches (median round by p99 ratio; event line ${Buffer.byteLength(lineTemplate)} bytes)`, [
      ['bare node:http2', fmt(median.bare)],
      ['fairway', fmt(median.fairway)],
      ['p99 ratio', `${median.ratio.toFixed(2)}x (rounds: ${rounds.map((r) => r.ratio.toFixed(2)).join(', ')}; goal <= 3x)`],
      ['p50 ratio', `${(median.fairway.p50Ms / median.bare.p50Ms).toFixed(2)}x`],
      [
        'server memory per watch',
        `fairway ${(fairwayBytesPerWatch / 1024).toFixed(1)} KB, bare ${(bareBytesPerWatch / 1024).toFixed(1)} KB (RSS growth / watches; goal <= 10 KB)`,
      ],
    ]);
    console.log(
      JSON.stringify({
        bench: 'watch-fanout',
        node: process.version,
        watches: CONNECTIONS * STREAMS_PER_CONNECTION,
        connections: CONNECTIONS,
        clients: CLIENTS,
        bare: median.bare,
        fairway: median.fairway,
        p99Ratio: median.ratio,
        rounds: rounds.map((r) => r.ratio),
        bytesPerWatch: { fairway: fairwayBytesPerWatch, bare: bareBytesPerWatch },
      }),
    );
    await admin.close();
    await bareAdmin.close();
  } finally {
    for (const client of [...fairwayClients, ...bareClients]) {
      client.child.send({ type: 'close' });
    }
    bare?.stop();
    await fairway.stop();
    await rm(dir, { recursive: true, force: true });
  }
}

await main();
