// What a LIST costs in each encoding a client may ask for, against JSON in the same run: a real
// `fairway serve` (LevelDB, APF on, the default worker pool) holding 600 FlowSchemas (~2.7 MB as
// JSON), LISTed by wrk with 12 connections as JSON, YAML, Table (kubectl get's Accept header) and
// protobuf (client-go's for built-in kinds). Rounds alternate the encodings; medians are printed:
// LISTs per second, the ratio to JSON, the server's CPU per LIST (all its threads) and p99.
//
//   node --import tsx bench/list-encodings.bench.ts [--objects=600] [--padding=3800] [--seconds=6] [--rounds=3]
//   BENCH_QUICK=1 …   (one short round)
//
// Goal (docs/benchmarks.md): each encoding ≥ 0.5× JSON's LISTs per second. Prints a table, what
// the kept encodings hold (fairway_encoding_cache_bytes), then one JSON line
// (`{"bench":"list-encodings",...}`).
import { readFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { prefillFlowSchemas } from '../api/testing/prefill.ts';
import { startServerProcess } from '../api/commands/testing/server-process.ts';
import { processCpuSeconds, table } from './fixtures.ts';
import { requestsPerSecond, requireWrk, runWrk } from './wrk.ts';

const arg = (name: string, fallback: number) => Number(process.argv.find((a) => a.startsWith(`--${name}=`))?.split('=')[1] ?? fallback);
const QUICK = process.env.BENCH_QUICK === '1';
const OBJECTS = arg('objects', 600);
const PADDING = arg('padding', 3800);
const SECONDS = arg('seconds', QUICK ? 2 : 6);
const ROUNDS = arg('rounds', QUICK ? 1 : 3);
const CONNECTIONS = 12;
const FS_PATH = '/apis/flowcontrol.apiserver.k8s.io/v1/flowschemas';

/** The Accept headers clients send: kubectl get asks for a Table first, client-go for protobuf. */
const ENCODINGS = {
  json: { accept: 'application/json', contentType: 'application/json' },
  yaml: { accept: 'application/yaml', contentType: 'application/yaml' },
  table: {
    accept: 'application/json;as=Table;v=v1;g=meta.k8s.io,application/json;as=Table;v=v1beta1;g=meta.k8s.io,application/json',
    contentType: 'application/json',
  },
  protobuf: { accept: 'application/vnd.kubernetes.protobuf,application/json', contentType: 'application/vnd.kubernetes.protobuf' },
} as const;
type Encoding = keyof typeof ENCODINGS;

/** A process's resident set (bytes), from /proc/<pid>/status. */
const rssBytes = (pid: number): number => Number(/^VmRSS:\s+(\d+) kB$/m.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1] ?? Number.NaN) * 1024;

const median = (xs: number[]): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? Number.NaN;

async function main(): Promise<void> {
  requireWrk();
  const dir = await mkdtemp(join(tmpdir(), 'fairway-list-encodings-'));
  const dataDir = join(dir, 'data');
  await prefillFlowSchemas(dataDir, { count: OBJECTS, paddingBytes: PADDING });
  const server = await startServerProcess({ dataDir, storageBackend: 'leveldb' });
  try {
    const rssBefore = rssBytes(server.pid);
    // Each encoding answers as asked, and how big its LIST is.
    const bytes = {} as Record<Encoding, number>;
    for (const [name, e] of Object.entries(ENCODINGS) as [Encoding, (typeof ENCODINGS)[Encoding]][]) {
      const response = await server.client.request('GET', FS_PATH, { headers: { Accept: e.accept } });
      const type = String(response.headers['content-type'] ?? '');
      if (response.status !== 200 || !type.startsWith(e.contentType)) throw new Error(`${name}: ${response.status} ${type}`);
      if (name === 'table' && !response.text.includes('"kind":"Table"')) throw new Error('table: not a Table');
      bytes[name] = response.bytes.length;
    }
    const results: Record<Encoding, { rate: number[]; cpuMs: number[]; p99Ms: number[] }> = {
      json: { rate: [], cpuMs: [], p99Ms: [] },
      yaml: { rate: [], cpuMs: [], p99Ms: [] },
      table: { rate: [], cpuMs: [], p99Ms: [] },
      protobuf: { rate: [], cpuMs: [], p99Ms: [] },
    };
    for (let round = 0; round < ROUNDS; round++) {
      for (const name of Object.keys(ENCODINGS) as Encoding[]) {
        const cpuBefore = processCpuSeconds(server.pid);
        const run = await runWrk({
          url: `${server.url}${FS_PATH}`,
          token: server.token,
          headers: { Accept: ENCODINGS[name].accept },
          connections: CONNECTIONS,
          seconds: SECONDS,
          timeoutSeconds: 30,
        });
        const cpu = processCpuSeconds(server.pid) - cpuBefore;
        if (run.non2xx > 0) throw new Error(`${name}: ${run.non2xx} answers were not 2xx`);
        results[name].rate.push(requestsPerSecond(run));
        results[name].cpuMs.push((cpu * 1000) / Math.max(1, run.requests));
        results[name].p99Ms.push(run.p99Us / 1000);
      }
    }
    // What the kept encodings hold once every encoding has been LISTed (docs/storage.md, "Kept encodings").
    const keptBytes = Number(/^fairway_encoding_cache_bytes (\S+)$/m.exec((await server.client.get('/metrics')).text)?.[1] ?? Number.NaN);
    const rssAfter = rssBytes(server.pid);
    const json = median(results.json.rate);
    const summary = Object.fromEntries(
      (Object.keys(ENCODINGS) as Encoding[]).map((name) => [
        name,
        {
          listsPerSecond: Number(median(results[name].rate).toFixed(1)),
          vsJson: Number((median(results[name].rate) / json).toFixed(3)),
          serverCpuMsPerList: Number(median(results[name].cpuMs).toFixed(2)),
          p99Ms: Number(median(results[name].p99Ms).toFixed(1)),
          bytes: bytes[name],
          rounds: results[name].rate.map((r) => Number(r.toFixed(1))),
        },
      ]),
    );
    table(
      `LIST of ${OBJECTS} FlowSchemas, wrk -c${CONNECTIONS}, ${ROUNDS} rounds of ${SECONDS} s (medians)`,
      Object.entries(summary).map(([name, s]) => [
        name,
        `${s.listsPerSecond} LISTs/s (${s.vsJson}× JSON), ${s.serverCpuMsPerList} ms server CPU per LIST, p99 ${s.p99Ms} ms, ${s.bytes} bytes`,
      ]),
    );
    process.stdout.write(
      `  kept encodings: ${(keptBytes / 2 ** 20).toFixed(1)} MiB for ${OBJECTS} objects (${Math.round(keptBytes / OBJECTS)} bytes each: YAML item, ` +
        `protobuf message, Table row with includeObject=Metadata and its aged copy), JSON ${(bytes.json / 2 ** 20).toFixed(1)} MiB; ` +
        `server RSS ${(rssBefore / 2 ** 20).toFixed(0)} MiB before the first LIST, ${(rssAfter / 2 ** 20).toFixed(0)} MiB after the last\n`,
    );
    process.stdout.write(
      `${JSON.stringify({
        bench: 'list-encodings',
        objects: OBJECTS,
        connections: CONNECTIONS,
        seconds: SECONDS,
        rounds: ROUNDS,
        keptBytes,
        rssBefore,
        rssAfter,
        ...summary,
      })}\n`,
    );
  } finally {
    await server.stop();
    await rm(dir, { recursive: true, force: true });
  }
}

await main();
