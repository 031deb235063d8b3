// The embedded default backend: LevelDB through classic-level, laid out as leveldb-layout.ts says.
// Commits are checked and numbered at call time against an in-memory index of every key's mod
// revision and value (the watch cache holds every object anyway), then written by a group-commit
// queue: one `db.batch(…, {sync: true})` per turn carries every commit queued meanwhile, plus their
// event-log entries and the revision counter. A commit is acknowledged, and its events delivered,
// only after that batch is on disk. Recovery on open reads the counter, the data (trailers carry
// each key's revision) and the contiguous tail of the event log, after leveldb-integrity.ts has
// checked the directory, the files and the acknowledged revision.
//
// A failed write does not end the store: the failed batch and every commit queued after it are
// rejected and undone in the index, later commits are refused (503) while reads go on from the
// watch cache, and `_restoreWrites` (which the store calls on a timer) reopens the database, takes in
// whatever of the failed batch did reach the disk, and proves with one synced write that the disk
// takes writes again.

import { ClassicLevel } from 'classic-level';
import {
  applyCommit,
  assertCommitOps,
  commitConflict,
  type BackendEvent,
  type BackendListener,
  type BackendManifest,
  type BackendRecord,
  type BackendSnapshot,
  type CommitOp,
  type CommitResult,
  type KeyVersion,
  type StorageBackend,
} from '../backend.ts';
import {
  ACKNOWLEDGED_MARKER_KEY,
  FORMAT_KEY,
  FORMAT_VALUE,
  LOG_PREFIX,
  LayoutError,
  REVISION_KEY,
  decodeLogEntry,
  encodeLogEntry,
  fillLogValues,
  logKey,
  prefixEnd,
  revisionOfLogKey,
  splitTrailer,
  withTrailer,
} from './leveldb-layout.ts';
import { DEFAULT_EVENT_LOG_CAPACITY } from '../memory/memory-backend.ts';
import { AcknowledgedRevision } from './acknowledged-revision.ts';
import { DEFAULT_RECOVERY_HINT, behindError, checkDatabaseFiles, directoryState, missingAcknowledgedError } from './leveldb-integrity.ts';
import { StoreError, internalError, notOpenError, writesUnavailableError } from '../store-errors.ts';
import { WriteQueue } from './write-queue.ts';

export interface LevelDbBackendOptions {
  /** The data directory: a new database is created only when it is missing or empty. */
  readonly location: string;
  /** Events kept in the on-disk log (default 10,000); older ones are cleared in chunks. */
  readonly eventLogCapacity?: number | undefined;
  /** What a refusal to open a damaged database tells the operator to do. */
  readonly recoveryHint?: string;
  /**
   * Fault injection for tests: an error returned by `beforeWrite` fails a group commit (or a restore's
   * probe write) before it reaches LevelDB, as a full or read-only disk would; one returned by
   * `afterWrite` fails it after LevelDB has it on disk, as a failed fsync of a written batch would.
   */
  readonly faults?: { beforeWrite?(): Error | undefined; afterWrite?(): Error | undefined };
}

interface PendingCommit {
  /** The commit's changes, which are also its writes. */
  readonly ops: BackendEvent[];
  readonly revision: number;
}

export function createLevelDbBackend(options: LevelDbBackendOptions): LevelDbBackend {
  return new LevelDbBackend(options);
}

const utf8 = new TextEncoder();
const fromUtf8 = new TextDecoder();

