// A queue's waiting requests: FIFO order, O(1) removal from the middle (a request whose wait
// limit ends leaves its queue), and running sums so that shuffle sharding and dispatch never walk
// a queue. Same shape as Kubernetes' fifo_list.go.

export interface FifoItem {
  readonly initialSeats: number;
  readonly maxSeats: number;
  /** Seat-seconds in units of 1e-8, a whole number in a double (see seat-seconds.ts). */
  readonly totalWork: number;
}

interface Node<T> {
  item: T;
  prev: Node<T> | undefined;
  next: Node<T> | undefined;
  removed: boolean;
}

/** Removes the item it was returned for; a second call does nothing and returns false. */
export type RemoveFromFifo = () => boolean;

export class RequestFifo<T extends FifoItem> {
  private head: Node<T> | undefined;
  private tail: Node<T> | undefined;
  private count = 0;
  initialSeatsSum = 0;
  maxSeatsSum = 0;
  totalWorkSum = 0;

  get length(): number {
    return this.count;
  }

  peek(): T | undefined {
    return this.head?.item;
  }

  enqueue(item: T): RemoveFromFifo {
    const node: Node<T> = { item, prev: this.tail, next: undefined, removed: false };
    if (this.tail === undefined) this.head = node;
    else this.tail.next = node;
    this.tail = node;
    this.count++;
    this.initialSeatsSum += item.initialSeats;
    this.maxSeatsSum += item.maxSeats;
    this.totalWorkSum += item.totalWork;
    return () => this.unlink(node);
  }

  dequeue(): T | undefined {
    const node = this.head;
    if (node === undefined) return undefined;
    this.unlink(node);
    return node.item;
  }

  *[Symbol.iterator](): IterableIterator<T> {
    for (let node = this.head; node !== undefined; node = node.next) yield node.item;
  }

  private unlink(node: Node<T>): boolean {
    if (node.removed) return false;
    node.removed = true;
    if (node.prev === undefined) this.head = node.next;
    else node.prev.next = node.next;
    if (node.next === undefined) this.tail = node.prev;
    else node.next.prev = node.prev;
    // A dead node that kept its links would hold its neighbours alive through the young-generation
    // collector's remembered set once it sits in the old generation: every later node (and the
    // request it carries) would be promoted in turn. Unlinked nodes point at nothing.
    node.prev = undefined;
    node.next = undefined;
    this.count--;
    this.initialSeatsSum -= node.item.initialSeats;
    this.maxSeatsSum -= node.item.maxSeats;
    this.totalWorkSum -= node.item.totalWork;
    return true;
  }
}
