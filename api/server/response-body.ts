// Writing response bodies without holding the event loop. A body that fits in one chunk goes out
// in one call, as before. A larger one (a LIST of thousands of objects, a watch's initial events)
// goes out a chunk at a time: after each chunk the writer waits for the socket if it is full
// (backpressure: a slow reader is never buffered for in memory) and otherwise lets the event loop
// run (`setImmediate`), so the TLS encryption and copying of megabytes is cut into slices of about
// 0.1 ms and other requests — other priority levels included — are served in between. Without it
// one `res.end(body)` of 3 MB encrypts the whole body in one go (about 5–8 ms of main thread here).
//
// Only `res.write`, `res.end`, 'drain' and 'close' are used, which HTTP/1.1 responses and HTTP/2
// compatibility responses both have; nothing here reaches for the socket.
import type { ServerResponse } from 'node:http';
import { setImmediate as nextTurn } from 'node:timers/promises';

/**
 * Bytes written between two turns of the event loop: small enough that encrypting them takes a
 * fraction of a millisecond, large enough that the per-write overhead stays small (docs/execution-plane.md).
 */
export const CHUNK_BYTES = 64 * 1024;

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
 * Writes one chunk, waits for the socket if it is full, then lets the event loop turn; false when
 * the response is gone. The turn is needed even after 'drain': a chunk larger than the stream's
 * high-water mark always reports a full buffer, and a socket that took it at once emits 'drain'
 * from process.nextTick, before any I/O or timer could run.
 */
export async function writeChunk(res: ServerResponse, chunk: Uint8Array, options: WriteOptions = {}): Promise<boolean> {
  if (gone(res)) return false;
  if (!res.write(chunk) && !(await drained(res, options))) return false;
  await nextTurn();
  return !gone(res);
}

/**
 * A body assembled from parts (shared, immutable byte ranges such as the watch cache's object JSON),
 * sent in chunks of at most CHUNK_BYTES. Parts are copied once, into the chunk that carries them;
 * a part larger than a chunk is sent in slices without copying.
 */
export class ChunkedBody {
  private parts: Uint8Array[] = [];
  private head = 0;
  private pending = 0;
  private readonly options: WriteOptions;
  /** The writer gave up on a full socket (`abandonWhen`) and destroyed the response. */
  abandoned = false;

  constructor(
    private readonly res: ServerResponse,
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
  }

  /** Bytes appended and not yet written. */
  get buffered(): number {
    return this.pending;
  }

  /** Adds `bytes` to the body; true once at least a whole chunk is waiting (call `flush`). */
  append(bytes: Uint8Array): boolean {
    if (bytes.byteLength > 0) {
      this.parts.push(bytes);
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

  /** Writes the whole chunks waiting (with `all`, everything waiting); false when the response is gone. */
  async flush(all = false): Promise<boolean> {
    while (this.pending >= this.chunkBytes || (all && this.pending > 0)) {
      if (!(await writeChunk(this.res, this.take(this.chunkBytes), this.options))) return false;
    }
    return true;
  }

  /** Writes everything and ends the response; false when the response was gone first. */
  async end(): Promise<boolean> {
    while (this.pending > this.chunkBytes) {
      if (!(await writeChunk(this.res, this.take(this.chunkBytes), this.options))) return false;
    }
    if (gone(this.res)) return false;
    if (this.pending > 0) this.res.end(this.take(this.pending));
    else this.res.end();
    return true;
  }

  /** The first `size` bytes waiting (at most what is waiting), as one buffer. */
  private take(size: number): Uint8Array {
    const want = Math.min(size, this.pending);
    const first = this.parts[this.head]!;
    let chunk: Uint8Array;
    if (first.byteLength >= want) {
      chunk = first.subarray(0, want);
      if (first.byteLength === want) this.head++;
      else this.parts[this.head] = first.subarray(want);
    } else {
      const taken: Uint8Array[] = [];
      let size = 0;
      while (size < want) {
        const part = this.parts[this.head]!;
        const room = want - size;
        if (part.byteLength <= room) {
          taken.push(part);
          size += part.byteLength;
          this.head++;
        } else {
          taken.push(part.subarray(0, room));
          this.parts[this.head] = part.subarray(room);
          size += room;
        }
      }
      chunk = Buffer.concat(taken, size);
    }
    this.pending -= want;
    if (this.head === this.parts.length) {
      this.parts = [];
      this.head = 0;
    }
    return chunk;
  }
}

/**
 * Sends a complete response whose body is `parts` (`byteLength` in all): in one write when it
 * fits in a chunk, else streamed. Synchronous for small bodies, so the common GET pays no promise.
 */
export function sendBody(
  res: ServerResponse,
  statusCode: number,
  contentType: string,
  parts: readonly Uint8Array[],
  byteLength: number,
): undefined | Promise<unknown> {
  if (res.headersSent) {
    if (!res.writableEnded) res.end();
    return;
  }
  res.statusCode = statusCode;
  res.setHeader('Content-Type', contentType);
  res.setHeader('Content-Length', byteLength);
  if (byteLength <= CHUNK_BYTES) {
    res.end(parts.length === 1 ? parts[0] : Buffer.concat(parts, byteLength));
    return;
  }
  const body = new ChunkedBody(res);
  for (const part of parts) body.append(part);
  return body.end();
}
