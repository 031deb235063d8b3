// The etcd3 backend: the store's primitives as etcd requests. Resource versions are etcd revisions.
//
//   _open    one range of every key under the prefix at a single revision R (paged), then one
//            watch over the whole keyspace from R - eventLogCapacity: its events up to R are the
//            event log (with previous values, so watches from before a restart resume), and the
//            same watch goes on to feed the store live, other replicas' writes included.
//   _commit  one transaction: compare each key's mod_revision with the expected one (0 = absent),
//            then the puts and deletes; otherwise read the keys, to report the actual revision.
//            It resolves once the commit's revision is delivered, so the cache already holds
//            the write when the caller hears of it (read-your-writes on this replica).
//   _currentRevision  a linearizable read's header revision.
//
// Revisions reach the store in order, each exactly once, through one cursor (`delivered`), from
// whichever source has the next one first: the history at open, our own transaction's response
// (it says exactly what changed at its revision), or the watch. A put from the watch is matched to
// our pending commit by key and value bytes and gets the commit's `origin`, so the store does not
// decode what it just encoded. When etcd has compacted the revisions the watch needs to resume (a
// long disconnection), the backend re-reads the prefix, reports the difference as changes in
// revision order, and watches on from there. Pure parts live in etcd-changes.ts.
// See docs/storage.md ("etcd3 backend") and docs/replication.md.
// (Over 300 lines: opening, commits, the watch and resync all move the one cursor.)

import type { Clock } from '../../clock.ts';
import {
  assertCommitOps,
  type BackendEvent,
  type BackendListener,
  type BackendManifest,
  type BackendRecord,
  type BackendSnapshot,
  type CommitOp,
  type CommitResult,
  type StorageBackend,
} from '../backend.ts';
import { bytesEqual } from '../codec.ts';
import { DeliveryWaiters } from './delivery-waiters.ts';
import { commitRequest, commitResult, copyOf, eventChange, ownCommitChanges, resyncChanges, storeKeyOf, type EtcdKeyspace } from './etcd-changes.ts';
import { EtcdClient, errorText, prefixRangeEnd, withRetries, type EtcdConnectionOptions } from './etcd-client.ts';
import { isRequestTooLarge } from './etcd-errors.ts';
import { EtcdCompactor, COMPACT_REVISION_KEY } from './etcd-compactor.ts';
import { headerRevision, int64, type EtcdEvent } from './etcd-proto.ts';
import { EtcdWatch } from './etcd-watch.ts';
import { DEFAULT_EVENT_LOG_CAPACITY } from '../memory/memory-backend.ts';
import { StoreError, internalError, notOpenError, requestTooLargeError } from '../store-errors.ts';

export interface EtcdBackendOptions {
  /** Client URLs (`http://host:port`), e.g. from parseEtcdServers(--etcd-servers). */
  readonly endpoints: readonly string[];
  /** Deadlines, retry backoff and compaction timers (realClock() in a server). */
  readonly clock: Clock;
  /** Prepended to every key in etcd (none by default: keys are `/registry/…`, as kube-apiserver's). */
  readonly namespace?: string;
  /** Revisions of history read at open to seed the watch window (default 10,000). */
  readonly eventLogCapacity?: number | undefined;
  /** Budget of one request to etcd, retries on another member included (default 10 s). */
  readonly requestTimeoutMs?: number;
  /** Compaction period, coordinated with other replicas (default 5 min as kube-apiserver; 0 = never). */
  readonly compactionIntervalMs?: number;
}

export const ETCD_DEFAULTS = { requestTimeoutMs: 10_000, compactionIntervalMs: 300_000, pageSize: 500 } as const;

export function createEtcdBackend(options: EtcdBackendOptions): EtcdBackend {
  return new EtcdBackend(options);
}

interface OpeningState {
  readonly revision: number;
  readonly records: BackendRecord[];
  logStartRevision: number;
  log: BackendEvent[];
  readonly resolve: (snapshot: BackendSnapshot) => void;
  readonly reject: (error: unknown) => void;
}

class SnapshotOutdated extends Error {}

