// One scheduler for the bulk bytes of every streaming response body on the main thread. Each body
// writing its own chunk per turn of the event loop let a turn grow with the number of bodies under
// way: twelve LISTs meant twelve 64 KiB TLS writes (over a millisecond) between two reads of the
// sockets, so a small GET of another priority level waited behind all of them. Here one turn of the
// event loop writes for at most `turnMs` (and `turnBytes`) in all, however many bodies are waiting,
// handed out round robin across flows (priority levels), as APF shares seats between levels before
// it shares them within one. Everything else the loop has to do (reading requests, serving small
// responses) runs between two turns. The budget is time, not bytes, because the cost of a write is
// not only its bytes: a write has a fixed cost (a TLS record, a system call), and a loaded machine
// encrypts more slowly.
//
// Within a flow the body with the fewest bytes left goes first (the older one on a tie): a small
// body is not held up behind a large one, and bodies of equal size finish one after another. In
// round robin, equal bodies end within a few turns of each other, so their clients' next requests
// arrive, and are set up, together in one block.
//
// Pure: the turn is deferred through an injected function (setImmediate on the server) and time is
// read through an injected clock, so tests drive it step by step.
//
// Each turn is published on the diagnostics channel `fairway:bulk-scheduler:turn` (BulkTurn) when
// something subscribes (bench/isolation-trace.mjs does, to lay turns over slow requests); nothing is
// built otherwise.
import { channel } from 'node:diagnostics_channel';
import { BinaryHeap } from '../../engine/binary-heap.ts';

/** A body with bytes to send. The scheduler owns `bulkQueued` and `bulkRank`; the writer only reads them. */
export interface BulkWriter {
  bulkQueued: boolean;
  bulkRank: number;
  /**
   * Writes at most `maxBytes` (> 0) now and returns how many it wrote. A writer that has more to
   * send and can send it (its socket is not full) asks again with `request`, from here or later.
   */
  writeSome(maxBytes: number): number;
}

interface Flow {
  readonly key: string;
  /** By bytes left, then request order, packed into `bulkRank`. */
  readonly writers: BinaryHeap<BulkWriter>;
  inRing: boolean;
}

/** What `fairway:bulk-scheduler:turn` carries: one turn, on the scheduler's clock. */
export interface BulkTurn {
  startMs: number;
  durationMs: number;
  bytes: number;
  grants: number;
}

export const BULK_TURN_CHANNEL = 'fairway:bulk-scheduler:turn';
const turnChannel = channel(BULK_TURN_CHANNEL);

/** Request order breaks ties between equal sizes; sizes above 2^32 bytes compare as equal. */
const ORDER_SPAN = 2 ** 20;

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
  private requests = 0;
  private deferred = false;
  private running = false;
  private readonly runTurn = () => this.turn();

  constructor(private readonly options: BulkSchedulerOptions) {}

  /** Writers waiting, over all flows. */
  get waiting(): number {
    let n = 0;
    for (const flow of this.ring) n += flow.writers.size;
    return n;
  }

  /**
   * Queues `writer`, which has `bytesLeft` to send, in `flow` for a grant in a coming turn; a writer
   * already queued stays where it is.
   */
  request(writer: BulkWriter, flow: string, bytesLeft: number): void {
    if (writer.bulkQueued) return;
    writer.bulkQueued = true;
    writer.bulkRank = Math.min(bytesLeft, 2 ** 32) * ORDER_SPAN + (this.requests++ % ORDER_SPAN);
    let queue = this.flows.get(flow);
    if (queue === undefined) {
      queue = { key: flow, writers: new BinaryHeap(byRank), inRing: false };
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
    let grants = 0;
    let bytes = 0;
    try {
      while (budget > 0 && this.ring.length > 0) {
        if (this.cursor >= this.ring.length) this.cursor = 0;
        const flow = this.ring[this.cursor]!;
        const writer = flow.writers.pop();
        if (writer === undefined) {
          this.retire(flow);
          continue;
        }
        writer.bulkQueued = false;
        grants++;
        const written = writer.writeSome(Math.min(grantBytes, budget));
        bytes += written;
        budget -= written;
        if (flow.writers.size > 0) this.cursor++;
        else this.retire(flow);
        if (now() - start >= turnMs) break;
      }
    } finally {
      this.running = false;
      if (turnChannel.hasSubscribers) {
        const turn: BulkTurn = { startMs: start, durationMs: now() - start, bytes, grants };
        turnChannel.publish(turn);
      }
      if (this.ring.length > 0 && !this.deferred) {
        this.deferred = true;
        this.options.defer(this.runTurn);
      }
    }
  }

  /** The flow at the cursor has nobody waiting: out of the ring (the next flow moves up to the cursor). */
  private retire(flow: Flow): void {
    flow.inRing = false;
    this.ring.splice(this.cursor, 1);
    this.flows.delete(flow.key);
  }
}

function byRank(a: BulkWriter, b: BulkWriter): boolean {
  return a.bulkRank < b.bulkRank;
}
