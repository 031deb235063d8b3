// Virtual time with a total order: events fire by due time, then by insertion sequence, so two
// events scheduled for the same instant always run in the order they were scheduled. Time only
// moves when `advance`/`runUntil` is called, and never backwards.
//
// The queue of events is the simulator's inner loop, so it is written for speed. Events due within
// the next quarter second go into a calendar: a ring of slots a quarter millisecond wide, each a
// list sorted by (due, seq), so scheduling walks a list of a few events and taking the next is a
// read of the first non-empty slot (a simulation's requests are due milliseconds ahead, where a
// binary heap alone sifted about seven levels per event).
// Events due later wait in a binary heap (sift with a hole instead of swaps, keys in typed arrays);
// the next event is the earlier of the two heads, so the order is the same whichever holds it.
// No per-event closures beyond the cancel handle; cancelled events (the queue set cancels a
// wait-limit timer for every request that waited) are dropped lazily, and compacted away once they
// make up most of the heap, so a long run does not drag dead entries around.

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
  /** Its key while it is in a calendar slot (the heap keeps its keys in typed arrays). */
  dueMs: number;
  seq: number;
  /** The next event of its calendar slot, and whether it is in the calendar at all. */
  nextInSlot: Pending | undefined;
  inCalendar: boolean;
}

/** Reused `schedule` events kept at most; enough for the events of one instant in large runs. */
const POOL_MAX = 4096;

/**
 * Every event is made here, so all have one shape. Its key fields are born fractions: a number field
 * that has held only small integers changes its representation at its first fraction (see nowMs).
 */
function newPending(callback: (() => void) | undefined, pooled: boolean): Pending {
  return { callback, task: undefined, cancelled: false, pooled, nextFree: undefined, dueMs: 0.5, seq: 0.5, nextInSlot: undefined, inCalendar: false };
}

