// What the simulator models of the server's execution plane: admitted work that the server sends
// to its pool runs for its service time on virtual threads (workers/virtual-threads.ts): at most
// that many pieces of work run at once and the rest wait in FIFO order *while still holding their
// APF seats* — the situation the architecture's execution plane exists for (seats held across
// execution, so APF sees the backlog).
//
// `server.executorThreads` means what `fairway serve --execution-threads` means (`threadsFor`):
// N worker threads for the work the server sends to its pool — LISTs and watch listings of many
// objects (`runsOnPool`, the server's routing threshold) — or 0, where that work runs on the main
// thread, one piece at a time. Every other request starts at once: the server keeps it on the main
// thread, and it is short. The main thread itself is modelled only with `server.mainThread`
// (sim/main-thread.ts); without it, with 0 threads short requests are not delayed behind long
// ones, which the server does.

import { DEFAULT_POOL_THRESHOLDS } from '../workers/pool-thresholds.ts';

/** Codec bytes of a typical object (a ~1 KB PriorityLevelConfiguration stores as ~0.8 KB). */
const CODEC_BYTES_PER_OBJECT = 800;
/** The object count from which a LIST's encoding goes to the server's pool. */
export const POOL_WORK_MIN_OBJECTS = Math.ceil(DEFAULT_POOL_THRESHOLDS['encode-objects']! / CODEC_BYTES_PER_OBJECT);

/** Whether a LIST or WATCH encoding `objects` objects (those it returns) is work the server's pool runs. */
export function runsOnPool(objects: number | undefined): boolean {
  return objects !== undefined && objects >= POOL_WORK_MIN_OBJECTS;
}

/** Virtual threads for `server.executorThreads`: null (not modelled) is unbounded, 0 is the main thread alone. */
export function threadsFor(executorThreads: number | null): number {
  if (executorThreads === null) return Number.POSITIVE_INFINITY;
  return Math.max(1, executorThreads);
}
