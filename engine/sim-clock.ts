// Virtual time with a total order: events fire by due time, then by insertion sequence, so two
// events scheduled for the same instant always run in the order they were scheduled. Time only
// moves when `advance`/`runUntil` is called, and never backwards.
//
// The heap is the simulator's inner loop, so it is written for speed: sift with a hole instead of
// swaps, keys in typed arrays, no per-event closures beyond the cancel handle, and cancelled
// events (the queue set cancels a wait-limit timer for every request that waited) are dropped
// lazily but compacted away once they make up most of the heap, so a long run does not drag dead
// entries around.

import type { Cancel, Clock } from './clock.ts';

/** An event that needs no closure: the clock calls its `fire()`. */
export interface SimTask {
  fire(): void;
}

interface Pending {
  callback: (() => void) | undefined;
  task: SimTask | undefined;
  cancelled: boolean;
  /** Scheduled without a cancel handle: nothing refers to it after it ran, so it can be reused. */
  pooled: boolean;
  /** The next free pooled event, while this one is free (the pool is a list through its events). */
  nextFree: Pending | undefined;
}

/** Reused `schedule` events kept at most; enough for the events of one instant in large runs. */
const POOL_MAX = 4096;

function pooledPending(): Pending {
  return { callback: undefined, task: undefined, cancelled: false, pooled: true, nextFree: undefined };
}

/** Below this size compaction is not worth a pass over the heap. */
const COMPACT_MIN_HEAP = 1024;

export class SimClock implements Clock {
  /**
   * Born a fraction, then set by the constructor: declared without a value it would first be
   * defined undefined, and V8 would then box every time it holds (an allocation and a write
   * barrier per event).
   */
  private nowMs = 0.5;
  private seq = 0;
  /**
   * The heap: slot i holds `events[i]`, due at `due[i]`, scheduled as number `seqs[i]`. The keys
   * live in typed arrays rather than on the events because a double in an object field is a
   * pointer to a boxed number: every comparison would chase two of them.
   *
   * `events` is born holding an entry (slots at or past `size` are unused): an empty
   * `[]` starts as an array of small integers and turns into an array of objects at its first
   * store, so a second clock in the same process (`sim tune`, the bench's repeated runs) met code
   * compiled for the first clock's arrays with arrays of the other kind, and threw it away.
   */
  private events: (Pending | undefined)[] = [undefined];
  private due = new Float64Array(256);
  private seqs = new Float64Array(256);
  private size = 0;
  /** Due time of the event `pop` returned last. */
  private poppedDueMs = 0;
  /** Cancelled events still sitting in the heap. */
  private cancelledInHeap = 0;
  private eventsRun = 0;
  /** Free pooled events, and how many (a list through them: no array push and pop per event). */
  private free: Pending | undefined = undefined;
  private freeCount = 0;

  constructor(startMs = 0) {
    this.nowMs = startMs;
  }

  now(): number {
    return this.nowMs;
  }

  after(delayMs: number, callback: () => void): Cancel {
    const event: Pending = { callback, task: undefined, cancelled: false, pooled: false, nextFree: undefined };
    this.push(event, this.nowMs + (delayMs > 0 ? delayMs : 0));
    return () => {
      // Cancelling an event that already ran (or was cancelled) is a no-op.
      if (event.cancelled || event.callback === undefined) return;
      event.cancelled = true;
      event.callback = undefined;
      this.cancelledInHeap++;
      if (this.cancelledInHeap > COMPACT_MIN_HEAP && this.cancelledInHeap * 2 > this.size) this.compact();
    };
  }

  /**
   * `after` without a cancel handle, for the simulator's own events (arrivals, completions): the
   * event object is recycled once it has run, so the hot loop allocates nothing here. Same total
   * order as `after`: the two share one sequence counter.
   */
  schedule(delayMs: number, callback: () => void): void {
    this.pooledEvent(delayMs).callback = callback;
  }

  /** `schedule` for an object with a `fire()` method: not even a closure per event. */
  scheduleTask(delayMs: number, task: SimTask): void {
    this.pooledEvent(delayMs).task = task;
  }

  private pooledEvent(delayMs: number): Pending {
    let event = this.free;
    if (event === undefined) event = pooledPending();
    else {
      this.free = event.nextFree;
      event.nextFree = undefined;
      this.freeCount--;
    }
    this.push(event, this.nowMs + (delayMs > 0 ? delayMs : 0));
    return event;
  }

  /** Number of scheduled events not yet run or cancelled. */
  get pending(): number {
    return this.size - this.cancelledInHeap;
  }

  /** Events run so far (for throughput figures). */
  get eventCount(): number {
    return this.eventsRun;
  }

  /** Due time of the next live event, or undefined. */
  nextDueMs(): number | undefined {
    this.dropCancelledTop();
    return this.size > 0 ? this.due[0] : undefined;
  }

  /** Runs the next event (moving time to it); false when none is pending. */
  step(): boolean {
    this.dropCancelledTop();
    if (this.size === 0) return false;
    this.run(this.pop());
    return true;
  }

