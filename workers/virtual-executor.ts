// The simulator's executor: a pool of `threads` virtual threads on an injected Clock. Each item
// occupies a thread for `serviceTimeMs(work)` of virtual time, waiting first-in-first-out while all
// are busy, then completes through a clock event — so with a SimClock one seed gives one history
// (SimClock orders same-instant events by insertion). It either runs the stage on this thread when
// the item completes (`compute: 'run'`, results identical to the inline executor) or computes
// nothing and resolves with `undefined` (`'skip'`, for large simulated workloads).
//
// Promise continuations run as microtasks after the clock callback returns. A driver that steps a
// SimClock synchronously must let microtasks drain between steps (await between `step()` calls), or
// use `onComplete`, which runs inside the clock callback at the completion instant.

import type { Clock } from '../engine/clock.ts';
import { ExecutorError, closedError, isExecutorError } from './executor-errors.ts';
import type { Executor, Work } from './executor.ts';
import { checkWork, runStageHere, stageNameOf } from './stage-runner.ts';
import type { Stage } from './stages.ts';

export interface VirtualExecutorOptions {
  clock: Clock;
  /** Virtual time one item holds a thread, in ms (finite, ≥ 0). */
  serviceTimeMs: (work: Work) => number;
  /** `run`: run the stage at completion and resolve with its result. `skip`: resolve with undefined. */
  compute?: 'run' | 'skip';
  /** Virtual threads; items beyond them wait FIFO. Default: unlimited (no queueing). */
  threads?: number;
  /** Called inside the clock callback when an item completes (successfully or not). */
  onComplete?: (work: Work, completedAtMs: number) => void;
}

export interface VirtualExecutor extends Executor {
  /** Items holding a virtual thread. */
  readonly running: number;
  /** Items waiting for a virtual thread. */
  readonly queued: number;
}

interface Pending {
  readonly work: Work;
  readonly stage: Stage;
  readonly serviceMs: number;
  resolve(value: unknown): void;
  reject(error: unknown): void;
}

export function createVirtualExecutor(options: VirtualExecutorOptions): VirtualExecutor {
  const { clock, serviceTimeMs, onComplete } = options;
  const compute = options.compute ?? 'run';
  const threads = options.threads ?? Number.POSITIVE_INFINITY;
  if (!(threads === Number.POSITIVE_INFINITY || (Number.isInteger(threads) && threads >= 1))) {
    throw new RangeError(`threads must be a positive integer or Infinity, got ${String(threads)}`);
  }
  // FIFO with a moving head; slots behind the head are cleared so finished items can be collected.
  const waiting: (Pending | undefined)[] = [];
  let waitingHead = 0;
  let running = 0;
  let drained: (() => void) | undefined;
  let closing: Promise<void> | undefined;

  const start = (item: Pending): void => {
    running += 1;
    clock.after(item.serviceMs, () => complete(item));
  };

  const complete = (item: Pending): void => {
    running -= 1;
    try {
      item.resolve(compute === 'run' ? runStageHere(item.stage, item.work.payload) : undefined);
    } catch (error) {
      item.reject(error);
    }
    onComplete?.(item.work, clock.now());
    // Freed thread goes to the oldest waiter, at this same instant.
    const next = waiting[waitingHead];
    if (next !== undefined) {
      waiting[waitingHead++] = undefined;
      if (waitingHead === waiting.length) {
        waiting.length = 0;
        waitingHead = 0;
      }
      start(next);
    }
    if (running === 0 && waiting.length === 0) drained?.();
  };

  return {
    get running() {
      return running;
    },
    get queued() {
      return waiting.length - waitingHead;
    },
    execute<R>(work: Work): Promise<R> {
      if (closing !== undefined) return Promise.reject(closedError(stageNameOf(work)));
      const stage = checkWork(work);
      if (isExecutorError(stage)) return Promise.reject(stage);
      const serviceMs = serviceTimeMs(work);
      if (typeof serviceMs !== 'number' || !Number.isFinite(serviceMs) || serviceMs < 0) {
        return Promise.reject(
          new ExecutorError('FW_ERR_EXECUTOR_BAD_WORK', stage.name, `virtual service time must be a finite number ≥ 0, got ${String(serviceMs)}`),
        );
      }
      return new Promise<R>((resolve, reject) => {
        const item: Pending = { work, stage, serviceMs, resolve: resolve as (value: unknown) => void, reject };
        if (running < threads) start(item);
        else waiting.push(item);
      });
    },
    close(): Promise<void> {
      closing ??= running === 0 && waiting.length === 0 ? Promise.resolve() : new Promise<void>((resolve) => (drained = resolve));
      return closing;
    },
  };
}
