// The fair-queuing core of one priority level (Kubernetes' queueset, section 6 of the APF fact
// sheet): shuffle-sharded queues, a virtual-time progress meter R, dispatch by smallest virtual
// finish time, seats held across execution (and for a request's additional latency after it),
// queue-full / concurrency-limit / time-out rejections and attrition of surplus queues.
//
// Protocol (the implementation asserts it):
// - `startRequest(request, decide)` never blocks. `decide` is called exactly once: synchronously
//   when the request executes or is rejected on arrival, later when it is dispatched from its
//   queue or its wait limit ends.
// - After `decide({kind: 'execute'})` the caller calls `finish()` exactly once when the work is
//   done; before a decision, `cancel()` withdraws the request (it is counted as `time-out`, as
//   Kubernetes counts cancellations).
// - Configuration changes in two phases: `checkQueuingConfig` may fail, `setConfig` cannot.
//
// Time comes only from the injected clock; nothing here is random, so a virtual clock replays a
// run exactly. One deliberate difference from Kubernetes: when a waiting request leaves its queue
// on time-out, dispatch runs at once (Kubernetes waits for the next event), which keeps the level
// work-conserving when the leaver was a wide head blocking the level.
//
// This file is longer than most because the queue set is one invariant-heavy unit; splitting
// the dispatch rule from the accounting it maintains would scatter the invariants.

import type { Cancel, Clock } from '../clock.ts';
import { BoundedCache } from '../bounded-cache.ts';
import { RequestFifo, type RemoveFromFifo } from './request-fifo.ts';
import { createDealer, deal, type Dealer } from './shuffle-sharding.ts';
import { ESTIMATED_SERVICE_DURATION_MS, seatsTimesDurationMsUnits, totalWorkUnits } from './seat-seconds.ts';
import type { WorkEstimate } from './work-estimate.ts';

export type RejectReason = 'queue-full' | 'concurrency-limit' | 'time-out';
export type Decision = { readonly kind: 'execute' } | { readonly kind: 'reject'; readonly reason: RejectReason };

// Decisions carry no per-request data, so every request shares these.
const EXECUTE: Decision = Object.freeze({ kind: 'execute' });
const REJECT: Readonly<Record<RejectReason, Decision>> = Object.freeze({
  'queue-full': Object.freeze({ kind: 'reject', reason: 'queue-full' }),
  'concurrency-limit': Object.freeze({ kind: 'reject', reason: 'concurrency-limit' }),
  'time-out': Object.freeze({ kind: 'reject', reason: 'time-out' }),
});

export interface QueuingConfig {
  /** > 0: queue; 0: no queues, reject what does not fit; < 0: exempt (never wait, never reject). */
  desiredNumQueues: number;
  queueLengthLimit: number;
  handSize: number;
}

export interface QueueSetRequest<D = unknown> {
  /** hashFlowId(flowSchema, distinguisher); ignored when the level does not queue. */
  flowHash: bigint;
  workEstimate: WorkEstimate;
  /** How long the request may wait in its queue before it is rejected with `time-out`. */
  waitLimitMs: number;
  /** Opaque to the queue set; handed back in dumps and observer calls. */
  descriptor: D;
}

/** Receives the request too, so that one function can serve every request (no closure each). */
export type Decide<D> = (decision: Decision, request: QueueSetRequest<D>) => void;

export interface Admission {
  /** The work is done: release the seats (now, or after the additional latency). */
  finish(): void;
  /** The client went away before a decision: leave the queue. */
  cancel(): void;
}

/** Hooks for metrics, seat-demand integration and the simulator; all optional, all synchronous. */
export interface QueueSetObserver<D = unknown> {
  seatDemandChanged?(seatDemand: number): void;
  queued?(descriptor: D, queueLengthAfter: number): void;
  dispatched?(descriptor: D, waitMs: number): void;
  rejected?(descriptor: D, reason: RejectReason, waitMs: number): void;
  finished?(descriptor: D, executionMs: number): void;
  noAccommodation?(descriptor: D): void;
  /** A queue came into being (the level grew); ids are stable, indexes shift on attrition. */
  queueAdded?(queueId: number): void;
  /** A surplus queue emptied and was removed. */
  queueRemoved?(queueId: number): void;
}

