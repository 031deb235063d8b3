// Where the routing executor draws the line between the main thread and the pool, per stage, in
// the stage's size unit (workers/stages.ts). Its own module, free of the stages' dependencies, so
// the simulator's model of the execution plane (sim/) reads the same numbers the server routes by.
//
// The figures behind each threshold are in docs/execution-plane.md. Re-run bench/executor.bench.ts
// before changing them.

/** Stage name → size (in the stage's sizeUnit) from which work runs on the pool. */
export type PoolThresholds = Readonly<Record<string, number>>;

// The rule: a stage goes to the pool once its inline work would take about 0.5 ms, i.e. ten hops
// (one hop ≈ 50–80 µs p50 on the 2-core reference machine), so the hop adds at most ~10 % latency
// and the main thread is never held longer than that by one piece of work.
export const DEFAULT_POOL_THRESHOLDS: PoolThresholds = {
  'encode-objects': 32 * 1024,
  'render-json': 32 * 1024,
  'render-table': 16 * 1024,
  'render-yaml': 4 * 1024,
  'apply-patch': 2 * 1024,
  // ≈ 600k iterations per ms → 0.5 ms.
  'sleep-cpu': 300_000,
  // encode-json and encode-json-lines have NO threshold: their payload is a live object graph, and
  // cloning it into a worker costs the main thread as much as encoding it (0.8–1.1× measured) while
  // tripling the latency, so they always run inline.
};

