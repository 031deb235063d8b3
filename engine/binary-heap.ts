// A binary min-heap of objects under a caller's order: the one heap for what waits its turn
// (deadlines, the bulk scheduler's writers, the simulator's requests on its shared CPUs). Sifting
// moves a hole rather than swapping, so each level costs one comparison and one write.
//
// Entries that must leave before their turn tell the heap where they are through `moved`: the heap
// reports every entry's new slot (and -1 when it leaves), the entry keeps it, and `removeAt` takes
// it out in O(log n) without a search. A heap that only pushes and pops passes no `moved`.
//
// SimClock keeps its own heap, specialised for the simulator's inner loop (keys in typed arrays,
// Floyd's pop): see docs/simulator.md, "Speed".

/** True when `a` comes out before `b`; a strict order (false for equal entries). */
export type Before<T> = (a: T, b: T) => boolean;

/** Told the slot an entry moved to, or -1 when it left the heap. */
export type Moved<T> = (entry: T, slot: number) => void;

const unindexed = (): void => {};

export class BinaryHeap<T> {
  private readonly items: T[] = [];

  constructor(
    private readonly before: Before<T>,
    private readonly moved: Moved<T> = unindexed,
  ) {}

  get size(): number {
    return this.items.length;
  }

  /** The first entry, left in place; undefined when empty. */
  peek(): T | undefined {
    return this.items[0];
  }

  push(entry: T): void {
    const slot = this.items.length;
    this.items.push(entry);
    this.siftUp(entry, slot);
  }

  /** Takes out the first entry; undefined when empty. */
  pop(): T | undefined {
    const top = this.items[0];
    if (top !== undefined) this.removeAt(0);
    return top;
  }

  /** Takes out the entry at `slot` (as last reported by `moved`). */
  removeAt(slot: number): void {
    const items = this.items;
    this.moved(items[slot]!, -1);
    const last = items.pop()!;
    if (slot === items.length) return;
    // The last entry fills the hole: it moves up if it comes before the hole's parent, else down.
    if (slot > 0 && this.before(last, items[(slot - 1) >> 1]!)) this.siftUp(last, slot);
    else this.siftDown(last, slot);
  }

  /** Puts `entry` in the hole at `slot`, moving it towards the root while it comes before its parent. */
  private siftUp(entry: T, slot: number): void {
    const items = this.items;
    while (slot > 0) {
      const parentSlot = (slot - 1) >> 1;
      const parent = items[parentSlot]!;
      if (!this.before(entry, parent)) break;
      items[slot] = parent;
      this.moved(parent, slot);
      slot = parentSlot;
    }
    items[slot] = entry;
    this.moved(entry, slot);
  }

  /** Puts `entry` in the hole at `slot`, moving it towards the leaves while a child comes before it. */
  private siftDown(entry: T, slot: number): void {
    const items = this.items;
    const size = items.length;
    for (;;) {
      let child = 2 * slot + 1;
      if (child >= size) break;
      if (child + 1 < size && this.before(items[child + 1]!, items[child]!)) child++;
      const next = items[child]!;
      if (!this.before(next, entry)) break;
      items[slot] = next;
      this.moved(next, slot);
      slot = child;
    }
    items[slot] = entry;
    this.moved(entry, slot);
  }
}
