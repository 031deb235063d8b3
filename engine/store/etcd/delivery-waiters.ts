// Writers waiting until the watch has delivered their revision, released in bulk as it advances.
// A waiter gives up after a budget (the write is committed either way; only the cache is behind),
// checked by one timer for all waiters rather than one per write.

import type { Cancel, Clock } from '../../clock.ts';

interface Waiter {
  readonly revision: number;
  readonly resolve: () => void;
  readonly giveUpAtMs: number;
}

export class DeliveryWaiters {
  private waiters: Waiter[] = [];
  private cancelSweep: Cancel | undefined;

  constructor(
    private readonly clock: Clock,
    private readonly budgetMs: number,
  ) {}

  /** Resolves once `release` reaches `revision`, or after the budget. */
  wait(revision: number): Promise<void> {
    return new Promise((resolve) => {
      this.waiters.push({ revision, resolve, giveUpAtMs: this.clock.now() + this.budgetMs });
      if (this.cancelSweep === undefined) this.armSweep(this.budgetMs);
    });
  }

  /** Everything through `revision` has been delivered. */
  release(revision: number): void {
    const waiters = this.waiters;
    if (waiters.length === 0) return;
    let kept = 0;
    for (const waiter of waiters) {
      if (waiter.revision > revision) waiters[kept++] = waiter;
      else waiter.resolve();
    }
    waiters.length = kept;
    if (kept === 0) {
      this.cancelSweep?.();
      this.cancelSweep = undefined;
    }
  }

  releaseAll(): void {
    this.release(Number.MAX_SAFE_INTEGER);
  }

  private armSweep(delayMs: number): void {
    this.cancelSweep = this.clock.after(delayMs, () => {
      this.cancelSweep = undefined;
      const nowMs = this.clock.now();
      const late = this.waiters.filter((w) => w.giveUpAtMs <= nowMs);
      this.waiters = this.waiters.filter((w) => w.giveUpAtMs > nowMs);
      for (const w of late) w.resolve();
      // Waiters are in arrival order, so the first one gives up first.
      const next = this.waiters[0];
      if (next !== undefined) this.armSweep(next.giveUpAtMs - nowMs);
    });
  }
}
