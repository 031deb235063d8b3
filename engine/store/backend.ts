// The seam between the abstract store and a storage backend. A backend implements only primitives,
// in the shape of an etcd transaction, so LevelDB, the in-memory store and etcd3 fit the same way:
//
//   _open(prefix, listener) → snapshot     everything under `prefix` at one revision, plus the
//                                           recent event log (contiguous up to that revision)
//   _commit(ops)             → revision     atomic; each op says which mod revision it expects
//                                           (0 = must not exist), like etcd's compare-and-swap
//   _currentRevision()                      newest acknowledged revision
//   _close()
//
// Protocol (the abstract store relies on it; backends assert what they can):
// - Revisions start at 1, increase by one per successful commit, and are shared by all keys.
// - `_commit` checks expectations and orders commits at call time (synchronously, before its first
//   await), so two calls in one tick are ordered as called. It resolves only once the commit is
//   acknowledged: durable for durable backends.
// - `listener.onEvents` receives every committed change exactly once, in revision order, only after
//   it is acknowledged. Local backends deliver a commit's events before its promise resolves;
//   remote ones (etcd) deliver them from their own watch stream, possibly later.
// - A failed write that leaves the backend unable to vouch for its state calls `listener.onFailure`;
//   the store then refuses every operation until it is reopened. A backend that can recover from a
//   failed write by itself (`_restoreWrites`) calls `listener.onWriteOutage` instead: it refuses
//   commits but keeps serving `_currentRevision`, and the store keeps serving reads and calls
//   `_restoreWrites` until it succeeds.
// - Values are opaque bytes (codec + transformer output); the backend never looks inside them.

import type { StoreError } from './store-errors.ts';

export interface BackendManifest {
  readonly name: string;
  /** Data survives close and reopen (for memory, only when reopened on the same MemoryVolume). */
  readonly persistent: boolean;
  /** An acknowledged write is on stable storage (fsync'd). */
  readonly durable: boolean;
  /** A second open of the same location fails with FW_ERR_STORE_LOCKED while the first is open. */
  readonly exclusive: boolean;
  /** The recent event log survives reopen, so watches can resume across a restart. */
  readonly persistentEventLog: boolean;
  /** Others may write the same data (replicas on etcd): events may arrive that this store did not make. */
  readonly sharedWriters: boolean;
}

export interface BackendRecord {
  readonly key: string;
  readonly value: Uint8Array;
  readonly modRevision: number;
}

export type CommitOp =
  | { readonly type: 'put'; readonly key: string; readonly value: Uint8Array; readonly expectedModRevision: number; readonly origin?: unknown }
  | { readonly type: 'delete'; readonly key: string; readonly expectedModRevision: number };

export type CommitResult =
  | { readonly ok: true; readonly revision: number }
  /**
   * An expectation failed; nothing was written. `actualModRevision` 0 means the key is absent;
   * `revision` is the backend's newest revision when it checked (possibly not yet acknowledged):
   * once the store has seen it, a retry reads the state that made the commit fail.
   */
  | { readonly ok: false; readonly key: string; readonly actualModRevision: number; readonly revision: number };

export interface BackendEvent {
  readonly type: 'put' | 'delete';
  readonly key: string;
  /** The revision of this change. */
  readonly modRevision: number;
  /** put: the new value. */
  readonly value?: Uint8Array;
  /** The key's mod revision before this change; 0 when the put created it. */
  readonly prevModRevision: number;
  /** The value before this change: always for delete; for put when the backend has it. */
  readonly prevValue?: Uint8Array | undefined;
  /**
   * The put op's `origin`, handed back untouched by backends that deliver their own commits' events
   * (never stored). The store passes what it already knows about the value, so it need not decode
   * its own writes; events from elsewhere (other replicas, recovery) have none.
   */
  readonly origin?: unknown;
}

