// Writing response bodies without holding the event loop. A body that fits in one chunk goes out
// in one call, as before. A larger one (a LIST of thousands of objects, a watch's initial events)
// goes out a piece at a time through the one bulk scheduler of the main thread (bulk-scheduler.ts):
// each turn of the event loop writes for at most TURN_MS over all bodies under way, round robin
// between priority levels (within a level, the body with the fewest bytes left first), so the TLS
// encryption and copying of megabytes is cut into slices and other requests (other priority
// levels included) are served in between, however many bodies are streaming. A body whose socket
// is full waits for 'drain' (backpressure: a slow reader is never buffered for in memory) before it
// asks for its next piece. Without this, one `res.end(body)` of 3 MB encrypts the whole body in one
// go (about 5–8 ms of main thread here).
//
// Only `res.write`, `res.end`, `res.getHeader`, 'drain' and 'close' are used, which HTTP/1.1
// responses and HTTP/2 compatibility responses both have; nothing here reaches for the socket.
import type { ServerResponse } from 'node:http';
import { BulkScheduler, type BulkWriter } from './bulk-scheduler.ts';
import { requestBodyRead } from './request-body.ts';
import { responseExtras } from './response-extras.ts';

/**
 * The most one body writes at a time: small enough that encrypting it takes a fraction of a
 * millisecond, large enough that the per-write overhead stays small (docs/execution-plane.md).
 */
export const CHUNK_BYTES = 64 * 1024;

/**
 * How long one turn of the event loop writes bodies, over all bodies streaming: the execution
 * plane's line for work held on the main thread (docs/execution-plane.md).
 */
export const TURN_MS = 0.5;

/** The most one turn writes, whatever the clock says. */
export const TURN_BYTES = 1024 * 1024;

/**
 * Whole pieces of a LIST's copy loop whose write has completed, for the next pieces. A flood of
 * LISTs allocates a fresh 64 KiB buffer per piece otherwise: V8 then scavenges every ~50 ms for the
 * external memory alone, promotes every LIST's young objects, and on a small old generation falls
 * into back-to-back mark-compacts that stall every priority level (docs/execution-plane.md, "Garbage").
 */
const sparePieces: Buffer[] = [];
const SPARE_PIECES_MAX = 64;

function returnPiece(piece: Buffer): (error?: Error | null) => void {
  // Only a write that completed is done with the bytes; a failed one may leave them anywhere.
  return (error) => {
    if (error == null && sparePieces.length < SPARE_PIECES_MAX) sparePieces.push(piece);
  };
}

const mainScheduler = new BulkScheduler({
  defer: setImmediate,
  now: () => performance.now(),
  turnMs: TURN_MS,
  turnBytes: TURN_BYTES,
  grantBytes: CHUNK_BYTES,
});

/** The response is over: sent, abandoned by the client, or cut by a time-out. */
function gone(res: ServerResponse): boolean {
  return res.destroyed || res.writableEnded;
}

/** How often a writer waiting for a full socket asks whether to give up (`abandonWhen`). */
export const STALL_CHECK_MS = 2_000;

export interface WriteOptions {
  /**
   * Asked every STALL_CHECK_MS while the socket stays full; true destroys the response. A watch
   * gives up once the store has cut off its watcher for falling behind.
   */
  abandonWhen?: () => boolean;
  /** Who grants the writes: the main thread's one scheduler, unless a test brings its own. */
  scheduler?: BulkScheduler;
}

/** Resolves true when the socket takes more, false when the response closes (or is abandoned) first. */
function drained(res: ServerResponse, options: WriteOptions): Promise<boolean> {
  return new Promise((resolve) => {
    const onDrain = () => done(true);
    const onClose = () => done(false);
    const abandonWhen = options.abandonWhen;
    const check =
      abandonWhen === undefined
        ? undefined
        : setInterval(() => {
            if (!abandonWhen()) return;
            res.destroy();
            done(false);
          }, STALL_CHECK_MS);
    const done = (flowing: boolean) => {
      if (check !== undefined) clearInterval(check);
      res.off('drain', onDrain);
      res.off('close', onClose);
      resolve(flowing);
    };
    res.on('drain', onDrain);
    res.on('close', onClose);
  });
}

/**
 * Byte ranges sent one after another, read by index. A plain array is one; a LIST's body is another
 * (its head, each item's cached JSON with commas between, its tail) that needs no array of its own.
 */
export interface BodyParts {
  readonly length: number;
  at(index: number): Uint8Array | undefined;
}

/**
 * A body assembled from parts (shared, immutable byte ranges such as the watch cache's object JSON),
 * sent in pieces of at most CHUNK_BYTES as the bulk scheduler grants them. Parts are copied once,
 * into the piece that carries them; a part larger than a piece is sent in slices without copying.
 * One `flush` or `end` at a time.
 */
