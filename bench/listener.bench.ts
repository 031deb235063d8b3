// What Fairway's listening side costs per GET, apart from its request path: the same handler
// (fixed bytes, two headers) served by a bare node:https server and by Fairway's own listener
// (createSecureApiServer: TLS offering h2 and http/1.1, Http1Response, the HTTP/1.1 connection
// rules), each in a child process of its own (bench/bare-https-server.ts), loaded by wrk
// (`-t1 -c50`, HTTP/1.1 keep-alive over TLS). Each round loads both servers at the same time, so a
// change in the machine's load hits both alike; server CPU per request comes from /proc. The
// ratio is node:https's CPU per GET over the Fairway listener's: 1.00 means Fairway's TLS, socket
// and HTTP/1.1 framing cost what node:https's do, and the gap measured by bench/api.bench.ts lies in
// the request path (bench/get-path.bench.ts measures that one in-process).
//
//   node --import tsx bench/listener.bench.ts [--seconds=S] [--rounds=R] [--connections=C]
//
// Ends with one JSON line (`{"bench":"listener",...}`). BENCH_QUICK=1 for a smoke run.
import { spawn } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { availableParallelism, loadavg, tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { generateCertificateAuthority, issueServingCertificate } from '../engine/x509/certificates.ts';
import { processCpuSeconds } from './fixtures.ts';
import { requestsPerSecond, requireWrk, runWrk } from './wrk.ts';

const arg = (name: string, fallback: number) => Number(process.argv.find((a) => a.startsWith(`--${name}=`))?.split('=')[1] ?? fallback);
const QUICK = process.env.BENCH_QUICK === '1';
const SECONDS = arg('seconds', QUICK ? 2 : 4);
const ROUNDS = arg('rounds', QUICK ? 1 : 7);
const CONNECTIONS = arg('connections', 50);
const PATH = '/apis/flowcontrol.apiserver.k8s.io/v1/prioritylevelconfigurations/bench-0000';
/** About the size of Fairway's answer to that GET (bench/api.bench.ts measures 744 bytes). */
const BODY = JSON.stringify({ kind: 'PriorityLevelConfiguration', apiVersion: 'flowcontrol.apiserver.k8s.io/v1', padding: 'x'.repeat(660) });

interface Child {
  pid: number;
  url: string;
  stop(): void;
}

async function start(dir: string, listener: 'node-https' | 'fairway'): Promise<Child> {
  const script = join(dirname(fileURLToPath(import.meta.url)), 'bare-https-server.ts');
  const args = ['--import', 'tsx', script, join(dir, 'responses.json'), join(dir, 'cert.pem'), join(dir, 'key.pem')];
  if (listener === 'fairway') args.push('--listener=fairway');
  const child = spawn(process.execPath, args, { stdio: ['ignore', 'pipe', 'inherit'] });
  const port = await new Promise<number>((resolve, reject) => {
    child.stdout.once('data', (chunk: Buffer) => resolve(Number(chunk.toString('utf8').trim())));
    child.once('exit', (code) => reject(new Error(`${listener} server exited with ${code}`)));
  });
  return { pid: child.pid!, url: `https://127.0.0.1:${port}${PATH}`, stop: () => child.kill('SIGTERM') };
}

interface Figures {
  requestsPerSecond: number;
  cpuUsPerRequest: number;
}

/** Loads both servers at once for SECONDS; each one's req/s and CPU µs per request. */
async function loadBoth(a: Child, b: Child): Promise<[Figures, Figures]> {
  const before = [processCpuSeconds(a.pid), processCpuSeconds(b.pid)];
  const results = await Promise.all([a, b].map((target) => runWrk({ url: target.url, connections: CONNECTIONS, seconds: SECONDS })));
  const figures = [a, b].map((target, i) => {
    const result = results[i]!;
    if (result.non2xx > 0 || result.timeouts > 0 || result.connectErrors + result.readErrors + result.writeErrors > 0)
      throw new Error(`failed requests ${JSON.stringify(result)}`);
    return {
      requestsPerSecond: requestsPerSecond(result),
      cpuUsPerRequest: ((processCpuSeconds(target.pid) - before[i]!) * 1e6) / Math.max(1, result.requests),
    };
  });
  return [figures[0]!, figures[1]!];
}

const median = (xs: number[]): number => [...xs].sort((x, y) => x - y)[Math.floor(xs.length / 2)] ?? Number.NaN;

async function main(): Promise<void> {
  requireWrk();
  const dir = await mkdtemp(join(tmpdir(), 'fairway-listener-bench-'));
  const ca = await generateCertificateAuthority({});
  const serving = await issueServingCertificate(ca, { hosts: ['127.0.0.1'] });
  await writeFile(join(dir, 'responses.json'), JSON.stringify({ [PATH]: BODY }));
  await writeFile(join(dir, 'cert.pem'), serving.certPem);
  await writeFile(join(dir, 'key.pem'), serving.keyPem);
  const children: Child[] = [];
  try {
    const bare = await start(dir, 'node-https');
    children.push(bare);
    const fairway = await start(dir, 'fairway');
    children.push(fairway);
    await loadBoth(bare, fairway); // warm-up: JIT, TLS
    const rounds: { bare: Figures; fairway: Figures }[] = [];
    for (let round = 0; round < ROUNDS; round++) {
      const [b, f] = await loadBoth(bare, fairway);
      rounds.push({ bare: b, fairway: f });
    }
    const ratios = rounds.map((r) => r.bare.cpuUsPerRequest / r.fairway.cpuUsPerRequest);
    const summary = {
      bench: 'listener',
      node: process.version,
      cores: availableParallelism(),
      seconds: SECONDS,
      rounds: ROUNDS,
      connections: CONNECTIONS,
      bodyBytes: Buffer.byteLength(BODY),
      bare: { cpuUsPerRequest: median(rounds.map((r) => r.bare.cpuUsPerRequest)), requestsPerSecond: median(rounds.map((r) => r.bare.requestsPerSecond)) },
      fairway: {
        cpuUsPerRequest: median(rounds.map((r) => r.fairway.cpuUsPerRequest)),
        requestsPerSecond: median(rounds.map((r) => r.fairway.requestsPerSecond)),
      },
      cpuRatio: median(ratios),
      roundRatios: ratios,
      loadavg: loadavg(),
    };
    console.log(`node ${process.version}, ${availableParallelism()} cores, wrk -t1 -c${CONNECTIONS} on both at once, ${ROUNDS} round(s) of ${SECONDS} s`);
    console.log(
      `node:https        ${summary.bare.requestsPerSecond.toFixed(0).padStart(7)} req/s  ${summary.bare.cpuUsPerRequest.toFixed(1).padStart(6)} µs CPU/GET`,
    );
    console.log(
      `Fairway listener  ${summary.fairway.requestsPerSecond.toFixed(0).padStart(7)} req/s  ` +
        `${summary.fairway.cpuUsPerRequest.toFixed(1).padStart(6)} µs CPU/GET`,
    );
    const roundRatios = ratios.map((r) => r.toFixed(2)).join(', ');
    console.log(`CPU ratio node:https/Fairway listener ${summary.cpuRatio.toFixed(2)}x (rounds: ${roundRatios})`);
    console.log(JSON.stringify(summary));
  } finally {
    for (const child of children) child.stop();
    await rm(dir, { recursive: true, force: true });
  }
}

await main();
