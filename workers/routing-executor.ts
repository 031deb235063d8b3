// Chooses, per call, between the main thread and the pool: a stage's work goes to the pool when its
// size (Stage.sizeOf, in the stage's unit) reaches that stage's threshold, and stays inline
// otherwise — including every stage without a threshold. Small work stays inline because a pool hop
// costs tens of microseconds of latency and some main-thread time of its own; large work goes out
// so the event loop keeps admitting and rejecting while it runs.
//
// The defaults come from bench/executor.bench.ts; docs/execution-plane.md records the figures and
// the reasoning. Re-run the benchmark before changing them.

import { closedError } from './executor-errors.ts';
import type { Executor, Work } from './executor.ts';
import { stageNameOf } from './stage-runner.ts';
import { findStage } from './stages.ts';
import { DEFAULT_POOL_THRESHOLDS, type PoolThresholds } from './pool-thresholds.ts';

export { DEFAULT_POOL_THRESHOLDS, type PoolThresholds };

export interface RoutingExecutorOptions {
  inline: Executor;
  pool: Executor;
  poolThresholds?: PoolThresholds;
}

export interface RoutingExecutor extends Executor {
  /** Where `work` would run; unknown stages and bad work say `inline` (which rejects them). */
  route(work: Work): 'inline' | 'pool';
}

export function createRoutingExecutor(options: RoutingExecutorOptions): RoutingExecutor {
  const { inline, pool } = options;
  const thresholds = checkThresholds(options.poolThresholds ?? DEFAULT_POOL_THRESHOLDS);
  let closing: Promise<void> | undefined;

  const route = (work: Work): 'inline' | 'pool' => {
    const name = stageNameOf(work);
    const threshold = Object.hasOwn(thresholds, name) ? thresholds[name] : undefined;
    const stage = findStage(name);
    if (threshold === undefined || stage === undefined) return 'inline';
    return stage.sizeOf(work.payload) >= threshold ? 'pool' : 'inline';
  };

  return {
    route,
    execute<R>(work: Work): Promise<R> {
      if (closing !== undefined) return Promise.reject(closedError(stageNameOf(work)));
      let target: 'inline' | 'pool';
      try {
        target = route(work);
      } catch {
        // A payload whose size cannot be measured gets the inline executor's error for it.
        target = 'inline';
      }
      return (target === 'pool' ? pool : inline).execute<R>(work);
    },
    close(): Promise<void> {
      closing ??= Promise.all([inline.close(), pool.close()]).then(() => undefined);
      return closing;
    },
  };
}

function checkThresholds(thresholds: PoolThresholds): PoolThresholds {
  for (const [stage, size] of Object.entries(thresholds)) {
    if (findStage(stage) === undefined) throw new RangeError(`pool threshold names unknown stage "${stage}"`);
    if (typeof size !== 'number' || Number.isNaN(size) || size < 0) {
      throw new RangeError(`pool threshold of stage "${stage}" must be a number ≥ 0, got ${String(size)}`);
    }
  }
  return { ...thresholds };
}
