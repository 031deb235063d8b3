// Request deadlines on one timer. Nearly every request gets the server's own timeout
// (--request-timeout), so their deadlines come in the order the requests arrive: a queue kept in
// arrival order is also in deadline order, and one timer armed for its head serves them all. A
// timer per request (setTimeout, its closure, clearTimeout) is a measurable share of a small GET.
// Requests with an earlier deadline of their own (`?timeout=`) keep a timer each.
import type { Cancel, Clock } from '../../engine/clock.ts';

export interface HasDeadline {
  readonly deadlineMs: number;
}

export class DeadlineQueue<T extends HasDeadline> {
  /** In insertion order, which callers keep in deadline order. */
  private readonly entries = new Set<T>();
  private cancelTimer: Cancel | undefined = undefined;

  constructor(
    private readonly clock: Clock,
    private readonly onExpired: (entry: T) => void,
  ) {}

  get size(): number {
    return this.entries.size;
  }

  /** Adds `entry`, whose deadline is no earlier than that of any entry still queued. */
  add(entry: T): void {
    this.entries.add(entry);
    if (this.cancelTimer === undefined) this.arm(entry.deadlineMs);
  }

  /**
   * Forgets `entry` (its request is over). The timer stays armed for a head that left: when it
   * fires it re-arms for the next one. Emptied, the queue stops its timer, so an idle server holds
   * no timer that would keep the process alive.
   */
  delete(entry: T): void {
    if (!this.entries.delete(entry)) return;
    if (this.entries.size === 0 && this.cancelTimer !== undefined) {
      this.cancelTimer();
      this.cancelTimer = undefined;
    }
  }

  private arm(atMs: number): void {
    this.cancelTimer = this.clock.after(atMs - this.clock.now(), this.fire);
  }

  private readonly fire = (): void => {
    this.cancelTimer = undefined;
    const nowMs = this.clock.now();
    for (const entry of this.entries) {
      if (entry.deadlineMs > nowMs) {
        if (this.cancelTimer === undefined) this.arm(entry.deadlineMs);
        return;
      }
      this.entries.delete(entry);
      this.onExpired(entry);
    }
  };
}
