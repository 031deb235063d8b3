// Wrapper: reports each call's start and outcome to an observer, with its duration on a clock
// (real by default; the simulator passes its virtual one). `createExecutorMetrics` is a ready-made
// observer keeping plain counters per stage that /metrics and the simulator report can read.

import { realClock, type Clock } from '../engine/clock.ts';
import { isExecutorError, type ExecutorErrorCode } from './executor-errors.ts';
import type { Executor, Work } from './executor.ts';
import { stageNameOf } from './stage-runner.ts';

/** `ok`, an executor error code, or `error` for anything else a (foreign) executor threw. */
export type ExecutionOutcome = 'ok' | ExecutorErrorCode | 'error';

export interface ExecutorObserver {
  onStart?(stage: string): void;
  onSettle(stage: string, outcome: ExecutionOutcome, durationMs: number): void;
}

export function withMetrics(executor: Executor, observer: ExecutorObserver, clock: Clock = realClock()): Executor {
  return {
    execute<R>(work: Work): Promise<R> {
      const stage = stageNameOf(work);
      const startedMs = clock.now();
      observer.onStart?.(stage);
      const report = (outcome: ExecutionOutcome): void => observer.onSettle(stage, outcome, clock.now() - startedMs);
      return executor.execute<R>(work).then(
        (value) => {
          report('ok');
          return value;
        },
        (error: unknown) => {
          report(isExecutorError(error) ? error.code : 'error');
          throw error;
        },
      );
    },
    close: () => executor.close(),
  };
}

export interface StageCounters {
  started: number;
  inFlight: number;
  outcomes: Partial<Record<ExecutionOutcome, number>>;
  durationMsSum: number;
  durationMsMax: number;
}

export interface ExecutorMetrics extends ExecutorObserver {
  /** A copy of the counters, keyed by stage name, stages sorted. */
  dump(): Record<string, StageCounters>;
}

export function createExecutorMetrics(): ExecutorMetrics {
  const byStage = new Map<string, StageCounters>();
  const countersOf = (stage: string): StageCounters => {
    let counters = byStage.get(stage);
    if (counters === undefined) {
      counters = { started: 0, inFlight: 0, outcomes: {}, durationMsSum: 0, durationMsMax: 0 };
      byStage.set(stage, counters);
    }
    return counters;
  };
  return {
    onStart(stage) {
      const counters = countersOf(stage);
      counters.started += 1;
      counters.inFlight += 1;
    },
    onSettle(stage, outcome, durationMs) {
      const counters = countersOf(stage);
      counters.inFlight -= 1;
      counters.outcomes[outcome] = (counters.outcomes[outcome] ?? 0) + 1;
      counters.durationMsSum += durationMs;
      counters.durationMsMax = Math.max(counters.durationMsMax, durationMs);
    },
    dump() {
      const out: Record<string, StageCounters> = {};
      for (const stage of [...byStage.keys()].sort()) {
        const c = byStage.get(stage)!;
        out[stage] = { ...c, outcomes: { ...c.outcomes } };
      }
      return out;
    },
  };
}
