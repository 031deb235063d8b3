// The etcd backend's changes, as pure functions: etcd watch events as store changes, the
// transaction that commits ops and how its answer reads, the changes a successful transaction
// made (known from its response alone), and the difference a re-read after a compaction reports.

import type { BackendEvent, BackendRecord, CommitOp, CommitResult } from '../backend.ts';
import { bytesEqual } from '../codec.ts';
import {
  bytesOf,
  COMPARE_EQUAL,
  COMPARE_MOD,
  EVENT_DELETE,
  headerRevision,
  int64,
  type EtcdEvent,
  type EtcdKeyValue,
  type EtcdTxnRequest,
  type EtcdTxnResponse,
} from './etcd-proto.ts';

/** How store keys map to etcd keys: an optional namespace in front. */
export interface EtcdKeyspace {
  /** namespace + the store's prefix. */
  readonly keyPrefix: Buffer;
  readonly namespaceLength: number;
  etcdKey(storeKey: string): Buffer;
}

export function storeKeyOf(keyspace: EtcdKeyspace, etcdKey: Buffer): string {
  return etcdKey.toString('utf8', keyspace.namespaceLength);
}

/**
 * One watch event as a store change; undefined for keys outside the prefix. `takeOrigin` hands
 * back the origin of our own pending put with exactly these bytes, if there is one.
 */
export function eventChange(
  event: EtcdEvent,
  keyspace: EtcdKeyspace,
  modRevisions: ReadonlyMap<string, number>,
  takeOrigin: (key: string, value: Uint8Array) => unknown,
): BackendEvent | undefined {
  const kv = event.kv;
  if (!hasPrefix(kv.key, keyspace.keyPrefix)) return undefined;
  const key = storeKeyOf(keyspace, kv.key);
  const modRevision = int64(kv.modRevision);
  const prev = event.prevKv ?? undefined;
  const prevModRevision = prev !== undefined ? int64(prev.modRevision) : int64(kv.version) === 1 ? 0 : (modRevisions.get(key) ?? 0);
  const prevValue = prev !== undefined ? copyOf(prev.value) : undefined;
  if (event.type === EVENT_DELETE) return { type: 'delete', key, modRevision, prevModRevision, prevValue };
  const value = bytesOf(kv.value);
  const origin = takeOrigin(key, value);
  return { type: 'put', key, modRevision, value: origin === undefined ? copyOf(value) : value, prevModRevision, prevValue, origin };
}

/** Compare every key's mod revision with the expected one, then write; otherwise read the keys. */
export function commitRequest(ops: readonly CommitOp[], keyspace: EtcdKeyspace, withValues: boolean): EtcdTxnRequest {
  const keys = ops.map((op) => keyspace.etcdKey(op.key));
  return {
    // The compared revision is set even when 0 (absent): it selects the compare's target_union.
    compare: ops.map((op, i) => ({ result: COMPARE_EQUAL, target: COMPARE_MOD, key: keys[i]!, modRevision: op.expectedModRevision })),
    success: ops.map((op, i) => (op.type === 'put' ? { requestPut: { key: keys[i]!, value: op.value } } : { requestDeleteRange: { key: keys[i]! } })),
    failure: keys.map((key) => ({ requestRange: { key, keysOnly: !withValues } })),
  };
}

/** The commit's result from the transaction's answer (`retried`: an earlier attempt's outcome is unknown). */
export function commitResult(ops: readonly CommitOp[], response: EtcdTxnResponse, retried: boolean): CommitResult {
  const revision = headerRevision(response);
  if (response.succeeded) return { ok: true, revision };
  for (let i = 0; i < ops.length; i++) {
    const op = ops[i]!;
    const kv: EtcdKeyValue | undefined = response.responses[i]?.responseRange?.kvs[0];
    const actual = kv === undefined ? 0 : int64(kv.modRevision);
    if (actual === op.expectedModRevision) continue;
    // Our earlier attempt was applied after all: the key holds exactly our bytes.
    if (retried && ops.length === 1 && op.type === 'put' && kv !== undefined && bytesEqual(kv.value, op.value)) {
      return { ok: true, revision: actual };
    }
    return { ok: false, key: op.key, actualModRevision: actual, revision };
  }
  // Every compare holds now, so one failed when etcd checked it: a key changed and changed back.
  return { ok: false, key: ops[0]!.key, actualModRevision: ops[0]!.expectedModRevision, revision };
}

/**
 * What a successful commit changed at `revision`: its ops and nothing else (one transaction, one
 * revision). Undefined when the revision may not be ours: a delete of an absent key makes none.
 */
export function ownCommitChanges(ops: readonly CommitOp[], revision: number): BackendEvent[] | undefined {
  if (ops.some((op) => op.type === 'delete' && op.expectedModRevision === 0)) return undefined;
  return ops.map((op) =>
    op.type === 'put'
      ? { type: 'put', key: op.key, modRevision: revision, value: op.value, prevModRevision: op.expectedModRevision, origin: op.origin }
      : { type: 'delete', key: op.key, modRevision: revision, prevModRevision: op.expectedModRevision },
  );
}

/**
 * The changes between what was delivered (`modRevisions`) and a re-read at `revision`, in revision
 * order. When a key went away is unknown, so its deletion is reported at the revision of the re-read.
 */
export function resyncChanges(revision: number, records: readonly BackendRecord[], modRevisions: ReadonlyMap<string, number>): BackendEvent[] {
  const changes: BackendEvent[] = [];
  const present = new Set<string>();
  for (const r of records) {
    present.add(r.key);
    const known = modRevisions.get(r.key) ?? 0;
    if (known !== r.modRevision) changes.push({ type: 'put', key: r.key, modRevision: r.modRevision, value: r.value, prevModRevision: known });
  }
  changes.sort((a, b) => a.modRevision - b.modRevision);
  for (const [key, modRevision] of modRevisions) {
    if (!present.has(key)) changes.push({ type: 'delete', key, modRevision: revision, prevModRevision: modRevision });
  }
  return changes;
}

export function hasPrefix(key: Buffer, prefix: Buffer): boolean {
  return key.length >= prefix.length && prefix.compare(key, 0, prefix.length) === 0;
}

/** A value that outlives the response: its own bytes, not a view into the whole message. */
export function copyOf(bytes: Uint8Array): Uint8Array {
  return new Uint8Array(bytes);
}
