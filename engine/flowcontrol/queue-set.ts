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
// A `decide` callback runs inside whatever call led to the decision, often another request's
// `finish()` or a timer. If it throws, the queue set completes its bookkeeping regardless, and
// the error goes to the callback's owner, never to that unrelated caller: rethrown from
// `startRequest` when the request being started is the one whose callback threw, otherwise
// reported to `observer.decideFailed` (or, without one, rethrown on its own clock task). A
// request whose execute decision threw is finished on its own, as Kubernetes finishes a request
// whose handler panics; a later `finish()` from its owner does nothing.
//
// This file is longer than most because the queue set is one invariant-heavy unit; splitting
// the dispatch rule from the accounting it maintains would scatter the invariants.

import type { Clock } from '../clock.ts';
import { BoundedCache } from '../bounded-cache.ts';
import { Deadlines, type Deadline } from '../deadlines.ts';
import { LinkedList, type ListMember } from '../linked-list.ts';
import { FifoNode, RequestFifo } from './request-fifo.ts';
import { createDealer, deal, type Dealer } from '../shuffle-sharding.ts';
import { ESTIMATED_SERVICE_DURATION_MS, seatsTimesDurationMsUnits, totalWorkUnits } from './seat-seconds.ts';
import type { WorkEstimate } from './work-estimate.ts';

/** Units (1e-8 seat·s) in a seat-second. */
const UNITS_PER_SEAT_SECOND = 1e8;
/** G times one seat, in units: the estimated work in progress per seat in use (next_discounted_s_bounds). */
const ESTIMATED_SERVICE_WORK_PER_SEAT = seatsTimesDurationMsUnits(1, ESTIMATED_SERVICE_DURATION_MS);

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

/** An object standing for a flow hash, on which queue sets keep the flow's hand (see QueueSetRequest.flowKey). */
export interface FlowKey {
  /** The hand `handDealer` dealt this flow; written by queue sets only. */
  hand?: number[] | undefined;
  handDealer?: Dealer | undefined;
}

export interface QueueSetRequest<D = unknown> {
  /** hashFlowId(flowSchema, distinguisher); ignored when the level does not queue. */
  flowHash: bigint;
  /**
   * Optional: an object that stands for `flowHash` (requests carrying the same object have the same
   * hash). The queue set then keeps the flow's hand on it, found by one property read instead of a
   * lookup by BigInt. The controller passes the classification, which the classifier reuses for
   * every request of a flow it has seen.
   */
  flowKey?: FlowKey | undefined;
  /** Read, not copied, while the request is in the queue set: it must not change meanwhile. */
  workEstimate: WorkEstimate;
  /** How long the request may wait in its queue before it is rejected with `time-out`. */
  waitLimitMs: number;
  /**
   * When the request arrived, if the caller has just read the clock (so the queue set need not
   * read it again); otherwise the queue set reads it. A reading behind the queue set's last event
   * counts as that event's time.
   */
  arrivalMs?: number | undefined;
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

/**
 * Hooks for metrics, seat-demand integration and the simulator; all optional, all synchronous.
 * `nowMs` is the clock's reading for the event being processed (one reading per event, shared by
 * every hook it causes), so an observer that keeps time need not read the clock again.
 */
export interface QueueSetObserver<D = unknown> {
  seatDemandChanged?(seatDemand: number, nowMs: number): void;
  /**
   * `queueId` and `idleQueues` (the level's queues with nothing waiting, after this one joined)
   * only when the request stays queued: the simulator tells a hand collision from them (a flow
   * queued behind others while queues outside its hand were idle).
   */
  queued?: ((descriptor: D, queueLengthAfter: number, nowMs: number, queueId?: number, idleQueues?: number) => void) | undefined;
  /** `fromQueue`: it had been queued (and `queued` was called for it), as opposed to a queueless level's. */
  dispatched?: ((descriptor: D, waitMs: number, fromQueue: boolean, nowMs: number) => void) | undefined;
  rejected?(descriptor: D, reason: RejectReason, waitMs: number, nowMs: number): void;
  /** `releasing`: its seats are released in the same event (a `seatDemandChanged` follows), not held for its additional latency. */
  finished?(descriptor: D, executionMs: number, nowMs: number, releasing: boolean): void;
  noAccommodation?: ((descriptor: D) => void) | undefined;
  /** A queue came into being (the level grew); ids are stable, indexes shift on attrition. */
  queueAdded?(queueId: number): void;
  /** A surplus queue emptied and was removed. */
  queueRemoved?(queueId: number): void;
  /**
   * The progress meter R reached Kubernetes' epoch threshold (1.5·2^63 units) and was wound back
   * by 2^63−1, as upstream does; `success` is false if a reading would have gone negative.
   */
  epochAdvanced?: ((success: boolean) => void) | undefined;
  /** A `decide` callback threw while the queue set decided on its request (see the header). */
  decideFailed?: ((descriptor: D, error: unknown) => void) | undefined;
}

/** `abandoned`: finished by the queue set because its execute decision threw (see the header). */
type RequestState = 'waiting' | 'executing' | 'finished' | 'rejected' | 'abandoned';

/** What an entry calls back into; one per QueueSet, so a request allocates no closures. */
interface EntryOwner<D> {
  finish(entry: QueueSetEntry<D>): void;
  cancel(entry: QueueSetEntry<D>): void;
}

/**
 * A request inside the queue set; it is also the caller's Admission handle. A caller may make it
 * itself, as a subclass that is its own request (`startEntry`): the controller's admission record
 * is one, so a request costs the engine one object, not a record and an entry. What the work
 * estimate says is read from the estimate rather than copied (every field is 8 bytes per request).
 */
export abstract class QueueSetEntry<D> implements QueueSetRequest<D>, Admission, ListMember<QueueSetEntry<D>> {
  /** What `decide` is handed back: the entry itself, or the request `startRequest` was given. */
  abstract readonly request: QueueSetRequest<D>;
  abstract readonly descriptor: D;
  abstract readonly flowHash: bigint;
  abstract readonly flowKey: FlowKey | undefined;
  abstract readonly workEstimate: WorkEstimate;
  abstract readonly waitLimitMs: number;
  abstract readonly arrivalMs: number | undefined;

