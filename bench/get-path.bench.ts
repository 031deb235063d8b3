// The GET path's own cost: CPU per GET by name inside one process, without TLS, sockets or a load
// client, so the figure is Fairway's work (request context, filters, APF, metrics, handler and
// Node's HTTP/1.1 response machinery) and little else. bench/api.bench.ts measures the whole
// server under wrk; on a shared machine its figures move with the load, while this one stays
// within a few percent, which makes it the bench to judge a change of the request path by.
//
//   node --import tsx bench/get-path.bench.ts [--requests=N] [--rounds=R] [--authorization=none]
//
// Requests are real node:http IncomingMessage/Http1Response objects on a socket that discards what
// it is sent, 50 at a time, handed to the server's request listener. Three variants, each in its
// own process (two processes each, in mirrored order): a bare handler sending the same body with
// two headers (the floor: Node's own response work), Fairway with APF off, and Fairway as served
// (APF on: classification, admission, seats held until the body is out, the X-Kubernetes-PF-*
// headers). Both Fairway variants authorize as `fairway serve` does without authorization flags
// (the privileged group, then AlwaysAllow, behind the authorization filter); `--authorization=none`
// leaves the filter out, as the figures before it was added were taken. The ratio is bare over
// Fairway: the share of the floor's throughput a CPU-bound Fairway would keep if nothing else (TLS,
// the kernel) cost anything.
//
// Bytes allocated per GET are measured in rounds of their own after the CPU rounds (so the
// accounting's cost is not in the CPU figure): the JS heap's used size at the end minus at the
// start, plus what every garbage collection in between freed, read from v8.GCProfiler's before and
// after heap statistics of each collection. That is exact to the byte for JS objects (a check
// allocating a million `{i}` reads 32.00 bytes each); memory outside the JS heap (Buffers' backing
// stores, Node's C++ objects) is not counted.
// Ends with one JSON line (`{"bench":"get-path",...}`).
import { IncomingMessage, type ServerResponse } from 'node:http';
import { spawnSync } from 'node:child_process';
import { GCProfiler, getHeapStatistics } from 'node:v8';
import { Duplex } from 'node:stream';
import { fileURLToPath } from 'node:url';
import { Http1Response } from '../api/transport/http1-connection.ts';
import { startInProcessServer, type InProcessServer } from '../api/integration/testing/in-process.ts';

const arg = (name: string, fallback: number) => Number(process.argv.find((a) => a.startsWith(`--${name}=`))?.split('=')[1] ?? fallback);
const QUICK = process.env.BENCH_QUICK === '1';
const REQUESTS = arg('requests', QUICK ? 2_000 : 10_000);
const ROUNDS = arg('rounds', QUICK ? 3 : 9);
const IN_FLIGHT = 50;
const ALLOCATION_ROUNDS = 3;
const AUTHORIZATION = process.argv.includes('--authorization=none') ? 'none' : 'served';
const PLC_PATH = '/apis/flowcontrol.apiserver.k8s.io/v1/prioritylevelconfigurations';
const GET_PATH = `${PLC_PATH}/bench-0000`;

/** A connection that takes every byte and keeps none. */
class DiscardingSocket extends Duplex {
  readonly remoteAddress = '127.0.0.1';
  readonly remotePort = 40000;
  override _read(): void {}
  override _write(_chunk: Buffer, _encoding: string, callback: () => void): void {
    callback();
  }
  override _writev(_chunks: unknown[], callback: () => void): void {
    callback();
  }
  setTimeout(): this {
    return this;
  }
}

type Listener = (req: IncomingMessage, res: ServerResponse) => void;

