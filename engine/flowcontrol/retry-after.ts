// The Retry-After value sent with a 429 (apf-semantics 9.1): per priority level, it doubles while
// drops keep coming at three per second of the current value, and shrinks by one second at a time
// once they fade, like TCP's additive-decrease. Time is whole Unix seconds passed in; no timers.

export const INITIAL_RETRY_AFTER_SECONDS = 1;
export const MAX_RETRY_AFTER_SECONDS = 32;

interface SecondCount {
  unixSeconds: number;
  dropped: number;
}

export class DroppedRequestsStats {
  /** Drops per second, oldest first, at most MAX_RETRY_AFTER_SECONDS old. */
  private readonly history: SecondCount[] = [];
  private current = INITIAL_RETRY_AFTER_SECONDS;
  /** When the value last doubled; 0 lets the first burst double it straight away. */
  private lastIncreaseSeconds = 0;

  /** Record one rejected request at `nowSeconds` (fractions are floored, like Go's `Time.Unix`). */
  recordDropped(nowSeconds: number): void {
    const now = Math.floor(nowSeconds);
    const last = this.history.at(-1);
    if (last !== undefined && last.unixSeconds === now) {
      last.dropped++;
      // The value is reconsidered only on the first drop of each second.
      return;
    }
    this.history.push({ unixSeconds: now, dropped: 1 });
    let stale = 0;
    while (stale < this.history.length && now - this.history[stale]!.unixSeconds > MAX_RETRY_AFTER_SECONDS) stale++;
    if (stale > 0) this.history.splice(0, stale);

    // Drops in [now − retryAfter, now), i.e. the full seconds before this one.
    const retryAfter = this.current;
    let recent = 0;
    for (let i = this.history.length - 2; i >= 0; i--) {
      const entry = this.history[i]!;
      if (now - entry.unixSeconds > retryAfter) break;
      recent += entry.dropped;
    }
    if (recent >= 3 * retryAfter && now - this.lastIncreaseSeconds >= retryAfter) {
      this.current = Math.min(2 * retryAfter, MAX_RETRY_AFTER_SECONDS);
      this.lastIncreaseSeconds = now;
    } else if (recent < retryAfter && retryAfter > 1) {
      this.current = retryAfter - 1;
    }
  }

  /**
   * Seconds to put in Retry-After. The value only moves when drops are recorded; `nowSeconds` is
   * accepted so callers need not know that, and is not used.
   */
  retryAfter(_nowSeconds?: number): number {
    return this.current;
  }
}

/** One DroppedRequestsStats per priority level; a level that never dropped anything says 1. */
export class DroppedRequestsTracker {
  private readonly levels = new Map<string, DroppedRequestsStats>();

  recordDropped(priorityLevel: string, nowSeconds: number): void {
    let stats = this.levels.get(priorityLevel);
    if (stats === undefined) {
      stats = new DroppedRequestsStats();
      this.levels.set(priorityLevel, stats);
    }
    stats.recordDropped(nowSeconds);
  }

  retryAfter(priorityLevel: string, nowSeconds?: number): number {
    return this.levels.get(priorityLevel)?.retryAfter(nowSeconds) ?? INITIAL_RETRY_AFTER_SECONDS;
  }

  /** Drop a level's history when the level itself goes away. */
  forget(priorityLevel: string): void {
    this.levels.delete(priorityLevel);
  }
}