export class ChunkedBody implements BulkWriter {
  /** What is waiting, in order: the current part is `segments[segment].at(index)`, from `offset` on. */
  private segments: BodyParts[] = [];
  private segment = 0;
  private index = 0;
  private offset = 0;
  /** The last segment when it is this body's own array of appended parts. */
  private loose: Uint8Array[] | undefined;
  private pending = 0;
  private readonly options: WriteOptions;
  private readonly scheduler: BulkScheduler;
  /** Bytes that may stay unwritten once the flush under way is done: less than a chunk, or none. */
  private keep = 0;
  /** The flush under way ends the response. */
  private ending = false;
  private settle: ((sent: boolean) => void) | undefined;
  bulkQueued = false;
  bulkRank = 0;
  /** The piece `take` just filled from the spare pieces: it goes back once written. */
  private ownPiece: Buffer | undefined;
  /** The writer gave up on a full socket (`abandonWhen`) and destroyed the response. */
  abandoned = false;

  /** `flow`: whose turn the bulk scheduler gives this body (the request's priority level; '' for none). */
  constructor(
    private readonly res: ServerResponse,
    private readonly flow: string,
    options: WriteOptions = {},
    private readonly chunkBytes = CHUNK_BYTES,
  ) {
    const abandonWhen = options.abandonWhen;
    this.options =
      abandonWhen === undefined
        ? {}
        : {
            abandonWhen: () => {
              this.abandoned ||= abandonWhen();
              return this.abandoned;
            },
          };
    this.scheduler = options.scheduler ?? mainScheduler;
  }

  /** Bytes appended and not yet written. */
  get buffered(): number {
    return this.pending;
  }

  /** Adds `bytes` to the body; true once at least a whole chunk is waiting (call `flush`). */
  append(bytes: Uint8Array): boolean {
    if (bytes.byteLength > 0) {
      if (this.loose === undefined) {
        this.loose = [];
        this.segments.push(this.loose);
      }
      this.loose.push(bytes);
      this.pending += bytes.byteLength;
    }
    return this.pending >= this.chunkBytes;
  }

  /**
   * After a write to the response (made elsewhere) returned false: resolves true once it takes more,
   * false when it closes or is abandoned first.
   */
  drained(): Promise<boolean> {
    if (gone(this.res)) return Promise.resolve(false);
    return drained(this.res, this.options);
  }

  /** Adds `parts` (`byteLength` bytes in all), kept by reference and read as they are sent. */
  appendParts(parts: BodyParts, byteLength: number): boolean {
    if (byteLength > 0) {
      this.segments.push(parts);
      this.loose = undefined;
      this.pending += byteLength;
    }
    return this.pending >= this.chunkBytes;
  }

  /** Writes until less than a chunk is waiting (with `all`, everything); false when the response is gone. */
  flush(all = false): Promise<boolean> {
    if (this.pending < this.chunkBytes && !(all && this.pending > 0)) return Promise.resolve(true);
    return this.start(all ? 0 : this.chunkBytes - 1, false);
  }

  /** Writes everything and ends the response; false when the response was gone first. */
  end(): Promise<boolean> {
    if (gone(this.res)) return Promise.resolve(false);
    if (this.pending === 0) {
      this.res.end();
      return Promise.resolve(true);
    }
    return this.start(0, true);
  }

  private start(keep: number, ending: boolean): Promise<boolean> {
    if (this.settle !== undefined) throw new Error('ChunkedBody: a flush is already under way');
    this.keep = keep;
    this.ending = ending;
    return new Promise((resolve) => {
      this.settle = resolve;
      this.scheduler.request(this, this.flow, this.pending);
    });
  }

  /** The scheduler's grant: one piece, then either ask again, wait for 'drain', or be done. */
  writeSome(maxBytes: number): number {
    const res = this.res;
    if (gone(res)) {
      this.finish(false);
      return 0;
    }
    const size = Math.min(maxBytes, this.pending);
    const piece = this.take(size);
    const written = this.ownPiece === undefined ? undefined : returnPiece(this.ownPiece);
    this.ownPiece = undefined;
    let flowing: boolean;
    try {
      if (this.ending && this.pending === 0) {
        res.end(piece, written);
        this.finish(true);
        return size;
      }
      flowing = written === undefined ? res.write(piece) : res.write(piece, written);
    } catch {
      // Runs inside the scheduler's turn, where a throw would reach no handler: the response is lost.
      res.destroy();
      this.finish(false);
      return size;
    }
    if (flowing) this.next(true);
    else void drained(res, this.options).then(this.next);
    return size;
  }

  /** After a piece went out (and the socket took it, when `flowing`): the next piece, or done. */
  private readonly next = (flowing: boolean): void => {
    if (!flowing) this.finish(false);
    else if (this.pending > this.keep) this.scheduler.request(this, this.flow, this.pending);
    else this.finish(true);
  };