export class EtcdBackend implements StorageBackend {
  readonly manifest: BackendManifest = {
    name: 'etcd3',
    persistent: true,
    durable: true,
    exclusive: false,
    persistentEventLog: true,
    sharedWriters: true,
  };
  readonly location: string;
  private readonly connection: EtcdConnectionOptions;
  private readonly namespace: Buffer;
  private readonly logCapacity: number;
  private readonly compactionIntervalMs: number;
  private state: 'new' | 'opening' | 'open' | 'closed' = 'new';
  private client: EtcdClient | undefined;
  private watch: EtcdWatch | undefined;
  private compactor: EtcdCompactor | undefined;
  private listener: BackendListener | undefined;
  /** The store's key prefix. */
  private prefix = '';
  private keyspace: EtcdKeyspace;
  private opening: OpeningState | undefined;
  /** Every revision up to this one has been handed to the store. */
  private delivered = 0;
  /** Every key under the prefix (store keys) with its mod revision, as delivered. */
  private readonly modRevisions = new Map<string, number>();
  /** Puts under way, by key: matched with their events to hand the origin back. */
  private readonly inflight = new Map<string, { value: Uint8Array; origin: unknown }[]>();
  /** Our successful commits, by revision, known from their responses but not yet delivered. */
  private readonly ownCommits = new Map<number, BackendEvent[]>();
  private readonly waiters: DeliveryWaiters;
  private resyncing = false;

  constructor(options: EtcdBackendOptions) {
    if (options.endpoints.length === 0) throw new Error('the etcd3 backend needs at least one endpoint');
    this.connection = { endpoints: options.endpoints, clock: options.clock, requestTimeoutMs: options.requestTimeoutMs ?? ETCD_DEFAULTS.requestTimeoutMs };
    this.namespace = Buffer.from(options.namespace ?? '');
    this.logCapacity = Math.max(1, options.eventLogCapacity ?? DEFAULT_EVENT_LOG_CAPACITY);
    this.compactionIntervalMs = options.compactionIntervalMs ?? ETCD_DEFAULTS.compactionIntervalMs;
    this.location = `etcd3 ${options.endpoints.join(',')}${this.namespace.length > 0 ? ` (namespace ${options.namespace})` : ''}`;
    this.keyspace = this.keyspaceFor('');
    this.waiters = new DeliveryWaiters(options.clock, this.connection.requestTimeoutMs);
  }

  /** The watch's reconnect count, for tests and status pages. */
  get watchReconnects(): number {
    return this.watch?.reconnects ?? 0;
  }

  /** Compaction rounds can be run by hand (tests); undefined until open. */
  get compaction(): EtcdCompactor | undefined {
    return this.compactor;
  }

  async _open(prefix: string, listener: BackendListener): Promise<BackendSnapshot> {
    if (this.state !== 'new') throw notOpenError(this.state);
    this.state = 'opening';
    this.listener = listener;
    this.prefix = prefix;
    this.keyspace = this.keyspaceFor(prefix);
    const client = new EtcdClient(this.connection.endpoints, this.connection.clock);
    this.client = client;
    this.watch = new EtcdWatch(client.transport, this.connection.clock, {
      onEvents: (events, last) => this.receive(events, last),
      onProgress: (revision) => this.progress(revision),
      onCompacted: (compactRevision) => this.compacted(compactRevision),
    });
    this.compactor = new EtcdCompactor(client, this.connection, Buffer.concat([this.namespace, Buffer.from(COMPACT_REVISION_KEY)]), this.compactionIntervalMs);
    for (let attempt = 1; ; attempt++) {
      try {
        const snapshot = await this.openAt();
        if (this.state !== 'opening') throw notOpenError(this.state);
        this.state = 'open';
        this.compactor.start();
        return snapshot;
      } catch (error) {
        // Compacted between our read and our watch: read again (a busy etcd with short retention).
        if (error instanceof SnapshotOutdated && attempt < 5 && this.state === 'opening') continue;
        await this._close();
        if (error instanceof StoreError) throw error;
        throw internalError('FW_ERR_STORE_OPEN_FAILED', `reading ${this.location} failed: ${errorText(error)}`, error);
      }
    }
  }

  _commit(ops: readonly CommitOp[]): Promise<CommitResult> {
    if (this.state !== 'open') return Promise.reject(notOpenError(this.state));
    try {
      assertCommitOps(ops, this.prefix);
    } catch (error) {
      return Promise.reject(internalError('FW_ERR_STORE_WRITE_FAILED', (error as Error).message, error));
    }
    const pending: { key: string; entry: { value: Uint8Array; origin: unknown } }[] = [];
    for (const op of ops) {
      if (op.type !== 'put' || op.origin === undefined) continue;
      const entry = { value: op.value, origin: op.origin };
      const list = this.inflight.get(op.key);
      if (list === undefined) this.inflight.set(op.key, [entry]);
      else list.push(entry);
      pending.push({ key: op.key, entry });
    }
    return this.commitTxn(ops).finally(() => {
      for (const { key, entry } of pending) {
        const list = this.inflight.get(key);
        if (list === undefined) continue;
        const at = list.indexOf(entry);
        if (at >= 0) list.splice(at, 1);
        if (list.length === 0) this.inflight.delete(key);
      }
    });
  }