export interface BackendSnapshot {
  readonly revision: number;
  /** Every key under the prefix at `revision`, in key order. */
  readonly records: readonly BackendRecord[];
  /** The log holds every event in (logStartRevision, revision], oldest first. */
  readonly logStartRevision: number;
  readonly log: readonly BackendEvent[];
}

export interface BackendListener {
  onEvents(events: readonly BackendEvent[]): void;
  /** The backend has seen everything up to `revision` even though no event under the prefix came. */
  onProgress(revision: number): void;
  onFailure(error: StoreError): void;
  /** A write failed; commits are refused until `_restoreWrites` succeeds (reads go on). */
  onWriteOutage(error: StoreError): void;
}

export interface StorageBackend {
  readonly manifest: BackendManifest;
  /** The storage location, for messages (a directory, a volume name, endpoints). */
  readonly location: string;
  _open(prefix: string, listener: BackendListener): Promise<BackendSnapshot>;
  _commit(ops: readonly CommitOp[]): Promise<CommitResult>;
  _currentRevision(): Promise<number>;
  /**
   * `_currentRevision` when the backend knows it without asking anyone (a local database), so a
   * consistent read of an up-to-date cache costs no promise; undefined otherwise (etcd) or when not open.
   */
  _knownRevision?(): number | undefined;
  _close(): Promise<void>;
  /** After `onWriteOutage`: resolves once commits are taken again; rejects while they still cannot be. */
  _restoreWrites?(): Promise<void>;
}

/** Checks the op list itself (not the data): one op per key, keys under the prefix. */
export function assertCommitOps(ops: readonly CommitOp[], prefix: string): void {
  if (ops.length === 0) throw new Error('commit needs at least one op');
  if (ops.length === 1) {
    const op = ops[0]!;
    if (op.key.startsWith(prefix) && Number.isSafeInteger(op.expectedModRevision) && op.expectedModRevision >= 0) return;
  }
  const keys = new Set<string>();
  for (const op of ops) {
    if (!op.key.startsWith(prefix)) throw new Error(`commit key ${op.key} is outside ${prefix}`);
    if (keys.has(op.key)) throw new Error(`commit names ${op.key} twice`);
    keys.add(op.key);
    if (!Number.isSafeInteger(op.expectedModRevision) || op.expectedModRevision < 0) {
      throw new Error(`commit op on ${op.key} has a bad expected mod revision ${op.expectedModRevision}`);
    }
  }
}

/** A key's latest version, as the in-process backends (memory, LevelDB) keep the keyspace. */
export interface KeyVersion {
  modRevision: number;
  value: Uint8Array;
}

/** The first op whose expected mod revision the keyspace contradicts, as the conflict result; undefined when none. */
export function commitConflict(current: ReadonlyMap<string, KeyVersion>, ops: readonly CommitOp[], revision: number): CommitResult | undefined {
  for (const op of ops) {
    const actual = current.get(op.key)?.modRevision ?? 0;
    if (actual !== op.expectedModRevision) return { ok: false, key: op.key, actualModRevision: actual, revision };
  }
  return undefined;
}

/** Applies checked ops to the keyspace at `revision`; the events they make, in op order. */
export function applyCommit(current: Map<string, KeyVersion>, ops: readonly CommitOp[], revision: number): BackendEvent[] {
  const events: BackendEvent[] = [];
  for (const op of ops) {
    const prev = current.get(op.key);
    if (op.type === 'put') {
      current.set(op.key, { modRevision: revision, value: op.value });
      events.push({
        type: 'put',
        key: op.key,
        modRevision: revision,
        value: op.value,
        prevModRevision: prev === undefined ? 0 : prev.modRevision,
        prevValue: prev?.value,
        origin: op.origin,
      });
    } else {
      current.delete(op.key);
      events.push({ type: 'delete', key: op.key, modRevision: revision, prevModRevision: prev!.modRevision, prevValue: prev!.value });
    }
  }
  return events;
}