  // The queue set's books, set when it starts the entry.
  owner: EntryOwner<D> | undefined = undefined;
  decide: Decide<D> | undefined = undefined;
  /** The queue set's reading when it started the request: its arrival, or the last event's time if that is later. */
  enteredMs = FRACTION;
  arrivalR = FRACTION;
  totalWork = 0;
  /** May be clipped to the concurrency limit at dispatch (work preserved via the latency). */
  finalSeats = 0;
  additionalLatencyMs = FRACTION;
  state: RequestState = 'waiting';
  queue: Queue<D> | undefined = undefined;
  startMs = FRACTION;
  /** Set while it sits in its queue's FIFO. */
  wait: Wait<D> | undefined = undefined;
  /** Links of the queue set's list of waiting and executing requests (for dumps). */
  listed = false;
  listPrevious: QueueSetEntry<D> | undefined = undefined;
  listNext: QueueSetEntry<D> | undefined = undefined;

  constructor() {
    // Born holding fractions (see FRACTION), then their initial values.
    this.enteredMs = 0;
    this.arrivalR = 0;
    this.additionalLatencyMs = 0;
    this.startMs = 0;
  }

  get initialSeats(): number {
    return this.workEstimate.initialSeats;
  }

  /** max(initial, final) at arrival, before any clipping; what the waiting sums counted. */
  get maxSeats(): number {
    const estimate = this.workEstimate;
    return Math.max(estimate.initialSeats, estimate.finalSeats);
  }

  /**
   * Seats held while executing: max(initialSeats, finalSeats) after clipping. Before dispatch
   * nothing is clipped yet, so it equals maxSeats; clipping happens only at dispatch.
   */
  get seatsHeld(): number {
    return Math.max(this.workEstimate.initialSeats, this.finalSeats);
  }

  finish(): void {
    // Its execute decision threw: the queue set finished it, and the owner's finish() is moot.
    if (this.state === 'abandoned') return;
    this.owner!.finish(this);
  }

  /**
   * Makes the entry new again, for a caller that recycles its requests (the simulator makes no
   * object per request). Only once the queue set is done with it: rejected, or finished with its
   * seats released at once (one held for its additional latency is still the queue set's).
   */
  reuse(): void {
    if (!(this.state === 'rejected' || (this.state === 'finished' && this.additionalLatencyMs <= 0))) {
      throw new Error(`QueueSetEntry.reuse: the queue set still holds this request (${this.state})`);
    }
    this.owner = undefined;
    this.decide = undefined;
    this.state = 'waiting';
    this.queue = undefined;
    this.wait = undefined;
    this.listed = false;
    this.listPrevious = undefined;
    this.listNext = undefined;
  }

  cancel(): void {
    this.owner!.cancel(this);
  }
}

/** The entry for a request handed to `startRequest`: its fields are read from the request. */
class RequestEntry<D> extends QueueSetEntry<D> {
  constructor(readonly request: QueueSetRequest<D>) {
    super();
  }

  get descriptor(): D {
    return this.request.descriptor;
  }

  get flowHash(): bigint {
    return this.request.flowHash;
  }

  get flowKey(): FlowKey | undefined {
    return this.request.flowKey;
  }

  get workEstimate(): WorkEstimate {
    return this.request.workEstimate;
  }

