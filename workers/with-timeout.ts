// Wrapper: gives up waiting for work after `timeoutMs` on the injected clock, rejecting with
// FW_ERR_EXECUTOR_TIMEOUT. A thread cannot be interrupted mid-stage, so the wrapped work runs on;
// the error's `workSettled` resolves when it really ends (release seats held for it then).

import type { Clock } from '../engine/clock.ts';
import { ExecutorError } from './executor-errors.ts';
import type { Executor, Work } from './executor.ts';
import { stageNameOf } from './stage-runner.ts';

export function withTimeout(executor: Executor, timeoutMs: number, clock: Clock): Executor {
  if (typeof timeoutMs !== 'number' || Number.isNaN(timeoutMs) || timeoutMs <= 0) {
    throw new RangeError(`timeoutMs must be a positive number of milliseconds, got ${String(timeoutMs)}`);
  }
  if (timeoutMs === Number.POSITIVE_INFINITY) return executor;
  return {
    execute<R>(work: Work): Promise<R> {
      const inner = executor.execute<R>(work);
      return new Promise<R>((resolve, reject) => {
        let timedOut = false;
        const cancel = clock.after(timeoutMs, () => {
          timedOut = true;
          const stage = stageNameOf(work);
          const workSettled = inner.then(
            () => undefined,
            () => undefined,
          );
          reject(new ExecutorError('FW_ERR_EXECUTOR_TIMEOUT', stage, `stage "${stage}" did not finish within ${timeoutMs} ms`, { workSettled }));
        });
        inner.then(
          (value) => {
            if (timedOut) return;
            cancel();
            resolve(value);
          },
          (error: unknown) => {
            if (timedOut) return;
            cancel();
            reject(error);
          },
        );
      });
    },
    close: () => executor.close(),
  };
}
