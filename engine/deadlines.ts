// Many deadlines on one timer of the injected clock: every request's time-out, every watch's
// timeout and its last bookmark. A timer per deadline (its closure, its cancel handle) is a
// measurable share of a small GET, and of the memory per open watch.
//
// A binary heap (engine/binary-heap.ts) ordered by due time, then by the order of adding, so
// entries due at the same instant run in the order they were added and a virtual clock replays the
// same history. Each entry records its own position in the heap, so removing one costs O(log n) and
// leaves nothing behind.
// The common case costs O(1) to add: nearly every request gets the server's own time-out, so
// deadlines arrive in due order and a new one stops at its first comparison.
//
// One timer is armed, for the earliest deadline, and armed again only when an earlier one is
// added: when the earliest leaves (its request is over), the timer stays and, when it fires,
// re-arms for whatever is earliest then. That holds when the heap empties too: a server answering
// one small request at a time empties it after nearly every request, and cancelling and arming a
// Node timer each time was a measurable share of a GET. So the timer does not keep the process
// alive (what has a deadline has a connection that does), and an idle heap holds it only until
// it fires once, finding nothing due.
import { BinaryHeap } from './binary-heap.ts';
import type { Cancel, Clock, TimerOptions } from './clock.ts';

const TIMER: TimerOptions = { keepsProcessAlive: false };

/** Something with a deadline; the heap keeps its position in it. */
export interface Deadline {
  /** When it is due, on the clock's time line; changed only while not added, or right before `add` moves the entry. */
  readonly deadlineMs: number;
  /** Position in the heap, -1 when not added: start at -1 (owned by Deadlines). */
  deadlineSlot: number;
  /** Order of adding, for ties (owned by Deadlines). */
  deadlineSeq: number;
}

export class Deadlines<T extends Deadline> {
  private readonly heap = new BinaryHeap<T>(before, moved);
  private seq = 0;
  private cancelTimer: Cancel | undefined = undefined;
  /** The due time the timer is armed for (Infinity when none). */
  private armedMs = Number.POSITIVE_INFINITY;
  /** Due entries are being run: they arm the timer once, when all are done. */
  private firing = false;

  /** `onDue` runs once per entry whose deadline has come, after the entry left the heap (it may add itself again). */
  constructor(
    private readonly clock: Clock,
    private readonly onDue: (entry: T) => void,
  ) {}

  get size(): number {
    return this.heap.size;
  }

  /** Adds `entry` at its `deadlineMs` (a finite time); an entry already added moves there. */
  add(entry: T): void {
    if (entry.deadlineSlot >= 0) this.heap.removeAt(entry.deadlineSlot);
    entry.deadlineSeq = this.seq++;
    this.heap.push(entry);
    if (entry.deadlineMs < this.armedMs && !this.firing) this.arm();
  }

  /** Forgets `entry`, which will not come due; a no-op for one not added (or already due). The timer stays armed. */
  delete(entry: T): void {
    if (entry.deadlineSlot >= 0) this.heap.removeAt(entry.deadlineSlot);
  }

  private readonly fire = (): void => {
    this.cancelTimer = undefined;
    this.armedMs = Number.POSITIVE_INFINITY;
    this.firing = true;
    try {
      const nowMs = this.clock.now();
      const heap = this.heap;
      for (let top = heap.peek(); top !== undefined && top.deadlineMs <= nowMs; top = heap.peek()) {
        heap.pop();
        this.onDue(top);
      }
    } finally {
      this.firing = false;
      this.arm();
    }
  };

  /** Arms the timer for the earliest entry, unless it is already armed for that time or earlier. */
  private arm(): void {
    const top = this.heap.peek();
    if (top === undefined || top.deadlineMs >= this.armedMs) return;
    this.cancelTimer?.();
    this.armedMs = top.deadlineMs;
    this.cancelTimer = this.clock.after(delayUntil(this.clock.now(), top.deadlineMs), this.fire, TIMER);
  }
}

function moved(entry: Deadline, slot: number): void {
  entry.deadlineSlot = slot;
}

function before(a: Deadline, b: Deadline): boolean {
  return a.deadlineMs < b.deadlineMs || (a.deadlineMs === b.deadlineMs && a.deadlineSeq < b.deadlineSeq);
}

/**
 * The delay a clock adds to `nowMs` to reach `dueMs`. A virtual clock computes `nowMs + delay`,
 * which rounding can put an ulp past `dueMs` (a few in 100,000 for the times a simulation uses):
 * stepped back until it is not, so the timer is never late. One an ulp early finds nothing due
 * and re-arms for the rest, which lands exactly: the two are then within a factor of two.
 */
function delayUntil(nowMs: number, dueMs: number): number {
  let delayMs = dueMs - nowMs;
  while (nowMs + delayMs > dueMs) delayMs -= Math.max(Number.MIN_VALUE, Math.abs(delayMs) * Number.EPSILON);
  return delayMs;
}
