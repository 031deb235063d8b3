// Fairness scenarios in the style of Kubernetes' queueset tests ("uniform scenarios"): each
// client is a flow with a number of threads; a thread issues a request, holds it for its
// execution time, thinks, and issues the next one, forever. After a warm-up the time-averaged
// seats each client holds are measured from outside (decide callbacks and finish times) and
// compared with the max-min fair allocation of the concurrency limit among the clients' demands,
// computed by the independent oracle in max-min-oracle.ts.

import { createPrng } from '../../engine/random.ts';
import type { QueuingConfig } from '../../engine/flowcontrol/queue-set.ts';
import { SimClock } from '../../engine/sim-clock.ts';
import { maxMinFairAllocation } from './max-min-oracle.ts';
import type { QueueSetLike } from './queue-set-like.ts';

export interface UniformClient {
  flowHash: bigint;
  threads: number;
  /** Mean execution time; each execution is jittered by the scenario's `execJitter`. */
  execMs: number;
  thinkMs: number;
  seats: number;
}

export interface UniformScenario {
  queuing: QueuingConfig;
  concurrencyLimit: number;
  clients: UniformClient[];
  warmupMs: number;
  evalMs: number;
  /** Each execution time is `execMs × (1 + u)`, u uniform in [−execJitter, +execJitter). */
  execJitter: number;
}

export interface FairnessOutcome {
  /** Seats each client would hold if it never waited: threads × seats × exec / (exec + think). */
  demands: number[];
  /** The max-min fair allocation of the concurrency limit among the demands. */
  fair: number[];
  /** Time-averaged seats each client actually held over the evaluation window. */
  measured: number[];
  /** (measured − fair) / fair per client. */
  relativeErrors: number[];
}

export type QueueSetUnderTest = (clock: SimClock) => QueueSetLike<number>;

/** Plays the scenario on a fresh virtual clock; `jitterSeed` drives the execution-time jitter. */
export function exerciseUniformScenario(scenario: UniformScenario, makeQueueSet: QueueSetUnderTest, jitterSeed: number): FairnessOutcome {
  const clock = new SimClock();
  const qs = makeQueueSet(clock);
  qs.setConfig(scenario.queuing, scenario.concurrencyLimit);
  const prng = createPrng(jitterSeed);
  const windowStartMs = scenario.warmupMs;
  const windowEndMs = scenario.warmupMs + scenario.evalMs;
  const seatMs = scenario.clients.map(() => 0);
  /** Seats held by a request from `fromMs` to `toMs`, counted only inside the window. */
  const account = (client: number, seats: number, fromMs: number, toMs: number) => {
    const overlapMs = Math.min(toMs, windowEndMs) - Math.max(fromMs, windowStartMs);
    if (overlapMs > 0) seatMs[client]! += seats * overlapMs;
  };
  const holding = new Set<{ client: number; seats: number; startMs: number }>();

  const issue = (client: number) => {
    const spec = scenario.clients[client]!;
    let finish: (() => void) | undefined;
    const admission = qs.startRequest(
      {
        flowHash: spec.flowHash,
        workEstimate: { initialSeats: spec.seats, finalSeats: 0, additionalLatencyMs: 0 },
        waitLimitMs: Number.MAX_SAFE_INTEGER,
        descriptor: client,
      },
      (decision) => {
        if (decision.kind === 'reject') {
          clock.after(Math.max(spec.thinkMs, spec.execMs), () => issue(client));
          return;
        }
        const hold = { client, seats: spec.seats, startMs: clock.now() };
        holding.add(hold);
        const execMs = spec.execMs * (1 + scenario.execJitter * (2 * prng.next() - 1));
        clock.after(execMs, () => {
          holding.delete(hold);
          account(client, hold.seats, hold.startMs, clock.now());
          finish!();
          // A thread with no think time asks again at once, within the same instant.
          if (spec.thinkMs > 0) clock.after(spec.thinkMs, () => issue(client));
          else issue(client);
        });
      },
    );
    finish = () => admission.finish();
  };

  // Threads start together, interleaved across clients, as the upstream scenarios do.
  const maxThreads = Math.max(...scenario.clients.map((c) => c.threads));
  for (let thread = 0; thread < maxThreads; thread++) {
    scenario.clients.forEach((c, client) => {
      if (thread < c.threads) issue(client);
    });
  }
  clock.runUntil(windowEndMs);
  for (const hold of holding) account(hold.client, hold.seats, hold.startMs, windowEndMs);

  const demands = scenario.clients.map((c) => (c.threads * c.seats * c.execMs) / (c.execMs + c.thinkMs));
  const fair = maxMinFairAllocation(demands, scenario.concurrencyLimit);
  const measured = seatMs.map((ms) => ms / scenario.evalMs);
  const relativeErrors = measured.map((m, i) => (m - fair[i]!) / fair[i]!);
  return { demands, fair, measured, relativeErrors };
}

/**
 * The margin KEP-1040's bound gives (apf-semantics 10): fair queuing with concurrency C diverges
 * from the ideal by at most C requests. Over the evaluation window a client's seat-time may then
 * be off by C × (widest request) × (longest execution), and once more at the window's far edge
 * for requests the window cuts in two; relative to the client's fair seat-time that is
 * `2·C·w·S / (fair·T)`.
 */
export function kepDivergenceMargin(scenario: UniformScenario, fairSeats: number): number {
  const widest = Math.max(...scenario.clients.map((c) => c.seats));
  const longestMs = Math.max(...scenario.clients.map((c) => c.execMs)) * (1 + scenario.execJitter);
  return (2 * scenario.concurrencyLimit * widest * longestMs) / (fairSeats * scenario.evalMs);
}

/** The clients whose measured share is off the fair share by more than their margin (relative). */
export function unfairClients(outcome: FairnessOutcome, margins: number | readonly number[]): string[] {
  const out: string[] = [];
  outcome.relativeErrors.forEach((err, i) => {
    const margin = typeof margins === 'number' ? margins : margins[i]!;
    if (!(Math.abs(err) <= margin)) {
      out.push(
        `client ${i}: measured ${outcome.measured[i]!.toFixed(3)} seats, fair ${outcome.fair[i]!.toFixed(3)} (${(err * 100).toFixed(1)}%, margin ` +
          `${(margin * 100).toFixed(1)}%)`,
      );
    }
  });
  return out;
}
