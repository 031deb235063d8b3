// What the watch cache's event window costs in memory under large writes (issue #32, item 6): a
// real `fairway serve` (memory backend), one JSON watch open on FlowSchemas, three writers
// replacing a ~1 MB FlowSchema each as fast as the server takes them. The server's RSS is read
// from /proc after every round of writes; printed are the RSS growth per MB of JSON written while
// the window fills (what each past version costs: its object, its stored bytes and any encodings
// it keeps) and over the whole run (flat once the byte bound, --watch-cache-history-bytes, is
// reached; without it, growing until the 5 minutes of the time bound).
//
//   node --import tsx bench/watch-window-memory.bench.ts [--writes=240] [--fill-writes=45] [--object-kb=1000]
//     [--launcher=<other tree>/api/fairway.mjs] [-- <extra fairway serve flags>]
//   BENCH_QUICK=1 …   (fewer writes)
//
// `--launcher` runs another checkout's server (an older commit, for a before/after figure).
// Prints a table, then one JSON line (`{"bench":"watch-window-memory",...}`).
import { request } from 'node:https';
import { readFileSync } from 'node:fs';
import { startServerProcess } from '../api/testing/server-process.ts';
import { table } from './fixtures.ts';

const arg = (name: string): string | undefined => process.argv.find((a) => a.startsWith(`--${name}=`))?.slice(name.length + 3);
const QUICK = process.env.BENCH_QUICK === '1';
const WRITES = Number(arg('writes') ?? (QUICK ? 90 : 240));
const FILL_WRITES = Number(arg('fill-writes') ?? 45);
const OBJECT_KB = Number(arg('object-kb') ?? 1000);
const LAUNCHER = arg('launcher');
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

async function main(): Promise<void> {
  const server = await startServerProcess({ storageBackend: 'memory', args: EXTRA, ...(LAUNCHER !== undefined ? { launcher: LAUNCHER } : {}) });
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
    const watch = request(`${server.url}${FS_PATH}?watch=true&timeoutSeconds=3600`, { headers: { Authorization: `Bearer ${server.token}` }, ca: server.caPem }, (res) =>
      res.on('data', (chunk: Buffer) => (watched += chunk.length)),
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
    const peak = Math.max(...samples.map((s) => s.rss));
    const fillRatio = (fill.rss - baseline) / (writtenMb(fill.written) * MB);
    const wholeRatio = (last.rss - baseline) / (writtenMb(last.written) * MB);
    table(`watch window memory: ${WRITERS} writers, ~${(objectBytes / MB).toFixed(2)} MB FlowSchemas as JSON, ${last.written} writes`, [
      ['server flags', EXTRA.join(' ') || '(defaults)'],
      ['RSS at start', `${(baseline / MB).toFixed(0)} MB`],
      [`RSS growth per MB written, first ${fill.written} writes`, `${fillRatio.toFixed(2)}×`],
      [`RSS growth per MB written, all ${last.written} writes`, `${wholeRatio.toFixed(2)}×`],
      ['RSS at end / peak', `${(last.rss / MB).toFixed(0)} MB / ${(peak / MB).toFixed(0)} MB`],
      ['watch bytes received', `${(watched / MB).toFixed(0)} MB`],
    ]);
    process.stdout.write(
      `${JSON.stringify({
        bench: 'watch-window-memory',
        objectMb: Number((objectBytes / MB).toFixed(3)),
        writes: last.written,
        baselineRssMb: Math.round(baseline / MB),
        fillWrites: fill.written,
        fillRssPerMbWritten: Number(fillRatio.toFixed(2)),
        rssPerMbWritten: Number(wholeRatio.toFixed(2)),
        endRssMb: Math.round(last.rss / MB),
        peakRssMb: Math.round(peak / MB),
      })}\n`,
    );
  } finally {
    await server.stop();
  }
}

await main();