/** One GET through `listener`; resolves when the response has closed, as Node's server closes it. */
function oneGet(listener: Listener, socket: DiscardingSocket, headers: Record<string, string>, rawHeaders: string[]): Promise<number> {
  const req = new IncomingMessage(socket as never);
  req.method = 'GET';
  req.url = GET_PATH;
  req.httpVersion = '1.1';
  req.httpVersionMajor = 1;
  req.httpVersionMinor = 1;
  req.headers = { ...headers };
  req.rawHeaders = rawHeaders;
  req.complete = true;
  req.push(null);
  const res = new Http1Response(req);
  res.shouldKeepAlive = true;
  res.assignSocket(socket as never);
  return new Promise((resolve) => {
    res.on('finish', () => {
      res.detachSocket(socket as never);
      // What Node's server does after 'finish' (resOnFinish → emitCloseNT).
      process.nextTick(() => {
        (res as { destroyed: boolean }).destroyed = true;
        res.emit('close');
        resolve(res.statusCode);
      });
    });
    listener(req, res);
  });
}

/** CPU µs per GET over `count` requests, IN_FLIGHT at a time. */
async function measure(listener: Listener, token: string, count: number): Promise<number> {
  const before = process.cpuUsage();
  await getMany(listener, token, count);
  const used = process.cpuUsage(before);
  return (used.user + used.system) / count;
}

/** JS heap bytes allocated per GET over `count` requests: heap growth plus what each collection freed. */
async function measureAllocation(listener: Listener, token: string, count: number): Promise<number> {
  const profiler = new GCProfiler();
  profiler.start();
  const usedBefore = getHeapStatistics().used_heap_size;
  await getMany(listener, token, count);
  const usedAfter = getHeapStatistics().used_heap_size;
  let freed = 0;
  for (const gc of profiler.stop().statistics) freed += gc.beforeGC.heapStatistics.usedHeapSize - gc.afterGC.heapStatistics.usedHeapSize;
  return (usedAfter - usedBefore + freed) / count;
}

/** `count` GETs, IN_FLIGHT at a time. */
async function getMany(listener: Listener, token: string, count: number): Promise<void> {
  const headers = { host: '127.0.0.1', authorization: `Bearer ${token}`, accept: 'application/json' };
  const rawHeaders = ['Host', headers.host, 'Authorization', headers.authorization, 'Accept', headers.accept];
  const sockets = Array.from({ length: IN_FLIGHT }, () => new DiscardingSocket());
  let left = count;
  await Promise.all(
    sockets.map(async (socket) => {
      while (left-- > 0) {
        const status = await oneGet(listener, socket, headers, rawHeaders);
        if (status !== 200) throw new Error(`GET answered ${status}`);
      }
    }),
  );
}

async function startWithObject(enablePriorityAndFairness: boolean): Promise<{ server: InProcessServer; body: Buffer }> {
  const server = await startInProcessServer({ enablePriorityAndFairness, ...(AUTHORIZATION === 'served' ? { authorizationMode: [] } : {}) });
  await server.ready();
  const created = await server.client.request('POST', PLC_PATH, {
    body: { metadata: { name: 'bench-0000' }, spec: { type: 'Limited', limited: { nominalConcurrencyShares: 10, limitResponse: { type: 'Reject' } } } },
  });
  if (created.status !== 201) throw new Error(`creating the object: ${created.text}`);
  const got = await server.client.get(GET_PATH, { headers: { Accept: 'application/json' } });
  return { server, body: Buffer.from(got.text, 'utf8') };
}

const median = (xs: number[]): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? Number.NaN;

const VARIANTS = { bare: 'bare handler', 'apf-off': 'Fairway, APF off', fairway: 'Fairway' } as const;
type Variant = keyof typeof VARIANTS;

/** One process's medians. */
interface VariantFigure {
  cpuUsPerGet: number;
  bytesPerGet: number;
}