type RequestState = 'waiting' | 'executing' | 'finished' | 'rejected';

/** What an Entry calls back into; one per QueueSet, so a request allocates no closures. */
interface EntryOwner<D> {
  finish(entry: Entry<D>): void;
  cancel(entry: Entry<D>): void;
}

/** A request inside the queue set; it is also the caller's Admission handle. */
class Entry<D> implements Admission {
  /** max(initial, final) at arrival; what the waiting sums counted. */
  readonly maxSeats: number;
  readonly totalWork: number;
  readonly initialSeats: number;
  /** May be clipped to the concurrency limit at dispatch (work preserved via the latency). */
  finalSeats: number;
  additionalLatencyMs: number;
  /** Seats held while executing: max(initialSeats, finalSeats) after clipping. */
  seatsHeld: number;
  state: RequestState = 'waiting';
  queue: Queue<D> | undefined = undefined;
  startMs = 0;
  removeFromFifo: RemoveFromFifo | undefined = undefined;
  cancelWaitLimit: Cancel | undefined = undefined;
  /** Links of the queue set's list of waiting and executing requests (for dumps). */
  isLive = false;
  livePrev: Entry<D> | undefined = undefined;
  liveNext: Entry<D> | undefined = undefined;

  constructor(
    private readonly owner: EntryOwner<D>,
    readonly request: QueueSetRequest<D>,
    readonly decide: Decide<D>,
    readonly arrivalMs: number,
    public arrivalR: number,
  ) {
    const estimate = request.workEstimate;
    this.initialSeats = estimate.initialSeats;
    this.finalSeats = estimate.finalSeats;
    this.additionalLatencyMs = estimate.additionalLatencyMs;
    this.maxSeats = Math.max(estimate.initialSeats, estimate.finalSeats);
    this.seatsHeld = this.maxSeats;
    this.totalWork = totalWorkUnits(estimate);
  }

  finish(): void {
    this.owner.finish(this);
  }

  cancel(): void {
    this.owner.cancel(this);
  }
}

interface Queue<D> {
  readonly id: number;
  index: number;
  readonly waiting: RequestFifo<Entry<D>>;
  executing: number;
  seatsInUse: number;
  /** Virtual time in seat-second units, a whole number in a double (see rollEpoch). */
  nextDispatchR: number;
}

export interface QueueDump {
  id: number;
  index: number;
  pendingRequests: number;
  executingRequests: number;
  seatsInUse: number;
  nextDispatchR: bigint;
  initialSeatsSum: number;
  maxSeatsSum: number;
  totalWorkSum: bigint;
}

export interface RequestDump<D> {
  descriptor: D;
  /** -1 for queueless (exempt, reject-type) requests. */
  queueIndex: number;
  /** Position in its queue; -1 once executing. */
  indexInQueue: number;
  arrivalMs: number;
  startMs: number | undefined;
  workEstimate: WorkEstimate;
}

export interface QueueSetDump<D> {
  concurrencyLimit: number;
  currentR: bigint;
  waitingRequests: number;
  executingRequests: number;
  seatsInUse: number;
  seatsWaiting: number;
  dispatched: number;
  rejected: number;
  timedOut: number;
  cancelled: number;
  isIdle: boolean;
  queues: QueueDump[];
  requests: RequestDump<D>[];
}

/** Validates a queuing config the way `BeginConfigChange` does; returns an error or undefined. */
export function checkQueuingConfig(config: QueuingConfig): string | undefined {
  if (config.desiredNumQueues <= 0) return undefined;
  const dealer = createDealer(config.desiredNumQueues, config.handSize);
  return 'error' in dealer ? dealer.error : undefined;
}

