// What the simulator measures, per flow and per priority level: counters, wait and latency
// histograms, and time-weighted quantities (seats in use, requests waiting, CurrentCL, a flow's
// backlog) integrated between changes, then folded into fixed time buckets for the plots.
// Everything is driven by simulated time only, so the numbers are a pure function of the seed.

import type { RejectReason } from '../engine/flowcontrol/queue-set.ts';
import type { LevelLimits } from '../engine/flowcontrol/concurrency-limits.ts';
import { DurationHistogram } from './histogram.ts';

export const REJECT_REASONS: readonly RejectReason[] = ['queue-full', 'time-out', 'concurrency-limit'];

export type RejectCounts = Record<RejectReason, number>;

export const zeroRejects = (): RejectCounts => ({ 'queue-full': 0, 'time-out': 0, 'concurrency-limit': 0 });

/**
 * An empty array for a per-bucket series, born in V8's kind for doubles. An empty `[]` holds small
 * integers until its first fraction changes its kind, so every run's new arrays changed kind after
 * the bucket closing had been compiled for the previous run's, which threw that code away.
 */
function numberSeries(): number[] {
  const series = [0.5];
  series.length = 0;
  return series;
}

export class FlowMetrics {
  readonly levels = new Set<string>();
  flowSchema = '';
  level = '';
  arrived = 0;
  dispatched = 0;
  completed = 0;
  /** Seats of all dispatched requests (initial or final, whichever is larger), for the mean width. */
  seatsDispatched = 0;
  readonly rejected = zeroRejects();
  /** Completed requests whose latency went past their timeout (the client saw a 504). */
  deadlineExceeded = 0;
  readonly wait = new DurationHistogram();
  readonly latency = new DurationHistogram();
  /** Requests of this flow now waiting in a queue / executing, and the seats they hold. */
  waiting = 0;
  executing = 0;
  seats = 0;
  /** Time with at least one request waiting, and the seats held during that time (seat·ms). */
  backloggedMs = 0;
  seatMsWhileBacklogged = 0;
  /** Seats held over the whole run (seat·ms), and what the flow asked for: seats × service time of every request decided. */
  seatMs = 0;
  offeredSeatMs = 0;
  private lastMs = 0;
  // Per-bucket counters, flushed by `closeBucket`.
  private bucketArrived = 0;
  private bucketDispatched = 0;
  private bucketRejected = 0;
  private bucketWaitMaxMs = 0;
  /** Per bucket; `waitMaxMs`: the longest wait of the requests dispatched in it (0 when none waited). */
  readonly series = { arrived: numberSeries(), dispatched: numberSeries(), rejected: numberSeries(), waitMaxMs: numberSeries() };

  constructor(
    readonly name: string,
    readonly source: 'scenario' | 'audit-log',
  ) {}

  /** Integrates up to `nowMs`; call before changing `waiting` or `seats`. */
  touch(nowMs: number): void {
    const dt = nowMs - this.lastMs;
    if (dt > 0) {
      this.seatMs += this.seats * dt;
      if (this.waiting > 0) {
        this.backloggedMs += dt;
        this.seatMsWhileBacklogged += this.seats * dt;
      }
    }
    this.lastMs = nowMs;
  }

  noteArrived(): void {
    this.arrived++;
    this.bucketArrived++;
  }

  noteDispatched(waitMs: number, seats: number): void {
    this.dispatched++;
    this.seatsDispatched += seats;
    this.bucketDispatched++;
    if (waitMs > this.bucketWaitMaxMs) this.bucketWaitMaxMs = waitMs;
    this.wait.record(waitMs);
  }

  noteRejected(reason: RejectReason): void {
    this.rejected[reason]++;
    this.bucketRejected++;
  }

  closeBucket(): void {
    this.series.arrived.push(this.bucketArrived);
    this.series.dispatched.push(this.bucketDispatched);
    this.series.rejected.push(this.bucketRejected);
    this.series.waitMaxMs.push(this.bucketWaitMaxMs);
    this.bucketWaitMaxMs = 0;
    this.bucketArrived = 0;
    this.bucketDispatched = 0;
    this.bucketRejected = 0;
  }
}