export class LevelDbBackend implements StorageBackend {
  readonly manifest: BackendManifest = {
    name: 'leveldb',
    persistent: true,
    durable: true,
    exclusive: true,
    persistentEventLog: true,
    sharedWriters: false,
  };
  readonly location: string;
  private readonly logCapacity: number;
  private db: ClassicLevel<string, Uint8Array> | undefined;
  private state: 'new' | 'opening' | 'open' | 'outage' | 'failed' | 'closed' = 'new';
  /** Why the store is failed (for good) or in a write outage (until `_restoreWrites` succeeds). */
  private failure: StoreError | undefined;
  private restoring: Promise<void> | undefined;
  private readonly recoveryHint: string;
  private readonly faults: LevelDbBackendOptions['faults'];
  private acknowledgedFile: AcknowledgedRevision | undefined;
  private listener: BackendListener | undefined;
  private prefix = '';
  /** Every key's newest revision and value, including commits not yet on disk. */
  private readonly current = new Map<string, KeyVersion>();
  /** Newest revision handed out (may not be on disk yet). */
  private assigned = 0;
  /** Newest revision on disk and delivered. */
  private acknowledged = 0;
  /** Commits handed a revision but not yet acknowledged, oldest first (undone if their write fails). */
  private unacknowledged: PendingCommit[] = [];
  /** First revision of each log entry on disk, oldest first. */
  private logEntryStarts: number[] = [];
  private trimming: Promise<void> = Promise.resolve();
  private readonly queue = new WriteQueue<BackendEvent, PendingCommit>((events, commits) => this.flush(events, commits));

  constructor(options: LevelDbBackendOptions) {
    this.location = options.location;
    this.logCapacity = Math.max(1, options.eventLogCapacity ?? DEFAULT_EVENT_LOG_CAPACITY);
    this.recoveryHint = options.recoveryHint ?? DEFAULT_RECOVERY_HINT;
    this.faults = options.faults;
  }

  /** Batches written so far (each one fsync'd). */
  get batchesWritten(): number {
    return this.queue.batches;
  }

  async _open(prefix: string, listener: BackendListener): Promise<BackendSnapshot> {
    if (this.state !== 'new') throw notOpenError(this.state);
    this.state = 'opening';
    this.prefix = prefix;
    let acknowledged: number | undefined;
    let fresh: boolean;
    try {
      fresh = (await directoryState(this.location, this.recoveryHint)).kind === 'new';
      if (!fresh) acknowledged = (await checkDatabaseFiles(this.location, this.recoveryHint)).acknowledged;
    } catch (error) {
      this.state = 'failed';
      throw error instanceof StoreError ? error : this.openError(error);
    }
    const db = this.newDatabase(fresh);
    try {
      await db.open();
    } catch (error) {
      this.state = 'failed';
      throw this.openError(error);
    }
    this.db = db;
    try {
      const snapshot = await this.recover(db, prefix, fresh, acknowledged);
      this.acknowledgedFile = await AcknowledgedRevision.open(this.location, snapshot.revision);
      this.listener = listener;
      this.state = 'open';
      return snapshot;
    } catch (error) {
      this.state = 'failed';
      await db.close().catch(() => undefined);
      if (error instanceof StoreError) throw error;
      if (error instanceof LayoutError)
        throw internalError('FW_ERR_STORE_CORRUPT', `the database at ${this.location} is corrupt: ${error.message}; ${this.recoveryHint}`, error);
      throw internalError('FW_ERR_STORE_OPEN_FAILED', `reading the database at ${this.location} failed: ${(error as Error).message}`, error);
    }
  }

  private newDatabase(create: boolean): ClassicLevel<string, Uint8Array> {
    return new ClassicLevel<string, Uint8Array>(this.location, { keyEncoding: 'utf8', valueEncoding: 'view', createIfMissing: create, errorIfExists: create });
  }

  _commit(ops: readonly CommitOp[]): Promise<CommitResult> {
    if (this.state !== 'open')
      return Promise.reject(this.state === 'outage' ? writesUnavailableError(this.failure!) : (this.failure ?? notOpenError(this.state)));
    try {
      assertCommitOps(ops, this.prefix);
    } catch (error) {
      return Promise.reject(internalError('FW_ERR_STORE_WRITE_FAILED', (error as Error).message, error));
    }
    const conflict = commitConflict(this.current, ops, this.assigned);
    if (conflict !== undefined) return Promise.resolve(conflict);
    const revision = ++this.assigned;
    const events = applyCommit(this.current, ops, revision);
    const result: CommitResult = { ok: true, revision };
    const commit: PendingCommit = { ops: events, revision };
    this.unacknowledged.push(commit);
    return this.queue.submit(commit).then(() => result);
  }

