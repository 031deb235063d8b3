// Virtual time with a total order: events fire by due time, then by insertion sequence, so two
// events scheduled for the same instant always run in the order they were scheduled. Time only
// moves when `advance`/`runUntil` is called, and never backwards.

import type { Cancel, Clock } from '../engine/clock.ts';

interface Pending {
  dueMs: number;
  seq: number;
  callback: () => void;
  cancelled: boolean;
}

export class SimClock implements Clock {
  private nowMs: number;
  private seq = 0;
  private heap: Pending[] = [];
  private cancelledInHeap = 0;

  constructor(startMs = 0) {
    this.nowMs = startMs;
  }

  now(): number {
    return this.nowMs;
  }

  after(delayMs: number, callback: () => void): Cancel {
    const event: Pending = { dueMs: this.nowMs + Math.max(0, delayMs), seq: this.seq++, callback, cancelled: false };
    this.push(event);
    return () => {
      if (event.cancelled) return;
      event.cancelled = true;
      this.cancelledInHeap++;
      // Cancelled events wait in the heap until they reach the top; rebuild the heap when they
      // are most of it, so that a long run with many cancelled time-outs stays small.
      if (this.cancelledInHeap > 1024 && this.cancelledInHeap * 2 > this.heap.length) this.compact();
    };
  }

  /** Number of scheduled events not yet run or cancelled. */
  get pending(): number {
    return this.heap.length - this.cancelledInHeap;
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
    // Spent: a later cancel() of this event is a no-op and must not count as cancelled-in-heap.
    event.cancelled = true;
    this.nowMs = Math.max(this.nowMs, event.dueMs);
    event.callback();
    return true;
  }

  /** Runs every event due at or before `untilMs`, then sets the time to `untilMs`. */
  runUntil(untilMs: number): void {
    if (untilMs < this.nowMs) throw new Error(`SimClock cannot go backwards: ${untilMs} < ${this.nowMs}`);
    for (;;) {
      const due = this.nextDueMs();
      if (due === undefined || due > untilMs) break;
      this.step();
    }
    this.nowMs = untilMs;
  }

  advance(deltaMs: number): void {
    this.runUntil(this.nowMs + deltaMs);
  }

  private dropCancelledTop(): void {
    while (this.heap.length > 0 && this.heap[0]!.cancelled) {
      this.pop();
      this.cancelledInHeap--;
    }
  }

  private compact(): void {
    const live = this.heap.filter((e) => !e.cancelled);
    this.heap = [];
    this.cancelledInHeap = 0;
    for (const event of live) this.push(event);
  }

  private less(a: Pending, b: Pending): boolean {
    return a.dueMs < b.dueMs || (a.dueMs === b.dueMs && a.seq < b.seq);
  }

  private push(event: Pending): void {
    const heap = this.heap;
    heap.push(event);
    let i = heap.length - 1;
    while (i > 0) {
      const parent = (i - 1) >> 1;
      if (!this.less(heap[i]!, heap[parent]!)) break;
      [heap[i], heap[parent]] = [heap[parent]!, heap[i]!];
      i = parent;
    }
  }

  private pop(): Pending | undefined {
    const heap = this.heap;
    const top = heap[0];
    const last = heap.pop();
    if (heap.length > 0 && last !== undefined) {
      heap[0] = last;
      let i = 0;
      for (;;) {
        const l = 2 * i + 1;
        const r = l + 1;
        let m = i;
        if (l < heap.length && this.less(heap[l]!, heap[m]!)) m = l;
        if (r < heap.length && this.less(heap[r]!, heap[m]!)) m = r;
        if (m === i) break;
        [heap[i], heap[m]] = [heap[m]!, heap[i]!];
        i = m;
      }
    }
    return top;
  }
}
