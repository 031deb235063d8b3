// The simulator's speed, as ratios against a bare binary-heap discrete-event loop measured in the
// same run (baselines.md section 11: the ceiling of any JS simulator on this machine).
//
//   node --import tsx bench/sim.bench.ts                 (about 40 s)
//   BENCH_QUICK=1 node --import tsx bench/sim.bench.ts   (a smoke run)
//   BENCH_HOUR=1 node --import tsx bench/sim.bench.ts    (adds 1 simulated hour at 5k requests/s)
//
// Sections:
//   1. bare heap: hold model, {t, seq} ordering, 1,000 pending, in baselines.md's two variants:
//      a new event object per event (the baseline: the reference its table compares simulators
//      with) and pooled events in typed arrays (the ceiling: it allocates nothing)
//   2. SimClock: the same hold model through SimClock.after (closures, cancel handles)
//   3. simulator: a 5k requests/s scenario on the suggested configuration through the real
//      FlowController — simulated requests and events per second of wall time
// Prints a table, then one JSON line (`{"bench":"sim",...}`). Figures go to docs/benchmarks.md.

import { performance } from 'node:perf_hooks';
import { loadScenarioFile } from '../sim/scenario-load.ts';
import { runSimulation } from '../sim/simulation.ts';
import { SimClock } from '../engine/sim-clock.ts';

const QUICK = process.env['BENCH_QUICK'] === '1';
const HOUR = process.env['BENCH_HOUR'] === '1';
const REPEATS = QUICK ? 1 : 3;
const median = (xs: number[]): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? Number.NaN;
const results: Record<string, unknown> = { bench: 'sim', node: process.version, quick: QUICK };

// ---------------------------------------------------------------------------------------------

/** baselines.md's PRNG for the hold model: xorshift32, uniform in [0, 1). */
function xorshift32(): () => number {
  let x = 2463534242;
  return () => {
    x ^= x << 13;
    x ^= x >>> 17;
    x ^= x << 5;
    return (x >>> 0) / 4294967296;
  };
}

// 1. The baseline: the leanest deterministic event loop JS allows.

function bareHeapEventsPerSecond(events: number, pending: number): number {
  const t = new Float64Array(pending);
  const seq = new Float64Array(pending);
  const heap = new Int32Array(pending);
  let size = 0;
  let nextSeq = 0;
  const rand = xorshift32();
  const less = (a: number, b: number) => t[a]! < t[b]! || (t[a] === t[b] && seq[a]! < seq[b]!);
  const push = (slot: number) => {
    let i = size++;
    while (i > 0) {
      const p = (i - 1) >> 1;
      if (!less(slot, heap[p]!)) break;
      heap[i] = heap[p]!;
      i = p;
    }
    heap[i] = slot;
  };
  const pop = () => {
    const top = heap[0]!;
    const last = heap[--size]!;
    let i = 0;
    for (;;) {
      const l = 2 * i + 1;
      if (l >= size) break;
      const r = l + 1;
      const c = r < size && less(heap[r]!, heap[l]!) ? r : l;
      if (!less(heap[c]!, last)) break;
      heap[i] = heap[c]!;
      i = c;
    }
    heap[i] = last;
    return top;
  };
  for (let i = 0; i < pending; i++) {
    t[i] = rand() * 100;
    seq[i] = nextSeq++;
    push(i);
  }
  let checksum = 0;
  const start = performance.now();
  for (let n = 0; n < events; n++) {
    const slot = pop();
    checksum += slot;
    // The popped event is reused for its own follow-up (pooled events).
    t[slot] = t[slot]! + rand() * 100;
    seq[slot] = nextSeq++;
    push(slot);
  }
  const seconds = (performance.now() - start) / 1000;
  if (checksum < 0) throw new Error('unreachable');
  return events / seconds;
}

// 1b. The same loop with a new event object per event, as baselines.md section 11 measured it
//     ("simulator end-to-end events/s ÷ 7M" is the comparison its table proposes).
interface HeapEvent {
  t: number;
  seq: number;
  kind: number;
  target: number;
}