  _currentRevision(): Promise<number> {
    // Reads go on through a write outage: everything acknowledged is in the cache.
    if (this.state !== 'open' && this.state !== 'outage') return Promise.reject(this.failure ?? notOpenError(this.state));
    return Promise.resolve(this.acknowledged);
  }

  _knownRevision(): number | undefined {
    return this.state === 'open' || this.state === 'outage' ? this.acknowledged : undefined;
  }

  async _close(): Promise<void> {
    if (this.state === 'closed') return;
    const db = this.db;
    this.state = 'closed';
    this.listener = undefined;
    await this.restoring?.catch(() => undefined);
    await this.queue.idle();
    await this.trimming;
    await this.acknowledgedFile?.close().catch(() => undefined);
    if (db !== undefined && db.status === 'open') await db.close();
  }

  /** One group commit: the data, one log entry, the revision counter, fsync'd; then the acknowledged revision; then deliver and acknowledge. */
  private async flush(events: BackendEvent[], commits: readonly PendingCommit[]): Promise<void> {
    const first = commits[0]!.revision;
    const newest = commits[commits.length - 1]!.revision;
    try {
      const injected = this.faults?.beforeWrite?.();
      if (injected !== undefined) throw injected;
      // A chained batch costs a fifth of the main-thread time of an array batch (no per-op option
      // objects), which matters: this thread also encodes the next batch meanwhile.
      const batch = this.db!.batch();
      for (const e of events) {
        if (e.type === 'put') batch.put(e.key, withTrailer(e.value!, e.modRevision));
        else batch.del(e.key);
      }
      batch.put(logKey(first), encodeLogEntry(events));
      batch.put(REVISION_KEY, utf8.encode(String(newest)));
      await batch.write({ sync: true });
      const lateFault = this.faults?.afterWrite?.();
      if (lateFault !== undefined) throw lateFault;
      await this.acknowledgedFile!.record(newest);
    } catch (error) {
      const failure = internalError('FW_ERR_STORE_WRITE_FAILED', `writing to ${this.location} failed: ${(error as Error).message}`, error);
      this.beginOutage(failure);
      throw failure;
    }
    this.acknowledged = newest;
    this.unacknowledged.splice(0, commits.length);
    this.logEntryStarts.push(first);
    this.listener?.onEvents(events);
    this.trimLog(newest);
  }

  /**
   * After a failed write: every commit not acknowledged is rejected (by the queue) and undone here,
   * newest first, so the index is the acknowledged state again; later commits are refused until
   * `_restoreWrites` succeeds. Whether the failed batch reached the disk is unknown until then.
   */
  private beginOutage(failure: StoreError): void {
    if (this.state !== 'open') return;
    this.state = 'outage';
    this.failure = failure;
    for (let i = this.unacknowledged.length - 1; i >= 0; i--) {
      const ops = this.unacknowledged[i]!.ops;
      for (let j = ops.length - 1; j >= 0; j--) {
        const e = ops[j]!;
        if (e.prevModRevision === 0) this.current.delete(e.key);
        else this.current.set(e.key, { modRevision: e.prevModRevision, value: e.prevValue! });
      }
    }
    this.unacknowledged = [];
    this.assigned = this.acknowledged;
    this.listener?.onWriteOutage(failure);
  }

  /**
   * Ends a write outage: reopens the database (LevelDB fails every write after a failed sync until
   * reopened), reads what is on disk, delivers any commit of the failed batch that did reach it, and
   * makes one synced write. Rejects, leaving the outage in place, while the disk still refuses.
   */
  _restoreWrites(): Promise<void> {
    if (this.state !== 'outage') return Promise.resolve();
    this.restoring ??= this.restore().finally(() => {
      this.restoring = undefined;
    });
    return this.restoring;
  }

