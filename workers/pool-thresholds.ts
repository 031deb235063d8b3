// Where the routing executor draws the line between the main thread and the pool, per stage, in
// the stage's size unit (workers/stages.ts). Its own module, free of the stages' dependencies, so
// the simulator's model of the execution plane (sim/) reads the same numbers the server routes by.
//
// The figures behind each threshold are in docs/execution-plane.md. Re-run bench/executor.bench.ts
// before changing them.

/** Stage name → size (in the stage's sizeUnit) from which work runs on the pool. */
export type PoolThresholds = Readonly<Record<string, number>>;

// The rule: a stage goes to the pool once its inline work would hold the main thread about
// 0.5 ms, i.e. ten hops (one hop ≈ 50–80 µs p50 on the 2-core reference machine), so the hop adds
// at most ~10 % latency and no piece of admitted work holds the main thread longer than that.
// Sizes are the codec bytes of the objects the stage reads (plus the body, for a patch).
export const DEFAULT_POOL_THRESHOLDS: PoolThresholds = {
  // Compact JSON of objects whose encoding the watch cache has not kept yet (≈ 5 µs per codec KB).
  'encode-objects': 64 * 1024,
  // Pretty JSON, partial object metadata (≈ 8 µs per codec KB).
  'render-json': 64 * 1024,
  // Tables (≈ 6 µs per codec KB).
  'render-table': 64 * 1024,
  // Table rows of objects, made once per object version and includeObject form.
  'encode-table-rows': 64 * 1024,
  // YAML: the yaml library costs ≈ 20× JSON (≈ 130 µs per codec KB).
  'render-yaml': 4 * 1024,
  // YAML list items, made once per object version (the same emitter as render-yaml).
  'encode-yaml-items': 4 * 1024,
  // Protobuf, measured cold (≈ 2.2× encode-objects, ≈ 11 µs per codec KB); objects whose messages
  // the main thread has cached cost less, but the line is drawn at the cold cost.
  'render-protobuf': 32 * 1024,
  // Protobuf messages of objects, made once per object version (cold, as render-protobuf).
  'encode-protobuf-items': 32 * 1024,
  // Server-side apply and strategic merge: milliseconds even for a small object, so always.
  'apply-patch': 0,
  // Merge and JSON patches (≈ 40 µs per KB of the stored object).
  'merge-patch': 8 * 1024,
  // YAML request bodies: composing costs ≈ 2 µs per byte (a 174-byte SelfSubjectAccessReview ≈ 0.3 ms,
  // a 477-byte FlowSchema ≈ 0.6 ms), so from 256 bytes.
  'decode-yaml': 256,
  // ≈ 600k iterations per ms → 0.5 ms.
  'sleep-cpu': 300_000,
  // encode-json and encode-json-lines have NO threshold: their payload is a live object graph, and
  // cloning it into a worker costs the main thread as much as encoding it (0.8–1.1× measured) while
  // tripling the latency, so they always run inline.
};
