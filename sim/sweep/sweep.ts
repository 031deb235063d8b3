// Runs many simulations (seeds × configuration variants) on a Piscina pool, one whole simulation
// per task. Results come back in completion order and are returned in task order, so nothing
// written afterwards depends on scheduling: a seed's report.json is the same at any worker count.
// A pool can serve several batches (the tuner's rounds) so its threads load the engine once.

import { Piscina } from 'piscina';
import type { SweepTask, SweepTaskResult } from './task.ts';

const WORKER_ENTRY = new URL('./worker.mjs', import.meta.url).href;

export interface SweepOptions {
  workers: number;
  /** Called after each finished task with the count done so far. */
  onTaskDone?: ((done: number, total: number) => void) | undefined;
}

export interface SweepPool {
  run(tasks: readonly SweepTask[], onTaskDone?: (done: number, total: number) => void): Promise<SweepTaskResult[]>;
  destroy(): Promise<void>;
}

export function createSweepPool(workers: number): SweepPool {
  const threads = Math.max(1, workers);
  const pool = new Piscina<SweepTask, SweepTaskResult>({
    filename: WORKER_ENTRY,
    minThreads: threads,
    maxThreads: threads,
    idleTimeout: Number.POSITIVE_INFINITY,
  });
  let failure: unknown;
  pool.on('error', (error: unknown) => {
    failure ??= error;
  });
  return {
    async run(tasks, onTaskDone) {
      let done = 0;
      const results = await Promise.all(
        tasks.map(async (task) => {
          try {
            return await pool.run(task);
          } catch (error) {
            // A crash inside a simulation is a bug; report it against its seed rather than losing the sweep.
            return {
              ok: false as const,
              variant: task.variant,
              seed: task.seed,
              errors: [`simulation crashed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`],
            };
          } finally {
            done++;
            onTaskDone?.(done, tasks.length);
          }
        }),
      );
      if (failure !== undefined) throw failure;
      return results;
    },
    destroy: () => pool.destroy(),
  };
}

export async function runSweep(tasks: readonly SweepTask[], options: SweepOptions): Promise<SweepTaskResult[]> {
  const pool = createSweepPool(Math.min(options.workers, Math.max(1, tasks.length)));
  try {
    return await pool.run(tasks, options.onTaskDone);
  } finally {
    await pool.destroy();
  }
}
