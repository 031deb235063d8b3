// A queue's waiting requests: FIFO order, O(1) removal from the middle (a request whose wait
// limit ends leaves its queue), and running sums so that shuffle sharding and dispatch never walk
// a queue. Same shape as Kubernetes' fifo_list.go.

export interface FifoItem {
  readonly initialSeats: number;
  readonly maxSeats: number;
  /** Seat-seconds in units of 1e-8, a whole number in a double (see seat-seconds.ts). */
  readonly totalWork: number;
}

/**
 * A place in a FIFO. The caller makes it and keeps it (its removal handle), so a waiting item costs
 * one object, which the caller may extend with its own fields, rather than a node and a closure.
 */
export class FifoNode<T> {
  prev: FifoNode<T> | undefined = undefined;
  next: FifoNode<T> | undefined = undefined;
  inFifo = false;

  constructor(readonly item: T) {}
}

export class RequestFifo<T extends FifoItem> {
  private head: FifoNode<T> | undefined;
  private tail: FifoNode<T> | undefined;
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

  /** Appends `node`, which must not be in a FIFO. */
  enqueue(node: FifoNode<T>): void {
    const item = node.item;
    node.prev = this.tail;
    node.inFifo = true;
    if (this.tail === undefined) this.head = node;
    else this.tail.next = node;
    this.tail = node;
    this.count++;
    this.initialSeatsSum += item.initialSeats;
    this.maxSeatsSum += item.maxSeats;
    this.totalWorkSum += item.totalWork;
  }

  dequeue(): T | undefined {
    const node = this.head;
    if (node === undefined) return undefined;
    this.remove(node);
    return node.item;
  }

  *[Symbol.iterator](): IterableIterator<T> {
    for (let node = this.head; node !== undefined; node = node.next) yield node.item;
  }

  /** Removes `node`, which is in this FIFO or in none (O(1)); a node in none is left alone and gives false. */
  remove(node: FifoNode<T>): boolean {
    if (!node.inFifo) return false;
    node.inFifo = false;
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
