// Group commit: writers queue their operations; one flush at a time writes everything queued so far
// as one batch, then acknowledges all of those writers together. While a flush is in flight, new
// writers wait for the next one, so under load each fsync carries many writes and throughput
// follows the batch size, not the fsync latency. A writer is acknowledged only after the flush that
// carried its operations has resolved; a failed flush rejects all its writers and every later one
// (the caller can no longer vouch for what reached the disk).
//
// A batch carries at most `maxWritesPerBatch` writers. Beyond that size a bigger batch buys little,
// while a bounded one lets the next batch start writing as soon as this one is done, so the main
// thread prepares new writes while the disk is busy instead of the two taking turns.

export interface QueuedWrite<Op> {
  readonly ops: readonly Op[];
}

export type FlushBatch<Op, Entry extends QueuedWrite<Op>> = (ops: Op[], entries: readonly Entry[]) => Promise<void>;

export class WriteQueue<Op, Entry extends QueuedWrite<Op>> {
  private pending: { entry: Entry; resolve: () => void; reject: (error: unknown) => void }[] = [];
  private flushing = false;
  private failure: unknown;
  private idleWaiters: (() => void)[] = [];
  /** Batches written, for benchmarks and tests. */
  batches = 0;

  constructor(
    private readonly flush: FlushBatch<Op, Entry>,
    private readonly maxWritesPerBatch = 256,
  ) {}

  /** Queues one writer's operations; resolves once they are written. */
  submit(entry: Entry): Promise<void> {
    if (this.failure !== undefined) return Promise.reject(this.failure);
    return new Promise((resolve, reject) => {
      this.pending.push({ entry, resolve, reject });
      if (!this.flushing) {
        this.flushing = true;
        // Let every writer that is ready in this turn join the first batch.
        queueMicrotask(() => void this.drain());
      }
    });
  }

  /** Takes writes again after a failed flush (the caller has made its state whole again). */
  reset(): void {
    this.failure = undefined;
  }

  /** Resolves when nothing is queued or being written. */
  idle(): Promise<void> {
    if (!this.flushing) return Promise.resolve();
    return new Promise((resolve) => this.idleWaiters.push(resolve));
  }

  private async drain(): Promise<void> {
    while (this.pending.length > 0) {
      const batch = this.pending.length <= this.maxWritesPerBatch ? this.pending : this.pending.slice(0, this.maxWritesPerBatch);
      this.pending = batch === this.pending ? [] : this.pending.slice(batch.length);
      const ops: Op[] = [];
      for (const { entry } of batch) for (const op of entry.ops) ops.push(op);
      try {
        await this.flush(
          ops,
          batch.map((b) => b.entry),
        );
        this.batches++;
      } catch (error) {
        this.failure = error;
        for (const b of batch) b.reject(error);
        for (const b of this.pending.splice(0)) b.reject(error);
        break;
      }
      for (const b of batch) b.resolve();
    }
    this.flushing = false;
    for (const wake of this.idleWaiters.splice(0)) wake();
  }
}
