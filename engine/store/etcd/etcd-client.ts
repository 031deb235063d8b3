// The etcd client the backend uses: etcd's KV calls (Range, Txn, Put, DeleteRange, Compact) as
// typed methods over one EtcdTransport (grpc-js channels, a breaker per member; the watch streams
// on the same transport, etcd-watch.ts), with messages from etcd-proto.ts. Also the parts of a
// call's life the backend decides itself: endpoint parsing, per-attempt deadlines from the
// injected clock, and a retry loop that tells each attempt whether an earlier one's outcome is
// unknown (a retried transaction is not idempotent: the backend can tell whether it was applied).

import type { Clock } from '../../clock.ts';
import { isRetryable } from './etcd-errors.ts';
import {
  decodeCompactionResponse,
  decodeDeleteRangeResponse,
  decodePutResponse,
  decodeRangeResponse,
  decodeTxnResponse,
  encodeCompactionRequest,
  encodeDeleteRangeRequest,
  encodePutRequest,
  encodeRangeRequest,
  encodeTxnRequest,
  type EtcdCompactionRequest,
  type EtcdDeleteRangeRequest,
  type EtcdHeaderResponse,
  type EtcdPutRequest,
  type EtcdRangeRequest,
  type EtcdRangeResponse,
  type EtcdTxnRequest,
  type EtcdTxnResponse,
} from './etcd-proto.ts';
import { COMPACT_PATH, DELETE_RANGE_PATH, EtcdTransport, PUT_PATH, RANGE_PATH, TXN_PATH } from './etcd-transport.ts';

export interface EtcdConnectionOptions {
  /** Client URLs, `http://host:port`. */
  readonly endpoints: readonly string[];
  readonly clock: Clock;
  /** The whole budget of one call, retries included. */
  readonly requestTimeoutMs: number;
}

/** Parses `--etcd-servers`: comma-separated `http://host:port` URLs. Throws a readable Error. */
export function parseEtcdServers(text: string): string[] {
  const urls = text
    .split(',')
    .map((s) => s.trim())
    .filter((s) => s.length > 0);
  if (urls.length === 0) throw new Error('--etcd-servers: at least one etcd URL is required (http://host:port)');
  for (const url of urls) {
    if (/^https:\/\//i.test(url)) throw new Error(`--etcd-servers: ${url}: TLS to etcd is not supported yet; use http:// on a trusted network`);
    const match = /^http:\/\/([^/:]+|\[[0-9a-fA-F:.]+\]):(\d{1,5})\/?$/.exec(url);
    if (match === null || Number(match[2]) < 1 || Number(match[2]) > 65535) {
      throw new Error(`--etcd-servers: ${JSON.stringify(url)} is not a URL of the form http://host:port`);
    }
  }
  return urls;
}

/**
 * etcd's KV service on a set of members. Each call is one attempt on one member, failing with the
 * errors of etcd-errors.ts; `deadlineMs` is on the clock's time line (attemptDeadline).
 */
export class EtcdClient {
  readonly transport: EtcdTransport;

  constructor(endpoints: readonly string[], clock: Clock) {
    this.transport = new EtcdTransport(endpoints, clock);
  }

  /** Linearizable (etcd's default): the member confirms with the leader that it is current. */
  range(request: EtcdRangeRequest, deadlineMs: number): Promise<EtcdRangeResponse> {
    return this.transport.unary(RANGE_PATH, encodeRangeRequest(request), deadlineMs, decodeRangeResponse);
  }

  txn(request: EtcdTxnRequest, deadlineMs: number): Promise<EtcdTxnResponse> {
    return this.transport.unary(TXN_PATH, encodeTxnRequest(request), deadlineMs, decodeTxnResponse);
  }

  put(request: EtcdPutRequest, deadlineMs: number): Promise<EtcdHeaderResponse> {
    return this.transport.unary(PUT_PATH, encodePutRequest(request), deadlineMs, decodePutResponse);
  }

  deleteRange(request: EtcdDeleteRangeRequest, deadlineMs: number): Promise<EtcdHeaderResponse> {
    return this.transport.unary(DELETE_RANGE_PATH, encodeDeleteRangeRequest(request), deadlineMs, decodeDeleteRangeResponse);
  }

  /** Fails with OUT_OF_RANGE "etcdserver: mvcc: required revision has been compacted" at or below an earlier compaction. */
  compact(request: EtcdCompactionRequest, deadlineMs: number): Promise<EtcdHeaderResponse> {
    return this.transport.unary(COMPACT_PATH, encodeCompactionRequest(request), deadlineMs, decodeCompactionResponse);
  }

  /** Calls under way fail with EtcdClientClosedError, as does every later call. */
  close(): void {
    this.transport.close();
  }
}

export type EtcdCallOptions = { deadline: number };

/** The longest one attempt may take, so a member that swallows requests cannot spend the whole budget. */
export const ATTEMPT_TIMEOUT_MS = 3_000;

/** One attempt's deadline: what is left of the call's budget, at most ATTEMPT_TIMEOUT_MS. */
export function attemptDeadline(clock: Clock, startedMs: number, budgetMs: number): EtcdCallOptions {
  const nowMs = clock.now();
  return { deadline: Math.max(Math.min(startedMs + budgetMs, nowMs + ATTEMPT_TIMEOUT_MS), nowMs + 50) };
}

export function sleepOn(clock: Clock, ms: number): Promise<void> {
  return new Promise((resolve) => clock.after(ms, resolve));
}

/**
 * Runs `call` until it succeeds, fails for a reason retrying cannot fix (isRetryable), or the
 * budget is spent. `call` learns whether an earlier attempt failed, which for a write leaves its
 * outcome unknown: it may have been applied.
 */
export async function withRetries<T>(connection: EtcdConnectionOptions, call: (options: EtcdCallOptions, retried: boolean) => Promise<T>): Promise<T> {
  const { clock, requestTimeoutMs } = connection;
  const startedMs = clock.now();
  let delayMs = 10;
  for (let attempt = 0; ; attempt++) {
    try {
      return await call(attemptDeadline(clock, startedMs, requestTimeoutMs), attempt > 0);
    } catch (error) {
      if (!isRetryable(error) || clock.now() + delayMs >= startedMs + requestTimeoutMs) throw error;
    }
    await sleepOn(clock, delayMs);
    delayMs = Math.min(delayMs * 2, 500);
  }
}

/** The smallest key after every key that starts with `prefix` (etcd's prefix range end). */
export function prefixRangeEnd(prefix: Buffer): Buffer {
  const end = Buffer.from(prefix);
  for (let i = end.length - 1; i >= 0; i--) {
    if (end[i]! < 0xff) {
      end[i]!++;
      return end.subarray(0, i + 1);
    }
  }
  return Buffer.from([0]); // all keys from prefix on
}

export function errorText(error: unknown): string {
  return (error as Error)?.message ?? String(error);
}
