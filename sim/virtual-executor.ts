// The simulator's stand-in for the server's execution plane: admitted work runs for its service
// time on the virtual clock. With `threads > 0` at most that many pieces of work run at once and
// the rest wait in FIFO order *while still holding their APF seats* — the situation the
// architecture's execution plane exists for (seats held across execution, so APF sees the
// backlog). With 0 threads every piece starts at once.
//
// `server.executorThreads` means what `fairway serve --execution-threads` means (`threadsFor`):
// N worker threads for the work the server sends to its pool — LISTs and watch listings of many
// objects (`runsOnPool`, the server's routing threshold) — or 0, where that work runs on the main
// thread, one piece at a time. Every other request starts at once: the server keeps it on the main
// thread, and it is short. Not modelled: the main thread itself, so with 0 threads the model does
// not delay short requests behind long ones, which the server does.
//
// Callback-based rather than promise-based (workers/executor.ts): a promise would resolve in a
// microtask after the clock's step returned, outside the total order of simulated events.

import { DEFAULT_POOL_THRESHOLDS } from '../workers/pool-thresholds.ts';
import type { SimClock, SimTask } from '../engine/sim-clock.ts';

/** Codec bytes of a typical object (a ~1 KB PriorityLevelConfiguration stores as ~0.8 KB). */
const CODEC_BYTES_PER_OBJECT = 800;
/** The object count from which a LIST's encoding goes to the server's pool. */
export const POOL_WORK_MIN_OBJECTS = Math.ceil(DEFAULT_POOL_THRESHOLDS['encode-objects']! / CODEC_BYTES_PER_OBJECT);

/** Whether a LIST or WATCH over `objects` objects is work the server's pool runs. */
export function runsOnPool(objects: number | undefined): boolean {
  return objects !== undefined && objects >= POOL_WORK_MIN_OBJECTS;
}

/** VirtualExecutor threads for `server.executorThreads`: null (not modelled) is unbounded, 0 is the main thread alone. */
export function threadsFor(executorThreads: number | null): number {
  if (executorThreads === null) return 0;
  return Math.max(1, executorThreads);
}

/** `fire()` is called when the service time has passed. */
export interface VirtualWork extends SimTask {
  readonly serviceMs: number;
}

export class VirtualExecutor {
  private running = 0;
  private readonly waiting: VirtualWork[] = [];
  private waitingHead = 0;
  private readonly onWorkDone = (): void => this.workDone();

  constructor(
    private readonly clock: SimClock,
    private readonly threads = 0,
  ) {}

  /** Work currently waiting for a thread. */
  get queued(): number {
    return this.waiting.length - this.waitingHead;
  }

  get busy(): number {
    return this.running;
  }

  execute(work: VirtualWork): void {
    if (this.threads === 0) {
      this.clock.scheduleTask(work.serviceMs, work);
      return;
    }
    if (this.running < this.threads) this.start(work);
    else this.waiting.push(work);
  }

  private start(work: VirtualWork): void {
    this.running++;
    this.clock.schedule(work.serviceMs, () => {
      work.fire();
      this.onWorkDone();
    });
  }

  private workDone(): void {
    this.running--;
    if (this.waitingHead < this.waiting.length) {
      const next = this.waiting[this.waitingHead]!;
      this.waiting[this.waitingHead] = undefined as unknown as VirtualWork;
      this.waitingHead++;
      // Compact now and then so the array does not grow without bound over a long run.
      if (this.waitingHead > 1024 && this.waitingHead * 2 > this.waiting.length) {
        this.waiting.splice(0, this.waitingHead);
        this.waitingHead = 0;
      }
      this.start(next);
    }
  }
}
