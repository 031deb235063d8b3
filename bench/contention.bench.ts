// Concurrent patches of one object (docs/reliability.md 6.4): `fairway serve` on LevelDB, one
// FlowSchema of 20 rules, and N merge patches each adding its own label. Baseline, in the same run:
// the same N patches sent one after another. Reported: the server's CPU time per patch in each
// mode and their ratio (contended over sequential: 1.0 means no patch was computed more than once;
// racing optimistically, the N writers compute N(N+1)/2 patches), the wall time of each, and the
// contended p50. Every patch must answer 200 and land in the object.
//
// `npm run bench -- contention` (`--patches=N`, `--rounds=N`; BENCH_QUICK=1 for a smoke run).
import { startServerProcess, type ServerProcess } from '../api/commands/testing/server-process.ts';
import { processCpuSeconds, table } from './fixtures.ts';

const arg = (name: string, fallback: number) => Number(process.argv.find((a) => a.startsWith(`--${name}=`))?.split('=')[1] ?? fallback);
const QUICK = process.env['BENCH_QUICK'] === '1';
const PATCHES = arg('patches', QUICK ? 10 : 50);
const ROUNDS = arg('rounds', QUICK ? 1 : 3);
const FS_PATH = '/apis/flowcontrol.apiserver.k8s.io/v1/flowschemas';

interface Measurement {
  wallMs: number;
  cpuMsPerPatch: number;
  p50Ms: number;
}

async function patches(server: ServerProcess, name: string, tag: string, concurrent: boolean): Promise<Measurement> {
  const send = async (i: number): Promise<number> => {
    const started = performance.now();
    const response = await server.client.request('PATCH', `${FS_PATH}/${name}`, {
      body: JSON.stringify({ metadata: { labels: { [`${tag}-${i}`]: 'v' } } }),
      headers: { 'Content-Type': 'application/merge-patch+json' },
    });
    if (response.status !== 200) throw new Error(`patch ${tag}-${i}: ${response.status} ${response.text.slice(0, 200)}`);
    return performance.now() - started;
  };
  const cpuBefore = processCpuSeconds(server.pid);
  const started = performance.now();
  const latencies: number[] = [];
  if (concurrent) latencies.push(...(await Promise.all(Array.from({ length: PATCHES }, (_, i) => send(i)))));
  else for (let i = 0; i < PATCHES; i++) latencies.push(await send(i));
  const wallMs = performance.now() - started;
  const cpuMsPerPatch = ((processCpuSeconds(server.pid) - cpuBefore) * 1000) / PATCHES;
  const labels = (await server.client.get(`${FS_PATH}/${name}`)).json().metadata.labels ?? {};
  for (let i = 0; i < PATCHES; i++) if (labels[`${tag}-${i}`] !== 'v') throw new Error(`patch ${tag}-${i} is not in the object`);
  latencies.sort((a, b) => a - b);
  return { wallMs, cpuMsPerPatch, p50Ms: latencies[Math.floor(latencies.length / 2)]! };
}

async function main(): Promise<void> {
  const server = await startServerProcess({ storageBackend: 'leveldb' });
  try {
    const rules = Array.from({ length: 20 }, (_, i) => ({
      subjects: [{ kind: 'User', user: { name: `user-${i}` } }],
      nonResourceRules: [{ verbs: ['get'], nonResourceURLs: ['/healthz'] }],
    }));
    const rounds: { sequential: Measurement; contended: Measurement }[] = [];
    for (let round = 0; round < ROUNDS; round++) {
      // A fresh object per round, so every round patches an object of the same size.
      const name = `contended-${round}`;
      const created = await server.client.request('POST', FS_PATH, {
        body: { metadata: { name }, spec: { priorityLevelConfiguration: { name: 'global-default' }, matchingPrecedence: 500, rules } },
      });
      if (created.status !== 201) throw new Error(`creating ${name}: ${created.text}`);
      const sequential = await patches(server, name, 's', false);
      const contended = await patches(server, name, 'c', true);
      rounds.push({ sequential, contended });
    }
    const ratio = (r: (typeof rounds)[number]) => r.contended.cpuMsPerPatch / r.sequential.cpuMsPerPatch;
    const median = [...rounds].sort((a, b) => ratio(a) - ratio(b))[Math.floor(rounds.length / 2)]!;
    table(`${PATCHES} merge patches of one FlowSchema (LevelDB), median of ${ROUNDS} rounds by CPU ratio`, [
      [
        'sequential (baseline)',
        `wall ${median.sequential.wallMs.toFixed(0)} ms, server CPU ${median.sequential.cpuMsPerPatch.toFixed(2)} ms/patch, p50 ` +
          `${median.sequential.p50Ms.toFixed(1)} ms`,
      ],
      [
        'concurrent',
        `wall ${median.contended.wallMs.toFixed(0)} ms, server CPU ${median.contended.cpuMsPerPatch.toFixed(2)} ms/patch, p50 ` +
          `${median.contended.p50Ms.toFixed(1)} ms`,
      ],
      ['CPU per patch, concurrent / sequential', `${ratio(median).toFixed(2)}x (rounds: ${rounds.map((r) => ratio(r).toFixed(2)).join(', ')})`],
      ['wall, concurrent / sequential', `${(median.contended.wallMs / median.sequential.wallMs).toFixed(2)}x`],
    ]);
    console.log(JSON.stringify({ bench: 'contention', node: process.version, patches: PATCHES, rounds }));
  } finally {
    await server.stop();
  }
}

await main();