export class QueueSet<D = unknown> {
  private config: QueuingConfig;
  private dealer: Dealer | undefined;
  /** Hands per flow hash for the current dealer; dealing is BigInt arithmetic, flows repeat. */
  private hands = new BoundedCache<bigint, number[]>(4_096);
  private concurrencyLimit = 0;
  private readonly queues: Queue<D>[] = [];
  private currentR = 0;
  private lastSyncMs: number;
  private robinIndex = -1;
  private enqueues = 0;
  private nextQueueId = 0;
  private totRequestsWaiting = 0;
  private totRequestsExecuting = 0;
  private totSeatsInUse = 0;
  private totSeatsWaiting = 0;
  private totDispatched = 0;
  private totRejected = 0;
  private totTimedOut = 0;
  private totCancelled = 0;
  /**
   * Waiting and executing requests in arrival order, for dumps: a list threaded through the
   * entries, because a Set's add and delete were a measurable share of each request's cost.
   */
  private liveHead: Entry<D> | undefined;
  private liveTail: Entry<D> | undefined;
  /** Queues with at least one waiting request: dispatch looks only at these. */
  private readonly waitingQueues = new Set<Queue<D>>();
  /** Queues with a waiting or executing request (the divisor of R's progress). */
  private activeQueues = 0;
  /** Σ over queues of seats in use; with totSeatsWaiting, the seats the queues request. */
  private seatsInQueues = 0;
  private readonly dealHand = (flowHash: bigint): number[] => deal(this.dealer!, flowHash);
  private readonly entryOwner: EntryOwner<D> = {
    finish: (entry) => this.finish(entry),
    cancel: (entry) => this.cancelWaiting(entry),
  };

  constructor(
    private readonly clock: Clock,
    config: QueuingConfig,
    private readonly observer: QueueSetObserver<D> = {},
    concurrencyLimit = 0,
  ) {
    this.lastSyncMs = clock.now();
    this.config = config;
    this.setConfig(config, concurrencyLimit);
  }

  /** Applies a config accepted by checkQueuingConfig and a new concurrency limit; cannot fail. */
  setConfig(config: QueuingConfig, concurrencyLimit: number): void {
    this.syncTime();
    const error = checkQueuingConfig(config);
    if (error !== undefined) throw new Error(`QueueSet.setConfig: unchecked config: ${error}`);
    if (config.desiredNumQueues > 0) {
      // Growing takes effect now; shrinking happens by attrition as surplus queues empty.
      while (this.queues.length < config.desiredNumQueues) {
        const queue = newQueue<D>(this.nextQueueId++, this.queues.length);
        this.queues.push(queue);
        this.observer.queueAdded?.(queue.id);
      }
      this.dealer = createDealer(config.desiredNumQueues, config.handSize) as Dealer;
      this.hands = new BoundedCache<bigint, number[]>(4_096);
      this.config = config;
    } else {
      // A level that stops queuing keeps its old limits so that its queues drain as before.
      this.config = { ...config, queueLengthLimit: this.config.queueLengthLimit, handSize: this.config.handSize };
      this.dealer = undefined;
    }
    this.concurrencyLimit = concurrencyLimit;
    this.dispatchAsMuchAsPossible();
  }

  /** The second phase alone: a new CurrentCL. Lowering it never preempts running work. */
  setConcurrencyLimit(concurrencyLimit: number): void {
    this.syncTime();
    this.concurrencyLimit = concurrencyLimit;
    this.dispatchAsMuchAsPossible();
  }

  get isIdle(): boolean {
    return this.totRequestsWaiting === 0 && this.totRequestsExecuting === 0;
  }

  get queueCount(): number {
    return this.queues.length;
  }

  /** Ids of the current queues, in index order. */
  queueIds(): number[] {
    return this.queues.map((q) => q.id);
  }

  /** Seats executing plus seats waiting: the level's instantaneous demand (borrowing input). */
  get seatDemand(): number {
    return this.totSeatsInUse + this.totSeatsWaiting;
  }