  async _currentRevision(): Promise<number> {
    if (this.state !== 'open') throw notOpenError(this.state);
    const client = this.client!;
    const response = await withRetries(this.connection, (options) =>
      client.range({ key: this.keyspace.keyPrefix, keysOnly: true, limit: 1 }, options.deadline),
    );
    return headerRevision(response);
  }

  async _close(): Promise<void> {
    if (this.state === 'closed') return;
    this.state = 'closed';
    this.watch?.stop();
    this.compactor?.stop();
    this.opening?.reject(notOpenError('closed'));
    this.opening = undefined;
    // Writes waiting to be seen by the watch are in etcd already: let them go.
    this.waiters.releaseAll();
    this.ownCommits.clear();
    this.listener = undefined;
    this.client?.close();
  }

  /** Reads the snapshot at one revision, then waits for the watch to replay the history up to it. */
  private async openAt(): Promise<BackendSnapshot> {
    const { revision, records } = await this.readPrefix();
    this.modRevisions.clear();
    for (const r of records) this.modRevisions.set(r.key, r.modRevision);
    // A fresh etcd starts at revision 1 with no event at all.
    const logStartRevision = revision <= 1 ? revision : Math.max(0, revision - this.logCapacity);
    this.delivered = logStartRevision;
    if (logStartRevision >= revision) {
      this.watch!.start(revision + 1);
      return { revision, records, logStartRevision: revision, log: [] };
    }
    return new Promise<BackendSnapshot>((resolve, reject) => {
      this.opening = { revision, records, logStartRevision, log: [], resolve, reject };
      this.watch!.start(logStartRevision + 1);
    });
  }

  /** Every key under the prefix at one revision, in key order, a page at a time. */
  private async readPrefix(): Promise<{ revision: number; records: BackendRecord[] }> {
    const client = this.client!;
    const end = prefixRangeEnd(this.keyspace.keyPrefix);
    const records: BackendRecord[] = [];
    let revision = 0;
    let from: Buffer = this.keyspace.keyPrefix;
    for (;;) {
      const at = revision;
      const response = await withRetries(this.connection, (options) =>
        client.range({ key: from, rangeEnd: end, limit: ETCD_DEFAULTS.pageSize, revision: at }, options.deadline),
      );
      if (revision === 0) revision = headerRevision(response);
      for (const kv of response.kvs) records.push({ key: storeKeyOf(this.keyspace, kv.key), value: copyOf(kv.value), modRevision: int64(kv.modRevision) });
      const last = response.kvs[response.kvs.length - 1];
      if (!response.more || last === undefined) return { revision, records };
      from = Buffer.concat([last.key, Buffer.from([0])]);
    }
  }

  private async commitTxn(ops: readonly CommitOp[]): Promise<CommitResult> {
    const client = this.client!;
    let result: CommitResult;
    try {
      result = await withRetries(this.connection, async (options, retried) => {
        // After an attempt whose outcome is unknown, read values back to recognise our own write.
        const response = await client.txn(commitRequest(ops, this.keyspace, retried), options.deadline);
        if (response.succeeded) this.offerOwnCommit(ops, headerRevision(response));
        return commitResult(ops, response, retried);
      });
    } catch (error) {
      if (error instanceof StoreError) throw error;
      if (isRequestTooLarge(error)) throw requestTooLargeError();
      throw internalError('FW_ERR_STORE_WRITE_FAILED', `writing ${ops[0]!.key} to ${this.location} failed: ${errorText(error)}`, error);
    }
    if (result.ok) await this.deliveredThrough(result.revision);
    return result;
  }

  /**
   * A successful transaction's response says exactly what changed at its revision: our ops and
   * nothing else. So the revision can be delivered from it, without waiting for the watch, as
   * soon as every earlier revision has been; whichever comes first, response or watch event, wins.
   */
  private offerOwnCommit(ops: readonly CommitOp[], revision: number): void {
    if (revision <= this.delivered || this.state !== 'open') return;
    const changes = ownCommitChanges(ops, revision);
    if (changes === undefined) return;
    this.ownCommits.set(revision, changes);
    this.drainOwnCommits();
  }

  /** Delivers own commits that are next in line. */
  private drainOwnCommits(): void {
    for (;;) {
      const next = this.delivered + 1;
      const changes = this.ownCommits.get(next);
      if (changes === undefined) return;
      this.ownCommits.delete(next);
      for (const change of changes) {
        if (change.type === 'put') this.modRevisions.set(change.key, change.modRevision);
        else this.modRevisions.delete(change.key);
      }
      this.listener?.onEvents(changes);
      this.advanceTo(next, false);
    }
  }

