// An instrumented driver for one QueueSet on a virtual clock. It watches the queue set only from
// outside — the decide callbacks, the observer hooks, dump(), and the timers the queue set asks
// its clock for — keeps its own shadow accounting of seats, and checks after every event that
// what it saw is allowed by the reference (apf-semantics 5.5 and 6). A violation throws a
// QueueSetViolation naming the check, the time, the request and the last few events.
//
// What the harness predicts on its own: which queue an arrival joins (reference deal + rotation +
// least waiting work), whether it is rejected on arrival, how many seats a dispatched request
// holds and for how long. It takes from the queue set only what the reference leaves to the
// implementation's internal state: each queue's nextDispatchR (to know which head is next).
//
// Each property enforces a subset of the checks (the others are only counted), so that one broken
// invariant fails one property and the rest keep being checked.
//
// Longer than the house limit on purpose: every check reads the same shadow accounting, and the
// accounting is only right if each hook updates it in the same place the checks read it.

import type { Cancel, Clock } from '../../engine/clock.ts';
import {
  QueueSet,
  type Admission,
  type Decision,
  type QueueSetDump,
  type QueueSetObserver,
  type QueuingConfig,
  type RejectReason,
} from '../../engine/flowcontrol/queue-set.ts';
import type { WorkEstimate } from '../../engine/flowcontrol/work-estimate.ts';
import type { SimClock } from '../../engine/sim-clock.ts';
import { referenceChooseQueue, referenceDeal } from './reference-deal.ts';
import { referenceTotalWork } from './reference-work.ts';

export type CheckName =
  | 'ends-once'
  | 'exempt-never-waits'
  | 'fifo'
  | 'queue-choice'
  | 'queue-length'
  | 'arrival-decision'
  | 'seat-limit'
  | 'seat-accounting'
  | 'wait-limit'
  | 'work-conserving';

export const ALL_CHECKS: readonly CheckName[] = [
  'ends-once',
  'exempt-never-waits',
  'fifo',
  'queue-choice',
  'queue-length',
  'arrival-decision',
  'seat-limit',
  'seat-accounting',
  'wait-limit',
  'work-conserving',
];

export class QueueSetViolation extends Error {
  constructor(
    readonly check: CheckName,
    message: string,
  ) {
    super(`[${check}] ${message}`);
    this.name = 'QueueSetViolation';
  }
}

export interface ScenarioRequest {
  flowHash: bigint;
  workEstimate: WorkEstimate;
  waitLimitMs: number;
  serviceMs: number;
  /** The client withdraws this long after arriving (does nothing once the request is decided). */
  cancelAfterMs: number | undefined;
}

/** Builds the queue set under test; controls substitute deliberately faulty subclasses. */
export type QueueSetFactory = (clock: Clock, config: QueuingConfig, observer: QueueSetObserver<number>) => QueueSet<number>;

export const realQueueSet: QueueSetFactory = (clock, config, observer) => new QueueSet<number>(clock, config, observer);

type Expectation = 'execute-now' | 'queue' | 'reject-queue-full' | 'reject-concurrency-limit';

interface Tracked {
  readonly id: number;
  readonly request: ScenarioRequest;
  readonly arrivalMs: number;
  readonly decisions: Decision[];
  admission: Admission | undefined;
  expectation: Expectation | undefined;
  expectedQueueIndex: number | undefined;
  queueId: number | undefined;
  cancelledAtMs: number | undefined;
  finishCalls: number;
}

/** A clock wrapper that lets the harness tag the one timer the queue set starts inside finish(). */
class InstrumentedClock implements Clock {
  interceptNext: ((delayMs: number, callback: () => void) => () => void) | undefined;
  constructor(private readonly inner: SimClock) {}
  now(): number {
    return this.inner.now();
  }
  after(delayMs: number, callback: () => void): Cancel {
    const intercept = this.interceptNext;
    this.interceptNext = undefined;
    return this.inner.after(delayMs, intercept === undefined ? callback : intercept(delayMs, callback));
  }
}

