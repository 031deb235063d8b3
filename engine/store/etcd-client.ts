// The etcd3 client as the etcd backend uses it for ranges and compaction (transactions and the
// watch go through etcd-transport.ts): endpoint parsing, one client per backend with the
// library's own retries turned off (a retried transaction is not idempotent: the backend retries
// itself and can tell whether an earlier attempt was applied), per-attempt deadlines from the
// injected clock, and a retry loop for calls that may be repeated. The library still spreads calls
// over the endpoints and skips a member that keeps failing (its per-host circuit breaker).

import { ConsecutiveBreaker, circuitBreaker, handleWhen } from 'cockatiel';
import { Etcd3, isRecoverableError, type IOptions } from 'etcd3';
import type { Clock } from '../clock.ts';
import { REQUEST_TOO_LARGE_MESSAGE } from './store-errors.ts';

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

/** Never aborted; shared, because an AbortController per call showed up in profiles. */
const NEVER_ABORTED = new AbortController().signal;

/** A policy with the shape cockatiel's IPolicy has, that runs the call once. */
const RUN_ONCE = {
  execute: <T>(fn: (context: { signal: AbortSignal; attempt: number }) => PromiseLike<T> | T) => Promise.resolve(fn({ signal: NEVER_ABORTED, attempt: 0 })),
} as unknown as NonNullable<NonNullable<IOptions['faultHandling']>['global']>;

/**
 * A member is skipped for a second after 3 consecutive transport failures (refused, reset, timed
 * out). etcd's own "no leader" and "leader changed" answers do not count: during an election every
 * member gives them, and skipping all members would stall writes for longer than the election.
 * (The library's default breaker counts both and skips for 5 s.) One rule for both ways the
 * backend reaches etcd: the library's calls here, the hot path in etcd-transport.ts.
 */
export const MEMBER_BREAKER = { consecutiveFailures: 3, openMs: 1_000 } as const;

/** Failures that say the member (or the way to it) is unwell, as opposed to an answer from etcd. */
export function countsAgainstMember(error: Error): boolean {
  return isRecoverableError(error) && !/etcdserver:/.test(error.message);
}

function memberBreaker() {
  return circuitBreaker(handleWhen(countsAgainstMember), {
    halfOpenAfter: MEMBER_BREAKER.openMs,
    breaker: new ConsecutiveBreaker(MEMBER_BREAKER.consecutiveFailures),
  });
}

export function createEtcdClient(endpoints: readonly string[]): Etcd3 {
  return new Etcd3({
    hosts: [...endpoints],
    faultHandling: { global: RUN_ONCE, host: () => memberBreaker() },
    grpcOptions: {
      // Kube's etcd client settings: no cap on response size (a large list page), keepalive to
      // notice a member that vanished without closing its connections.
      'grpc.max_receive_message_length': 2 ** 31 - 1,
      'grpc.keepalive_time_ms': 30_000,
      'grpc.keepalive_timeout_ms': 10_000,
    },
  });
}

export type EtcdCallOptions = { deadline: number };

/** The longest one attempt may take, so a member that swallows requests cannot spend the whole budget. */
export const ATTEMPT_TIMEOUT_MS = 3_000;

/** One attempt's deadline: what is left of the call's budget, at most ATTEMPT_TIMEOUT_MS. */
export function attemptDeadline(clock: Clock, startedMs: number, budgetMs: number): EtcdCallOptions {
  const nowMs = clock.now();
  return { deadline: Math.max(Math.min(startedMs + budgetMs, nowMs + ATTEMPT_TIMEOUT_MS), nowMs + 50) };
}

/**
 * Transport-level failures a later attempt (perhaps on another member) may not see. That includes
 * the client refusing to call because every member's circuit breaker is open: they half-open later.
 */
export function isRetryable(error: unknown): boolean {
  if (typeof error !== 'object' || error === null) return false;
  return isRecoverableError(error as Error) || (error as { isBrokenCircuitError?: unknown }).isBrokenCircuitError === true;
}

/**
 * etcd refused the request for its size (its --max-request-bytes), or gRPC refused to send it:
 * the two cases kube-apiserver's handlers recognise as "too large".
 */
export function isRequestTooLarge(error: unknown): boolean {
  if (typeof error !== 'object' || error === null) return false;
  const { code, details } = error as { code?: unknown; details?: unknown };
  if (typeof details !== 'string') return false;
  return (code === GRPC_INVALID_ARGUMENT && details === REQUEST_TOO_LARGE_MESSAGE) || (code === GRPC_RESOURCE_EXHAUSTED && details.includes('trying to send message larger than max'));
}

const GRPC_INVALID_ARGUMENT = 3;
const GRPC_RESOURCE_EXHAUSTED = 8;

export function sleepOn(clock: Clock, ms: number): Promise<void> {
  return new Promise((resolve) => clock.after(ms, resolve));
}

/**
 * Runs `call` until it succeeds, fails for a reason retrying cannot fix, or the budget is spent.
 * `call` learns whether an earlier attempt failed in a way that leaves its outcome unknown.
 */
export async function withRetries<T>(
  connection: EtcdConnectionOptions,
  call: (options: EtcdCallOptions, retried: boolean) => Promise<T>,
): Promise<T> {
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
