// Runs each stage on the calling (main) thread. For work too small to pay for a thread hop, for
// tests, and as the reference every other executor must agree with. Runs synchronously inside
// `execute`, so it blocks the event loop for the stage's duration — which is the point of routing
// large work elsewhere (routing-executor.ts).

import { closedError, isExecutorError } from './executor-errors.ts';
import type { Executor, Work } from './executor.ts';
import { checkWork, runStageHere, stageNameOf } from './stage-runner.ts';

export function createInlineExecutor(): Executor {
  let closed: Promise<void> | undefined;
  return {
    execute<R>(work: Work): Promise<R> {
      if (closed !== undefined) return Promise.reject(closedError(stageNameOf(work)));
      const stage = checkWork(work);
      if (isExecutorError(stage)) return Promise.reject(stage);
      try {
        return Promise.resolve(runStageHere(stage, work.payload) as R);
      } catch (error) {
        return Promise.reject(error);
      }
    },
    close(): Promise<void> {
      // Nothing is ever in flight: every call settled before `execute` returned.
      closed ??= Promise.resolve();
      return closed;
    },
  };
}