function allocatingHeapEventsPerSecond(events: number, pending: number): number {
  const heap: HeapEvent[] = [];
  let nextSeq = 0;
  const rand = xorshift32();
  const less = (a: HeapEvent, b: HeapEvent) => a.t < b.t || (a.t === b.t && a.seq < b.seq);
  const push = (event: HeapEvent) => {
    let i = heap.length;
    heap.push(event);
    while (i > 0) {
      const p = (i - 1) >> 1;
      if (!less(event, heap[p]!)) break;
      heap[i] = heap[p]!;
      i = p;
    }
    heap[i] = event;
  };
  const pop = (): HeapEvent => {
    const top = heap[0]!;
    const last = heap.pop()!;
    const size = heap.length;
    if (size === 0) return top;
    let i = 0;
    for (;;) {
      const l = 2 * i + 1;
      if (l >= size) break;
      const r = l + 1;
      const c = r < size && less(heap[r]!, heap[l]!) ? r : l;
      if (!less(heap[c]!, last)) break;
      heap[i] = heap[c]!;
      i = c;
    }
    heap[i] = last;
    return top;
  };
  for (let i = 0; i < pending; i++) push({ t: rand() * 100, seq: nextSeq++, kind: i & 3, target: i });
  let checksum = 0;
  const start = performance.now();
  for (let n = 0; n < events; n++) {
    const event = pop();
    checksum += event.target + event.kind;
    push({ t: event.t + rand() * 100, seq: nextSeq++, kind: event.kind, target: event.target });
  }
  const seconds = (performance.now() - start) / 1000;
  if (checksum < 0) throw new Error('unreachable');
  return events / seconds;
}

// 2. The same hold model through SimClock: what its closures and cancel handles cost.
function simClockEventsPerSecond(events: number, pending: number): number {
  const clock = new SimClock();
  const rand = xorshift32();
  let remaining = events;
  const fire = (): void => {
    if (--remaining > 0) clock.after(rand() * 100, fire);
  };
  for (let i = 0; i < pending; i++) clock.after(rand() * 100, fire);
  const start = performance.now();
  while (remaining > 0 && clock.step()) {
    // each step runs one event
  }
  return events / ((performance.now() - start) / 1000);
}

// ---------------------------------------------------------------------------------------------
// 3. The simulator on sim/examples/mixed-5k.yaml: suggested configuration, 12 flows over 4
//    levels, 5k req/s, about 100 of 600 seats busy, so most requests dispatch at once.

const SCENARIO = new URL('../sim/examples/mixed-5k.yaml', import.meta.url).pathname;

async function simulatorFigures(durationSeconds: number): Promise<{ wallSeconds: number; requests: number; events: number }> {
  const loaded = await loadScenarioFile(SCENARIO);
  if (!loaded.ok) throw new Error(loaded.errors.join('\n'));
  loaded.loaded.scenario.durationMs = durationSeconds * 1000;
  for (const flow of loaded.loaded.scenario.flows) flow.stopMs = durationSeconds * 1000;
  const start = performance.now();
  const result = runSimulation({ loaded: loaded.loaded, seed: '1' });
  const wallSeconds = (performance.now() - start) / 1000;
  const requests = result.flows.reduce((sum, f) => sum + f.arrived, 0);
  return { wallSeconds, requests, events: result.eventsRun };
}

// ---------------------------------------------------------------------------------------------