  /** A watch response: history while opening, live changes afterwards. */
  private receive(events: readonly EtcdEvent[], lastRevision: number): void {
    const opening = this.opening;
    const live: BackendEvent[] = [];
    for (const event of events) {
      const revision = int64(event.kv.modRevision);
      // Already delivered from our own transaction's response (dropped before any other work).
      if (revision <= this.delivered) continue;
      if (this.ownCommits.size > 0) this.ownCommits.delete(revision);
      const change = eventChange(event, this.keyspace, this.modRevisions, this.takeOrigin);
      if (change === undefined) continue;
      if (opening !== undefined && change.modRevision <= opening.revision) {
        opening.log.push(change);
        continue;
      }
      if (change.type === 'put') this.modRevisions.set(change.key, change.modRevision);
      else this.modRevisions.delete(change.key);
      live.push(change);
    }
    if (live.length > 0) this.listener?.onEvents(live);
    this.advanceTo(lastRevision, live.length === 0 || live[live.length - 1]!.modRevision < lastRevision);
    if (this.ownCommits.size > 0) this.drainOwnCommits();
  }

  private progress(revision: number): void {
    this.advanceTo(revision, true);
    if (this.ownCommits.size > 0) this.drainOwnCommits();
  }

  /** Everything through `revision` is delivered; tell the store when no event of ours said so. */
  private advanceTo(revision: number, tellStore: boolean): void {
    if (revision <= this.delivered) return;
    this.delivered = revision;
    const opening = this.opening;
    if (opening !== undefined) {
      if (revision >= opening.revision) this.finishOpening(opening);
      if (revision <= opening.revision) return;
    }
    if (tellStore) this.listener?.onProgress(revision);
    this.waiters.release(revision);
  }

  private finishOpening(opening: OpeningState): void {
    this.opening = undefined;
    opening.resolve({ revision: opening.revision, records: opening.records, logStartRevision: opening.logStartRevision, log: opening.log });
  }

  /** etcd compacted what the watch needed next. */
  private compacted(compactRevision: number): void {
    const opening = this.opening;
    if (opening !== undefined) {
      if (compactRevision > opening.revision) {
        this.opening = undefined;
        opening.reject(new SnapshotOutdated(`etcd compacted past revision ${opening.revision} while it was being read`));
        return;
      }
      // Less history than asked for: the log starts after the compaction (the events at the
      // compacted revision itself lack their previous values).
      opening.log = [];
      opening.logStartRevision = compactRevision;
      this.delivered = compactRevision;
      if (compactRevision >= opening.revision) {
        this.finishOpening(opening);
        this.watch!.start(opening.revision + 1);
      } else {
        this.watch!.start(compactRevision + 1);
      }
      return;
    }
    void this.resync();
  }

  /** Re-reads the prefix and reports what changed while we could not watch, then watches on. */
  private async resync(): Promise<void> {
    if (this.resyncing) return;
    this.resyncing = true;
    try {
      for (let delayMs = 50; this.state === 'open'; delayMs = Math.min(delayMs * 2, 2_000)) {
        try {
          const { revision, records } = await this.readPrefix();
          if (this.state !== 'open') return;
          this.applyResync(revision, records);
          this.watch!.start(revision + 1);
          return;
        } catch {
          await new Promise<void>((resolve) => this.connection.clock.after(delayMs, resolve));
        }
      }
    } finally {
      this.resyncing = false;
    }
  }

  private applyResync(revision: number, records: readonly BackendRecord[]): void {
    const changes = resyncChanges(revision, records, this.modRevisions);
    for (const change of changes) {
      if (change.type === 'put') this.modRevisions.set(change.key, change.modRevision);
      else this.modRevisions.delete(change.key);
    }
    if (changes.length > 0) this.listener?.onEvents(changes);
    this.advanceTo(revision, true);
    for (const own of this.ownCommits.keys()) if (own <= revision) this.ownCommits.delete(own);
  }

  private readonly takeOrigin = (key: string, value: Uint8Array): unknown => {
    const list = this.inflight.get(key);
    if (list === undefined) return undefined;
    const at = list.findIndex((entry) => bytesEqual(entry.value, value));
    if (at < 0) return undefined;
    const [entry] = list.splice(at, 1);
    if (list.length === 0) this.inflight.delete(key);
    return entry!.origin;
  };

  /** Resolves once the watch has delivered `revision` (or after the request budget: the write is in etcd either way). */
  private deliveredThrough(revision: number): Promise<void> {
    if (revision <= this.delivered || this.state !== 'open') return Promise.resolve();
    return this.waiters.wait(revision);
  }

  private keyspaceFor(prefix: string): EtcdKeyspace {
    const namespace = this.namespace;
    return {
      keyPrefix: Buffer.concat([namespace, Buffer.from(prefix)]),
      namespaceLength: namespace.length,
      etcdKey: namespace.length === 0 ? (key) => Buffer.from(key) : (key) => Buffer.concat([namespace, Buffer.from(key)]),
    };
  }
}
