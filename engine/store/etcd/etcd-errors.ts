// How a failed etcd call reads to the backend: which failures a later attempt (perhaps on another
// member) may not see, and which of those are the member's fault rather than an answer from etcd.
//
// A retryable failure of a write leaves its outcome unknown: the request may have been applied
// before the connection broke or the deadline passed. The backend's retry loop (withRetries in
// etcd-client.ts) therefore tells the next attempt that an earlier one may have landed, and the
// commit reads values back to recognise its own write (etcd-changes.ts, commitResult).
//
// The retryable status codes are the ones the etcd3 npm client treated as recoverable (its
// fault-handling policies retried exactly those), so retry decisions did not change when the
// backend stopped using it.

import { status as Status, type Metadata } from '@grpc/grpc-js';
import { REQUEST_TOO_LARGE_MESSAGE } from '../store-errors.ts';

/** CANCELLED, UNKNOWN, DEADLINE_EXCEEDED, RESOURCE_EXHAUSTED, ABORTED, INTERNAL, UNAVAILABLE. */
const RETRYABLE_CODES: ReadonlySet<number> = new Set([
  Status.CANCELLED,
  Status.UNKNOWN,
  Status.DEADLINE_EXCEEDED,
  Status.RESOURCE_EXHAUSTED,
  Status.ABORTED,
  Status.INTERNAL,
  Status.UNAVAILABLE,
]);

/** A call that ended with a non-OK gRPC status: etcd's answer, or grpc-js's about the connection. */
export class EtcdCallError extends Error {
  override readonly name = 'EtcdCallError';
  constructor(
    readonly code: number,
    readonly details: string,
    readonly metadata?: Metadata,
  ) {
    super(`${code} ${Status[code] ?? 'UNKNOWN_CODE'}: ${details}`);
  }

  /** An answer from etcd itself ("etcdserver: …"), as opposed to one about the way to it. */
  get fromEtcd(): boolean {
    return this.details.includes('etcdserver:');
  }
}

/** Every member was skipped (its breaker is open): retryable, they are tried again after a second. */
export class NoMemberAvailableError extends Error {
  override readonly name = 'NoMemberAvailableError';
}

/** The client was closed: nothing will be sent again, so retrying cannot help. */
export class EtcdClientClosedError extends Error {
  override readonly name = 'EtcdClientClosedError';
}

/** Failures a later attempt (perhaps on another member) may not see. */
export function isRetryable(error: unknown): boolean {
  if (error instanceof EtcdCallError) return RETRYABLE_CODES.has(error.code);
  return error instanceof NoMemberAvailableError;
}

/**
 * Failures that say the member (or the way to it) is unwell: refused, reset, timed out. etcd's own
 * answers do not count, not even retryable ones such as "no leader" or "leader changed": during an
 * election every member gives them, and skipping all members would stall writes for longer than
 * the election.
 */
export function countsAgainstMember(error: Error): boolean {
  return error instanceof EtcdCallError && RETRYABLE_CODES.has(error.code) && !error.fromEtcd;
}

/**
 * etcd refused the request for its size (its --max-request-bytes), or gRPC refused to send it:
 * the two cases kube-apiserver's handlers recognise as "too large".
 */
export function isRequestTooLarge(error: unknown): boolean {
  if (!(error instanceof EtcdCallError)) return false;
  return (
    (error.code === Status.INVALID_ARGUMENT && error.details === REQUEST_TOO_LARGE_MESSAGE) ||
    (error.code === Status.RESOURCE_EXHAUSTED && error.details.includes('trying to send message larger than max'))
  );
}