const heapEvents = QUICK ? 1_000_000 : 5_000_000;
const bare = median(Array.from({ length: REPEATS }, () => bareHeapEventsPerSecond(heapEvents, 1000)));
const allocating = median(Array.from({ length: REPEATS }, () => allocatingHeapEventsPerSecond(heapEvents, 1000)));
const clock = median(Array.from({ length: REPEATS }, () => simClockEventsPerSecond(heapEvents, 1000)));
// Five simulated minutes: long enough that the run's fixed costs (building and stopping ~600
// queue actors, about 20 ms) and the scenario's cold start (20 s of queueing until borrowing
// catches up) do not dominate, as they would not in the hour-long runs operators make.
const simSeconds = QUICK ? 10 : 300;
await simulatorFigures(simSeconds); // warm-up: JIT and module loading stay out of the figures
const runs: { wallSeconds: number; requests: number; events: number }[] = [];
for (let i = 0; i < REPEATS; i++) runs.push(await simulatorFigures(simSeconds));
const run = runs.sort((a, b) => a.wallSeconds - b.wallSeconds)[Math.floor(runs.length / 2)]!;
const requestsPerSecond = run.requests / run.wallSeconds;
const eventsPerSecond = run.events / run.wallSeconds;

// The baseline is baselines.md's own comparison point (section 11 and its table: "simulator
// end-to-end events/s ÷ 7M", a new event object per event); the pooled typed-array loop is the
// ceiling beside it. Its speed moves between 6 and 10 M events/s from one call to the next
// (JIT), so both are shown.
const rows: [string, string, string][] = [
  ['bare binary heap, new object per event (baseline)', `${(allocating / 1e6).toFixed(2)} M events/s`, '1.00x'],
  ['bare binary heap, pooled typed arrays (ceiling)', `${(bare / 1e6).toFixed(2)} M events/s`, `${(bare / allocating).toFixed(2)}x`],
  ['SimClock hold model', `${(clock / 1e6).toFixed(2)} M events/s`, `${(clock / allocating).toFixed(2)}x`],
  [`simulator, 5k req/s x ${simSeconds}s simulated`, `${(eventsPerSecond / 1e6).toFixed(3)} M events/s`, `${(eventsPerSecond / allocating).toFixed(3)}x`],
  ['  against the pooled ceiling', '', `${(eventsPerSecond / bare).toFixed(3)}x`],
  ['  simulated requests per wall second', `${Math.round(requestsPerSecond)} req/s`, ''],
  ['  events per simulated request', (run.events / run.requests).toFixed(2), ''],
  ['  1 h at 5k req/s, projected wall time', `${((3600 * 5000) / requestsPerSecond).toFixed(1)} s`, ''],
];
Object.assign(results, {
  allocatingHeapEventsPerSecond: Math.round(allocating),
  pooledHeapEventsPerSecond: Math.round(bare),
  simClockEventsPerSecond: Math.round(clock),
  simulatorEventsPerSecond: Math.round(eventsPerSecond),
  simulatorRequestsPerSecond: Math.round(requestsPerSecond),
  simulatorEventRatio: Number((eventsPerSecond / allocating).toFixed(4)),
  simulatorEventRatioPooled: Number((eventsPerSecond / bare).toFixed(4)),
  eventsPerRequest: Number((run.events / run.requests).toFixed(3)),
  projectedHourSeconds: Number(((3600 * 5000) / requestsPerSecond).toFixed(1)),
});

if (HOUR) {
  const hour = await simulatorFigures(3600);
  const hourEventsPerSecond = hour.events / hour.wallSeconds;
  rows.push(['1 h at 5k req/s, measured wall time', `${hour.wallSeconds.toFixed(1)} s`, `${hour.requests} requests`]);
  rows.push([
    '  its events/s against baseline / ceiling',
    `${(hourEventsPerSecond / 1e6).toFixed(3)} M events/s`,
    `${(hourEventsPerSecond / allocating).toFixed(3)}x / ${(hourEventsPerSecond / bare).toFixed(3)}x`,
  ]);
  results['measuredHourSeconds'] = Number(hour.wallSeconds.toFixed(1));
  results['hourEventsPerSecond'] = Math.round(hourEventsPerSecond);
}

const width = Math.max(...rows.map((r) => r[0].length));
for (const [name, value, ratio] of rows) console.log(`${name.padEnd(width)}  ${value.padStart(20)}  ${ratio}`);
console.log(JSON.stringify(results));
