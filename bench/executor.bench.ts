// The execution plane's benchmark: what one pool hop costs, when offloading JSON encoding pays,
// and how much of the event loop stays available while a large encode runs inline vs on the pool.
// Every figure is reported as a ratio against a baseline measured in the same run.
//
//   node --import tsx bench/executor.bench.ts            (about a minute on 2 cores)
//   BENCH_QUICK=1 node --import tsx bench/executor.bench.ts   (fewer repetitions, a smoke run)
//
// Prints a table per section, then one JSON line (`{"bench":"executor",...}`) with every figure.
// The decision these figures support is recorded in docs/execution-plane.md.

import { benchPriorityLevel } from './fixtures.ts';
import { monitorEventLoopDelay, performance } from 'node:perf_hooks';
import { Worker } from 'node:worker_threads';
import { adoptWrittenObject } from '../engine/store/cached-object.ts';
import { encodeObject } from '../engine/store/codec.ts';
import type { StoredForm } from '../engine/store/store-types.ts';
import type { KubeObject } from '../engine/resources/types.ts';
import type { RenderSpec } from '../engine/render/render-body.ts';
import { renderWork } from '../workers/render-stages.ts';
import { PROTOBUF_MEDIA_TYPE } from '../engine/render/serializer.ts';
import type { Executor, Work } from '../workers/executor.ts';
import { createInlineExecutor } from '../workers/inline-executor.ts';
import { encodeObjectsWork, splitEncodedObjects } from '../workers/objects-json.ts';
import { createPiscinaExecutor } from '../workers/piscina-executor.ts';
import { DEFAULT_POOL_THRESHOLDS } from '../workers/routing-executor.ts';

const QUICK = process.env['BENCH_QUICK'] === '1';
const now = (): number => performance.now();
const median = (xs: number[]): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? Number.NaN;
const percentile = (xs: number[], p: number): number => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor(xs.length * p))] ?? Number.NaN;
const fmt = (x: number, digits = 3): string => (Number.isFinite(x) ? x.toFixed(digits) : String(x));
const results: Record<string, unknown> = { bench: 'executor', node: process.version, quick: QUICK };

// ---------------------------------------------------------------------------------------------
// Workload: PriorityLevelConfiguration-like objects, about 1 KB of JSON each.

// The same ~1 KB object as the storage benchmarks, so their figures compare.
const plc = (i: number): KubeObject => benchPriorityLevel(i);

const LIST_HEAD = { kind: 'PriorityLevelConfigurationList', apiVersion: 'flowcontrol.apiserver.k8s.io/v1', metadata: { resourceVersion: '12345' } };

function objectListWork(count: number): Work {
  return { stage: 'encode-json', payload: { ...LIST_HEAD, items: Array.from({ length: count }, (_, i) => plc(i)) } };
}

/** The objects as the watch cache holds them: frozen, with their codec bytes (what a worker gets). */
function storedForms(count: number): StoredForm[] {
  return Array.from({ length: count }, (_, i) => {
    const object = plc(i);
    return adoptWrittenObject(`/registry/x/${i}`, String(i), object, 1000 + i, encodeObject(object));
  });
}

const LIST_SPEC = { list: LIST_HEAD, metaGroup: 'meta.k8s.io', pretty: false } as const;
/** The stages that turn stored objects into bytes, each with the output it is measured on. */
const STORED_STAGES: [string, (forms: readonly StoredForm[]) => Work][] = [
  ['encode-objects', (forms) => encodeObjectsWork(forms)],
  ['render-json', (forms) => renderWork(forms, { ...LIST_SPEC, mediaType: 'application/json', pretty: true })],
  [
    'render-table',
    (forms) =>
      renderWork(forms, {
        ...LIST_SPEC,
        mediaType: 'application/json',
        conversion: 'Table',
        table: { kind: 'PriorityLevelConfiguration', nowMs: Date.parse('2026-11-22T00:00:00Z'), includeObject: 'Metadata' },
      } satisfies RenderSpec),
  ],
  ['render-yaml', (forms) => renderWork(forms, { ...LIST_SPEC, mediaType: 'application/yaml' })],
  ['render-protobuf', (forms) => renderWork(uncachedForms(forms), { ...LIST_SPEC, mediaType: PROTOBUF_MEDIA_TYPE })],
];