/** The calendar: slots per millisecond (a power of two, so a slot number is exact) and slots in the ring (a power of two). */
const SLOTS_PER_MS = 4;
const SLOTS = 1024;
const SLOT_MASK = SLOTS - 1;

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
  /** Due time of the event `take` (or the heap's `pop`) returned last. */
  private poppedDueMs = 0;
  /** Cancelled events still sitting in the heap, and in the calendar. */
  private cancelledInHeap = 0;
  private cancelledInCalendar = 0;
  /**
   * The calendar: the first and last event of each slot's list. Every event in it has its slot
   * number (floor(due × SLOTS_PER_MS)) in [cursor, cursor + SLOTS), so a slot of the ring holds one
   * slot number's events. `cursor` moves up to the slot of the calendar's earliest event, and
   * starts over from the current time when the calendar is empty.
   */
  private readonly slotFirst: (Pending | undefined)[] = Array.from({ length: SLOTS }, () => undefined);
  private readonly slotLast: (Pending | undefined)[] = Array.from({ length: SLOTS }, () => undefined);
  private cursor = 0;
  private inCalendar = 0;
  private eventsRun = 0;
  /** Free pooled events, and how many (a list through them: no array push and pop per event). */
  private free: Pending | undefined = undefined;
  private freeCount = 0;

  constructor(startMs = 0) {
    this.nowMs = startMs;
    this.cursor = Math.floor(startMs * SLOTS_PER_MS);
  }

  now(): number {
    return this.nowMs;
  }

  after(delayMs: number, callback: () => void): Cancel {
    const event = newPending(callback, false);
    this.insert(event, this.nowMs + (delayMs > 0 ? delayMs : 0));
    return () => {
      // Cancelling an event that already ran (or was cancelled) is a no-op.
      if (event.cancelled || event.callback === undefined) return;
      event.cancelled = true;
      event.callback = undefined;
      if (event.inCalendar) {
        this.cancelledInCalendar++;
        return;
      }
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
    if (event === undefined) event = newPending(undefined, true);
    else {
      this.free = event.nextFree;
      event.nextFree = undefined;
      this.freeCount--;
    }
    this.insert(event, this.nowMs + (delayMs > 0 ? delayMs : 0));
    return event;
  }

  /** Number of scheduled events not yet run or cancelled. */
  get pending(): number {
    return this.size - this.cancelledInHeap + this.inCalendar - this.cancelledInCalendar;
  }

  /** Events run so far (for throughput figures). */
  get eventCount(): number {
    return this.eventsRun;
  }

  /** Due time of the next live event, or undefined. */
  nextDueMs(): number | undefined {
    const first = this.calendarFirst();
    this.dropCancelledTop();
    if (this.size > 0 && (first === undefined || this.heapFirst(first))) return this.due[0];
    return first?.dueMs;
  }

  /** Runs the next event (moving time to it); false when none is pending. */
  step(): boolean {
    const event = this.take(Number.POSITIVE_INFINITY);
    if (event === undefined) return false;
    this.run(event);
    return true;
  }

  /** Runs every event due at or before `untilMs`, then sets the time to `untilMs`. */
  runUntil(untilMs: number): void {
    if (untilMs < this.nowMs) throw new Error(`SimClock cannot go backwards: ${untilMs} < ${this.nowMs}`);
    for (let event = this.take(untilMs); event !== undefined; event = this.take(untilMs)) this.run(event);
    this.nowMs = untilMs;
  }

  advance(deltaMs: number): void {
    this.runUntil(this.nowMs + deltaMs);
  }

  /** Takes the next live event off the calendar or the heap if it is due by `untilMs` (its due time in `poppedDueMs`). */
  private take(untilMs: number): Pending | undefined {
    const first = this.calendarFirst();
    if (this.cancelledInHeap > 0) this.dropCancelledTop();
    if (this.size > 0 && (first === undefined || this.heapFirst(first))) {
      if (this.due[0]! > untilMs) return undefined;
      return this.pop();
    }
    if (first === undefined || first.dueMs > untilMs) return undefined;
    this.poppedDueMs = first.dueMs;
    this.unlinkFirst(this.cursor & SLOT_MASK, first);
    return first;
  }

  /** Whether the heap's top (the heap not empty) comes before the calendar's first event. */
  private heapFirst(first: Pending): boolean {
    const heapDue = this.due[0]!;
    return heapDue < first.dueMs || (heapDue === first.dueMs && this.seqs[0]! < first.seq);
  }

  /** The calendar's earliest live event, left in place; the cursor moves up to its slot, and cancelled ones on the way are dropped. */
  private calendarFirst(): Pending | undefined {
    const slots = this.slotFirst;
    while (this.inCalendar > 0) {
      const index = this.cursor & SLOT_MASK;
      const first = slots[index];
      if (first === undefined) this.cursor++;
      else if (!first.cancelled) return first;
      else {
        this.unlinkFirst(index, first);
        this.cancelledInCalendar--;
      }
    }
    return undefined;
  }

  private unlinkFirst(index: number, first: Pending): void {
    const next = first.nextInSlot;
    this.slotFirst[index] = next;
    if (next === undefined) this.slotLast[index] = undefined;
    first.nextInSlot = undefined;
    first.inCalendar = false;
    this.inCalendar--;
  }

  /** Schedules `event` at `dueMs`: into the calendar when its slot is in the ring's span, else into the heap. */
  private insert(event: Pending, dueMs: number): void {
    const seq = this.seq++;
    // An empty calendar starts over from now, so that it spans the next quarter second again.
    if (this.inCalendar === 0) this.cursor = Math.floor(this.nowMs * SLOTS_PER_MS);
    const slot = Math.floor(dueMs * SLOTS_PER_MS);
    if (!(slot >= this.cursor && slot < this.cursor + SLOTS)) {
      this.push(event, dueMs, seq);
      return;
    }
    event.dueMs = dueMs;
    event.seq = seq;
    event.inCalendar = true;
    this.inCalendar++;
    const index = slot & SLOT_MASK;
    const last = this.slotLast[index];
    // The newest event goes after every event due at the same time or earlier (a later seq).
    if (last === undefined || last.dueMs <= dueMs) {
      if (last === undefined) this.slotFirst[index] = event;
      else last.nextInSlot = event;
      this.slotLast[index] = event;
      return;
    }
    let previous: Pending | undefined;
    let next = this.slotFirst[index]!;
    while (next.dueMs <= dueMs) {
      previous = next;
      next = next.nextInSlot!;
    }
    event.nextInSlot = next;
    if (previous === undefined) this.slotFirst[index] = event;
    else previous.nextInSlot = event;
  }

  /** Runs the event `take` just returned. */
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

  private push(event: Pending, dueMs: number, seq: number): void {
    if (this.size === this.due.length) this.grow();
    const { events, due, seqs } = this;
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