  startRequest(request: QueueSetRequest<D>, decide: Decide<D>): Admission {
    this.syncTime();
    if (!(request.workEstimate.initialSeats >= 1)) throw new Error('QueueSet.startRequest: a request needs at least one initial seat');
    const entry = new Entry<D>(this.entryOwner, request, decide, this.clock.now(), this.currentR);
    const admission: Admission = entry;
    const maxSeats = entry.maxSeats;
    if (this.config.desiredNumQueues < 1) {
      if (this.canAccommodate(maxSeats)) this.execute(entry);
      else this.reject(entry, 'concurrency-limit');
      return admission;
    }
    const queue = this.queues[this.chooseQueueIndex(request.flowHash)]!;
    entry.queue = queue;
    if (this.totSeatsInUse >= this.concurrencyLimit && queue.waiting.length >= this.config.queueLengthLimit) {
      this.reject(entry, 'queue-full');
      return admission;
    }
    if (this.totRequestsWaiting === 0 && this.totSeatsInUse < this.concurrencyLimit && this.canAccommodate(maxSeats)) {
      this.enqueueAndDispatch(entry, queue);
      return admission;
    }
    this.enqueue(entry, queue);
    this.dispatchAsMuchAsPossible();
    // Most requests are dispatched at once; only those still waiting need a wait-limit timer.
    if (entry.state === 'waiting') entry.cancelWaitLimit = this.clock.after(request.waitLimitMs, () => this.timeOut(entry, false));
    return admission;
  }

  dump(): QueueSetDump<D> {
    this.syncTime();
    const requests: RequestDump<D>[] = [];
    const positions = new Map<Entry<D>, number>();
    for (const queue of this.waitingQueues) {
      let position = 0;
      for (const waiting of queue.waiting) positions.set(waiting, position++);
    }
    for (let entry = this.liveHead; entry !== undefined; entry = entry.liveNext) {
      const queueIndex = entry.queue?.index ?? -1;
      const indexInQueue = entry.state === 'waiting' ? (positions.get(entry) ?? -1) : -1;
      requests.push({
        descriptor: entry.request.descriptor,
        queueIndex,
        indexInQueue,
        arrivalMs: entry.arrivalMs,
        startMs: entry.state === 'executing' ? entry.startMs : undefined,
        workEstimate: { initialSeats: entry.initialSeats, finalSeats: entry.finalSeats, additionalLatencyMs: entry.additionalLatencyMs },
      });
    }
    return {
      concurrencyLimit: this.concurrencyLimit,
      currentR: BigInt(this.currentR),
      waitingRequests: this.totRequestsWaiting,
      executingRequests: this.totRequestsExecuting,
      seatsInUse: this.totSeatsInUse,
      seatsWaiting: this.totSeatsWaiting,
      dispatched: this.totDispatched,
      rejected: this.totRejected,
      timedOut: this.totTimedOut,
      cancelled: this.totCancelled,
      isIdle: this.isIdle,
      queues: this.queues.map((q) => ({
        id: q.id,
        index: q.index,
        pendingRequests: q.waiting.length,
        executingRequests: q.executing,
        seatsInUse: q.seatsInUse,
        nextDispatchR: BigInt(q.nextDispatchR),
        initialSeatsSum: q.waiting.initialSeatsSum,
        maxSeatsSum: q.waiting.maxSeatsSum,
        totalWorkSum: BigInt(q.waiting.totalWorkSum),
      })),
      requests,
    };
  }

  // --- virtual time -------------------------------------------------------------------------

  /** Advances R by the equal share each non-empty queue received since the last event. */
  private syncTime(): void {
    const nowMs = this.clock.now();
    const elapsedMs = nowMs - this.lastSyncMs;
    this.lastSyncMs = nowMs;
    if (elapsedMs <= 0 || this.activeQueues === 0) return;
    const seatsRequested = this.seatsInQueues + this.totSeatsWaiting;
    const ratio = Math.min(seatsRequested, this.concurrencyLimit) / this.activeQueues;
    this.currentR += seatsTimesDurationMsUnits(ratio, elapsedMs);
    if (this.currentR >= EPOCH_HIGH_R) this.rollEpoch();
  }

  /**
   * Kubernetes subtracts half the uint64 range from every R once R passes three quarters of it;
   * the same move here, well before 2^53, keeps every R a whole number a double holds exactly.
   * Only differences of R matter, so dispatch order is unchanged.
   */
  private rollEpoch(): void {
    this.currentR -= EPOCH_DECREMENT_R;
    for (const queue of this.queues) {
      if (queue.waiting.length === 0 && queue.executing === 0) {
        queue.nextDispatchR = 0;
        continue;
      }
      queue.nextDispatchR -= EPOCH_DECREMENT_R;
      for (const entry of queue.waiting) entry.arrivalR -= EPOCH_DECREMENT_R;
    }
  }