export class LevelMetrics {
  limits: LevelLimits | undefined;
  exempt = false;
  maxSeats = 0;
  queues = 0;
  currentCL = 0;
  currentCLMin = Infinity;
  currentCLMax = -Infinity;
  dispatched = 0;
  readonly rejected = zeroRejects();
  /** Times a wide request at the head of a queue could not fit and blocked the level. */
  noAccommodation = 0;
  seatsInUse = 0;
  waiting = 0;
  seatsInUseMax = 0;
  waitingMax = 0;
  longestQueue = 0;
  // Whole-run integrals (value·ms).
  private seatsIntegral = 0;
  private waitingIntegral = 0;
  private currentCLIntegral = 0;
  private lastMs = 0;
  // Per-bucket state.
  private bucketStartMs = 0;
  private bucketSeatsIntegral = 0;
  private bucketWaitingIntegral = 0;
  private bucketSeatsMax = 0;
  private bucketWaitingMax = 0;
  private bucketLongestQueue = 0;
  private bucketDispatched = 0;
  private bucketRejected = 0;
  readonly series = {
    currentCL: numberSeries(),
    seatsInUseMean: numberSeries(),
    seatsInUseMax: numberSeries(),
    waitingMean: numberSeries(),
    waitingMax: numberSeries(),
    longestQueue: numberSeries(),
    dispatched: numberSeries(),
    rejected: numberSeries(),
  };

  constructor(readonly name: string) {}

  touch(nowMs: number): void {
    const dt = nowMs - this.lastMs;
    if (dt > 0) {
      // A request the queue set enqueues and dispatches in the same instant never waited: the
      // waiting maximum counts only what stayed queued for some time.
      if (this.waiting > this.bucketWaitingMax) this.bucketWaitingMax = this.waiting;
      if (this.waiting > this.waitingMax) this.waitingMax = this.waiting;
      this.seatsIntegral += this.seatsInUse * dt;
      this.waitingIntegral += this.waiting * dt;
      this.currentCLIntegral += this.currentCL * dt;
      this.bucketSeatsIntegral += this.seatsInUse * dt;
      this.bucketWaitingIntegral += this.waiting * dt;
    }
    this.lastMs = nowMs;
  }

  addSeats(nowMs: number, delta: number): void {
    this.touch(nowMs);
    this.seatsInUse += delta;
    if (this.seatsInUse > this.bucketSeatsMax) this.bucketSeatsMax = this.seatsInUse;
    if (this.seatsInUse > this.seatsInUseMax) this.seatsInUseMax = this.seatsInUse;
  }

  addWaiting(nowMs: number, delta: number): void {
    this.touch(nowMs);
    this.waiting += delta;
  }

  /** A request left its queue; the queue it had joined counts only if it waited there. */
  noteQueueLength(waitedMs: number, queueLength: number): void {
    if (waitedMs <= 0) return;
    if (queueLength > this.bucketLongestQueue) this.bucketLongestQueue = queueLength;
    if (queueLength > this.longestQueue) this.longestQueue = queueLength;
  }

  setCurrentCL(nowMs: number, currentCL: number): void {
    this.touch(nowMs);
    this.currentCL = currentCL;
    if (currentCL < this.currentCLMin) this.currentCLMin = currentCL;
    if (currentCL > this.currentCLMax) this.currentCLMax = currentCL;
  }

  noteDispatched(): void {
    this.dispatched++;
    this.bucketDispatched++;
  }

  noteRejected(reason: RejectReason): void {
    this.rejected[reason]++;
    this.bucketRejected++;
  }

  closeBucket(nowMs: number): void {
    this.touch(nowMs);
    const lengthMs = nowMs - this.bucketStartMs;
    const mean = (integral: number) => (lengthMs > 0 ? integral / lengthMs : 0);
    const s = this.series;
    s.currentCL.push(this.currentCL);
    s.seatsInUseMean.push(mean(this.bucketSeatsIntegral));
    s.seatsInUseMax.push(this.bucketSeatsMax);
    s.waitingMean.push(mean(this.bucketWaitingIntegral));
    s.waitingMax.push(this.bucketWaitingMax);
    s.longestQueue.push(this.bucketLongestQueue);
    s.dispatched.push(this.bucketDispatched);
    s.rejected.push(this.bucketRejected);
    this.bucketStartMs = nowMs;
    this.bucketSeatsIntegral = 0;
    this.bucketWaitingIntegral = 0;
    this.bucketSeatsMax = this.seatsInUse;
    this.bucketWaitingMax = 0;
    this.bucketLongestQueue = 0;
    this.bucketDispatched = 0;
    this.bucketRejected = 0;
  }

  /** Time-weighted means over [0, endMs]. */
  means(endMs: number): { seatsInUse: number; waiting: number; currentCL: number } {
    this.touch(endMs);
    const d = endMs > 0 ? endMs : 1;
    return { seatsInUse: this.seatsIntegral / d, waiting: this.waitingIntegral / d, currentCL: this.currentCLIntegral / d };
  }
}