  get waitLimitMs(): number {
    return this.request.waitLimitMs;
  }

  get arrivalMs(): number | undefined {
    return this.request.arrivalMs;
  }
}

/**
 * A request's stay in its queue's FIFO, made only for requests that enter one: most are dispatched
 * on arrival through the fast path, and every field on Entry would cost them 8 bytes. It is the
 * FIFO's node itself, so a waiting request costs one object here, not a node and a closure too.
 */
class Wait<D> extends FifoNode<QueueSetEntry<D>> implements Deadline {
  /** When its wait limit ends, set once it stays waiting; the level's wait-limit heap keeps the other two. */
  deadlineMs = 0;
  deadlineSlot = -1;
  deadlineSeq = 0;
}

interface Queue<D> {
  readonly id: number;
  index: number;
  readonly waiting: RequestFifo<QueueSetEntry<D>>;
  /** Whether it is in the queue set's waitingQueues (it is exactly while `waiting` is not empty). */
  inWaitingQueues: boolean;
  executing: number;
  seatsInUse: number;
  /** Virtual time in seat-second units relative to the queue set's origin (see rebaseR). */
  nextDispatchR: number;
  /** The reading an empty queue keeps across a rebase (absolute, as Kubernetes shows it); undefined while the queue is in use. */
  frozenR: bigint | undefined;
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

/**
 * Kubernetes' dispatch gauges (SetDispatchMetrics), in seat-seconds, as of the last dispatch from
 * a queue: R then, the S (dispatch R) of the request dispatched, and the bounds over the queues
 * with a waiting request of their S, and of their S less the estimated work in progress.
 */
export interface DispatchReadings {
  r: number;
  s: number;
  sMin: number;
  sMax: number;
  discountedSMin: number;
  discountedSMax: number;
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
  /** Finished requests whose seats are still held for their additional latency. */
  lingering: { descriptor: D; seats: number }[];
  /** Undefined until the first dispatch from a queue. */
  dispatch: DispatchReadings | undefined;
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
  /** R relative to `rOrigin`; the observable R is `rOrigin + currentR`. */
  private currentR = 0;
  private rOrigin = 0n;
  /** `rOrigin` in seat-seconds, for the dispatch readings. */
  private rOriginSeatSeconds = 0;
  /** What the last dispatch from a queue saw, in units (see noteDispatch). */
  private lastDispatch: { origin: number; r: number; s: number; sMin: number; sMax: number; dsMin: number; dsMax: number } | undefined;
  /** Finished requests still holding seats for their additional latency. */
  private readonly lingering = new Set<QueueSetEntry<D>>();
  /** `GO_HIGH_R − rOrigin` as a double: a cheap test for "check the upstream epoch exactly". */
  private goEpochAtR = Number(GO_HIGH_R);
  /**
   * The clock's reading for the event being processed: every entry point syncs first, and the
   * event's books (arrival, dispatch, finish, observer calls) use this one reading. Born a
   * fraction (see FRACTION): declared without a value, the field would first be defined undefined,
   * and V8 would keep every reading in a box of its own.
   */
  private lastSyncMs = FRACTION;
  /** The request `startRequest` is deciding on, whose callback's errors go back to that caller. */
  private starting: QueueSetEntry<D> | undefined;
  private startingError: { error: unknown } | undefined;
  private robinIndex = -1;
  /** The estimate of the last request started and its total work (see startRequest). */
  private readonly lastEstimate: WorkEstimate = { initialSeats: 0, finalSeats: 0, additionalLatencyMs: 0 };
  private lastTotalWork = 0;
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
  /** Waiting and executing requests in arrival order, for dumps. */
  private readonly live = new LinkedList<QueueSetEntry<D>>();
  /** Queues with at least one waiting request: dispatch looks only at these. */
  private readonly waitingQueues = new Set<Queue<D>>();
  /** Queues with a waiting or executing request (the divisor of R's progress). */
  private activeQueues = 0;
  /** Σ over queues of seats in use; with totSeatsWaiting, the seats the queues request. */
  private seatsInQueues = 0;
  private readonly dealHand = (flowHash: bigint): number[] => deal(this.dealer!, flowHash);
  /**
   * The wait limits of the waiting requests, on one timer for the whole level: a burst of
   * queued requests arms one timer, not one each, and a dispatch forgets its deadline in
   * O(log n) without a cancel handle per request.
   */
  private readonly waitLimits: Deadlines<Wait<D>>;
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
    // Fields that will hold fractions hold one first (see FRACTION), then their initial value.
    this.currentR = FRACTION;
    this.currentR = 0;
    this.rOriginSeatSeconds = FRACTION;
    this.rOriginSeatSeconds = 0;
    this.waitLimits = new Deadlines<Wait<D>>(clock, (wait) => this.timeOut(wait.item, false));
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