  /** Keeps activeQueues and waitingQueues right; call after any change to a queue's counts. */
  private noteQueueActivity(queue: Queue<D>, wasActive: boolean): void {
    const active = queue.waiting.length > 0 || queue.executing > 0;
    if (active !== wasActive) this.activeQueues += active ? 1 : -1;
    if (queue.waiting.length > 0) this.waitingQueues.add(queue);
    else this.waitingQueues.delete(queue);
  }

  // --- arrival ------------------------------------------------------------------------------

  private chooseQueueIndex(flowHash: bigint): number {
    const hand = this.hands.get(flowHash, this.dealHand);
    const offset = this.enqueues % hand.length;
    this.enqueues++;
    let best = -1;
    let bestWork = -1;
    for (let i = 0; i < hand.length; i++) {
      const index = hand[(offset + i) % hand.length]!;
      const work = this.queues[index]!.waiting.totalWorkSum;
      if (best === -1 || work < bestWork) {
        best = index;
        bestWork = work;
      }
    }
    return best;
  }

  private enqueue(entry: Entry<D>, queue: Queue<D>): void {
    const wasActive = queue.waiting.length > 0 || queue.executing > 0;
    if (!wasActive) queue.nextDispatchR = this.currentR;
    entry.removeFromFifo = queue.waiting.enqueue(entry);
    this.noteQueueActivity(queue, wasActive);
    this.addLive(entry);
    this.totRequestsWaiting++;
    this.totSeatsWaiting += entry.maxSeats;
    this.boundNextDispatch(queue);
    this.observer.queued?.(entry.request.descriptor, queue.waiting.length);
    this.observer.seatDemandChanged?.(this.seatDemand);
  }

  /**
   * enqueue() then dispatchAsMuchAsPossible() for the common case where nothing waits anywhere and
   * the request fits: the request is the only candidate, so it is dispatched at once. Same counts,
   * virtual times, round-robin position and observer calls in the same order, without the FIFO
   * node and the waiting-queue set churn (most requests of a healthy server take this path).
   */
  private enqueueAndDispatch(entry: Entry<D>, queue: Queue<D>): void {
    const wasActive = queue.executing > 0;
    if (!wasActive) {
      queue.nextDispatchR = this.currentR;
      this.activeQueues++;
    }
    if (queue.nextDispatchR < entry.arrivalR) queue.nextDispatchR = entry.arrivalR;
    this.addLive(entry);
    this.totRequestsWaiting++;
    this.totSeatsWaiting += entry.maxSeats;
    this.observer.queued?.(entry.request.descriptor, 1);
    this.observer.seatDemandChanged?.(this.seatDemand);
    this.totRequestsWaiting--;
    this.totSeatsWaiting -= entry.maxSeats;
    this.clipFinalSeats(entry);
    this.robinIndex = queue.index;
    this.execute(entry);
    queue.nextDispatchR += entry.totalWork;
  }

  // --- dispatch -----------------------------------------------------------------------------

  private canAccommodate(seats: number): boolean {
    if (this.config.desiredNumQueues < 0) return true;
    // A request wider than the whole limit may still run, alone, so that it is not starved.
    if (seats > this.concurrencyLimit) return this.totRequestsExecuting === 0;
    return this.totSeatsInUse + seats <= this.concurrencyLimit;
  }

  private dispatchAsMuchAsPossible(): void {
    while (this.totRequestsWaiting > 0 && this.totSeatsInUse < this.concurrencyLimit && this.dispatchOne()) {
      // each iteration dispatched one request
    }
  }

