// The deadlines of every open watch (its timeout, and the bookmark sent shortly before it) in one
// binary heap with one timer on the injected clock for the earliest, instead of a timer or two per
// watch: at 10,000 watches those timers, their closures and cancel handles were a measurable share
// of the server's memory per watch. Each entry records its own position in the heap, so removing a
// watch that ends early costs O(log n) and leaves nothing behind. Entries due at the same instant
// run in the order they were scheduled, so a virtual clock replays the same history.
import type { Cancel, Clock } from '../clock.ts';

/** Something with a deadline; the heap keeps its position in it. */
export interface Deadline {
  /** When `deadlineReached` is due; set before `schedule`. */
  deadlineMs: number;
  /** Position in the heap, -1 when not scheduled (owned by WatchDeadlines). */
  deadlineSlot: number;
  /** Scheduling order, for ties (owned by WatchDeadlines). */
  deadlineSeq: number;
  /** Called once `deadlineMs` has come; the entry may `schedule` itself again with a later one. */
  deadlineReached(): void;
}

export class WatchDeadlines {
  private readonly heap: Deadline[] = [];
  private seq = 0;
  private cancelTimer: Cancel | undefined = undefined;
  /** The due time the timer is armed for (Infinity when none). */
  private armedMs = Number.POSITIVE_INFINITY;

  constructor(private readonly clock: Clock) {}

  get size(): number {
    return this.heap.length;
  }

  /** Adds `entry` (or moves it, when already scheduled) at its `deadlineMs`. */
  schedule(entry: Deadline): void {
    if (entry.deadlineSlot >= 0) this.removeAt(entry.deadlineSlot);
    entry.deadlineSeq = this.seq++;
    entry.deadlineSlot = this.heap.length;
    this.heap.push(entry);
    this.siftUp(entry.deadlineSlot);
    this.arm();
  }

  cancel(entry: Deadline): void {
    if (entry.deadlineSlot < 0) return;
    this.removeAt(entry.deadlineSlot);
    if (this.heap.length === 0) this.disarm();
  }

  private readonly fire = (): void => {
    this.cancelTimer = undefined;
    this.armedMs = Number.POSITIVE_INFINITY;
    const nowMs = this.clock.now();
    for (let top = this.heap[0]; top !== undefined && top.deadlineMs <= nowMs; top = this.heap[0]) {
      this.removeAt(0);
      top.deadlineReached();
    }
    this.arm();
  };

  private arm(): void {
    const top = this.heap[0];
    if (top === undefined || top.deadlineMs >= this.armedMs) return;
    this.disarm();
    this.armedMs = top.deadlineMs;
    this.cancelTimer = this.clock.after(top.deadlineMs - this.clock.now(), this.fire);
  }

  private disarm(): void {
    this.cancelTimer?.();
    this.cancelTimer = undefined;
    this.armedMs = Number.POSITIVE_INFINITY;
  }

  private removeAt(slot: number): void {
    const heap = this.heap;
    const removed = heap[slot]!;
    removed.deadlineSlot = -1;
    const last = heap.pop()!;
    if (slot === heap.length) return;
    heap[slot] = last;
    last.deadlineSlot = slot;
    this.siftUp(slot);
    this.siftDown(last.deadlineSlot);
  }

  private siftUp(slot: number): void {
    const heap = this.heap;
    const entry = heap[slot]!;
    while (slot > 0) {
      const parentSlot = (slot - 1) >> 1;
      const parent = heap[parentSlot]!;
      if (!before(entry, parent)) break;
      heap[slot] = parent;
      parent.deadlineSlot = slot;
      slot = parentSlot;
    }
    heap[slot] = entry;
    entry.deadlineSlot = slot;
  }

  private siftDown(slot: number): void {
    const heap = this.heap;
    const entry = heap[slot]!;
    const size = heap.length;
    for (;;) {
      let child = 2 * slot + 1;
      if (child >= size) break;
      if (child + 1 < size && before(heap[child + 1]!, heap[child]!)) child++;
      const next = heap[child]!;
      if (!before(next, entry)) break;
      heap[slot] = next;
      next.deadlineSlot = slot;
      slot = child;
    }
    heap[slot] = entry;
    entry.deadlineSlot = slot;
  }
}

function before(a: Deadline, b: Deadline): boolean {
  return a.deadlineMs < b.deadlineMs || (a.deadlineMs === b.deadlineMs && a.deadlineSeq < b.deadlineSeq);
}
