// Random queue-set workloads for the invariant properties: a starting configuration, a few flows,
// timed arrivals with random widths, service times, additional latency, wait limits and client
// cancellations, and timed configuration changes (limit only, or queues/hand/length/limit,
// including a switch to and from a Reject-type level). `runQueueSetScenario` plays one on a
// SimClock through the instrumented harness and checks the invariants after every event.

import fc from 'fast-check';
import { checkQueuingConfig, type QueuingConfig } from '../../engine/flowcontrol/queue-set.ts';
import { SimClock } from '../../engine/sim-clock.ts';
import { ALL_CHECKS, QueueSetHarness, realQueueSet, type CheckName, type QueueSetFactory, type ScenarioRequest } from './queue-set-harness.ts';

export interface TimedArrival {
  atMs: number;
  flow: number;
  request: Omit<ScenarioRequest, 'flowHash'>;
}

export interface TimedChange {
  atMs: number;
  /** Absent: only the concurrency limit changes (the periodic borrowing update). */
  config: QueuingConfig | undefined;
  concurrencyLimit: number;
}

export interface QueueSetScenario {
  config: QueuingConfig;
  concurrencyLimit: number;
  flows: bigint[];
  arrivals: TimedArrival[];
  changes: TimedChange[];
}

export interface ScenarioShape {
  /** An exempt level (desiredNumQueues −1) throughout, with no configuration changes. */
  exempt?: boolean;
  /** Keep the starting configuration (no changes at all). */
  fixedConfig?: boolean;
  /** Requests hold no final seats (so nothing is clipped and nothing lingers). */
  noFinalSeats?: boolean;
  /** Every request takes exactly one seat and holds no final seats. */
  oneSeat?: boolean;
  maxArrivals?: number;
}

const uint64 = fc.bigInt({ min: 0n, max: (1n << 64n) - 1n });

/** A queuing config that passes checkQueuingConfig; `desiredNumQueues` 0 is a Reject-type level. */
export function queuingConfigArbitrary(): fc.Arbitrary<QueuingConfig> {
  return fc
    .record({
      desiredNumQueues: fc.oneof({ weight: 5, arbitrary: fc.integer({ min: 1, max: 10 }) }, { weight: 1, arbitrary: fc.constant(0) }),
      queueLengthLimit: fc.integer({ min: 1, max: 5 }),
      handFraction: fc.double({ min: 0, max: 1, noNaN: true }),
    })
    .map(({ desiredNumQueues, queueLengthLimit, handFraction }) => {
      const handSize = desiredNumQueues === 0 ? 1 : 1 + Math.floor(handFraction * Math.min(desiredNumQueues, 4) * 0.999);
      return { desiredNumQueues, queueLengthLimit, handSize };
    })
    .filter((config) => checkQueuingConfig(config) === undefined);
}

function requestArbitrary(withFinalSeats: boolean, oneSeat: boolean): fc.Arbitrary<Omit<ScenarioRequest, 'flowHash'>> {
  const seats = oneSeat
    ? fc.constant(1)
    : fc.oneof({ weight: 6, arbitrary: fc.integer({ min: 1, max: 3 }) }, { weight: 1, arbitrary: fc.integer({ min: 4, max: 12 }) });
  const finalSeats = !withFinalSeats
    ? fc.constant(0)
    : fc.oneof(
        { weight: 4, arbitrary: fc.constant(0) },
        { weight: 2, arbitrary: fc.integer({ min: 1, max: 3 }) },
        { weight: 1, arbitrary: fc.integer({ min: 4, max: 12 }) },
      );
  return fc.record({
    workEstimate: fc.record({
      initialSeats: seats,
      finalSeats,
      additionalLatencyMs: !withFinalSeats
        ? fc.constant(0)
        : fc.oneof({ weight: 3, arbitrary: fc.constant(0) }, { weight: 1, arbitrary: fc.integer({ min: 1, max: 100 }) }),
    }),
    serviceMs: fc.integer({ min: 0, max: 300 }),
    waitLimitMs: fc.integer({ min: 1, max: 800 }),
    cancelAfterMs: fc.option(fc.integer({ min: 0, max: 800 }), { nil: undefined, freq: 4 }),
  });
}

export function queueSetScenarioArbitrary(shape: ScenarioShape = {}): fc.Arbitrary<QueueSetScenario> {
  const config = shape.exempt === true ? fc.constant<QueuingConfig>({ desiredNumQueues: -1, queueLengthLimit: 0, handSize: 0 }) : queuingConfigArbitrary();
  const limit = fc.integer({ min: 0, max: 8 });
  const changes =
    shape.exempt === true || shape.fixedConfig === true
      ? fc.constant<TimedChange[]>([])
      : fc.array(
          fc.record({
            atMs: fc.integer({ min: 0, max: 1500 }),
            config: fc.option(queuingConfigArbitrary(), { nil: undefined }),
            concurrencyLimit: limit,
          }),
          { maxLength: 4 },
        );
  return fc
    .record({
      config,
      concurrencyLimit: limit,
      flows: fc.array(uint64, { minLength: 1, maxLength: 5 }),
      arrivals: fc.array(
        fc.record({
          atMs: fc.integer({ min: 0, max: 1500 }),
          flowPick: fc.nat(),
          request: requestArbitrary(shape.noFinalSeats !== true && shape.oneSeat !== true, shape.oneSeat === true),
        }),
        { minLength: 1, maxLength: shape.maxArrivals ?? 60, size: 'medium' },
      ),
      changes,
    })
    .map(({ config, concurrencyLimit, flows, arrivals, changes }) => ({
      config,
      concurrencyLimit,
      flows,
      arrivals: arrivals.map(({ atMs, flowPick, request }) => ({ atMs, flow: flowPick % flows.length, request })),
      changes,
    }));
}

/** Upper bound on clock events, so a scheduling bug shows as a failure instead of a hang. */
const MAX_EVENTS = 200_000;

export interface RunOptions {
  factory?: QueueSetFactory;
  /** The checks that throw; the rest are counted in `harness.unenforced`. Default: all. */
  enforce?: readonly CheckName[];
}

/** Plays the scenario; throws a QueueSetViolation at the first broken enforced invariant. */
export function runQueueSetScenario(scenario: QueueSetScenario, options: RunOptions = {}): QueueSetHarness {
  const clock = new SimClock();
  const enforced = new Set(options.enforce ?? ALL_CHECKS);
  const harness = new QueueSetHarness(clock, scenario.config, scenario.concurrencyLimit, options.factory ?? realQueueSet, enforced);
  for (const arrival of scenario.arrivals) {
    const flowHash = scenario.flows[arrival.flow]!;
    clock.after(arrival.atMs, () => harness.arrive({ ...arrival.request, flowHash }));
  }
  for (const change of scenario.changes) {
    clock.after(change.atMs, () =>
      change.config === undefined ? harness.changeConcurrencyLimit(change.concurrencyLimit) : harness.changeConfig(change.config, change.concurrencyLimit),
    );
  }
  // A level left at limit 0 never dispatches from its queues; those requests end by time-out.
  let events = 0;
  harness.checkQuiescent();
  while (clock.step()) {
    if (++events > MAX_EVENTS) throw new Error(`scenario still running after ${MAX_EVENTS} events`);
    harness.checkQuiescent();
  }
  harness.checkFinal();
  return harness;
}
