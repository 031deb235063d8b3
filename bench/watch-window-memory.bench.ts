// What the watch cache's event window costs in memory under large writes (three writers of
// 1 MB objects grew the server by ~35 MB/s while it kept every version for 5 minutes), two
// ways:
// - retained: the store in this process (memory backend keeping no event log, so only the watch
//   cache holds past versions), one watcher whose events are encoded as a JSON watch encodes
//   them, one ~1 MB FlowSchema replaced `--retained-writes` times; heap and external memory after
//   a full garbage collection, per MB of JSON written: what each past version in the window costs
//   (its object, its stored bytes, and whatever encodings it keeps).
// - RSS: a real `fairway serve` (LevelDB), one JSON watch open on FlowSchemas, three writers
//   replacing a ~1 MB FlowSchema each as fast as the server takes them, the server's RSS read from
//   /proc after every round: its growth per MB written over the first `--fill-writes` (the window
//   filling; garbage not yet collected counts too) and over the whole run (flattening once the
//   byte bound, --watch-cache-history-bytes, is reached; without it RSS grows for the 5 minutes
//   of the time bound).
//
//   node --import tsx bench/watch-window-memory.bench.ts [--writes=150] [--fill-writes=45] [--retained-writes=30]
//     [--object-kb=1000] [--tree=<another checkout>] [-- <extra fairway serve flags>]
//   BENCH_QUICK=1 …   (fewer writes)
//
// `--tree` measures another checkout (an older commit, for a before/after figure): its store and
// its `fairway serve`. Prints a table, then one JSON line (`{"bench":"watch-window-memory",...}`).
import { readFileSync } from 'node:fs';
import { request } from 'node:https';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { startServerProcess } from '../api/commands/testing/server-process.ts';
import { table } from './fixtures.ts';

const arg = (name: string): string | undefined => process.argv.find((a) => a.startsWith(`--${name}=`))?.slice(name.length + 3);
const QUICK = process.env.BENCH_QUICK === '1';
const WRITES = Number(arg('writes') ?? (QUICK ? 60 : 150));
const FILL_WRITES = Number(arg('fill-writes') ?? 45);
const RETAINED_WRITES = Number(arg('retained-writes') ?? (QUICK ? 10 : 30));
const OBJECT_KB = Number(arg('object-kb') ?? 1000);
const TREE = arg('tree') ?? join(dirname(fileURLToPath(import.meta.url)), '..');
const EXTRA = process.argv.includes('--') ? process.argv.slice(process.argv.indexOf('--') + 1) : [];
const WRITERS = 3;
const FS_PATH = '/apis/flowcontrol.apiserver.k8s.io/v1/flowschemas';
const MB = 1024 * 1024;

/** A FlowSchema of about `kb` KB of JSON: thousands of subjects, as a large RBAC-like rule would be. */
function bigFlowSchema(name: string, version: number, kb: number): object {
  const subject = (i: number) => ({ kind: 'User', user: { name: `user-${version}-${i}-${'x'.repeat(80)}` } });
  const count = Math.floor((kb * 1000) / 125);
  return {
    apiVersion: 'flowcontrol.apiserver.k8s.io/v1',
    kind: 'FlowSchema',
    metadata: { name, annotations: { version: String(version) } },
    spec: {
      priorityLevelConfiguration: { name: 'global-default' },
      matchingPrecedence: 9000,
      rules: [
        {
          subjects: Array.from({ length: count }, (_, i) => subject(i)),
          resourceRules: [{ verbs: ['get'], apiGroups: ['bench.example'], resources: ['widgets'], namespaces: ['*'] }],
        },
      ],
    },
  };
}

/** The server's resident set in bytes. */
function rssBytes(pid: number): number {
  const line = readFileSync(`/proc/${pid}/status`, 'utf8')
    .split('\n')
    .find((l) => l.startsWith('VmRSS:'));
  return Number(line?.split(/\s+/)[1] ?? Number.NaN) * 1024;
}

/** Heap and external bytes kept per MB of JSON written, each write a new version of one object (the tree's own store). */
async function retainedPerMbWritten(): Promise<{ heap: number; external: number; codecPerJson: number }> {
  setFlagsFromString('--expose-gc');
  const gc = runInNewContext('gc') as () => void;
  const load = (path: string) => import(join(TREE, path));
  const { createStore } = await load('engine/store/store.ts');
  const { createMemoryBackend } = await load('engine/store/memory/memory-backend.ts');
  const { realClock } = await load('engine/clock.ts');
  const { encodeObject } = await load('engine/store/codec.ts');
  const store = createStore({ backend: createMemoryBackend({ eventLogCapacity: 1 }), clock: realClock() });
  await store.open();
  const schemas = store.for({
    group: 'flowcontrol.apiserver.k8s.io',
    resource: 'flowschemas',
    kind: 'FlowSchema',
    apiVersion: 'flowcontrol.apiserver.k8s.io/v1',
  });
  await schemas.create(bigFlowSchema('big', 0, OBJECT_KB));
  const watcher = await schemas.watch({});
  // As api/handlers/watch.ts writes a JSON watch's live event: the object's JSON, then the whole line, kept on the event.
  const line = (event: { prefix: Buffer; objectBytes(): Buffer }) => [Buffer.concat([event.prefix, event.objectBytes(), Buffer.from('}\n')])];
  const drain = () => {
    for (const event of watcher.takeReady(1_000)) event.encode(line);
  };
  drain();
  const used = () => {
    gc();
    gc();
    const m = process.memoryUsage();
    return { heap: m.heapUsed, external: m.external };
  };
  const jsonBytes = Buffer.byteLength(JSON.stringify(bigFlowSchema('big', 0, OBJECT_KB)));
  const before = used();
  for (let v = 1; v <= RETAINED_WRITES; v++) {
    await schemas.update(bigFlowSchema('big', v, OBJECT_KB));
    drain();
  }
  const after = used();
  watcher.stop();
  await store.close();
  const written = RETAINED_WRITES * jsonBytes;
  return {
    heap: (after.heap - before.heap) / written,
    external: (after.external - before.external) / written,
    codecPerJson: encodeObject(bigFlowSchema('big', 0, OBJECT_KB)).byteLength / jsonBytes,
  };
}