  private dispatchOne(): boolean {
    // Kubernetes scans every queue round-robin from robinIndex + 1 and keeps the first smallest
    // virtual finish R; scanning only the waiting queues and breaking ties by round-robin
    // distance picks the same queue without touching the idle ones.
    const n = this.queues.length;
    let chosen: Queue<D> | undefined;
    let minFinishR = 0;
    let minDistance = 0;
    for (const queue of this.waitingQueues) {
      const finishR = queue.nextDispatchR + queue.waiting.peek()!.totalWork;
      const distance = (queue.index - this.robinIndex - 1 + 2 * n) % n;
      if (chosen === undefined || finishR < minFinishR || (finishR === minFinishR && distance < minDistance)) {
        chosen = queue;
        minFinishR = finishR;
        minDistance = distance;
      }
    }
    if (chosen === undefined) return false;
    const head = chosen.waiting.peek()!;
    // A wide head that does not fit blocks its whole level rather than letting narrow requests
    // overtake it forever.
    if (!this.canAccommodate(head.maxSeats)) {
      this.observer.noAccommodation?.(head.request.descriptor);
      return false;
    }
    const wasActive = true;
    chosen.waiting.dequeue();
    head.removeFromFifo = undefined;
    head.cancelWaitLimit?.();
    head.cancelWaitLimit = undefined;
    this.totRequestsWaiting--;
    this.totSeatsWaiting -= head.maxSeats;
    this.clipFinalSeats(head);
    this.robinIndex = chosen.index;
    this.execute(head);
    this.noteQueueActivity(chosen, wasActive);
    chosen.nextDispatchR += head.totalWork;
    this.boundNextDispatch(chosen);
    return true;
  }

  /** Clips the final seats to the limit and stretches the latency so the work stays the same. */
  private clipFinalSeats(entry: Entry<D>): void {
    if (entry.finalSeats > this.concurrencyLimit && this.concurrencyLimit > 0) {
      const finalWorkSeatMs = entry.finalSeats * entry.additionalLatencyMs;
      entry.finalSeats = this.concurrencyLimit;
      entry.additionalLatencyMs = finalWorkSeatMs / entry.finalSeats;
    }
  }

  private execute(entry: Entry<D>): void {
    entry.state = 'executing';
    entry.startMs = this.clock.now();
    entry.seatsHeld = Math.max(entry.initialSeats, entry.finalSeats);
    this.addLive(entry);
    this.totDispatched++;
    this.totRequestsExecuting++;
    this.totSeatsInUse += entry.seatsHeld;
    if (entry.queue !== undefined) {
      entry.queue.executing++;
      entry.queue.seatsInUse += entry.seatsHeld;
      this.seatsInQueues += entry.seatsHeld;
    }
    this.observer.dispatched?.(entry.request.descriptor, entry.startMs - entry.arrivalMs);
    this.observer.seatDemandChanged?.(this.seatDemand);
    entry.decide(EXECUTE, entry.request);
  }

  // --- leaving --------------------------------------------------------------------------------

  private reject(entry: Entry<D>, reason: RejectReason): void {
    entry.state = 'rejected';
    this.totRejected++;
    this.observer.rejected?.(entry.request.descriptor, reason, this.clock.now() - entry.arrivalMs);
    entry.decide(REJECT[reason], entry.request);
  }

  private cancelWaiting(entry: Entry<D>): void {
    if (entry.state !== 'waiting') return;
    this.syncTime();
    this.timeOut(entry, true);
  }

  private timeOut(entry: Entry<D>, cancelled: boolean): void {
    if (entry.state !== 'waiting' || entry.removeFromFifo === undefined) return;
    this.syncTime();
    entry.cancelWaitLimit?.();
    entry.cancelWaitLimit = undefined;
    entry.removeFromFifo();
    entry.removeFromFifo = undefined;
    this.noteQueueActivity(entry.queue!, true);
    this.removeLive(entry);
    this.totRequestsWaiting--;
    this.totSeatsWaiting -= entry.maxSeats;
    if (cancelled) this.totCancelled++;
    else this.totTimedOut++;
    const queue = entry.queue!;
    this.boundNextDispatch(queue);
    this.reject(entry, 'time-out');
    this.observer.seatDemandChanged?.(this.seatDemand);
    this.removeQueueIfSurplus(queue);
    this.dispatchAsMuchAsPossible();
  }

