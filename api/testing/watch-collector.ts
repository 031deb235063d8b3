// What every streaming-response client of the tests keeps: the HTTP status, newline-separated
// JSON events as they complete, bytes received, whether (and how) the stream ended, and waiters
// woken on each change. The HTTP/1.1 and HTTP/2 clients feed it from their own transports.
import { takeJsonLines } from './json-lines.ts';

export class WatchCollector {
  /** Every complete event line, parsed, in order. */
  readonly events: any[] = [];
  /** The HTTP status, once the response has started (0 before). */
  status = 0;
  /** The stream ended (cleanly: `complete`; or by a reset or error). */
  ended = false;
  /** The response ended normally (not cut off). */
  complete = false;
  bytes = 0;
  private buffer = '';
  private waiters: (() => void)[] = [];

  started(status: number): void {
    this.status = status;
    this.wake();
  }

  take(chunk: Buffer): void {
    this.bytes += chunk.length;
    this.buffer = takeJsonLines(this.buffer, chunk, this.events);
    this.wake();
  }

  end(complete = false): void {
    if (complete) this.complete = true;
    this.ended = true;
    this.wake();
  }

  /** Resolves once `predicate()` holds or the stream has ended. */
  async until(predicate: () => boolean): Promise<void> {
    while (!predicate() && !this.ended) await new Promise<void>((resolve) => this.waiters.push(resolve));
  }

  private wake(): void {
    const woken = this.waiters;
    this.waiters = [];
    for (const waiter of woken) waiter();
  }
}