  /** The concurrency limit (CurrentCL) it enforces. */
  get limit(): number {
    return this.concurrencyLimit;
  }

  get isIdle(): boolean {
    return this.totRequestsWaiting === 0 && this.totRequestsExecuting === 0;
  }

  get queueCount(): number {
    return this.queues.length;
  }

  get seatsInUse(): number {
    return this.totSeatsInUse;
  }

  get seatsWaiting(): number {
    return this.totSeatsWaiting;
  }

  /** Requests executing; one that finished but still holds seats for its latency is not counted. */
  get requestsExecuting(): number {
    return this.totRequestsExecuting;
  }

  get requestsWaiting(): number {
    return this.totRequestsWaiting;
  }

  /** What the waiting requests are measured against: max(1, queueLengthLimit) × queues (queueset.go setConfiguration). */
  get waitingCapacity(): number {
    const perQueue = Math.max(1, this.config.queueLengthLimit);
    return this.config.desiredNumQueues > 0 ? perQueue * this.config.desiredNumQueues : perQueue;
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
    return this.startEntry(new RequestEntry<D>(request), decide);
  }

  /** `startRequest` for an entry the caller made, which is its own request (see QueueSetEntry). */
  startEntry(entry: QueueSetEntry<D>, decide: Decide<D>): Admission {
    if (entry.owner !== undefined) throw new Error('QueueSet.startEntry: an entry is started once');
    this.syncTimeAt(entry.arrivalMs ?? this.clock.now());
    const estimate = entry.workEstimate;
    if (!(estimate.initialSeats >= 1)) throw new Error('QueueSet.startRequest: a request needs at least one initial seat');
    // Most requests in a row have the same estimate (one seat, no latency): its work is worked out
    // once. Compared by value, since a caller may reuse one estimate object with new numbers.
    const last = this.lastEstimate;
    if (estimate.initialSeats !== last.initialSeats || estimate.finalSeats !== last.finalSeats || estimate.additionalLatencyMs !== last.additionalLatencyMs) {
      last.initialSeats = estimate.initialSeats;
      last.finalSeats = estimate.finalSeats;
      last.additionalLatencyMs = estimate.additionalLatencyMs;
      this.lastTotalWork = totalWorkUnits(estimate);
    }
    entry.owner = this.entryOwner;
    entry.decide = decide;
    entry.enteredMs = this.lastSyncMs;
    entry.arrivalR = this.currentR;
    entry.totalWork = this.lastTotalWork;
    entry.finalSeats = estimate.finalSeats;
    entry.additionalLatencyMs = estimate.additionalLatencyMs;
    this.starting = entry;
    try {
      this.admit(entry);
    } finally {
      this.starting = undefined;
    }
    const failed = this.startingError;
    if (failed !== undefined) {
      this.startingError = undefined;
      if (entry.state === 'executing') this.abandon(entry);
      throw failed.error;
    }
    return entry;
  }

  private admit(entry: QueueSetEntry<D>): void {
    const maxSeats = entry.maxSeats;
    if (this.config.desiredNumQueues < 1) {
      if (this.canAccommodate(maxSeats)) {
        this.startExecuting(entry);
        this.deliver(entry, EXECUTE);
      } else {
        this.reject(entry, 'concurrency-limit');
      }
      return;
    }
    const queue = this.queues[this.chooseQueueIndex(entry)]!;
    entry.queue = queue;
    if (this.totSeatsInUse >= this.concurrencyLimit && queue.waiting.length >= this.config.queueLengthLimit) {
      this.reject(entry, 'queue-full');
      return;
    }
    if (this.totRequestsWaiting === 0 && this.totSeatsInUse < this.concurrencyLimit && this.canAccommodate(maxSeats)) {
      this.enqueueAndDispatch(entry, queue);
      return;
    }
    this.enqueue(entry, queue);
    this.dispatchAsMuchAsPossible();
    // Most requests are dispatched at once; only those still waiting get a wait limit.
    const wait = entry.wait;
    if (entry.state === 'waiting' && wait !== undefined) {
      wait.deadlineMs = this.clock.now() + entry.waitLimitMs;
      this.waitLimits.add(wait);
    }
  }

