// The queue set's invariants under random workloads on a virtual clock. Each
// run plays a random scenario (support/queue-set-scenario.ts) through the instrumented harness
// (support/queue-set-harness.ts), which checks after every event: work conservation, the
// queue-length rule, exempt requests never waiting, FIFO within a queue, every request ending
// exactly once, seats within the limit (except a lone over-wide request), wait limits, and the
// shuffle-sharding queue choice. Each invariant is its own property, so one broken rule fails one
// test. Six deliberately broken queue sets are controls: each must fail the property for its rule.

import fc from 'fast-check';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import type { Clock } from '../engine/clock.ts';
import { QueueSet, type Admission, type Decide, type QueueSetObserver, type QueueSetRequest, type QueuingConfig } from '../engine/flowcontrol/queue-set.ts';
import { QueueSetViolation, type CheckName } from './support/queue-set-harness.ts';
import { queueSetScenarioArbitrary, runQueueSetScenario, type ScenarioShape } from './support/queue-set-scenario.ts';
import { checkProperty, expectPropertyToFail } from './support/runner.ts';

const RUNS = 150;

/** One property per invariant: each enforces its own checks, on the full random workload. */
function invariantProperty(name: string, enforce: readonly CheckName[], shape: ScenarioShape = {}) {
  checkProperty(
    `queue-set: ${name}`,
    fc.property(queueSetScenarioArbitrary(shape), (scenario) => {
      runQueueSetScenario(scenario, { enforce });
    }),
    { runs: RUNS },
  );
}

test('work-conserving: no seat idles while the head the dispatch rule picks would fit', () => {
  invariantProperty('work-conserving', ['work-conserving']);
});

test('a queue passes queueLengthLimit only through an arrival that found free seats; rejections on arrival follow the rules', () => {
  invariantProperty('queue length and arrival decisions', ['queue-length', 'arrival-decision']);
});

test('with one-seat requests and a fixed configuration, no queue ever holds more than queueLengthLimit', () => {
  checkProperty(
    'queue-set: queue length limit, one-seat requests',
    fc.property(queueSetScenarioArbitrary({ fixedConfig: true, oneSeat: true }), (scenario) => {
      const harness = runQueueSetScenario(scenario, { enforce: ['queue-length', 'arrival-decision'] });
      assert.ok(harness.longestQueue <= scenario.config.queueLengthLimit, `a queue reached ${harness.longestQueue} > ${scenario.config.queueLengthLimit}`);
    }),
    { runs: RUNS },
  );
});

test('exempt requests never wait and are never rejected', () => {
  checkProperty(
    'queue-set: exempt never waits',
    fc.property(queueSetScenarioArbitrary({ exempt: true }), (scenario) => {
      const harness = runQueueSetScenario(scenario, { enforce: ['exempt-never-waits', 'ends-once', 'seat-accounting'] });
      assert.is(harness.totals.executed, scenario.arrivals.length);
    }),
    { runs: 60 },
  );
});

test('FIFO within a queue: requests leave a queue in arrival order (time-outs aside)', () => {
  invariantProperty('FIFO within a queue', ['fifo']);
});

test('every request ends exactly once: executed and finished, rejected, or timed out', () => {
  invariantProperty('ends exactly once', ['ends-once']);
});

test('seats in use never pass the limit at dispatch, except one over-wide request running alone', () => {
  invariantProperty('seat limit', ['seat-limit', 'seat-accounting']);
});

test('a waiting request leaves by its wait limit: dispatched before it, or timed out exactly at it', () => {
  invariantProperty('wait limit', ['wait-limit']);
});

test('an arrival joins the least-loaded queue of its hand, starting from the rotating offset', () => {
  invariantProperty('queue choice', ['queue-choice']);
});

// --- controls: broken queue sets the same properties must reject ---------------------------------
// Each mutant breaks one rule; the property enforcing that rule must fail on it, and fail on that
// check, which shows the check has the power to see the fault.