  private async restore(): Promise<void> {
    await this.queue.idle();
    await this.trimming;
    await this.acknowledgedFile?.close().catch(() => undefined);
    this.acknowledgedFile = undefined;
    if (this.db !== undefined && this.db.status === 'open') await this.db.close().catch(() => undefined);
    const db = this.newDatabase(false);
    try {
      await db.open();
      const state = await readDatabase(db, this.prefix, this.logCapacity);
      if (state.revision < this.acknowledged) {
        const lost = behindError(this.location, state.revision, this.acknowledged, this.recoveryHint);
        this.state = 'failed';
        this.failure = lost;
        this.listener?.onFailure(lost);
        throw lost;
      }
      const injected = this.faults?.beforeWrite?.();
      if (injected !== undefined) throw injected;
      await db.put(REVISION_KEY, utf8.encode(String(state.revision)), { sync: true });
      this.acknowledgedFile = await AcknowledgedRevision.open(this.location, state.revision);
      const landed = fillLogValues(
        state.entries.flatMap((e) => e.events).filter((e) => e.modRevision > this.acknowledged),
        state.current,
      );
      if (this.state !== 'outage') throw notOpenError(this.state);
      this.db = db;
      this.current.clear();
      for (const [key, entry] of state.current) this.current.set(key, entry);
      this.logEntryStarts = state.entries.map((e) => e.first);
      this.assigned = state.revision;
      this.acknowledged = state.revision;
      this.failure = undefined;
      this.state = 'open';
      this.queue.reset();
      if (landed.length > 0) this.listener?.onEvents(landed);
    } catch (error) {
      if (this.db !== db) await db.close().catch(() => undefined);
      throw error instanceof StoreError
        ? error
        : internalError('FW_ERR_STORE_WRITE_FAILED', `writing to ${this.location} failed: ${(error as Error).message}`, error);
    }
  }

  /** Clears whole log entries below the capacity, in chunks, once enough have accumulated. */
  private trimLog(newest: number): void {
    const keepFrom = newest - this.logCapacity + 1;
    const chunk = Math.max(64, Math.floor(this.logCapacity / 8));
    const starts = this.logEntryStarts;
    // The first entry to keep is the last one that starts at or before keepFrom.
    let keep = 0;
    while (keep + 1 < starts.length && starts[keep + 1]! <= keepFrom) keep++;
    if (keep === 0 || starts[keep]! - starts[0]! < chunk) return;
    const below = starts[keep]!;
    starts.splice(0, keep);
    const db = this.db!;
    // Not part of any commit: an interrupted clear leaves older entries, which recovery ignores.
    this.trimming = this.trimming.then(() => db.clear({ gte: LOG_PREFIX, lt: logKey(below) })).catch(() => undefined);
  }

  private async recover(db: ClassicLevel<string, Uint8Array>, prefix: string, fresh: boolean, acknowledged: number | undefined): Promise<BackendSnapshot> {
    const format = await db.get(FORMAT_KEY);
    if (format === undefined) {
      const anyKey = await db.keys({ limit: 1 }).all();
      if (anyKey.length > 0)
        throw internalError('FW_ERR_STORE_OPEN_FAILED', `${this.location} holds a LevelDB database that is not Fairway's (no ${FORMAT_KEY})`);
      await db.batch().put(FORMAT_KEY, utf8.encode(FORMAT_VALUE)).put(ACKNOWLEDGED_MARKER_KEY, utf8.encode('1')).write({ sync: true });
    } else if (fromUtf8.decode(format) !== FORMAT_VALUE) {
      throw internalError(
        'FW_ERR_STORE_OPEN_FAILED',
        `${this.location} has storage format ${JSON.stringify(fromUtf8.decode(format))}; this Fairway reads ${FORMAT_VALUE}`,
      );
    }
    const state = await readDatabase(db, prefix, this.logCapacity);
    const revision = state.revision;
    if (acknowledged === undefined && !fresh) {
      if ((await db.get(ACKNOWLEDGED_MARKER_KEY)) !== undefined) throw missingAcknowledgedError(this.location, this.recoveryHint);
      // A database written before the acknowledged revision was kept starts keeping it now.
      await db.put(ACKNOWLEDGED_MARKER_KEY, utf8.encode('1'), { sync: true });
    }
    if (acknowledged !== undefined && revision < acknowledged) throw behindError(this.location, revision, acknowledged, this.recoveryHint);
    if (state.clearBelow !== undefined) await db.clear({ gte: LOG_PREFIX, lt: logKey(state.clearBelow) });
    for (const [key, entry] of state.current) this.current.set(key, entry);
    this.logEntryStarts = state.entries.map((e) => e.first);
    this.assigned = revision;
    this.acknowledged = revision;
    return { revision, records: state.records, logStartRevision: state.logStartRevision, log: state.log };
  }