  dump(): QueueSetDump<D> {
    this.syncTime();
    const requests: RequestDump<D>[] = [];
    const positions = new Map<QueueSetEntry<D>, number>();
    for (const queue of this.waitingQueues) {
      let position = 0;
      for (const waiting of queue.waiting) positions.set(waiting, position++);
    }
    for (let entry = this.live.head; entry !== undefined; entry = entry.listNext) {
      const queueIndex = entry.queue?.index ?? -1;
      const indexInQueue = entry.state === 'waiting' ? (positions.get(entry) ?? -1) : -1;
      requests.push({
        descriptor: entry.descriptor,
        queueIndex,
        indexInQueue,
        arrivalMs: entry.enteredMs,
        startMs: entry.state === 'executing' ? entry.startMs : undefined,
        workEstimate: { initialSeats: entry.initialSeats, finalSeats: entry.finalSeats, additionalLatencyMs: entry.additionalLatencyMs },
      });
    }
    return {
      concurrencyLimit: this.concurrencyLimit,
      currentR: this.rOrigin + BigInt(this.currentR),
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
        nextDispatchR: q.frozenR ?? this.rOrigin + BigInt(q.nextDispatchR),
        initialSeatsSum: q.waiting.initialSeatsSum,
        maxSeatsSum: q.waiting.maxSeatsSum,
        totalWorkSum: BigInt(q.waiting.totalWorkSum),
      })),
      requests,
      lingering: [...this.lingering].map((entry) => ({ descriptor: entry.descriptor, seats: entry.seatsHeld })),
      dispatch: this.dispatchReadings(),
    };
  }

  // --- virtual time -------------------------------------------------------------------------

  /** Advances R by the equal share each non-empty queue received since the last event. */
  private syncTime(): void {
    this.syncTimeAt(this.clock.now());
  }

  /** syncTime at a reading just taken; a reading behind the last event counts as no time. */
  private syncTimeAt(nowMs: number): void {
    const elapsedMs = nowMs - this.lastSyncMs;
    if (!(elapsedMs > 0)) return;
    this.lastSyncMs = nowMs;
    if (this.activeQueues === 0) return;
    const seatsRequested = this.seatsInQueues + this.totSeatsWaiting;
    const ratio = Math.min(seatsRequested, this.concurrencyLimit) / this.activeQueues;
    this.currentR += seatsTimesDurationMsUnits(ratio, elapsedMs);
    if (this.currentR >= INTERNAL_REBASE_R) this.rebaseR();
    if (this.currentR >= this.goEpochAtR) this.advanceEpoch();
  }

  /** Moves the origin up to R: readings in use keep their differences; idle queues keep their reading. */
  private rebaseR(): void {
    const shift = Math.floor(this.currentR);
    const oldOrigin = this.rOrigin;
    this.rOrigin += BigInt(shift);
    this.rOriginSeatSeconds = Number(this.rOrigin) / UNITS_PER_SEAT_SECOND;
    this.currentR -= shift;
    this.goEpochAtR = Number(GO_HIGH_R - this.rOrigin);
    for (const queue of this.queues) {
      if (queue.waiting.length === 0 && queue.executing === 0) {
        queue.frozenR ??= oldOrigin + BigInt(queue.nextDispatchR);
        queue.nextDispatchR = 0;
        continue;
      }
      queue.nextDispatchR -= shift;
      for (const entry of queue.waiting) entry.arrivalR -= shift;
    }
  }

  /**
   * Kubernetes' advanceEpoch, on the observable readings: R and every reading in use go back by
   * rDecrement (only the origin moves here), an empty queue's reading becomes 0. It fails where a
   * reading in use would have wrapped below zero, which upstream detects the same way.
   */
  private advanceEpoch(): void {
    if (this.rOrigin + BigInt(this.currentR) < GO_HIGH_R) return;
    this.rOrigin -= GO_R_DECREMENT;
    this.rOriginSeatSeconds = Number(this.rOrigin) / UNITS_PER_SEAT_SECOND;
    this.goEpochAtR = Number(GO_HIGH_R - this.rOrigin);
    let success = true;
    for (const queue of this.queues) {
      if (queue.waiting.length === 0 && queue.executing === 0) {
        queue.frozenR = 0n;
        continue;
      }
      if (this.rOrigin + BigInt(queue.nextDispatchR) < 0n) success = false;
      for (const entry of queue.waiting) if (this.rOrigin + BigInt(entry.arrivalR) < 0n) success = false;
    }
    this.observer.epochAdvanced?.(success);
  }

  /** Keeps activeQueues and waitingQueues right; call after any change to a queue's counts. */
  private noteQueueActivity(queue: Queue<D>, wasActive: boolean): void {
    const active = queue.waiting.length > 0 || queue.executing > 0;
    if (active !== wasActive) this.activeQueues += active ? 1 : -1;
    // The set changes only when the queue starts or stops having waiters: most calls (a finish,
    // a dispatch that leaves others waiting) touch it not at all.
    const waiting = queue.waiting.length > 0;
    if (waiting === queue.inWaitingQueues) return;
    queue.inWaitingQueues = waiting;
    if (waiting) this.waitingQueues.add(queue);
    else this.waitingQueues.delete(queue);
  }

  // --- arrival ------------------------------------------------------------------------------

  private chooseQueueIndex(entry: QueueSetEntry<D>): number {
    const key = entry.flowKey;
    let hand: number[];
    // A dealer is made per configuration, so a hand kept by an older one (or another level's) is not taken.
    if (key !== undefined && key.handDealer === this.dealer && key.hand !== undefined) hand = key.hand;
    else {
      hand = this.hands.get(entry.flowHash, this.dealHand);
      if (key !== undefined) {
        key.hand = hand;
        key.handDealer = this.dealer;
      }
    }
    const n = hand.length;
    const offset = this.enqueues % n;
    this.enqueues++;
    // Nothing waits anywhere: every queue's work is 0 (whole numbers, summed exactly), and the
    // scan would keep its first queue.
    if (this.totRequestsWaiting === 0) return hand[offset]!;
    let best = -1;
    let bestWork = -1;
    for (let i = 0, j = offset; i < n; i++, j = j + 1 === n ? 0 : j + 1) {
      const index = hand[j]!;
      const work = this.queues[index]!.waiting.totalWorkSum;
      if (best === -1 || work < bestWork) {
        best = index;
        bestWork = work;
      }
    }
    return best;
  }

  private enqueue(entry: QueueSetEntry<D>, queue: Queue<D>): void {
    const wasActive = queue.waiting.length > 0 || queue.executing > 0;
    if (!wasActive) {
      queue.nextDispatchR = this.currentR;
      queue.frozenR = undefined;
    }
    const wait = new Wait<D>(entry);
    queue.waiting.enqueue(wait);
    entry.wait = wait;
    this.noteQueueActivity(queue, wasActive);
    this.live.add(entry);
    this.totRequestsWaiting++;
    this.totSeatsWaiting += entry.maxSeats;
    this.boundNextDispatch(queue);
    this.observer.queued?.(entry.descriptor, queue.waiting.length, this.lastSyncMs, queue.id, this.queues.length - this.waitingQueues.size);
    this.observer.seatDemandChanged?.(this.seatDemand, this.lastSyncMs);
  }

  /**
   * enqueue() then dispatchAsMuchAsPossible() for the common case where nothing waits anywhere and
   * the request fits: the request is the only candidate, so it is dispatched at once. Same counts,
   * virtual times, round-robin position and observer calls in the same order, without the FIFO
   * node and the waiting-queue set churn (most requests of a healthy server take this path).
   */
  private enqueueAndDispatch(entry: QueueSetEntry<D>, queue: Queue<D>): void {
    const wasActive = queue.executing > 0;
    if (!wasActive) {
      queue.nextDispatchR = this.currentR;
      queue.frozenR = undefined;
      this.activeQueues++;
    }
    if (queue.nextDispatchR < entry.arrivalR) queue.nextDispatchR = entry.arrivalR;
    this.live.add(entry);
    this.totRequestsWaiting++;
    this.totSeatsWaiting += entry.maxSeats;
    this.observer.queued?.(entry.descriptor, 1, this.lastSyncMs);
    this.observer.seatDemandChanged?.(this.seatDemand, this.lastSyncMs);
    this.totRequestsWaiting--;
    this.totSeatsWaiting -= entry.maxSeats;
    this.clipFinalSeats(entry);
    this.robinIndex = queue.index;
    // The only candidate: every queue with a waiting request is this one.
    const s = queue.nextDispatchR;
    const discounted = s - queue.seatsInUse * ESTIMATED_SERVICE_WORK_PER_SEAT;
    this.noteDispatch(s, s, s, discounted, discounted);
    this.startExecuting(entry);
    queue.nextDispatchR += entry.totalWork;
    this.deliver(entry, EXECUTE);
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
    let chosen: Queue<D> | undefined;
    let minFinishR = 0;
    let sMin = Number.POSITIVE_INFINITY;
    let sMax = Number.NEGATIVE_INFINITY;
    let dsMin = Number.POSITIVE_INFINITY;
    let dsMax = Number.NEGATIVE_INFINITY;
    for (const queue of this.waitingQueues) {
      const s = queue.nextDispatchR;
      const ds = s - queue.seatsInUse * ESTIMATED_SERVICE_WORK_PER_SEAT;
      if (s < sMin) sMin = s;
      if (s > sMax) sMax = s;
      if (ds < dsMin) dsMin = ds;
      if (ds > dsMax) dsMax = ds;
      const finishR = s + queue.waiting.peek()!.totalWork;
      // Round-robin distance decides only between equal virtual finish Rs, so it is worked out only then.
      if (chosen === undefined || finishR < minFinishR || (finishR === minFinishR && this.robinDistance(queue) < this.robinDistance(chosen))) {
        chosen = queue;
        minFinishR = finishR;
      }
    }
    if (chosen === undefined) return false;
    const head = chosen.waiting.peek()!;
    // A wide head that does not fit blocks its whole level rather than letting narrow requests
    // overtake it forever.
    if (!this.canAccommodate(head.maxSeats)) {
      this.observer.noAccommodation?.(head.descriptor);
      return false;
    }
    const wasActive = true;
    chosen.waiting.dequeue();
    this.waitLimits.delete(head.wait!);
    head.wait = undefined;
    this.totRequestsWaiting--;
    this.totSeatsWaiting -= head.maxSeats;
    this.clipFinalSeats(head);
    this.robinIndex = chosen.index;
    this.noteDispatch(chosen.nextDispatchR, sMin, sMax, dsMin, dsMax);
    this.startExecuting(head);
    this.noteQueueActivity(chosen, wasActive);
    chosen.nextDispatchR += head.totalWork;
    this.boundNextDispatch(chosen);
    // Last, once the books are complete: the callback may call back into the queue set.
    this.deliver(head, EXECUTE);
    return true;
  }

  /** How far round-robin order from robinIndex + 1 puts the queue: Kubernetes' scan order. */
  private robinDistance(queue: Queue<D>): number {
    const n = this.queues.length;
    return (queue.index - this.robinIndex - 1 + 2 * n) % n;
  }

  private noteDispatch(s: number, sMin: number, sMax: number, dsMin: number, dsMax: number): void {
    // Kept in units and turned into seat-seconds when read (dump): a dispatch is per request, a dump is not.
    // Born holding fractions (see FRACTION); every field is set below.
    const last = (this.lastDispatch ??= { origin: FRACTION, r: FRACTION, s: FRACTION, sMin: FRACTION, sMax: FRACTION, dsMin: FRACTION, dsMax: FRACTION });
    last.origin = this.rOriginSeatSeconds;
    last.r = this.currentR;
    last.s = s;
    last.sMin = sMin;
    last.sMax = sMax;
    last.dsMin = dsMin;
    last.dsMax = dsMax;
  }

  /** The readings of the last dispatch from a queue, in seat-seconds. */
  private dispatchReadings(): DispatchReadings | undefined {
    const last = this.lastDispatch;
    if (last === undefined) return undefined;
    const { origin } = last;
    return {
      r: origin + last.r / UNITS_PER_SEAT_SECOND,
      s: origin + last.s / UNITS_PER_SEAT_SECOND,
      sMin: origin + last.sMin / UNITS_PER_SEAT_SECOND,
      sMax: origin + last.sMax / UNITS_PER_SEAT_SECOND,
      discountedSMin: origin + last.dsMin / UNITS_PER_SEAT_SECOND,
      discountedSMax: origin + last.dsMax / UNITS_PER_SEAT_SECOND,
    };
  }

  /** Clips the final seats to the limit and stretches the latency so the work stays the same. */
  private clipFinalSeats(entry: QueueSetEntry<D>): void {
    if (entry.finalSeats > this.concurrencyLimit && this.concurrencyLimit > 0) {
      const finalWorkSeatMs = entry.finalSeats * entry.additionalLatencyMs;
      entry.finalSeats = this.concurrencyLimit;
      entry.additionalLatencyMs = finalWorkSeatMs / entry.finalSeats;
    }
  }

  /** The books of a dispatch; the caller delivers the decision once its own books are done. */
  private startExecuting(entry: QueueSetEntry<D>): void {
    entry.state = 'executing';
    entry.startMs = this.lastSyncMs;
    this.live.add(entry);
    this.totDispatched++;
    this.totRequestsExecuting++;
    this.totSeatsInUse += entry.seatsHeld;
    if (entry.queue !== undefined) {
      entry.queue.executing++;
      entry.queue.seatsInUse += entry.seatsHeld;
      this.seatsInQueues += entry.seatsHeld;
    }
    this.observer.dispatched?.(entry.descriptor, entry.startMs - entry.enteredMs, entry.queue !== undefined, entry.startMs);
    this.observer.seatDemandChanged?.(this.seatDemand, this.lastSyncMs);
  }

  /** Calls the request's `decide`; what it throws is contained (see the header). */
  private deliver(entry: QueueSetEntry<D>, decision: Decision): void {
    try {
      entry.decide!(decision, entry.request);
    } catch (error) {
      if (entry === this.starting) {
        this.startingError = { error };
        return;
      }
      // Finished on a task of its own: the dispatch that called back here is still under way.
      this.clock.after(0, () => {
        if (entry.state === 'executing') {
          this.syncTime();
          this.abandon(entry);
        }
        const report = this.observer.decideFailed;
        if (report === undefined) throw error;
        report(entry.descriptor, error);
      });
    }
  }

  /** Finishes a request whose execute decision threw; its owner's finish() becomes a no-op. */
  private abandon(entry: QueueSetEntry<D>): void {
    this.finish(entry);
    entry.state = 'abandoned';
  }

  // --- leaving --------------------------------------------------------------------------------

  private reject(entry: QueueSetEntry<D>, reason: RejectReason): void {
    entry.state = 'rejected';
    this.totRejected++;
    this.observer.rejected?.(entry.descriptor, reason, this.lastSyncMs - entry.enteredMs, this.lastSyncMs);
    this.deliver(entry, REJECT[reason]);
  }

  private cancelWaiting(entry: QueueSetEntry<D>): void {
    if (entry.state !== 'waiting') return;
    this.syncTime();
    this.timeOut(entry, true);
  }

  private timeOut(entry: QueueSetEntry<D>, cancelled: boolean): void {
    const wait = entry.wait;
    if (entry.state !== 'waiting' || wait === undefined) return;
    this.syncTime();
    this.waitLimits.delete(wait);
    entry.queue!.waiting.remove(wait);
    entry.wait = undefined;
    this.noteQueueActivity(entry.queue!, true);
    this.live.delete(entry);
    this.totRequestsWaiting--;
    this.totSeatsWaiting -= entry.maxSeats;
    if (cancelled) this.totCancelled++;
    else this.totTimedOut++;
    const queue = entry.queue!;
    this.boundNextDispatch(queue);
    this.reject(entry, 'time-out');
    this.observer.seatDemandChanged?.(this.seatDemand, this.lastSyncMs);
    this.removeQueueIfSurplus(queue);
    this.dispatchAsMuchAsPossible();
  }

  private finish(entry: QueueSetEntry<D>): void {
    if (entry.state !== 'executing') throw new Error(`QueueSet: finish() on a request that is ${entry.state}`);
    this.syncTime();
    entry.state = 'finished';
    this.live.delete(entry);
    const nowMs = this.lastSyncMs;
    this.totRequestsExecuting--;
    this.observer.finished?.(entry.descriptor, nowMs - entry.startMs, nowMs, entry.additionalLatencyMs <= 0);
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
      this.lingering.add(entry);
      this.clock.after(entry.additionalLatencyMs, () => {
        this.syncTime();
        this.lingering.delete(entry);
        this.releaseSeats(entry);
      });
      // Even with the seats still held, the finish may let a waiting request go: with nothing
      // executing an over-wide head may run alone, and the queue's dispatch R was corrected.
      this.dispatchAsMuchAsPossible();
    }
  }

  private releaseSeats(entry: QueueSetEntry<D>): void {
    this.totSeatsInUse -= entry.seatsHeld;
    if (entry.queue !== undefined) {
      entry.queue.seatsInUse -= entry.seatsHeld;
      this.seatsInQueues -= entry.seatsHeld;
      this.removeQueueIfSurplus(entry.queue);
    }
    this.observer.seatDemandChanged?.(this.seatDemand, this.lastSyncMs);
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

  /** Anti-windup: a queue's dispatch R never lags behind its head's arrival R. */
  private boundNextDispatch(queue: Queue<D>): void {
    const head = queue.waiting.peek();
    if (head !== undefined && queue.nextDispatchR < head.arrivalR) queue.nextDispatchR = head.arrivalR;
  }
}

