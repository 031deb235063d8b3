// The worker-thread pool behind `Executor`. Each task is `{stage, payload}` posted to a Piscina
// thread running worker-entry.mjs → worker-task.ts; the payload is what the stage's `pack` makes
// of it (stored objects become moved buffers) or else the payload itself, structured-cloned except
// for what `work.transferList` moves. Byte results come back moved, then re-wrapped as a Buffer over
// the same memory (a Buffer crosses threads as a plain Uint8Array).
//
// The thread count defaults to the cores left after the main thread (availableParallelism() − 1,
// at least 1): the main thread must stay free to classify, admit and reject (docs/execution-plane.md),
// so the pool should not compete with it for the last core.

import { availableParallelism } from 'node:os';
import { Piscina } from 'piscina';
import { ExecutorError, closedError, errorText, isExecutorError } from './executor-errors.ts';
import type { Executor, Work } from './executor.ts';
import { checkWork, stageNameOf } from './stage-runner.ts';
import { isStageFailure, STAGE_FAILURE_KEY, type StageTask } from './worker-task.ts';

export interface PiscinaExecutorOptions {
  /** Worker threads, started eagerly and kept. Default: availableParallelism() − 1, at least 1. */
  threads?: number;
  /**
   * Tasks posted to one thread before its previous ones finish. Stages are synchronous, so more
   * than 1 never adds parallelism; it only pipelines hops (cheaper tiny tasks, worse balancing).
   */
  concurrentTasksPerWorker?: number;
  /** Called for a thread error not tied to a task (e.g. the entry failed to load). Default: a process warning. */
  onThreadError?: (error: unknown) => void;
}

export interface PiscinaExecutor extends Executor {
  readonly threads: number;
  /** Calls accepted and not yet settled. */
  readonly inFlight: number;
  /** Resolves once every thread has run a task, so all are up (`/readyz` waits for it; tests and benchmarks warm up with it). */
  ready(): Promise<void>;
}

const WORKER_ENTRY = new URL('./worker-entry.mjs', import.meta.url).href;

export function defaultThreadCount(): number {
  return Math.max(1, availableParallelism() - 1);
}

export function createPiscinaExecutor(options: PiscinaExecutorOptions = {}): PiscinaExecutor {
  const threads = positiveInteger('threads', options.threads ?? defaultThreadCount());
  const concurrentTasksPerWorker = positiveInteger('concurrentTasksPerWorker', options.concurrentTasksPerWorker ?? 1);
  const pool = new Piscina<StageTask, unknown>({
    filename: WORKER_ENTRY,
    minThreads: threads,
    maxThreads: threads,
    concurrentTasksPerWorker,
    idleTimeout: Number.POSITIVE_INFINITY,
  });
  const onThreadError = options.onThreadError ?? ((error: unknown) => process.emitWarning(`execution plane thread error: ${errorText(error)}`));
  // An 'error' event without a listener would crash the process.
  pool.on('error', onThreadError);

  let inFlight = 0;
  let drained: (() => void) | undefined;
  let closing: Promise<void> | undefined;

  const settle = (): void => {
    inFlight -= 1;
    if (inFlight === 0) drained?.();
  };

  const executor: PiscinaExecutor = {
    threads,
    get inFlight() {
      return inFlight;
    },
    execute<R>(work: Work): Promise<R> {
      if (closing !== undefined) return Promise.reject(closedError(stageNameOf(work)));
      const stage = checkWork(work);
      if (isExecutorError(stage)) return Promise.reject(stage);
      let task: Promise<unknown>;
      try {
        const packed = stage.pack?.(work.payload);
        const payload = packed !== undefined ? packed.payload : work.payload;
        const transferList = packed !== undefined ? packed.transferList : work.transferList;
        task = pool.run({ stage: stage.name, payload }, transferList === undefined ? {} : { transferList: [...transferList] as never });
      } catch (error) {
        return Promise.reject(postFailed(stage.name, error));
      }
      inFlight += 1;
      return task.then(
        (result) => {
          settle();
          return fromWorker(stage.name, result) as R;
        },
        (error: unknown) => {
          settle();
          throw isCloneError(error) ? postFailed(stage.name, error) : threadFailed(stage.name, error);
        },
      );
    },
    async ready() {
      // Every thread has answered once: a thread still loading its entry would make the first
      // requests sent to it wait for that.
      const seen = new Set<number>();
      while (seen.size < threads) {
        const ids = await Promise.all(Array.from({ length: threads }, () => executor.execute<number>({ stage: 'thread-id', payload: null })));
        for (const id of ids) seen.add(id);
        if (seen.size < threads) await new Promise((resolve) => setTimeout(resolve, 20));
      }
    },
    close(): Promise<void> {
      closing ??= (async () => {
        if (inFlight > 0) await new Promise<void>((resolve) => (drained = resolve));
        await pool.close();
      })();
      return closing;
    },
  };
  return executor;
}

function fromWorker(stage: string, result: unknown): unknown {
  if (isStageFailure(result)) {
    const original = result[STAGE_FAILURE_KEY];
    const cause = Object.assign(new Error(original.message), { name: original.name, stack: original.stack });
    throw new ExecutorError('FW_ERR_EXECUTOR_STAGE_FAILED', stage, `stage "${stage}" failed: ${original.message}`, { cause });
  }
  if (result instanceof Uint8Array && !Buffer.isBuffer(result)) return Buffer.from(result.buffer, result.byteOffset, result.byteLength);
  return result;
}

function threadFailed(stage: string, error: unknown): ExecutorError {
  return new ExecutorError('FW_ERR_EXECUTOR_WORKER_FAILED', stage, `worker thread failed running stage "${stage}": ${errorText(error)}`, {
    cause: error,
  });
}

// A payload the structured clone algorithm refuses (functions, symbols, class instances with
// private state) is the caller's mistake, not the thread's.
function postFailed(stage: string, error: unknown): ExecutorError {
  return new ExecutorError('FW_ERR_EXECUTOR_BAD_WORK', stage, `payload of stage "${stage}" cannot be sent to a worker: ${errorText(error)}`, {
    cause: error,
  });
}

function isCloneError(error: unknown): boolean {
  return error instanceof Error && error.name === 'DataCloneError';
}

function positiveInteger(name: string, value: number): number {
  if (!Number.isInteger(value) || value < 1) throw new RangeError(`${name} must be a positive integer, got ${String(value)}`);
  return value;
}
