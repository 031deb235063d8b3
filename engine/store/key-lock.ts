// One read-modify-write at a time per key, within this process. Optimistic concurrency alone makes
// N concurrent writers of one object do O(N²) work: every one computes its update from the same
// version, one wins, and the others start over from the next. Writers in one process can simply
// take turns instead, so each computes its update once, against the version the previous writer
// left; conflicts then come only from other processes (replicas on one etcd), and the store's
// retry loop handles those as before.

export class KeyLock {
  private readonly tails = new Map<string, Promise<void>>();

  /** Runs `work` once every earlier holder of `key` is done; gives up waiting when `signal` aborts. */
  async run<T>(key: string, work: () => Promise<T>, signal?: AbortSignal): Promise<T> {
    const previous = this.tails.get(key);
    let release!: () => void;
    const mine = new Promise<void>((resolve) => (release = resolve));
    // The next holder waits for this one and, should this one give up early, still for the one before.
    const tail = previous === undefined ? mine : previous.then(() => mine);
    this.tails.set(key, tail);
    try {
      if (previous !== undefined) await untilDone(previous, signal);
      signal?.throwIfAborted();
      return await work();
    } finally {
      release();
      if (this.tails.get(key) === tail) this.tails.delete(key);
    }
  }

  /** Keys with a holder or waiters (for tests). */
  get size(): number {
    return this.tails.size;
  }
}

function untilDone(previous: Promise<void>, signal: AbortSignal | undefined): Promise<void> {
  if (signal === undefined) return previous;
  signal.throwIfAborted();
  return new Promise<void>((resolve, reject) => {
    const onAbort = () => reject(signal.reason);
    signal.addEventListener('abort', onAbort, { once: true });
    void previous.then(() => {
      signal.removeEventListener('abort', onAbort);
      resolve();
    });
  });
}