// Protobuf keeps each stored (frozen) object's message once encoded (engine/protobuf/objects.ts), so
// inline runs after the first would measure a copy. Its stage is measured on unfrozen copies, which
// are never cached: the cold cost, as for the first LIST after the objects changed.
const uncached = new WeakMap<readonly StoredForm[], StoredForm[]>();
function uncachedForms(forms: readonly StoredForm[]): StoredForm[] {
  let copies = uncached.get(forms);
  if (copies === undefined) {
    copies = forms.map((form) => ({ ...form, object: structuredClone(form.object) }));
    uncached.set(forms, copies);
  }
  return copies;
}

/** A plain JSON LIST body from cached per-object JSON: what the server does when every item's JSON is cached. */
function concatCachedJson(jsons: readonly Buffer[]): Buffer {
  const parts: Buffer[] = [Buffer.from(`${JSON.stringify(LIST_HEAD).slice(0, -1)},"items":[`)];
  jsons.forEach((json, i) => parts.push(...(i > 0 ? [Buffer.from(',')] : []), json));
  parts.push(Buffer.from(']}\n'));
  return Buffer.concat(parts);
}

// ---------------------------------------------------------------------------------------------
// Measurement helpers.

interface OpStats {
  /** Mean wall time per op. */
  msPerOp: number;
  p50MsPerOp: number;
  p99MsPerOp: number;
  /** Mean main-thread busy time per op (event-loop utilisation × wall). */
  mainMsPerOp: number;
}

/** Runs `op` sequentially `reps` times (after `warmup`), each awaited. */
async function measure(op: () => Promise<unknown>, reps: number, warmup: number): Promise<OpStats> {
  for (let i = 0; i < warmup; i++) await op();
  const samples: number[] = [];
  const eluStart = performance.eventLoopUtilization();
  const t0 = now();
  for (let i = 0; i < reps; i++) {
    const s = now();
    await op();
    samples.push(now() - s);
  }
  const wall = now() - t0;
  const elu = performance.eventLoopUtilization(eluStart);
  // ELU only sees time spent returning to the loop; an inline run that never yields shows as fully busy.
  const mainMs = elu.idle > 0 ? elu.utilization * wall : wall;
  return { msPerOp: wall / reps, p50MsPerOp: median(samples), p99MsPerOp: percentile(samples, 0.99), mainMsPerOp: mainMs / reps };
}

/** Fires a 1 ms timer chain while `load` runs; reports how often it fired and the worst loop delay. */
async function timersDuring(load: () => Promise<void>): Promise<{ wallMs: number; fires: number; firesPerMs: number; maxDelayMs: number }> {
  const delay = monitorEventLoopDelay({ resolution: 1 });
  let fires = 0;
  let running = true;
  const tick = (): void => {
    if (!running) return;
    fires += 1;
    setTimeout(tick, 1);
  };
  delay.enable();
  setTimeout(tick, 1);
  const t0 = now();
  await load();
  const wallMs = now() - t0;
  running = false;
  delay.disable();
  return { wallMs, fires, firesPerMs: fires / wallMs, maxDelayMs: delay.max / 1e6 };
}

const yieldToLoop = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

// ---------------------------------------------------------------------------------------------

async function startupSection(): Promise<Executor & { ready(): Promise<void> }> {
  console.log('\n## Pool startup (time to first result)');
  // Baseline: a bare worker thread that runs plain JS, no tsx, no Piscina.
  const bare: number[] = [];
  for (let i = 0; i < (QUICK ? 1 : 3); i++) {
    const t0 = now();
    const worker = new Worker('require("node:worker_threads").parentPort.postMessage(1)', { eval: true });
    await new Promise((resolve) => worker.once('message', resolve));
    bare.push(now() - t0);
    await worker.terminate();
  }
  const pooled: number[] = [];
  for (let i = 0; i < (QUICK ? 1 : 3); i++) {
    const t0 = now();
    const pool = createPiscinaExecutor({ threads: 1 });
    await pool.ready();
    pooled.push(now() - t0);
    await pool.close();
  }
  const bareMs = median(bare);
  const poolMs = median(pooled);
  console.log(`bare worker_threads Worker, eval'd JS : ${fmt(bareMs, 1)} ms`);
  console.log(
    `Piscina + tsx-registered worker entry: ${fmt(poolMs, 1)} ms  (${fmt(poolMs / bareMs, 1)}× bare; tsx costs ≈ ${fmt(poolMs - bareMs, 0)} ms once ` +
      'per thread)',
  );
  results['startup'] = { bareWorkerMs: bareMs, piscinaTsxWorkerMs: poolMs, ratio: poolMs / bareMs };
  const pool = createPiscinaExecutor();
  await pool.ready();
  console.log(`pool for the rest of the run: ${pool.threads} thread(s) (default: available cores − 1)`);
  results['poolThreads'] = pool.threads;
  return pool;
}

