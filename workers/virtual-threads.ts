// The one model of a pool of virtual threads: each piece of work holds a thread for its service
// time, waiting first-in-first-out while all are busy, and completes through a clock event, so with
// a SimClock one seed gives one history (SimClock orders same-instant events by insertion). The
// simulator drives it directly, with callbacks, so every completion stays inside the total order of
// simulated events (a promise would resolve in a microtask after the clock's step returned);
// testing/virtual-executor.ts puts the `Executor` interface on it, for tests.

import type { SimTask } from '../engine/sim-clock.ts';

/** Work for a virtual thread: `fire()` runs once it has held the thread for `serviceMs`. */
export interface VirtualWork extends SimTask {
  readonly serviceMs: number;
}

/** A pool of `threads` virtual threads (a positive integer, or Infinity for no queueing). */
export class VirtualThreads {
  private running = 0;
  // FIFO with a moving head; slots behind the head are cleared so finished work can be collected.
  private readonly waiting: (VirtualWork | undefined)[] = [];
  private waitingHead = 0;

  /**
   * `schedule` runs a callback after a delay of virtual time (or when `work` is done, for a caller
   * that models contention itself); `onIdle` is called whenever the last work completes.
   */
  constructor(
    private readonly schedule: (delayMs: number, callback: () => void, work: VirtualWork) => void,
    private readonly threads: number,
    private readonly onIdle?: () => void,
  ) {
    if (!(threads === Number.POSITIVE_INFINITY || (Number.isInteger(threads) && threads >= 1))) {
      throw new RangeError(`threads must be a positive integer or Infinity, got ${String(threads)}`);
    }
  }

  /** Work holding a virtual thread. */
  get busy(): number {
    return this.running;
  }

  /** Work waiting for a virtual thread. */
  get queued(): number {
    return this.waiting.length - this.waitingHead;
  }

  execute(work: VirtualWork): void {
    if (this.running < this.threads) this.start(work);
    else this.waiting.push(work);
  }

  private start(work: VirtualWork): void {
    this.running++;
    this.schedule(
      work.serviceMs,
      () => {
        // The work completes while it still holds its thread, so whatever it starts queues behind
        // the work already waiting; the freed thread then goes to the oldest waiter, at this instant.
        work.fire();
        this.workDone();
      },
      work,
    );
  }

  private workDone(): void {
    this.running--;
    const next = this.waiting[this.waitingHead];
    if (next !== undefined) {
      this.waiting[this.waitingHead++] = undefined;
      if (this.waitingHead === this.waiting.length) {
        this.waiting.length = 0;
        this.waitingHead = 0;
      } else if (this.waitingHead > 1024 && this.waitingHead * 2 > this.waiting.length) {
        // Compact now and then so the array does not grow without bound over a long run.
        this.waiting.splice(0, this.waitingHead);
        this.waitingHead = 0;
      }
      this.start(next);
    }
    if (this.running === 0 && this.waitingHead === this.waiting.length) this.onIdle?.();
  }
}