export interface HarnessTotals {
  arrivals: number;
  executed: number;
  rejected: Record<RejectReason, number>;
  cancelled: number;
}

export class QueueSetHarness {
  readonly qs: QueueSet<number>;
  private readonly clock: InstrumentedClock;
  /** The queuing config in force, as the reference defines it (a Reject level keeps old limits). */
  private config: QueuingConfig;
  private concurrencyLimit: number;
  private enqueues = 0;
  private shadowSeatsInUse = 0;
  private shadowExecuting = 0;
  private readonly waitingByQueueId = new Map<number, number[]>();
  private readonly tracked: Tracked[] = [];
  private arriving: Tracked | undefined;
  private readonly log: string[] = [];
  private readonly hookCounts = { queued: 0, dispatched: 0, rejected: 0, finished: 0 };
  /** The longest any queue has been, counting the arrival that made it so. */
  longestQueue = 0;
  /** Violations of checks this run does not enforce, by check. */
  readonly unenforced = new Map<CheckName, number>();
  readonly totals: HarnessTotals = {
    arrivals: 0,
    executed: 0,
    rejected: { 'queue-full': 0, 'concurrency-limit': 0, 'time-out': 0 },
    cancelled: 0,
  };

  constructor(
    private readonly simClock: SimClock,
    config: QueuingConfig,
    concurrencyLimit: number,
    factory: QueueSetFactory = realQueueSet,
    private readonly enforced: ReadonlySet<CheckName> = new Set(ALL_CHECKS),
  ) {
    this.clock = new InstrumentedClock(simClock);
    this.config = config;
    this.concurrencyLimit = concurrencyLimit;
    this.qs = factory(this.clock, config, this.observer());
    this.qs.setConfig(config, concurrencyLimit);
    this.note(`start config=${fmtConfig(config)} limit=${concurrencyLimit}`);
  }

  arrive(request: ScenarioRequest): void {
    const before = this.qs.dump();
    const entry: Tracked = {
      id: this.tracked.length,
      request,
      arrivalMs: this.simClock.now(),
      decisions: [],
      admission: undefined,
      expectation: undefined,
      expectedQueueIndex: undefined,
      queueId: undefined,
      cancelledAtMs: undefined,
      finishCalls: 0,
    };
    this.tracked.push(entry);
    this.totals.arrivals++;
    entry.expectation = this.predictArrival(entry, before);
    this.note(`arrive #${entry.id} flow=${request.flowHash} est=${fmtEstimate(request.workEstimate)} expect=${entry.expectation}`);
    this.arriving = entry;
    entry.admission = this.qs.startRequest(
      { flowHash: request.flowHash, workEstimate: request.workEstimate, waitLimitMs: request.waitLimitMs, descriptor: entry.id },
      (decision) => this.onDecision(entry, decision),
    );
    this.arriving = undefined;
    this.checkArrivalOutcome(entry);
    if (request.cancelAfterMs !== undefined) this.simClock.after(request.cancelAfterMs, () => this.cancel(entry));
  }

  changeConfig(config: QueuingConfig, concurrencyLimit: number): void {
    this.note(`config ${fmtConfig(config)} limit=${concurrencyLimit}`);
    this.config = config.desiredNumQueues > 0 ? config : { ...config, queueLengthLimit: this.config.queueLengthLimit, handSize: this.config.handSize };
    this.concurrencyLimit = concurrencyLimit;
    this.qs.setConfig(config, concurrencyLimit);
  }

  changeConcurrencyLimit(concurrencyLimit: number): void {
    this.note(`limit ${concurrencyLimit}`);
    this.concurrencyLimit = concurrencyLimit;
    this.qs.setConcurrencyLimit(concurrencyLimit);
  }