async function hopSection(pool: Executor, inline: Executor): Promise<number> {
  console.log('\n## Hop cost: no-op stage, one awaited caller');
  const reps = QUICK ? 1000 : 10_000;
  const noop: Work = { stage: 'noop', payload: 0 };
  const inlineStats = await measure(() => inline.execute(noop), reps, 1000);
  const poolStats = await measure(() => pool.execute(noop), reps, 1000);
  // Throughput with many callers: batches of 500 in flight.
  const batches = QUICK ? 4 : 20;
  const t0 = now();
  for (let b = 0; b < batches; b++) await Promise.all(Array.from({ length: 500 }, () => pool.execute(noop)));
  const concurrentOpsPerS = (batches * 500) / ((now() - t0) / 1000);
  const hopUs = (poolStats.p50MsPerOp - inlineStats.p50MsPerOp) * 1000;
  console.log(
    `inline p50 ${fmt(inlineStats.p50MsPerOp * 1000, 2)} µs | pool p50 ${fmt(poolStats.p50MsPerOp * 1000, 1)} µs, p99 ` +
      `${fmt(poolStats.p99MsPerOp * 1000, 1)} µs`,
  );
  console.log(`pool main-thread time per hop ${fmt(poolStats.mainMsPerOp * 1000, 1)} µs | 500 in flight: ${fmt(concurrentOpsPerS, 0)} ops/s`);
  console.log(`ratio pool/inline latency (p50): ${fmt(poolStats.p50MsPerOp / inlineStats.p50MsPerOp, 0)}×`);
  results['hop'] = {
    inlineUs: inlineStats.p50MsPerOp * 1000,
    poolUs: poolStats.p50MsPerOp * 1000,
    poolMeanUs: poolStats.msPerOp * 1000,
    poolP99Us: poolStats.p99MsPerOp * 1000,
    poolMainUs: poolStats.mainMsPerOp * 1000,
    concurrentOpsPerS,
    hopUs,
  };
  return hopUs;
}

async function encodeSection(pool: Executor, inline: Executor, hopUs: number): Promise<void> {
  console.log('\n## Encoding stored objects (≈1 KB of JSON, ≈0.8 KB of codec bytes per PriorityLevelConfiguration)');
  console.log('means per op: latency = wall, main = main-thread busy time; ratios against inline of the same input.');
  console.log('inline encodes the cached objects; the pool gets their codec bytes, moved, and decodes them.');
  console.log('| stage | items | codec KB | body KB | variant | latency ms | main ms | latency ratio | main ratio |');
  console.log('|---|---|---|---|---|---|---|---|---|');
  const rows: (OpStats & { stage: string; items: number; codecBytes: number; bodyKb: number; variant: string })[] = [];
  for (const count of [10, 30, 100, 300, 1000, 3000]) {
    const reps = Math.max(QUICK ? 2 : 6, Math.round((QUICK ? 500 : 5_000) / count));
    const warmup = Math.max(2, Math.round(reps / 5));
    const forms = storedForms(count);
    const codecBytes = forms.reduce((sum, f) => sum + f.codecBytes.byteLength, 0);
    const record = (stage: string, variant: string, bodyKb: number, stats: OpStats, base: OpStats): void => {
      console.log(
        `| ${stage} | ${count} | ${fmt(codecBytes / 1024, 1)} | ${fmt(bodyKb, 0)} | ${variant} | ${fmt(stats.msPerOp)} | ${fmt(stats.mainMsPerOp)} | ` +
          `${fmt(stats.msPerOp / base.msPerOp, 2)} | ${fmt(stats.mainMsPerOp / base.msPerOp, 2)} |`,
      );
      rows.push({ stage, items: count, codecBytes, bodyKb, variant, ...stats });
    };
    for (const [stage, work] of STORED_STAGES) {
      const bodyKb = (await inline.execute<Buffer>(work(forms))).byteLength / 1024;
      const here = await measure(() => inline.execute(work(forms)), reps, warmup);
      record(stage, 'inline', bodyKb, here, here);
      record(stage, 'pool', bodyKb, await measure(() => pool.execute(work(forms)), reps, warmup), here);
    }
    // Plain JSON once every item's JSON is cached: no stage at all, the body is a copy.
    const jsons = splitEncodedObjects(await inline.execute<Buffer>(encodeObjectsWork(forms)));
    const concat = await measure(async () => concatCachedJson(jsons), reps, warmup);
    record('cached JSON list body', 'inline copy', concatCachedJson(jsons).byteLength / 1024, concat, concat);
    if (count === 100 || count === 1000) {
      // The original finding: a live object graph cloned into a worker costs as much as encoding it.
      const objectWork = objectListWork(count);
      const here = await measure(() => inline.execute(objectWork), reps, warmup);
      record('encode-json (objects)', 'inline', 0, here, here);
      record('encode-json (objects)', 'pool (cloned)', 0, await measure(() => pool.execute(objectWork), reps, warmup), here);
    }
  }
  results['encode'] = rows;
  // Each stage's inline cost per codec byte (the median over the sizes ≥ 100 items; smaller ones
  // are dominated by fixed costs and timer noise), and the size at which inline work reaches the
  // routing rule's 0.5 ms (about ten hops).
  const thresholds: Record<string, unknown> = {};
  console.log('\n| stage | inline µs per codec KB | 0.5 ms of inline work (KB) | ten hops of work (KB) | configured threshold (KB) |');
  console.log('|---|---|---|---|---|');
  for (const [stage] of STORED_STAGES) {
    const fit = rows.filter((r) => r.stage === stage && r.variant === 'inline' && r.items >= 100);
    const usPerByte = median(fit.map((r) => (r.msPerOp * 1000) / r.codecBytes));
    const halfMsBytes = 500 / usPerByte;
    const tenHopsBytes = (10 * hopUs) / usPerByte;
    const configured = DEFAULT_POOL_THRESHOLDS[stage];
    console.log(
      `| ${stage} | ${fmt(usPerByte * 1024, 1)} | ${fmt(halfMsBytes / 1024, 1)} | ${fmt(tenHopsBytes / 1024, 1)} | ` +
        `${configured === undefined ? '-' : fmt(configured / 1024, 0)} |`,
    );
    thresholds[stage] = { usPerKb: usPerByte * 1024, halfMsBytes, tenHopsBytes, configuredBytes: configured };
  }
  results['stageCosts'] = thresholds;
}

