// The server's execution plane (docs/execution-plane.md): where the CPU-heavy stages of admitted
// requests run. With threads, the routing executor sends large work to a Piscina pool and keeps
// small work on the main thread (one routing rule, workers/routing-executor.ts); with 0 threads
// (`--execution-threads=0`) everything runs on the main thread. The pool's threads start at once;
// `ready` resolves when each has answered, and /readyz waits for it.
//
// /metrics shows where work ran:
//   fairway_execution_stages_total{stage,executor,outcome}     stages run, inline or on the pool
//   fairway_execution_stage_duration_seconds{stage,executor}   from the call to its result (pool: the hop included)
import type { Registry } from 'prom-client';
import type { Executor } from '../../workers/executor.ts';
import { createInlineExecutor } from '../../workers/inline-executor.ts';
import { createPiscinaExecutor } from '../../workers/piscina-executor.ts';
import { createRoutingExecutor } from '../../workers/routing-executor.ts';
import { withMetrics, type ExecutorObserver } from '../../workers/with-metrics.ts';
import type { Logger } from '../log.ts';
import { CounterVec, HistogramVec } from '../metrics/metric-family.ts';

const DURATION_BUCKETS_SECONDS: readonly number[] = [0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5];

export interface ExecutionPlane {
  readonly executor: Executor;
  /** Worker threads (0: inline). */
  readonly threads: number;
  /** Resolves once every thread has answered (at once when inline). */
  readonly ready: Promise<void>;
  /** Adds the plane's metric families to a registry. */
  registerMetrics(registry: Registry): void;
  /** Lets accepted work finish, then stops the threads. */
  close(): Promise<void>;
}

export function startExecutionPlane(threads: number, logger?: Logger): ExecutionPlane {
  const runs = new CounterVec(
    'fairway_execution_stages_total',
    'Stages of admitted requests run by the execution plane, by executor (inline on the main thread, or pool) and outcome.',
    ['stage', 'executor', 'outcome'],
  );
  const durations = new HistogramVec(
    'fairway_execution_stage_duration_seconds',
    'Time from handing a stage to the execution plane to its result, by executor; on the pool it includes the thread hop.',
    ['stage', 'executor'],
    DURATION_BUCKETS_SECONDS,
  );
  const observe = (executor: 'inline' | 'pool'): ExecutorObserver => ({
    onSettle(stage, outcome, durationMs) {
      runs.cell(stage, executor, outcome).value++;
      durations.cell(stage, executor).observe(durationMs / 1000);
    },
  });
  const inline = withMetrics(createInlineExecutor(), observe('inline'));
  const registerMetrics = (registry: Registry) => {
    runs.family.registerIn(registry);
    durations.family.registerIn(registry);
  };
  if (threads === 0) {
    logger?.info('execution plane: inline (--execution-threads=0)');
    return { executor: inline, threads, ready: Promise.resolve(), registerMetrics, close: () => inline.close() };
  }
  const pool = createPiscinaExecutor({
    threads,
    onThreadError: (error) => logger?.error(`execution plane thread failed: ${error instanceof Error ? error.message : String(error)}`),
  });
  const ready = pool.ready().then(() => logger?.info(`execution plane: ${threads} worker thread${threads === 1 ? '' : 's'} ready`));
  const executor = createRoutingExecutor({ inline, pool: withMetrics(pool, observe('pool')) });
  return { executor, threads, ready, registerMetrics, close: () => executor.close() };
}