/** Enforces one seat more than it is told. */
class OverCommittingQueueSet extends QueueSet<number> {
  override setConfig(config: QueuingConfig, concurrencyLimit: number): void {
    super.setConfig(config, concurrencyLimit + 1);
  }
  override setConcurrencyLimit(concurrencyLimit: number): void {
    super.setConcurrencyLimit(concurrencyLimit + 1);
  }
}

/** Lets every queue hold one request more than configured. */
class OverfullQueueSet extends QueueSet<number> {
  override setConfig(config: QueuingConfig, concurrencyLimit: number): void {
    super.setConfig({ ...config, queueLengthLimit: config.queueLengthLimit + 1 }, concurrencyLimit);
  }
}

/** Takes a raised limit without dispatching the waiting requests. */
class LazyQueueSet extends QueueSet<number> {
  override setConcurrencyLimit(concurrencyLimit: number): void {
    // Reach past the type to set the field alone, skipping the dispatch the real method runs.
    (this as unknown as { concurrencyLimit: number }).concurrencyLimit = concurrencyLimit;
  }
}

/** Forgets the rotation: every arrival visits its hand from the first card. */
class RotationlessQueueSet extends QueueSet<number> {
  override startRequest(request: QueueSetRequest<number>, decide: Decide<number>): Admission {
    (this as unknown as { enqueues: number }).enqueues = 0;
    return super.startRequest(request, decide);
  }
}

/** Lets requests wait twice as long as they asked. */
class LateTimeOutQueueSet extends QueueSet<number> {
  override startRequest(request: QueueSetRequest<number>, decide: Decide<number>): Admission {
    return super.startRequest({ ...request, waitLimitMs: request.waitLimitMs * 2 + 1 }, decide);
  }
}

/** Ignores a client's cancel while the request waits. */
class DeafQueueSet extends QueueSet<number> {
  override startRequest(request: QueueSetRequest<number>, decide: Decide<number>): Admission {
    const admission = super.startRequest(request, decide);
    return { finish: () => admission.finish(), cancel: () => {} };
  }
}

type Mutant = new (clock: Clock, config: QueuingConfig, observer: QueueSetObserver<number>) => QueueSet<number>;

const CONTROLS: { mutant: Mutant; what: string; check: CheckName; shape: ScenarioShape }[] = [
  { mutant: OverCommittingQueueSet, what: 'over-commits seats', check: 'seat-limit', shape: { fixedConfig: true, noFinalSeats: true } },
  { mutant: OverfullQueueSet, what: 'lets queues overfill', check: 'queue-length', shape: { fixedConfig: true, oneSeat: true } },
  { mutant: LazyQueueSet, what: 'does not dispatch when its limit rises', check: 'work-conserving', shape: {} },
  { mutant: RotationlessQueueSet, what: 'forgets the hand rotation', check: 'queue-choice', shape: { fixedConfig: true } },
  { mutant: LateTimeOutQueueSet, what: 'times requests out late', check: 'wait-limit', shape: { fixedConfig: true } },
  { mutant: DeafQueueSet, what: 'ignores cancellation', check: 'ends-once', shape: { fixedConfig: true } },
];

function failedCheck<Ts>(details: fc.RunDetails<Ts>): CheckName | undefined {
  return details.errorInstance instanceof QueueSetViolation ? details.errorInstance.check : undefined;
}

for (const control of CONTROLS) {
  test(`control: a queue set that ${control.what} fails the ${control.check} property`, () => {
    const factory = (clock: Clock, config: QueuingConfig, observer: QueueSetObserver<number>) => new control.mutant(clock, config, observer);
    const details = expectPropertyToFail(
      `control: ${control.mutant.name}`,
      fc.property(queueSetScenarioArbitrary(control.shape), (scenario) => {
        runQueueSetScenario(scenario, { factory, enforce: [control.check] });
      }),
      { runs: RUNS },
    );
    assert.is(failedCheck(details), control.check, String(details.errorInstance));
  });
}

test.run();
