// Load helpers for the reliability tests: one timed HTTPS request that can read its response
// slowly (a client on a slow link), closed-loop workers, and the statistics the tests report.
// Loopback only; every request carries its own timeout so a stuck server fails a test instead of
// hanging it.
import { WatchCollector } from './watch-collector.ts';
import { type Agent, request } from 'node:https';

export interface TimedResponse {
  /** HTTP status, or 0 when the request failed at the connection (see `error`). */
  status: number;
  headers: Record<string, string | string[] | undefined>;
  /** The body, unless `discardBody` was asked for. */
  text: string;
  /** The same body as bytes (for binary bodies such as protobuf). */
  body: Buffer;
  bytes: number;
  /** From sending the request to the last body byte. */
  ms: number;
  error?: string;
}

export interface TimedRequestOptions {
  method?: string;
  token?: string;
  body?: string | Buffer | undefined;
  headers?: Record<string, string> | undefined;
  /** Before reading the body, wait this long (the response stays unread on the socket). */
  holdMs?: number;
  /** Hold only 2xx responses (a rejection's few bytes are read at once). */
  holdOnlyOk?: boolean;
  /** Count a 2xx body's bytes but keep none of it (large LISTs); error bodies are always kept. */
  discardBody?: boolean;
  timeoutMs?: number;
  agent?: Agent;
}

export interface Endpoint {
  url: string;
  caPem: string;
}

export function timedRequest(endpoint: Endpoint, path: string, options: TimedRequestOptions = {}): Promise<TimedResponse> {
  const headers: Record<string, string> = { ...(options.headers ?? {}) };
  if (options.token !== undefined) headers.Authorization = `Bearer ${options.token}`;
  if (options.body !== undefined) {
    headers['Content-Type'] ??= 'application/json';
    headers['Content-Length'] = String(Buffer.byteLength(options.body));
  }
  const startMs = performance.now();
  return new Promise((resolve) => {
    let settled = false;
    const finish = (response: Omit<TimedResponse, 'ms'>) => {
      if (settled) return;
      settled = true;
      resolve({ ...response, ms: performance.now() - startMs });
    };
    const req = request(
      new URL(path, endpoint.url),
      { method: options.method ?? 'GET', headers, ca: endpoint.caPem, ...(options.agent !== undefined ? { agent: options.agent } : {}) },
      (res) => {
        const chunks: Buffer[] = [];
        let bytes = 0;
        const ok = (res.statusCode ?? 0) >= 200 && (res.statusCode ?? 0) < 300;
        const keep = !(ok && options.discardBody === true);
        res.on('data', (chunk: Buffer) => {
          bytes += chunk.length;
          if (keep) chunks.push(chunk);
        });
        res.on('end', () => {
          const body = Buffer.concat(chunks);
          finish({ status: res.statusCode ?? 0, headers: res.headers, text: body.toString('utf8'), body, bytes });
        });
        res.on('error', (error) => finish({ status: 0, headers: {}, text: '', body: Buffer.alloc(0), bytes, error: error.message }));
        if ((options.holdMs ?? 0) > 0 && (ok || options.holdOnlyOk !== true)) {
          res.pause();
          setTimeout(() => res.resume(), options.holdMs);
        }
      },
    );
    req.setTimeout(options.timeoutMs ?? 30_000, () => req.destroy(new Error('client timeout')));
    req.on('error', (error) => finish({ status: 0, headers: {}, text: '', body: Buffer.alloc(0), bytes: 0, error: error.message }));
    req.end(options.body);
  });
}

/** Runs `work` in `workers` closed loops (the next call starts when the previous one ends) until `stop()`. */
export function closedLoop(workers: number, work: (worker: number) => Promise<void>): { stop(): Promise<void> } {
  let running = true;
  const loops = Array.from({ length: workers }, async (_, worker) => {
    while (running) await work(worker);
  });
  return {
    async stop() {
      running = false;
      await Promise.all(loops);
    },
  };
}

/** The p-th percentile (0–100) by the nearest-rank method; NaN for no values. */
export function percentile(values: readonly number[], p: number): number {
  if (values.length === 0) return Number.NaN;
  const sorted = [...values].sort((a, b) => a - b);
  const rank = Math.max(1, Math.ceil((p / 100) * sorted.length));
  return sorted[rank - 1]!;
}

/** Responses counted by status (`0` for connection failures). */
export class StatusCounts {
  readonly byStatus = new Map<number, number>();

  add(status: number): void {
    this.byStatus.set(status, (this.byStatus.get(status) ?? 0) + 1);
  }

  get(status: number): number {
    return this.byStatus.get(status) ?? 0;
  }

  get total(): number {
    let total = 0;
    for (const count of this.byStatus.values()) total += count;
    return total;
  }

  /** Statuses matching `predicate`, summed. */
  count(predicate: (status: number) => boolean): number {
    let total = 0;
    for (const [status, count] of this.byStatus) if (predicate(status)) total += count;
    return total;
  }

  toString(): string {
    return [...this.byStatus]
      .sort(([a], [b]) => a - b)
      .map(([status, count]) => `${status}×${count}`)
      .join(' ');
  }
}

/** Sleeps; tests use it only to pace load, never to wait for a result. */
export const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

export interface WatchStream {
  /** Every complete event line, parsed, in order. */
  readonly events: any[];
  /** The HTTP status, once the response has started (0 before). */
  readonly status: number;
  /** The stream ended (cleanly: `complete`; or by a reset or error). */
  readonly ended: boolean;
  /** The response ended with its terminating chunk (not cut off). */
  readonly complete: boolean;
  /** Bytes received so far. */
  readonly bytes: number;
  /** Resolves once `predicate()` holds or the stream has ended. */
  until(predicate: () => boolean): Promise<void>;
  /** Stops reading: what the server sends piles up in the socket buffers. */
  pause(): void;
  resume(): void;
  close(): void;
}

/** A watch (any streaming GET): newline-separated JSON events as they arrive. */
export function openWatch(endpoint: Endpoint, path: string, token: string): WatchStream {
  const watch = new WatchCollector();
  let response: import('node:http').IncomingMessage | undefined;
  const end = () => watch.end();
  const req = request(
    new URL(path, endpoint.url),
    { method: 'GET', headers: { Authorization: `Bearer ${token}` }, ca: endpoint.caPem, agent: false },
    (res) => {
      response = res;
      res.on('data', (chunk: Buffer) => watch.take(chunk));
      res.on('end', () => watch.end(res.complete));
      res.on('error', end);
      res.on('close', end);
      watch.started(res.statusCode ?? 0);
    },
  );
  req.on('error', end);
  req.end();
  return {
    events: watch.events,
    get status() {
      return watch.status;
    },
    get ended() {
      return watch.ended;
    },
    get complete() {
      return watch.complete;
    },
    get bytes() {
      return watch.bytes;
    },
    until: (predicate) => watch.until(predicate),
    pause: () => response?.pause(),
    resume: () => response?.resume(),
    close: () => req.destroy(),
  };
}
