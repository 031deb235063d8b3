// The embedded default backend: LevelDB through classic-level, laid out as leveldb-layout.ts says.
// Commits are checked and numbered at call time against an in-memory index of every key's mod
// revision and value (the watch cache holds every object anyway), then written by a group-commit
// queue: one `db.batch(…, {sync: true})` per turn carries every commit queued meanwhile, plus their
// event-log entries and the revision counter. A commit is acknowledged, and its events delivered,
// only after that batch is on disk. Recovery on open reads the counter, the data (trailers carry
// each key's revision) and the contiguous tail of the event log.

import { ClassicLevel } from 'classic-level';
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
} from './backend.ts';
import {
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
import { DEFAULT_EVENT_LOG_CAPACITY } from './memory-backend.ts';
import { StoreError, internalError, notOpenError } from './store-errors.ts';
import { WriteQueue } from './write-queue.ts';

export interface LevelDbBackendOptions {
  /** The data directory (created if missing). */
  readonly location: string;
  /** Events kept in the on-disk log (default 10,000); older ones are cleared in chunks. */
  readonly eventLogCapacity?: number;
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
  private state: 'new' | 'opening' | 'open' | 'failed' | 'closed' = 'new';
  private failure: StoreError | undefined;
  private listener: BackendListener | undefined;
  private prefix = '';
  /** Every key's newest revision and value, including commits not yet on disk. */
  private readonly current = new Map<string, { modRevision: number; value: Uint8Array }>();
  /** Newest revision handed out (may not be on disk yet). */
  private assigned = 0;
  /** Newest revision on disk and delivered. */
  private acknowledged = 0;
  /** First revision of each log entry on disk, oldest first. */
  private logEntryStarts: number[] = [];
  private trimming: Promise<void> = Promise.resolve();
  private readonly queue = new WriteQueue<BackendEvent, PendingCommit>((events, commits) => this.flush(events, commits));

  constructor(options: LevelDbBackendOptions) {
    this.location = options.location;
    this.logCapacity = Math.max(1, options.eventLogCapacity ?? DEFAULT_EVENT_LOG_CAPACITY);
  }

  /** Batches written so far (each one fsync'd). */
  get batchesWritten(): number {
    return this.queue.batches;
  }

  async _open(prefix: string, listener: BackendListener): Promise<BackendSnapshot> {
    if (this.state !== 'new') throw notOpenError(this.state);
    this.state = 'opening';
    this.prefix = prefix;
    const db = new ClassicLevel<string, Uint8Array>(this.location, { keyEncoding: 'utf8', valueEncoding: 'view', createIfMissing: true });
    try {
      await db.open();
    } catch (error) {
      this.state = 'failed';
      throw this.openError(error);
    }
    this.db = db;
    try {
      const snapshot = await this.recover(db, prefix);
      this.listener = listener;
      this.state = 'open';
      return snapshot;
    } catch (error) {
      this.state = 'failed';
      await db.close().catch(() => undefined);
      if (error instanceof StoreError) throw error;
      if (error instanceof LayoutError) throw internalError('FW_ERR_STORE_CORRUPT', `the database at ${this.location} is corrupt: ${error.message}`, error);
      throw internalError('FW_ERR_STORE_OPEN_FAILED', `reading the database at ${this.location} failed: ${(error as Error).message}`, error);
    }
  }

  _commit(ops: readonly CommitOp[]): Promise<CommitResult> {
    if (this.state !== 'open') return Promise.reject(this.failure ?? notOpenError(this.state));
    try {
      assertCommitOps(ops, this.prefix);
    } catch (error) {
      return Promise.reject(internalError('FW_ERR_STORE_WRITE_FAILED', (error as Error).message, error));
    }
    for (const op of ops) {
      const actual = this.current.get(op.key)?.modRevision ?? 0;
      if (actual !== op.expectedModRevision) return Promise.resolve({ ok: false, key: op.key, actualModRevision: actual, revision: this.assigned });
    }
    const revision = ++this.assigned;
    const events: BackendEvent[] = [];
    for (const op of ops) {
      const prev = this.current.get(op.key);
      if (op.type === 'put') {
        this.current.set(op.key, { modRevision: revision, value: op.value });
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
        this.current.delete(op.key);
        events.push({ type: 'delete', key: op.key, modRevision: revision, prevModRevision: prev!.modRevision, prevValue: prev!.value });
      }
    }
    const result: CommitResult = { ok: true, revision };
    return this.queue.submit({ ops: events, revision }).then(() => result);
  }

  _currentRevision(): Promise<number> {
    if (this.state !== 'open') return Promise.reject(this.failure ?? notOpenError(this.state));
    return Promise.resolve(this.acknowledged);
  }

  _knownRevision(): number | undefined {
    return this.state === 'open' ? this.acknowledged : undefined;
  }

  async _close(): Promise<void> {
    if (this.state === 'closed') return;
    const db = this.db;
    this.state = 'closed';
    this.listener = undefined;
    await this.queue.idle();
    await this.trimming;
    if (db !== undefined && db.status === 'open') await db.close();
  }

  /** One group commit: the data, one log entry, the revision counter, fsync'd; then deliver and acknowledge. */
  private async flush(events: BackendEvent[], commits: readonly PendingCommit[]): Promise<void> {
    const first = commits[0]!.revision;
    const newest = commits[commits.length - 1]!.revision;
    try {
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
    } catch (error) {
      const failure = internalError('FW_ERR_STORE_WRITE_FAILED', `writing to ${this.location} failed: ${(error as Error).message}`, error);
      this.failure = failure;
      this.state = 'failed';
      this.listener?.onFailure(failure);
      throw failure;
    }
    this.acknowledged = newest;
    this.logEntryStarts.push(first);
    this.listener?.onEvents(events);
    this.trimLog(newest);
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

  private async recover(db: ClassicLevel<string, Uint8Array>, prefix: string): Promise<BackendSnapshot> {
    const format = await db.get(FORMAT_KEY);
    if (format === undefined) {
      const anyKey = await db.keys({ limit: 1 }).all();
      if (anyKey.length > 0) throw internalError('FW_ERR_STORE_OPEN_FAILED', `${this.location} holds a LevelDB database that is not Fairway's (no ${FORMAT_KEY})`);
      await db.put(FORMAT_KEY, utf8.encode(FORMAT_VALUE), { sync: true });
    } else if (fromUtf8.decode(format) !== FORMAT_VALUE) {
      throw internalError('FW_ERR_STORE_OPEN_FAILED', `${this.location} has storage format ${JSON.stringify(fromUtf8.decode(format))}; this Fairway reads ${FORMAT_VALUE}`);
    }
    const counterBytes = await db.get(REVISION_KEY);
    let revision = counterBytes === undefined ? 0 : Number(fromUtf8.decode(counterBytes));
    if (!Number.isSafeInteger(revision) || revision < 0) throw new LayoutError(`revision counter ${JSON.stringify(fromUtf8.decode(counterBytes!))} is not a number`);

    const records: BackendRecord[] = [];
    for await (const [key, stored] of db.iterator({ gte: prefix, lt: prefixEnd(prefix) })) {
      const { value, modRevision } = splitTrailer(key, stored);
      records.push({ key, value, modRevision });
      this.current.set(key, { modRevision, value });
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
    if (keep > 0) await db.clear({ gte: LOG_PREFIX, lt: logKey(entries[keep]?.first ?? revision + 1) });
    const kept = entries.slice(keep);
    this.logEntryStarts = kept.map((e) => e.first);
    // Old entries wait for a chunked clear, so the disk may hold more than the capacity: serve exactly it.
    const logged = kept.flatMap((e) => e.events).filter((e) => e.modRevision > revision - this.logCapacity);
    const log = fillLogValues(logged, this.current);
    this.assigned = revision;
    this.acknowledged = revision;
    return { revision, records, logStartRevision: logged.length > 0 ? logged[0]!.modRevision - 1 : revision, log };
  }

  private openError(error: unknown): StoreError {
    const cause = (error as { cause?: { code?: string; message?: string } }).cause;
    const detail = cause?.message ?? (error as Error).message;
    if (cause?.code === 'LEVEL_LOCKED') {
      return new StoreError('FW_ERR_STORE_LOCKED', `Internal error occurred: the data directory ${this.location} is locked: another process (or store) has it open (${detail})`, { cause: error });
    }
    if (cause?.code === 'LEVEL_CORRUPTION') {
      return internalError('FW_ERR_STORE_CORRUPT', `the database at ${this.location} is corrupt: ${detail}`, error);
    }
    return internalError('FW_ERR_STORE_OPEN_FAILED', `opening the database at ${this.location} failed: ${detail}`, error);
  }
}
