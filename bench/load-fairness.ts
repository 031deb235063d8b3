// Whether a sim-vs-serve run tested the model or the machine: the load client must be faster than
// the server under test, and the server must get its core. A run that fails either says so and
// its latencies are not judged against the model.
import type { DriverResult } from './open-loop-driver.ts';

/** Below this share of its event loop's busy time on its core, the server was kept from its core. */
export const FAIR_CORE_SHARE = 0.9;
/** Above this share of its core, the driver's own work delays sends and slows reads. */
export const FAIR_DRIVER_BUSY = 0.5;
/**
 * A request sent this much later than its Poisson arrival no longer arrives as the simulator's do.
 * Judged at the driver's p99 send lag, the latency percentile the comparison reads: a single late
 * send (the driver's own GC pause) moves no p99 over thousands of requests, while a p99 lag above
 * this means at least 1% of arrivals were not the scenario's. Quiet-machine runs had a p99 of
 * 3–7 ms and a maximum of 7–40 ms.
 */
export const FAIR_SEND_LAG_MS = 10;

/**
 * This much of its core lost within FAIR_LOSS_WINDOW_MS (the main thread's run-queue wait, when
 * another process had its core, and the hypervisor's steal: bench/run-queue-stalls.ts) sets a p99
 * alone: at 0.8 load the backlog it leaves takes five times as long to clear, and every answer in
 * it is slow (docs/benchmarks.md, loaded runs: one such episode held all of each flow's slowest 1%).
 * In the loaded runs that matched the model, the half-seconds before their slowest answers held 15–33 ms of run-queue wait.
 */
export const FAIR_LOSS_MS = 50;
export const FAIR_LOSS_WINDOW_MS = 500;

/** A driver run to judge: what it was, its result, and how long it ran (seconds). */
export interface DriverRun {
  what: string;
  result: DriverResult;
  seconds: number;
}

export const driverBusy = (run: DriverRun): number => run.result.clientCpuSeconds / run.seconds;

/** Why a run does not test the model: each reason a sentence, none when it does. */
export function unfairness(coreShare: number, runs: readonly DriverRun[], worstLossMs = 0): string[] {
  const reasons: string[] = [];
  if (coreShare < FAIR_CORE_SHARE) reasons.push(`the server ran ${coreShare.toFixed(2)} of its event loop's busy time`);
  if (worstLossMs >= FAIR_LOSS_MS) reasons.push(`the server's main thread lost ${worstLossMs.toFixed(0)} ms of its core within ${FAIR_LOSS_WINDOW_MS} ms`);
  for (const run of runs) {
    const busy = driverBusy(run);
    if (busy > FAIR_DRIVER_BUSY) reasons.push(`the ${run.what}'s driver used ${busy.toFixed(2)} of its core`);
    const lag = run.result.sendLagP99Ms;
    if (lag > FAIR_SEND_LAG_MS) reasons.push(`the ${run.what}'s driver sent 1% of its requests ${lag.toFixed(0)} ms or more behind their arrivals`);
  }
  return reasons;
}
