// A memo for hot-path pure functions (flow hashes, shuffle-sharding hands) whose key space is
// unbounded (user names). When full it starts over rather than tracking recency: the working set
// of flows refills it within a few requests, and clearing is deterministic and O(1) amortised.

export class BoundedCache<K, V> {
  private readonly entries = new Map<K, V>();

  constructor(private readonly capacity: number) {}

  get(key: K, compute: (key: K) => V): V {
    const hit = this.entries.get(key);
    if (hit !== undefined) return hit;
    const value = compute(key);
    this.set(key, value);
    return value;
  }

  /** The value kept for `key`, without computing one: for callers that keep only some results. */
  peek(key: K): V | undefined {
    return this.entries.get(key);
  }

  set(key: K, value: V): void {
    if (this.entries.size >= this.capacity) this.entries.clear();
    this.entries.set(key, value);
  }

  get size(): number {
    return this.entries.size;
  }
}
