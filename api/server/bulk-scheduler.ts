// One scheduler for the bulk bytes of every streaming response body on the main thread. Each body
// writing its own chunk per turn of the event loop let a turn grow with the number of bodies under
// way: twelve LISTs meant twelve 64 KiB TLS writes (over a millisecond) between two reads of the
// sockets, so a small GET of another priority level waited behind all of them. Here one turn of the
// event loop writes for at most `turnMs` (and `turnBytes`) in all, however many bodies are waiting,
// handed out round robin across flows (priority levels) first and then across the writers of a
// flow, as APF shares seats between levels before it shares them between a level's flows.
// Everything else the loop has to do (reading requests, serving small responses) runs between two
// turns. The budget is time, not bytes, because the cost of a write is not only its bytes: a write
// has a fixed cost (a TLS record, a system call), and a loaded machine encrypts more slowly.
//
// Pure: the turn is deferred through an injected function (setImmediate on the server) and time is
// read through an injected clock, so tests drive it step by step.

/** A body with bytes to send. The scheduler owns `bulkQueued`; the writer only reads it. */
export interface BulkWriter {
  bulkQueued: boolean;
  /**
   * Writes at most `maxBytes` (> 0) now and returns how many it wrote. A writer that has more to
   * send and can send it (its socket is not full) asks again with `request`, from here or later.
   */
  writeSome(maxBytes: number): number;
}

interface Flow {
  readonly key: string;
  readonly writers: (BulkWriter | undefined)[];
  head: number;
  inRing: boolean;
}

export interface BulkSchedulerOptions {
  /** Runs `turn` once the event loop has served what is waiting (setImmediate). */
  defer: (turn: () => void) => void;
  /** A monotonic clock in milliseconds. */
  now: () => number;
  /** How long one turn may write, over all writers; a turn makes at least one grant. */
  turnMs: number;
  /** The most one turn writes, whatever the clock says. */
  turnBytes: number;
  /** The most one writer gets per grant. */
  grantBytes: number;
}

export class BulkScheduler {
  private readonly flows = new Map<string, Flow>();
  /** Flows with writers waiting, served in turn from `cursor`. */
  private readonly ring: Flow[] = [];
  private cursor = 0;
  private deferred = false;
  private running = false;
  private readonly runTurn = () => this.turn();

  constructor(private readonly options: BulkSchedulerOptions) {}

  /** Writers waiting, over all flows (for tests and metrics). */
  get waiting(): number {
    let n = 0;
    for (const flow of this.ring) n += flow.writers.length - flow.head;
    return n;
  }

  /** Queues `writer` in `flow` for a grant in a coming turn; a writer already queued stays where it is. */
  request(writer: BulkWriter, flow: string): void {
    if (writer.bulkQueued) return;
    writer.bulkQueued = true;
    let queue = this.flows.get(flow);
    if (queue === undefined) {
      queue = { key: flow, writers: [], head: 0, inRing: false };
      this.flows.set(flow, queue);
    }
    queue.writers.push(writer);
    if (!queue.inRing) {
      queue.inRing = true;
      this.ring.push(queue);
    }
    if (!this.running && !this.deferred) {
      this.deferred = true;
      this.options.defer(this.runTurn);
    }
  }

  private turn(): void {
    this.deferred = false;
    this.running = true;
    const { now, turnMs, turnBytes, grantBytes } = this.options;
    const start = now();
    let budget = turnBytes;
    try {
      while (budget > 0 && this.ring.length > 0) {
        if (this.cursor >= this.ring.length) this.cursor = 0;
        const flow = this.ring[this.cursor]!;
        const writer = flow.writers[flow.head];
        if (writer === undefined) {
          this.retire(flow);
          continue;
        }
        flow.writers[flow.head++] = undefined;
        writer.bulkQueued = false;
        budget -= writer.writeSome(Math.min(grantBytes, budget));
        if (flow.head < flow.writers.length) {
          // A flow that never empties (writers asking again) would grow its array forever.
          if (flow.head >= 64 && flow.head * 2 >= flow.writers.length) {
            flow.writers.splice(0, flow.head);
            flow.head = 0;
          }
          this.cursor++;
        } else this.retire(flow);
        if (now() - start >= turnMs) break;
      }
    } finally {
      this.running = false;
      if (this.ring.length > 0 && !this.deferred) {
        this.deferred = true;
        this.options.defer(this.runTurn);
      }
    }
  }

  /** The flow at the cursor has nobody waiting: out of the ring (the next flow moves up to the cursor). */
  private retire(flow: Flow): void {
    flow.writers.length = 0;
    flow.head = 0;
    flow.inRing = false;
    this.ring.splice(this.cursor, 1);
    this.flows.delete(flow.key);
  }
}