async function main(): Promise<void> {
  const retained = await retainedPerMbWritten();
  table(`retained per MB written (${RETAINED_WRITES} versions of one ~${OBJECT_KB} KB FlowSchema, after a full GC)`, [
    ['heap (the objects)', `${retained.heap.toFixed(2)}×`],
    ['external (bytes: stored, JSON, lines)', `${retained.external.toFixed(2)}×`],
    ['in all', `${(retained.heap + retained.external).toFixed(2)}×`],
    ['stored (codec) size / JSON size', `${retained.codecPerJson.toFixed(2)}`],
  ]);
  const server = await startServerProcess({ storageBackend: 'leveldb', args: EXTRA, launcher: join(TREE, 'api', 'fairway.mjs') });
  try {
    const bodies = new Map<string, number>();
    for (let w = 0; w < WRITERS; w++) {
      const response = await server.client.request('POST', FS_PATH, { body: bigFlowSchema(`big-${w}`, 0, OBJECT_KB) });
      if (response.status !== 201) throw new Error(`create big-${w}: ${response.status} ${response.text.slice(0, 300)}`);
      bodies.set(`big-${w}`, response.bytes.length);
    }
    const objectBytes = [...bodies.values()].reduce((a, b) => a + b, 0) / WRITERS;
    // One watch, as a controller's informer would have: every event is encoded as JSON once.
    let watched = 0;
    const watch = request(
      `${server.url}${FS_PATH}?watch=true&timeoutSeconds=3600`,
      { headers: { Authorization: `Bearer ${server.token}` }, ca: server.caPem },
      (res) => res.on('data', (chunk: Buffer) => (watched += chunk.length)),
    );
    watch.on('error', () => undefined);
    watch.end();
    await new Promise((resolve) => setTimeout(resolve, 500));

    const baseline = rssBytes(server.pid);
    const samples: { written: number; rss: number }[] = [];
    let written = 0;
    for (let round = 1; written < WRITES; round++) {
      await Promise.all(
        Array.from({ length: WRITERS }, async (_, w) => {
          const response = await server.client.request('PUT', `${FS_PATH}/big-${w}`, { body: bigFlowSchema(`big-${w}`, round, OBJECT_KB) });
          if (response.status !== 200) throw new Error(`update big-${w}: ${response.status} ${response.text.slice(0, 300)}`);
        }),
      );
      written += WRITERS;
      samples.push({ written, rss: rssBytes(server.pid) });
    }
    watch.destroy();

    const writtenMb = (writes: number) => (writes * objectBytes) / MB;
    const fill = samples.find((s) => s.written >= FILL_WRITES) ?? samples[samples.length - 1]!;
    const last = samples[samples.length - 1]!;
    const half = samples[Math.floor((samples.length - 1) / 2)]!;
    const peak = Math.max(...samples.map((s) => s.rss));
    const fillRatio = (fill.rss - baseline) / (writtenMb(fill.written) * MB);
    const wholeRatio = (last.rss - baseline) / (writtenMb(last.written) * MB);
    table(`watch window memory: ${WRITERS} writers, ~${(objectBytes / MB).toFixed(2)} MB FlowSchemas as JSON, ${last.written} writes`, [
      ['server flags', EXTRA.join(' ') || '(defaults)'],
      ['RSS at start', `${(baseline / MB).toFixed(0)} MB`],
      [`RSS growth per MB written, first ${fill.written} writes`, `${fillRatio.toFixed(2)}×`],
      [`RSS growth per MB written, all ${last.written} writes`, `${wholeRatio.toFixed(2)}×`],
      [`RSS after ${half.written} writes`, `${(half.rss / MB).toFixed(0)} MB`],
      ['RSS at end / peak', `${(last.rss / MB).toFixed(0)} MB / ${(peak / MB).toFixed(0)} MB`],
      ['watch bytes received', `${(watched / MB).toFixed(0)} MB`],
    ]);
    process.stdout.write(
      `${JSON.stringify({
        bench: 'watch-window-memory',
        retainedPerMbWritten: Number((retained.heap + retained.external).toFixed(2)),
        objectMb: Number((objectBytes / MB).toFixed(3)),
        writes: last.written,
        baselineRssMb: Math.round(baseline / MB),
        fillWrites: fill.written,
        fillRssPerMbWritten: Number(fillRatio.toFixed(2)),
        rssPerMbWritten: Number(wholeRatio.toFixed(2)),
        halfRssMb: Math.round(half.rss / MB),
        endRssMb: Math.round(last.rss / MB),
        peakRssMb: Math.round(peak / MB),
      })}\n`,
    );
  } finally {
    await server.stop();
  }
}

await main();