  private finish(entry: Entry<D>): void {
    if (entry.state !== 'executing') throw new Error(`QueueSet: finish() on a request that is ${entry.state}`);
    this.syncTime();
    entry.state = 'finished';
    this.removeLive(entry);
    const nowMs = this.clock.now();
    this.totRequestsExecuting--;
    this.observer.finished?.(entry.request.descriptor, nowMs - entry.startMs);
    const queue = entry.queue;
    if (queue !== undefined) {
      // The guess G is replaced by the real service time S: R_start -= (G - S) * initialSeats.
      const serviceMs = nowMs - entry.startMs;
      queue.nextDispatchR -= seatsTimesDurationMsUnits(entry.initialSeats, ESTIMATED_SERVICE_DURATION_MS - serviceMs);
      queue.executing--;
      this.noteQueueActivity(queue, true);
      this.boundNextDispatch(queue);
    }
    if (entry.additionalLatencyMs <= 0) {
      this.releaseSeats(entry);
    } else {
      // The caller is not delayed; the seats stay taken for the extra latency (watch fan-out).
      this.clock.after(entry.additionalLatencyMs, () => {
        this.syncTime();
        this.releaseSeats(entry);
      });
      // Even with the seats still held, the finish may let a waiting request go: with nothing
      // executing an over-wide head may run alone, and the queue's dispatch R was corrected.
      this.dispatchAsMuchAsPossible();
    }
  }

  private releaseSeats(entry: Entry<D>): void {
    this.totSeatsInUse -= entry.seatsHeld;
    if (entry.queue !== undefined) {
      entry.queue.seatsInUse -= entry.seatsHeld;
      this.seatsInQueues -= entry.seatsHeld;
      this.removeQueueIfSurplus(entry.queue);
    }
    this.observer.seatDemandChanged?.(this.seatDemand);
    this.dispatchAsMuchAsPossible();
  }

  /** Attrition: when there are more queues than desired, an emptied queue goes away. */
  private removeQueueIfSurplus(queue: Queue<D>): void {
    if (this.queues.length <= Math.max(0, this.config.desiredNumQueues)) return;
    if (queue.waiting.length > 0 || queue.executing > 0 || queue.seatsInUse > 0 || this.queues[queue.index] !== queue) return;
    this.queues.splice(queue.index, 1);
    for (let i = queue.index; i < this.queues.length; i++) this.queues[i]!.index = i;
    if (this.robinIndex >= queue.index) this.robinIndex--;
    this.observer.queueRemoved?.(queue.id);
  }

  private addLive(entry: Entry<D>): void {
    if (entry.isLive) return;
    entry.isLive = true;
    entry.livePrev = this.liveTail;
    if (this.liveTail === undefined) this.liveHead = entry;
    else this.liveTail.liveNext = entry;
    this.liveTail = entry;
  }

  private removeLive(entry: Entry<D>): void {
    if (!entry.isLive) return;
    entry.isLive = false;
    if (entry.livePrev === undefined) this.liveHead = entry.liveNext;
    else entry.livePrev.liveNext = entry.liveNext;
    if (entry.liveNext === undefined) this.liveTail = entry.livePrev;
    else entry.liveNext.livePrev = entry.livePrev;
    // No links from a departed entry: see RequestFifo.unlink.
    entry.livePrev = undefined;
    entry.liveNext = undefined;
  }

  /** Anti-windup: a queue's dispatch R never lags behind its head's arrival R. */
  private boundNextDispatch(queue: Queue<D>): void {
    const head = queue.waiting.peek();
    if (head !== undefined && queue.nextDispatchR < head.arrivalR) queue.nextDispatchR = head.arrivalR;
  }
}

function newQueue<D>(id: number, index: number): Queue<D> {
  return { id, index, waiting: new RequestFifo<Entry<D>>(), executing: 0, seatsInUse: 0, nextDispatchR: 0 };
}

/** R passes this (2^52 units, about 4.5e7 seat·s) → every R moves down by EPOCH_DECREMENT_R. */
export const EPOCH_HIGH_R = 2 ** 52;
export const EPOCH_DECREMENT_R = 2 ** 51;