  /** Checks that hold whenever no event is being processed. */
  checkQuiescent(): void {
    const dump = this.qs.dump();
    this.expect(
      'seat-accounting',
      dump.seatsInUse === this.shadowSeatsInUse,
      `dump says ${dump.seatsInUse} seats in use, the harness counted ${this.shadowSeatsInUse}`,
    );
    this.expect(
      'seat-accounting',
      dump.executingRequests === this.shadowExecuting,
      `dump says ${dump.executingRequests} executing, the harness counted ${this.shadowExecuting}`,
    );
    let waiting = 0;
    for (const ids of this.waitingByQueueId.values()) waiting += ids.length;
    this.expect('seat-accounting', dump.waitingRequests === waiting, `dump says ${dump.waitingRequests} waiting, the harness counted ${waiting}`);
    for (const queue of dump.queues) {
      const expected = this.waitingByQueueId.get(queue.id) ?? [];
      const actual = dump.requests
        .filter((r) => r.queueIndex === queue.index && r.indexInQueue >= 0)
        .sort((a, b) => a.indexInQueue - b.indexInQueue)
        .map((r) => r.descriptor);
      this.expect('fifo', sameList(expected, actual), `queue ${queue.id} holds [${actual.join(',')}] but arrivals were [${expected.join(',')}]`);
    }
    this.checkWorkConserving(dump);
  }

  /** After the clock has run dry: everything ended exactly once and every counter agrees. */
  checkFinal(): void {
    const dump = this.qs.dump();
    for (const entry of this.tracked) {
      this.expect('ends-once', entry.decisions.length === 1, `request #${entry.id} got ${entry.decisions.length} decisions`);
      const executed = entry.decisions[0]?.kind === 'execute';
      this.expect('ends-once', entry.finishCalls === (executed ? 1 : 0), `request #${entry.id} finished ${entry.finishCalls} times`);
    }
    this.expect(
      'ends-once',
      dump.isIdle && dump.seatsInUse === 0 && this.shadowSeatsInUse === 0,
      `not idle at the end: ${dump.seatsInUse} seats, ${dump.waitingRequests} waiting, ${dump.executingRequests} executing`,
    );
    const { executed, rejected, cancelled } = this.totals;
    const rejectedAll = rejected['queue-full'] + rejected['concurrency-limit'] + rejected['time-out'];
    this.expect(
      'ends-once',
      executed + rejectedAll === this.tracked.length,
      `${executed} executed + ${rejectedAll} rejected != ${this.tracked.length} arrivals`,
    );
    this.expect('ends-once', dump.dispatched === executed, `dump.dispatched=${dump.dispatched}, executed=${executed}`);
    this.expect('ends-once', dump.rejected === rejectedAll, `dump.rejected=${dump.rejected}, rejected=${rejectedAll}`);
    this.expect(
      'ends-once',
      dump.cancelled === cancelled && dump.timedOut === rejected['time-out'] - cancelled,
      `dump timedOut/cancelled ${dump.timedOut}/${dump.cancelled}, harness ${rejected['time-out'] - cancelled}/${cancelled}`,
    );
    const hooks = this.hookCounts;
    this.expect(
      'ends-once',
      hooks.dispatched === executed && hooks.finished === executed && hooks.rejected === rejectedAll,
      `observer saw ${JSON.stringify(hooks)}`,
    );
  }

  // --- predictions ------------------------------------------------------------------------------

  private predictArrival(entry: Tracked, before: QueueSetDump<number>): Expectation {
    const { desiredNumQueues, handSize, queueLengthLimit } = this.config;
    if (desiredNumQueues < 0) return 'execute-now';
    const seats = maxSeats(entry.request.workEstimate);
    if (desiredNumQueues === 0) return this.fits(seats) ? 'execute-now' : 'reject-concurrency-limit';
    const hand = referenceDeal(desiredNumQueues, handSize, entry.request.flowHash);
    const chosen = referenceChooseQueue(hand, this.enqueues % hand.length, (q) => before.queues[q]!.totalWorkSum);
    this.enqueues++;
    entry.expectedQueueIndex = chosen;
    const full = this.shadowSeatsInUse >= this.concurrencyLimit && before.queues[chosen]!.pendingRequests >= queueLengthLimit;
    return full ? 'reject-queue-full' : 'queue';
  }