  private openError(error: unknown): StoreError {
    const cause = (error as { cause?: { code?: string; message?: string } }).cause;
    const detail = cause?.message ?? (error as Error).message;
    if (cause?.code === 'LEVEL_LOCKED') {
      return new StoreError(
        'FW_ERR_STORE_LOCKED',
        `Internal error occurred: the data directory ${this.location} is locked: another process (or store) has it open (${detail})`,
        { cause: error },
      );
    }
    if (cause?.code === 'LEVEL_CORRUPTION') {
      return internalError('FW_ERR_STORE_CORRUPT', `the database at ${this.location} is corrupt: ${detail}; ${this.recoveryHint}`, error);
    }
    return internalError('FW_ERR_STORE_OPEN_FAILED', `opening the database at ${this.location} failed: ${detail}`, error);
  }
}

interface DatabaseState {
  readonly revision: number;
  readonly records: BackendRecord[];
  readonly current: Map<string, KeyVersion>;
  /** The log entries that form one contiguous run ending at `revision`, oldest first. */
  readonly entries: { first: number; events: BackendEvent[] }[];
  /** Older entries, cut off by a gap: to be cleared below this revision. */
  readonly clearBelow: number | undefined;
  readonly logStartRevision: number;
  /** The served window of the log: at most the capacity, values filled in. */
  readonly log: BackendEvent[];
}

/** Reads the counter, every data key (their trailers give each key's revision) and the event log. */
async function readDatabase(db: ClassicLevel<string, Uint8Array>, prefix: string, logCapacity: number): Promise<DatabaseState> {
  const counterBytes = await db.get(REVISION_KEY);
  let revision = counterBytes === undefined ? 0 : Number(fromUtf8.decode(counterBytes));
  if (!Number.isSafeInteger(revision) || revision < 0)
    throw new LayoutError(`revision counter ${JSON.stringify(fromUtf8.decode(counterBytes!))} is not a number`);

  const records: BackendRecord[] = [];
  const current = new Map<string, KeyVersion>();
  for await (const [key, stored] of db.iterator({ gte: prefix, lt: prefixEnd(prefix) })) {
    const { value, modRevision } = splitTrailer(key, stored);
    records.push({ key, value, modRevision });
    current.set(key, { modRevision, value });
    revision = Math.max(revision, modRevision);
  }

  const entries: { first: number; events: BackendEvent[] }[] = [];
  for await (const [key, bytes] of db.iterator({ gte: LOG_PREFIX, lt: prefixEnd(LOG_PREFIX) })) {
    const first = revisionOfLogKey(key);
    entries.push({ first, events: decodeLogEntry(first, bytes) });
  }
  const newestLogged = entries[entries.length - 1]?.events.at(-1)?.modRevision ?? 0;
  revision = Math.max(revision, newestLogged);
  // Keep the entries that form one contiguous run ending at the newest revision; anything before
  // a gap (an interrupted clear, or a counter ahead of the log) cannot be served.
  let keep = entries.length;
  let expectedLast = revision;
  while (keep > 0 && entries[keep - 1]!.events.at(-1)!.modRevision === expectedLast) {
    keep--;
    expectedLast = entries[keep]!.first - 1;
  }
  const kept = entries.slice(keep);
  // Old entries wait for a chunked clear, so the disk may hold more than the capacity: serve exactly it.
  const logged = kept.flatMap((e) => e.events).filter((e) => e.modRevision > revision - logCapacity);
  return {
    revision,
    records,
    current,
    entries: kept,
    clearBelow: keep > 0 ? (entries[keep]?.first ?? revision + 1) : undefined,
    logStartRevision: logged.length > 0 ? logged[0]!.modRevision - 1 : revision,
    log: fillLogValues(logged, current),
  };
}
