// The webhook authorizer's response cache: Kubernetes' LRUExpireCache. A bounded LRU (8192 entries
// by default) whose entries each carry their own expiry, read from the injected clock; an expired
// entry is a miss and is dropped when seen. A TTL of 0 stores nothing, which is how a webhook
// with `cacheAuthorizedRequests: false` turns one side of the cache off.
import type { Clock } from '../clock.ts';

export const DEFAULT_DECISION_CACHE_SIZE = 8192;

export class DecisionCache<V> {
  /** Insertion order is recency order: a hit is moved to the end, eviction takes the first. */
  private readonly entries = new Map<string, { value: V; expiresAtMs: number }>();

  constructor(
    private readonly clock: Clock,
    private readonly capacity: number = DEFAULT_DECISION_CACHE_SIZE,
  ) {}

  get(key: string): V | undefined {
    const entry = this.entries.get(key);
    if (entry === undefined) return undefined;
    this.entries.delete(key);
    if (this.clock.now() >= entry.expiresAtMs) return undefined;
    this.entries.set(key, entry);
    return entry.value;
  }

  set(key: string, value: V, ttlMs: number): void {
    if (ttlMs <= 0) return;
    this.entries.delete(key);
    this.entries.set(key, { value, expiresAtMs: this.clock.now() + ttlMs });
    if (this.entries.size > this.capacity) {
      const oldest = this.entries.keys().next();
      if (!oldest.done) this.entries.delete(oldest.value);
    }
  }

  get size(): number {
    return this.entries.size;
  }

  clear(): void {
    this.entries.clear();
  }
}