  /** canAccommodate (apf-semantics 6.3), from the harness's own counts. */
  private fits(seats: number): boolean {
    if (this.config.desiredNumQueues < 0) return true;
    if (seats > this.concurrencyLimit) return this.shadowExecuting === 0;
    return this.shadowSeatsInUse + seats <= this.concurrencyLimit;
  }

  private checkArrivalOutcome(entry: Tracked): void {
    const kinds = entry.decisions.map(kindOf);
    switch (entry.expectation) {
      case 'execute-now':
        this.expect(
          this.config.desiredNumQueues < 0 ? 'exempt-never-waits' : 'arrival-decision',
          sameList(kinds, ['execute']),
          `#${entry.id} should execute on arrival, got [${kinds.join(',')}]`,
        );
        break;
      case 'reject-queue-full':
        this.expect('arrival-decision', sameList(kinds, ['reject:queue-full']), `#${entry.id} should be rejected queue-full, got [${kinds.join(',')}]`);
        break;
      case 'reject-concurrency-limit':
        this.expect(
          'arrival-decision',
          sameList(kinds, ['reject:concurrency-limit']),
          `#${entry.id} should be rejected concurrency-limit, got [${kinds.join(',')}]`,
        );
        break;
      case 'queue':
        this.expect('arrival-decision', entry.queueId !== undefined, `#${entry.id} should have been queued, got [${kinds.join(',')}]`);
        break;
      case undefined:
        break;
    }
  }

  // --- what the queue set does ------------------------------------------------------------------

  private observer(): QueueSetObserver<number> {
    return {
      queued: (id, queueLengthAfter) => this.onQueued(id, queueLengthAfter),
      dispatched: () => void this.hookCounts.dispatched++,
      rejected: () => void this.hookCounts.rejected++,
      finished: () => void this.hookCounts.finished++,
      queueRemoved: (queueId) => {
        const ids = this.waitingByQueueId.get(queueId) ?? [];
        this.expect('fifo', ids.length === 0, `queue ${queueId} was removed with requests [${ids.join(',')}] still waiting`);
        this.waitingByQueueId.delete(queueId);
      },
    };
  }

  private onQueued(id: number, queueLengthAfter: number): void {
    this.hookCounts.queued++;
    const entry = this.tracked[id]!;
    this.expect('queue-choice', this.arriving === entry, `#${id} was queued outside its own arrival`);
    const dump = this.qs.dump();
    const where = dump.requests.find((r) => r.descriptor === id);
    const queue = where === undefined ? undefined : dump.queues[where.queueIndex];
    if (where === undefined || queue === undefined) {
      this.expect('queue-choice', false, `#${id} is queued but not in the dump`);
      return;
    }
    this.expect(
      'queue-choice',
      where.queueIndex === entry.expectedQueueIndex,
      `#${id} joined queue index ${where.queueIndex}, the reference chooses ${entry.expectedQueueIndex}`,
    );
    const ids = this.waitingByQueueId.get(queue.id) ?? [];
    ids.push(id);
    this.waitingByQueueId.set(queue.id, ids);
    entry.queueId = queue.id;
    this.longestQueue = Math.max(this.longestQueue, queueLengthAfter);
    this.expect('queue-length', queueLengthAfter === ids.length, `queued hook says length ${queueLengthAfter}, harness counts ${ids.length}`);
    // A queue may pass its limit only through an arrival that found free seats (apf-semantics 6.3 step 3).
    this.expect(
      'queue-length',
      queueLengthAfter <= this.config.queueLengthLimit || this.shadowSeatsInUse < this.concurrencyLimit,
      `queue ${queue.id} grew to ${queueLengthAfter} > limit ${this.config.queueLengthLimit} while all ${this.concurrencyLimit} seats were taken`,
    );
  }

