// Test code: the `Executor` interface on virtual threads (workers/virtual-threads.ts), for tests of
// the protocol on virtual time (the simulator drives the threads directly, without promises). It
// either runs the stage on this thread when the item completes (`compute: 'run'`, results
// identical to the inline executor) or computes nothing and resolves with `undefined` (`'skip'`).
//
// Promise continuations run as microtasks after the clock callback returns. A driver that steps a
// SimClock synchronously must let microtasks drain between steps (await between `step()` calls), or
// use `onComplete`, which runs inside the clock callback at the completion instant.

import type { Clock } from '../../engine/clock.ts';
import { ExecutorError, closedError, isExecutorError } from '../executor-errors.ts';
import type { Executor, Work } from '../executor.ts';
import { checkWork, runStageHere, stageNameOf } from '../stage-runner.ts';
import { VirtualThreads } from '../virtual-threads.ts';

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

export function createVirtualExecutor(options: VirtualExecutorOptions): VirtualExecutor {
  const { clock, serviceTimeMs, onComplete } = options;
  const compute = options.compute ?? 'run';
  let drained: (() => void) | undefined;
  let closing: Promise<void> | undefined;
  const threads = new VirtualThreads(
    (delayMs, callback) => void clock.after(delayMs, callback),
    options.threads ?? Number.POSITIVE_INFINITY,
    () => drained?.(),
  );

  return {
    get running() {
      return threads.busy;
    },
    get queued() {
      return threads.queued;
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
        threads.execute({
          serviceMs,
          fire() {
            try {
              resolve((compute === 'run' ? runStageHere(stage, work.payload) : undefined) as R);
            } catch (error) {
              reject(error);
            }
            onComplete?.(work, clock.now());
          },
        });
      });
    },
    close(): Promise<void> {
      closing ??= threads.busy === 0 && threads.queued === 0 ? Promise.resolve() : new Promise<void>((resolve) => (drained = resolve));
      return closing;
    },
  };
}
