// Virtual time with a total order: events fire by due time, then by insertion sequence, so two
// events scheduled for the same instant always run in the order they were scheduled. Time only
// moves when `advance`/`runUntil` is called, and never backwards.
//
// The heap is the simulator's inner loop, so it is written for speed: sift with a hole instead of
// swaps, no per-event closures beyond the cancel handle, and cancelled events (the queue set
// cancels a wait-limit timer for every request it dispatches) are dropped lazily but compacted
// away once they make up most of the heap, so a long run does not drag dead entries around.

import type { Cancel, Clock } from './clock.ts';

/** An event that needs no closure: the clock calls its `fire()`. */
export interface SimTask {
  fire(): void;
}

interface Pending {
  dueMs: number;
  seq: number;
  callback: (() => void) | undefined;
  task: SimTask | undefined;
  cancelled: boolean;
  /** Scheduled without a cancel handle: nothing refers to it after it ran, so it can be reused. */
  pooled: boolean;
}

/** Reused `schedule` events kept at most; enough for the events of one instant in large runs. */
const POOL_MAX = 4096;

/** Below this size compaction is not worth a pass over the heap. */
const COMPACT_MIN_HEAP = 1024;

export class SimClock implements Clock {
  private nowMs: number;
  private seq = 0;
  private readonly heap: Pending[] = [];
  /** Cancelled events still sitting in the heap. */
  private cancelledInHeap = 0;
  private eventsRun = 0;
  private readonly pool: Pending[] = [];

  constructor(startMs = 0) {
    this.nowMs = startMs;
  }

  now(): number {
    return this.nowMs;
  }

  after(delayMs: number, callback: () => void): Cancel {
    const event: Pending = { dueMs: this.nowMs + (delayMs > 0 ? delayMs : 0), seq: this.seq++, callback, task: undefined, cancelled: false, pooled: false };
    this.push(event);
    return () => {
      // Cancelling an event that already ran (or was cancelled) is a no-op.
      if (event.cancelled || event.callback === undefined) return;
      event.cancelled = true;
      event.callback = undefined;
      this.cancelledInHeap++;
      if (this.cancelledInHeap > COMPACT_MIN_HEAP && this.cancelledInHeap * 2 > this.heap.length) this.compact();
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
    const event = this.pool.pop() ?? { dueMs: 0, seq: 0, callback: undefined, task: undefined, cancelled: false, pooled: true };
    event.dueMs = this.nowMs + (delayMs > 0 ? delayMs : 0);
    event.seq = this.seq++;
    this.push(event);
    return event;
  }

  /** Number of scheduled events not yet run or cancelled. */
  get pending(): number {
    return this.heap.length - this.cancelledInHeap;
  }

  /** Events run so far (for throughput figures). */
  get eventCount(): number {
    return this.eventsRun;
  }

  /** Due time of the next live event, or undefined. */
  nextDueMs(): number | undefined {
    this.dropCancelledTop();
    return this.heap[0]?.dueMs;
  }

  /** Runs the next event (moving time to it); false when none is pending. */
  step(): boolean {
    this.dropCancelledTop();
    const event = this.pop();
    if (event === undefined) return false;
    if (event.dueMs > this.nowMs) this.nowMs = event.dueMs;
    const callback = event.callback;
    const task = event.task;
    event.callback = undefined;
    event.task = undefined;
    if (event.pooled && this.pool.length < POOL_MAX) this.pool.push(event);
    this.eventsRun++;
    if (task !== undefined) task.fire();
    else callback!();
    return true;
  }

  /** Runs every event due at or before `untilMs`, then sets the time to `untilMs`. */
  runUntil(untilMs: number): void {
    if (untilMs < this.nowMs) throw new Error(`SimClock cannot go backwards: ${untilMs} < ${this.nowMs}`);
    const heap = this.heap;
    for (;;) {
      this.dropCancelledTop();
      const top = heap[0];
      if (top === undefined || top.dueMs > untilMs) break;
      this.step();
    }
    this.nowMs = untilMs;
  }

  advance(deltaMs: number): void {
    this.runUntil(this.nowMs + deltaMs);
  }

  private dropCancelledTop(): void {
    const heap = this.heap;
    while (heap.length > 0 && heap[0]!.cancelled) {
      this.pop();
      this.cancelledInHeap--;
    }
  }

  /** Rebuilds the heap without its cancelled entries (order is a pure function of dueMs/seq). */
  private compact(): void {
    const live = this.heap.filter((e) => !e.cancelled);
    this.heap.length = 0;
    for (const e of live) this.heap.push(e);
    for (let i = (this.heap.length >> 1) - 1; i >= 0; i--) this.siftDown(i);
    this.cancelledInHeap = 0;
  }

  private push(event: Pending): void {
    const heap = this.heap;
    let i = heap.length;
    heap.push(event);
    while (i > 0) {
      const parentIndex = (i - 1) >> 1;
      const parent = heap[parentIndex]!;
      if (!less(event, parent)) break;
      heap[i] = parent;
      i = parentIndex;
    }
    heap[i] = event;
  }

  private pop(): Pending | undefined {
    const heap = this.heap;
    const top = heap[0];
    const last = heap.pop();
    if (heap.length > 0 && last !== undefined) {
      heap[0] = last;
      this.siftDown(0);
    }
    return top;
  }

  private siftDown(start: number): void {
    const heap = this.heap;
    const n = heap.length;
    const moving = heap[start]!;
    let i = start;
    for (;;) {
      const l = 2 * i + 1;
      if (l >= n) break;
      const r = l + 1;
      let child = l;
      let childEvent = heap[l]!;
      if (r < n && less(heap[r]!, childEvent)) {
        child = r;
        childEvent = heap[r]!;
      }
      if (!less(childEvent, moving)) break;
      heap[i] = childEvent;
      i = child;
    }
    heap[i] = moving;
  }
}

function less(a: Pending, b: Pending): boolean {
  return a.dueMs < b.dueMs || (a.dueMs === b.dueMs && a.seq < b.seq);
}