  private onDecision(entry: Tracked, decision: Decision): void {
    const nowMs = this.simClock.now();
    entry.decisions.push(decision);
    this.note(`decide #${entry.id} ${kindOf(decision)}`);
    this.expect('ends-once', entry.decisions.length === 1, `#${entry.id} was decided twice`);
    if (decision.kind === 'reject') {
      this.totals.rejected[decision.reason]++;
      if (decision.reason === 'time-out') this.onTimeOut(entry, nowMs);
      else this.expect('arrival-decision', this.arriving === entry, `#${entry.id} rejected ${decision.reason} after its arrival`);
      return;
    }
    this.totals.executed++;
    const estimate = entry.request.workEstimate;
    const seats = maxSeats(estimate);
    if (entry.queueId !== undefined) {
      const ids = this.waitingByQueueId.get(entry.queueId) ?? [];
      this.expect('fifo', ids[0] === entry.id, `#${entry.id} dispatched from queue ${entry.queueId} ahead of [${ids.join(',')}]`);
      ids.shift();
      const waitedMs = nowMs - entry.arrivalMs;
      this.expect(
        'wait-limit',
        waitedMs <= entry.request.waitLimitMs,
        `#${entry.id} dispatched after waiting ${waitedMs} ms > limit ${entry.request.waitLimitMs}`,
      );
    }
    if (this.config.desiredNumQueues >= 0) {
      const lone = seats > this.concurrencyLimit && this.shadowExecuting === 0;
      this.expect(
        'seat-limit',
        lone || this.shadowSeatsInUse + seats <= this.concurrencyLimit,
        `#${entry.id} (${seats} seats) dispatched with ${this.shadowSeatsInUse}/${this.concurrencyLimit} seats in use and ${this.shadowExecuting} executing`,
      );
    }
    // Final seats beyond the limit are clipped at queued dispatch, the latency stretched to keep the work.
    let finalSeats = estimate.finalSeats;
    let lingerMs = estimate.additionalLatencyMs;
    if (entry.queueId !== undefined && finalSeats > this.concurrencyLimit && this.concurrencyLimit > 0) {
      lingerMs = (finalSeats * lingerMs) / this.concurrencyLimit;
      finalSeats = this.concurrencyLimit;
    }
    const held = Math.max(estimate.initialSeats, finalSeats);
    this.shadowSeatsInUse += held;
    this.shadowExecuting++;
    this.simClock.after(entry.request.serviceMs, () => this.finish(entry, held, lingerMs));
  }

  private onTimeOut(entry: Tracked, nowMs: number): void {
    const ids = entry.queueId === undefined ? undefined : this.waitingByQueueId.get(entry.queueId);
    const at = ids?.indexOf(entry.id) ?? -1;
    this.expect('wait-limit', ids !== undefined && at >= 0, `#${entry.id} timed out but was not waiting`);
    if (at >= 0) ids!.splice(at, 1);
    if (entry.cancelledAtMs !== undefined) {
      this.totals.cancelled++;
      this.expect('wait-limit', entry.cancelledAtMs === nowMs, `#${entry.id} cancelled at ${entry.cancelledAtMs} but left at ${nowMs}`);
    } else {
      const waitedMs = nowMs - entry.arrivalMs;
      this.expect(
        'wait-limit',
        Math.abs(waitedMs - entry.request.waitLimitMs) < 1e-6,
        `#${entry.id} timed out after ${waitedMs} ms, limit ${entry.request.waitLimitMs}`,
      );
    }
  }