function newQueue<D>(id: number, index: number): Queue<D> {
  const queue = {
    id,
    index,
    waiting: new RequestFifo<QueueSetEntry<D>>(),
    inWaitingQueues: false,
    executing: 0,
    seatsInUse: 0,
    nextDispatchR: FRACTION,
    frozenR: undefined,
  };
  queue.nextDispatchR = 0;
  return queue;
}

/**
 * V8 keeps a number field that has only held small integers untagged; its first fraction gives
 * the object a new hidden class and retires the old one, and code already compiled against the old
 * one is thrown away when it next meets an object still carrying it. A level that first sees work
 * after the hot paths were compiled (an idle level woken later) would do that to every queue set
 * and queue; fields that will hold fractions hold one first, so every instance is born in its
 * final class. Stored in place of the initial 0 right away: nothing observable changes.
 */
const FRACTION = 0.5;

/**
 * Kubernetes' epoch (queueset.go): R is a uint64 of 1e-8 seat·s; once it reaches highR it and every
 * reading taken from it are wound back by rDecrement = MaxSeatSeconds/2. At a level's full
 * concurrency that takes years.
 */
export const GO_R_DECREMENT = (2n ** 64n - 1n) / 2n;
export const GO_HIGH_R = GO_R_DECREMENT + GO_R_DECREMENT / 2n;
/**
 * The queue set keeps R in doubles relative to a BigInt origin, so that it stays a whole number
 * without a BigInt per event: past this many units the origin moves up and every reading in use
 * moves down by the same amount, which changes no difference between readings (what dispatch
 * compares) and nothing anyone can observe.
 */
export const INTERNAL_REBASE_R = 2 ** 52;