/** A FlowSchema with `rules` rules (≈150 bytes of JSON each), and a server-side apply that replaces them. */
function patchCase(rules: number): { form: StoredForm; work: (contentType: string, body: string) => Work; apply: string; merge: string } {
  const rule = (i: number, tag: string) => ({
    subjects: [{ kind: 'User', user: { name: `user-${i}-${tag}` } }],
    resourceRules: [{ verbs: ['get', 'list'], apiGroups: [''], resources: [`r${i}`], clusterScope: true }],
  });
  const spec = (tag: string) => ({
    priorityLevelConfiguration: { name: 'global-default' },
    matchingPrecedence: 100,
    distinguisherMethod: { type: 'ByUser' },
    rules: Array.from({ length: rules }, (_, i) => rule(i, tag)),
  });
  const object: KubeObject = {
    apiVersion: 'flowcontrol.apiserver.k8s.io/v1',
    kind: 'FlowSchema',
    metadata: { name: 'big', uid: 'u', generation: 1, creationTimestamp: '2026-01-01T00:00:00Z' },
    spec: spec('a'),
  };
  const form = adoptWrittenObject('/registry/fs/big', 'big', object, 5, encodeObject(object));
  const request = {
    kind: 'FlowSchema',
    apiVersion: object.apiVersion,
    name: 'big',
    fieldManager: 'bench',
    force: true,
    fieldValidation: 'Strict',
    subresource: '',
    nowTime: '2026-01-02T00:00:00Z',
  };
  return {
    form,
    work: (contentType, body) => ({
      stage: 'apply-patch',
      payload: { objects: [form], request: { ...request, contentType, body }, group: 'flowcontrol.apiserver.k8s.io' },
    }),
    // JSON is YAML: the apply body needs no YAML library here.
    apply: JSON.stringify({ apiVersion: object.apiVersion, kind: 'FlowSchema', metadata: { name: 'big' }, spec: spec('b') }),
    merge: JSON.stringify({ spec: { matchingPrecedence: 200 } }),
  };
}