  /** Runs every event due at or before `untilMs`, then sets the time to `untilMs`. */
  runUntil(untilMs: number): void {
    if (untilMs < this.nowMs) throw new Error(`SimClock cannot go backwards: ${untilMs} < ${this.nowMs}`);
    const events = this.events;
    for (;;) {
      if (this.size === 0) break;
      if (this.cancelledInHeap > 0 && events[0]!.cancelled) {
        this.dropCancelledTop();
        if (this.size === 0) break;
      }
      if (this.due[0]! > untilMs) break;
      this.run(this.pop());
    }
    this.nowMs = untilMs;
  }

  advance(deltaMs: number): void {
    this.runUntil(this.nowMs + deltaMs);
  }

  /** Runs the event `pop` just returned. */
  private run(event: Pending): void {
    if (this.poppedDueMs > this.nowMs) this.nowMs = this.poppedDueMs;
    const callback = event.callback;
    const task = event.task;
    event.callback = undefined;
    event.task = undefined;
    if (event.pooled && this.freeCount < POOL_MAX) {
      event.nextFree = this.free;
      this.free = event;
      this.freeCount++;
    }
    this.eventsRun++;
    if (task !== undefined) task.fire();
    else callback!();
  }

  private dropCancelledTop(): void {
    while (this.size > 0 && this.events[0]!.cancelled) {
      this.pop();
      this.cancelledInHeap--;
    }
  }

  /** Rebuilds the heap without its cancelled entries (order is a pure function of due time and seq). */
  private compact(): void {
    const { events, due, seqs } = this;
    let kept = 0;
    for (let i = 0; i < this.size; i++) {
      const event = events[i]!;
      if (event.cancelled) continue;
      events[kept] = event;
      due[kept] = due[i]!;
      seqs[kept] = seqs[i]!;
      kept++;
    }
    for (let i = kept; i < this.size; i++) events[i] = undefined;
    this.size = kept;
    for (let i = (kept >> 1) - 1; i >= 0; i--) this.siftDown(i);
    this.cancelledInHeap = 0;
  }

  private push(event: Pending, dueMs: number): void {
    if (this.size === this.due.length) this.grow();
    const { events, due, seqs } = this;
    const seq = this.seq++;
    let i = this.size++;
    while (i > 0) {
      const p = (i - 1) >> 1;
      const pDue = due[p]!;
      if (!(dueMs < pDue || (dueMs === pDue && seq < seqs[p]!))) break;
      events[i] = events[p];
      due[i] = pDue;
      seqs[i] = seqs[p]!;
      i = p;
    }
    events[i] = event;
    due[i] = dueMs;
    seqs[i] = seq;
  }

  private grow(): void {
    const due = new Float64Array(this.due.length * 2);
    due.set(this.due);
    this.due = due;
    const seqs = new Float64Array(this.seqs.length * 2);
    seqs.set(this.seqs);
    this.seqs = seqs;
  }

  /**
   * Takes the top event off a non-empty heap (its due time in `poppedDueMs`). Floyd's pop: the
   * hole at the root sinks to a leaf along the smaller children (one comparison per level instead
   * of two), then the last entry rises from there; it came from the bottom, so it rarely rises far.
   */
  private pop(): Pending {
    const { events, due, seqs } = this;
    const top = events[0]!;
    this.poppedDueMs = due[0]!;
    const n = --this.size;
    const last = events[n]!;
    const lastDue = due[n]!;
    const lastSeq = seqs[n]!;
    events[n] = undefined;
    if (n === 0) return top;
    let i = 0;
    for (;;) {
      const l = 2 * i + 1;
      if (l >= n) break;
      const r = l + 1;
      let c = l;
      if (r < n) {
        const lDue = due[l]!;
        const rDue = due[r]!;
        if (rDue < lDue || (rDue === lDue && seqs[r]! < seqs[l]!)) c = r;
      }
      events[i] = events[c];
      due[i] = due[c]!;
      seqs[i] = seqs[c]!;
      i = c;
    }
    while (i > 0) {
      const p = (i - 1) >> 1;
      const pDue = due[p]!;
      if (!(lastDue < pDue || (lastDue === pDue && lastSeq < seqs[p]!))) break;
      events[i] = events[p];
      due[i] = pDue;
      seqs[i] = seqs[p]!;
      i = p;
    }
    events[i] = last;
    due[i] = lastDue;
    seqs[i] = lastSeq;
    return top;
  }

  private siftDown(start: number): void {
    const { events, due, seqs } = this;
    const n = this.size;
    const moving = events[start];
    const movingDue = due[start]!;
    const movingSeq = seqs[start]!;
    let i = start;
    for (;;) {
      const l = 2 * i + 1;
      if (l >= n) break;
      const r = l + 1;
      let c = l;
      if (r < n && (due[r]! < due[l]! || (due[r] === due[l] && seqs[r]! < seqs[l]!))) c = r;
      const cDue = due[c]!;
      if (!(cDue < movingDue || (cDue === movingDue && seqs[c]! < movingSeq))) break;
      events[i] = events[c];
      due[i] = cDue;
      seqs[i] = seqs[c]!;
      i = c;
    }
    events[i] = moving;
    due[i] = movingDue;
    seqs[i] = movingSeq;
  }
}
