// Kubernetes' APF config controller (apf_controller.go) does not digest the configuration once per
// change: every informer event adds the same key to a rate-limited work queue, and one worker
// takes the key, lists every object and digests them all. A burst of changes is therefore
// digested a few times, not once per object. On Node the worker would run between two events of
// the same burst, so a minimum interval between runs stands in for Go's concurrency: during a
// burst the work runs at most once per `minIntervalMs`, and an isolated change is taken up on
// the next turn of the clock. A failing run is retried with the upstream item backoff
// (200 ms doubling, at most 8 h), and a new change cuts the backoff short, as a plain `Add` does.

import type { Cancel, Clock } from '../clock.ts';

/** At most two digests a second while changes keep coming. */
export const CONFIG_DIGEST_MIN_INTERVAL_MS = 500;
/** workqueue.NewTypedItemExponentialFailureRateLimiter(200*time.Millisecond, 8*time.Hour). */
export const CONFIG_RETRY_BASE_MS = 200;
export const CONFIG_RETRY_MAX_MS = 8 * 60 * 60 * 1000;

export interface OneKeyWorkQueueOptions {
  minIntervalMs?: number | undefined;
  /** A run threw; it is retried after the backoff. */
  onError?: ((error: unknown, failures: number) => void) | undefined;
}

export class OneKeyWorkQueue {
  private readonly minIntervalMs: number;
  private scheduled: Cancel | undefined;
  private scheduledAtMs = Number.POSITIVE_INFINITY;
  private running = false;
  private dirty = false;
  private stopped = false;
  private lastStartMs = Number.NEGATIVE_INFINITY;
  private failures = 0;
  private completed = 0;

  constructor(
    private readonly clock: Clock,
    private readonly work: () => void,
    private readonly options: OneKeyWorkQueueOptions = {},
  ) {
    this.minIntervalMs = options.minIntervalMs ?? CONFIG_DIGEST_MIN_INTERVAL_MS;
  }

  /** Something changed: run the work soon, once for however many changes arrive meanwhile. */
  add(): void {
    if (this.stopped) return;
    this.dirty = true;
    if (this.running) return;
    this.scheduleAt(this.lastStartMs + this.minIntervalMs);
  }

  /** Runs that ended without an error. */
  get runs(): number {
    return this.completed;
  }

  get pending(): boolean {
    return this.dirty;
  }

  stop(): void {
    this.stopped = true;
    this.scheduled?.();
    this.scheduled = undefined;
  }

  /** Schedules a run at `atMs` (or now, if that is past), unless one is already due no later. */
  private scheduleAt(atMs: number): void {
    const dueMs = Math.max(atMs, this.clock.now());
    if (this.scheduled !== undefined && this.scheduledAtMs <= dueMs) return;
    this.scheduled?.();
    this.scheduledAtMs = dueMs;
    this.scheduled = this.clock.after(dueMs - this.clock.now(), () => {
      this.scheduled = undefined;
      this.scheduledAtMs = Number.POSITIVE_INFINITY;
      this.run();
    });
  }

  private run(): void {
    if (this.stopped || !this.dirty) return;
    this.dirty = false;
    this.running = true;
    this.lastStartMs = this.clock.now();
    try {
      this.work();
      this.failures = 0;
      this.completed++;
    } catch (error) {
      this.failures++;
      this.running = false;
      this.dirty = true;
      const backoffMs = Math.min(CONFIG_RETRY_BASE_MS * 2 ** (this.failures - 1), CONFIG_RETRY_MAX_MS);
      // The retry is what a plain add() would schedule, at the latest after the backoff.
      this.scheduled?.();
      this.scheduled = undefined;
      this.scheduleAt(this.clock.now() + backoffMs);
      this.options.onError?.(error, this.failures);
      return;
    }
    this.running = false;
    if (this.dirty) this.scheduleAt(this.lastStartMs + this.minIntervalMs);
  }
}