async function patchSection(pool: Executor, inline: Executor): Promise<void> {
  console.log('\n## PATCH on a FlowSchema: the apply-patch stage inline vs on the pool');
  console.log('| rules | codec KB | patch | inline ms | pool latency ms | pool main ms | main ratio |');
  console.log('|---|---|---|---|---|---|---|');
  const rows: unknown[] = [];
  for (const rules of [10, 100, 500]) {
    const c = patchCase(rules);
    for (const [label, contentType, body] of [
      ['server-side apply', 'application/apply-patch+yaml', c.apply],
      ['strategic merge', 'application/strategic-merge-patch+json', c.merge],
    ] as const) {
      const reps = QUICK ? 3 : rules >= 500 ? 5 : 20;
      const here = await measure(() => inline.execute(c.work(contentType, body)), reps, 2);
      const there = await measure(() => pool.execute(c.work(contentType, body)), reps, 2);
      console.log(
        `| ${rules} | ${fmt(c.form.codecBytes.byteLength / 1024, 1)} | ${label} | ${fmt(here.msPerOp)} | ${fmt(there.msPerOp)} | ` +
          `${fmt(there.mainMsPerOp)} | ${fmt(there.mainMsPerOp / here.msPerOp, 2)} |`,
      );
      rows.push({ rules, codecBytes: c.form.codecBytes.byteLength, patch: label, inline: here, pool: there });
    }
  }
  results['patch'] = rows;
}

async function availabilitySection(pool: Executor, inline: Executor): Promise<void> {
  console.log('\n## Event-loop availability during large encodes (10,000 items, ≈10 MB each)');
  const encodes = QUICK ? 3 : 10;
  const objectWork = objectListWork(10_000);
  const forms = storedForms(10_000);
  const idle = await timersDuring(() => new Promise((resolve) => setTimeout(resolve, QUICK ? 100 : 300)));
  const cases: [string, () => Promise<void>][] = [
    // Each inline encode runs in its own macrotask, as one request per turn would.
    [
      'encode-json inline',
      async () => {
        for (let i = 0; i < encodes; i++) {
          await yieldToLoop();
          await inline.execute(objectWork);
        }
      },
    ],
    [
      'encode-json on pool (objects cloned)',
      async () => {
        for (let i = 0; i < encodes; i++) await pool.execute(objectWork);
      },
    ],
    [
      'encode-objects inline',
      async () => {
        for (let i = 0; i < encodes; i++) {
          await yieldToLoop();
          await inline.execute(encodeObjectsWork(forms));
        }
      },
    ],
    [
      'encode-objects on pool (codec bytes moved)',
      async () => {
        for (let i = 0; i < encodes; i++) await pool.execute(encodeObjectsWork(forms));
      },
    ],
  ];
  console.log(`idle baseline: ${fmt(idle.firesPerMs, 3)} timer fires per ms, max loop delay ${fmt(idle.maxDelayMs, 1)} ms`);
  console.log('| case | wall ms | 1 ms timers fired | availability (fires/ms ÷ idle) | max loop delay ms |');
  console.log('|---|---|---|---|---|');
  const rows: unknown[] = [];
  for (const [name, load] of cases) {
    const r = await timersDuring(load);
    const availability = r.firesPerMs / idle.firesPerMs;
    console.log(`| ${name} | ${fmt(r.wallMs, 0)} | ${r.fires} | ${fmt(availability, 2)} | ${fmt(r.maxDelayMs, 1)} |`);
    rows.push({ case: name, ...r, availability });
  }
  results['availability'] = { idle, encodes, rows };
}

async function cpuStageSection(pool: Executor, inline: Executor, hopUs: number): Promise<void> {
  console.log('\n## sleep-cpu calibration (iterations per ms on this machine)');
  const iterations = 2_000_000;
  const stats = await measure(() => inline.execute({ stage: 'sleep-cpu', payload: { iterations } }), QUICK ? 3 : 10, 2);
  const perMs = iterations / stats.msPerOp;
  const poolStats = await measure(() => pool.execute({ stage: 'sleep-cpu', payload: { iterations } }), QUICK ? 3 : 10, 2);
  console.log(
    `${fmt(perMs, 0)} iterations/ms inline; ${iterations} iterations: inline ${fmt(stats.msPerOp)} ms, pool ${fmt(poolStats.msPerOp)} ms (main ` +
      `${fmt(poolStats.mainMsPerOp)} ms)`,
  );
  console.log(`one hop (${fmt(hopUs, 0)} µs) equals ${fmt((perMs * hopUs) / 1000, 0)} iterations`);
  results['sleepCpu'] = { iterationsPerMs: perMs, inlineMs: stats.msPerOp, poolMs: poolStats.msPerOp, poolMainMs: poolStats.mainMsPerOp };
}

const inline = createInlineExecutor();
const pool = await startupSection();
try {
  const hopUs = await hopSection(pool, inline);
  await encodeSection(pool, inline, hopUs);
  await patchSection(pool, inline);
  await availabilitySection(pool, inline);
  await cpuStageSection(pool, inline, hopUs);
} finally {
  await pool.close();
  await inline.close();
}
results['loadavg'] = (await import('node:os')).loadavg();
console.log(`\n${JSON.stringify(results)}`);