  private finish(sent: boolean): void {
    const settle = this.settle;
    this.settle = undefined;
    settle?.(sent);
  }

  /** The first `size` bytes waiting (at most what is waiting), as one buffer: a view when one part holds them. */
  private take(size: number): Uint8Array {
    const want = Math.min(size, this.pending);
    const first = this.current();
    let piece: Uint8Array;
    if (first.byteLength - this.offset >= want) {
      piece = this.offset === 0 && want === first.byteLength ? first : first.subarray(this.offset, this.offset + want);
      this.offset += want;
    } else {
      // The copy loop of a LIST: tens of parts per piece, thousands per body.
      if (want === CHUNK_BYTES) {
        this.ownPiece = sparePieces.pop() ?? Buffer.allocUnsafeSlow(CHUNK_BYTES);
        piece = this.ownPiece;
      } else piece = Buffer.allocUnsafe(want);
      let segment = this.segments[this.segment]!;
      let index = this.index;
      let offset = this.offset;
      let filled = 0;
      while (filled < want) {
        if (index >= segment.length) {
          segment = this.segments[++this.segment]!;
          index = 0;
          continue;
        }
        const part = segment.at(index)!;
        const left = part.byteLength - offset;
        const n = left < want - filled ? left : want - filled;
        if (n === part.byteLength) piece.set(part, filled);
        else if (n > 0) piece.set(part.subarray(offset, offset + n), filled);
        filled += n;
        if (n === left) {
          index++;
          offset = 0;
        } else offset += n;
      }
      this.index = index;
      this.offset = offset;
    }
    this.pending -= want;
    if (this.pending === 0) {
      this.segments = [];
      this.segment = 0;
      this.index = 0;
      this.offset = 0;
      this.loose = undefined;
    }
    return piece;
  }

  /** The part with bytes left at the read position (there is one while `pending` > 0). */
  private current(): Uint8Array {
    for (;;) {
      const segment = this.segments[this.segment]!;
      if (this.index >= segment.length) {
        this.segment++;
        this.index = 0;
        continue;
      }
      const part = segment.at(this.index)!;
      if (this.offset < part.byteLength) return part;
      this.index++;
      this.offset = 0;
    }
  }
}

/**
 * Sends a complete response whose body is `parts` (`byteLength` in all): in one write when it
 * fits in a chunk, else streamed as `flow` (ChunkedBody). Synchronous for small bodies, so the
 * common GET pays no promise.
 */
export function sendBody(
  res: ServerResponse,
  flow: string,
  statusCode: number,
  contentType: string,
  parts: BodyParts,
  byteLength: number,
): undefined | Promise<unknown> {
  if (!startBody(res, statusCode, contentType, byteLength)) return;
  if (byteLength <= CHUNK_BYTES) {
    res.end(parts.length === 1 ? parts.at(0) : joined(parts, byteLength));
    return;
  }
  const body = new ChunkedBody(res, flow);
  body.appendParts(parts, byteLength);
  return body.end();
}

/** `sendBody` of one buffer (a GET's cached bytes), without an array around it. */
export function sendBytes(res: ServerResponse, flow: string, statusCode: number, contentType: string, bytes: Uint8Array): undefined | Promise<unknown> {
  const byteLength = bytes.byteLength;
  if (!startBody(res, statusCode, contentType, byteLength)) return;
  if (byteLength <= CHUNK_BYTES) {
    res.end(bytes);
    return;
  }
  const body = new ChunkedBody(res, flow);
  body.append(bytes);
  return body.end();
}

/** The status and headers of a complete body; false (the response ended) when a head went out already. */
function startBody(res: ServerResponse, statusCode: number, contentType: string, byteLength: number): boolean {
  if (res.headersSent) {
    if (!res.writableEnded) res.end();
    return false;
  }
  // Over HTTP/1.1 with the request read (no early-response rule adds a header), the head is written
  // from one array: Node validates and serializes the pair without keeping a header dictionary.
  if (responseExtras(res) !== undefined && requestBodyRead(res.req)) {
    res.writeHead(statusCode, ['Content-Type', contentType, 'Content-Length', byteLength]);
    return true;
  }
  res.statusCode = statusCode;
  res.setHeader('Content-Type', contentType);
  res.setHeader('Content-Length', byteLength);
  return true;
}

/** `parts` in one buffer. */
function joined(parts: BodyParts, byteLength: number): Uint8Array {
  if (Array.isArray(parts)) return Buffer.concat(parts, byteLength);
  const bytes = Buffer.allocUnsafe(byteLength);
  let at = 0;
  for (let i = 0; i < parts.length; i++) {
    const part = parts.at(i)!;
    bytes.set(part, at);
    at += part.byteLength;
  }
  return bytes;
}