/** In a child process of its own (one variant per process: no JIT feedback or heap shared between them): the median µs and bytes per GET. */
async function runVariant(variant: Variant): Promise<void> {
  const { server, body } = await startWithObject(variant === 'fairway');
  const listener: Listener =
    variant === 'bare'
      ? (_req, res) => {
          res.statusCode = 200;
          res.setHeader('Content-Type', 'application/json');
          res.setHeader('Content-Length', body.byteLength);
          res.end(body);
        }
      : server.fairway.apiServer.handle;
  try {
    // Warm-up: JIT, caches, the object's JSON.
    await measure(listener, server.token, REQUESTS);
    const figures: number[] = [];
    for (let round = 0; round < ROUNDS; round++) figures.push(await measure(listener, server.token, REQUESTS));
    const allocations: number[] = [];
    for (let round = 0; round < ALLOCATION_ROUNDS; round++) allocations.push(await measureAllocation(listener, server.token, REQUESTS));
    const figure: VariantFigure = { cpuUsPerGet: median(figures), bytesPerGet: median(allocations) };
    process.stdout.write(`${JSON.stringify({ variant, ...figure })}\n`);
  } finally {
    await server.close();
  }
}

function spawnVariant(variant: Variant): VariantFigure {
  const child = spawnSync(
    process.execPath,
    [
      '--import',
      'tsx',
      fileURLToPath(import.meta.url),
      `--variant=${variant}`,
      `--requests=${REQUESTS}`,
      `--rounds=${ROUNDS}`,
      `--authorization=${AUTHORIZATION}`,
    ],
    {
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'inherit'],
    },
  );
  if (child.status !== 0) throw new Error(`variant ${variant} failed (${child.signal ?? child.status})`);
  return JSON.parse(child.stdout.trim().split('\n').pop()!) as VariantFigure;
}

async function main(): Promise<void> {
  const only = process.argv.find((a) => a.startsWith('--variant='))?.split('=')[1] as Variant | undefined;
  if (only !== undefined) return runVariant(only);
  // Each variant twice, in mirrored order, so a change in the machine's load hits all alike.
  const order: Variant[] = ['bare', 'apf-off', 'fairway', 'fairway', 'apf-off', 'bare'];
  const runs: Record<Variant, VariantFigure[]> = { bare: [], 'apf-off': [], fairway: [] };
  for (const variant of order) runs[variant].push(spawnVariant(variant));
  const figure = (v: Variant) => Math.min(...runs[v].map((r) => r.cpuUsPerGet));
  const bytes = (v: Variant) => Math.min(...runs[v].map((r) => r.bytesPerGet));
  console.log(
    `node ${process.version}; per variant 2 processes × ${ROUNDS} rounds of ${REQUESTS} GETs, ${IN_FLIGHT} in flight; CPU µs per GET (the lower of ` +
      `the two medians); JS heap KB allocated per GET (the lower of the two medians of ${ALLOCATION_ROUNDS} rounds); authorization ${AUTHORIZATION}`,
  );
  for (const v of Object.keys(VARIANTS) as Variant[])
    console.log(
      `${VARIANTS[v].padEnd(18)} ${figure(v).toFixed(2).padStart(6)} µs   bare/this ${(figure('bare') / figure(v)).toFixed(2)}x   ` +
        `${(bytes(v) / 1024).toFixed(2).padStart(6)} KB   this/bare ${(bytes(v) / bytes('bare')).toFixed(2)}x   ` +
        `runs ${runs[v].map((r) => r.cpuUsPerGet.toFixed(2)).join(', ')} µs`,
    );
  console.log(
    JSON.stringify({
      bench: 'get-path',
      node: process.version,
      requests: REQUESTS,
      rounds: ROUNDS,
      authorization: AUTHORIZATION,
      cpuUsPerGet: { bare: figure('bare'), fairwayApfOff: figure('apf-off'), fairway: figure('fairway') },
      bytesPerGet: { bare: bytes('bare'), fairwayApfOff: bytes('apf-off'), fairway: bytes('fairway') },
      ratio: figure('bare') / figure('fairway'),
    }),
  );
}

await main();