  private finish(entry: Tracked, held: number, lingerMs: number): void {
    this.note(`finish #${entry.id} linger=${lingerMs}`);
    entry.finishCalls++;
    this.shadowExecuting--;
    if (lingerMs > 0) {
      let scheduled = false;
      this.clock.interceptNext = (delayMs, release) => {
        scheduled = true;
        this.expect('seat-accounting', Math.abs(delayMs - lingerMs) < 1e-9, `#${entry.id} lingers ${delayMs} ms, expected ${lingerMs}`);
        return () => {
          this.note(`release #${entry.id}`);
          this.shadowSeatsInUse -= held;
          release();
        };
      };
      entry.admission!.finish();
      this.clock.interceptNext = undefined;
      this.expect('seat-accounting', scheduled, `#${entry.id} has ${lingerMs} ms of additional latency but its seats were not held`);
    } else {
      this.shadowSeatsInUse -= held;
      entry.admission!.finish();
    }
  }

  private cancel(entry: Tracked): void {
    if (entry.decisions.length > 0) {
      entry.admission!.cancel(); // after a decision this must do nothing
      return;
    }
    this.note(`cancel #${entry.id}`);
    entry.cancelledAtMs = this.simClock.now();
    entry.admission!.cancel();
    const kinds = entry.decisions.map(kindOf);
    this.expect('ends-once', sameList(kinds, ['reject:time-out']), `#${entry.id} cancelled while waiting, got [${kinds.join(',')}]`);
  }

  /**
   * Work conservation: when seats are free and requests wait, the head the dispatch rule picks
   * (least virtual finish R = nextDispatchR + head work) must be one that does not fit. Ties are
   * broken by an internal round-robin index, so only a tie in which every head fits is a violation.
   */
  private checkWorkConserving(dump: QueueSetDump<number>): void {
    if (this.config.desiredNumQueues < 0 || dump.waitingRequests === 0 || dump.seatsInUse >= dump.concurrencyLimit) return;
    let best: bigint | undefined;
    let bestFit: boolean[] = [];
    for (const queue of dump.queues) {
      const head = dump.requests.find((r) => r.queueIndex === queue.index && r.indexInQueue === 0);
      if (head === undefined) continue;
      const { initialSeats, finalSeats, additionalLatencyMs } = head.workEstimate;
      const finishR = queue.nextDispatchR + referenceTotalWork(initialSeats, finalSeats, additionalLatencyMs);
      const fit = this.fits(Math.max(initialSeats, finalSeats));
      if (best === undefined || finishR < best) {
        best = finishR;
        bestFit = [fit];
      } else if (finishR === best) {
        bestFit.push(fit);
      }
    }
    this.expect(
      'work-conserving',
      !bestFit.every(Boolean),
      `${dump.seatsInUse}/${dump.concurrencyLimit} seats in use while the next head by virtual finish time fits (${dump.waitingRequests} waiting, ` +
        `${dump.executingRequests} executing)`,
    );
  }

  // --- reporting ----------------------------------------------------------------------------

  private expect(check: CheckName, ok: boolean, message: string): void {
    if (ok) return;
    if (this.enforced.has(check)) throw new QueueSetViolation(check, this.context(message));
    this.unenforced.set(check, (this.unenforced.get(check) ?? 0) + 1);
  }

  private context(message: string): string {
    return `t=${this.simClock.now()}ms: ${message}\n    recent events:\n      ${this.log.slice(-12).join('\n      ')}`;
  }

  private note(line: string): void {
    this.log.push(`${this.simClock.now()}ms ${line}`);
    if (this.log.length > 64) this.log.splice(0, this.log.length - 64);
  }
}

function maxSeats(estimate: WorkEstimate): number {
  return Math.max(estimate.initialSeats, estimate.finalSeats);
}

function kindOf(decision: Decision): string {
  return decision.kind === 'execute' ? 'execute' : `reject:${decision.reason}`;
}

function sameList<T>(a: readonly T[], b: readonly T[]): boolean {
  return a.length === b.length && a.every((x, i) => x === b[i]);
}

function fmtConfig(config: QueuingConfig): string {
  return `{queues:${config.desiredNumQueues},length:${config.queueLengthLimit},hand:${config.handSize}}`;
}

function fmtEstimate(e: WorkEstimate): string {
  return `${e.initialSeats}/${e.finalSeats}/${e.additionalLatencyMs}ms`;
}
