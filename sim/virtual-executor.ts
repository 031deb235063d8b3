// The simulator's stand-in for the Piscina pool: admitted work runs for its service time on the
// virtual clock. With `threads > 0` at most that many pieces of work run at once and the rest
// wait in FIFO order *while still holding their APF seats* — the situation the architecture's
// execution plane exists for (seats held across execution, so APF sees the backlog). With 0
// threads every admitted request starts at once.
//
// Callback-based rather than promise-based (workers/executor.ts): a promise would resolve in a
// microtask after the clock's step returned, outside the total order of simulated events.

import type { SimClock, SimTask } from './sim-clock.ts';

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
