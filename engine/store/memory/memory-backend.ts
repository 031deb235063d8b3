// The in-memory backend: for the simulator and tests. Its data lives in a `MemoryVolume`, which
// plays the part of a data directory: reopening a store on the same volume recovers its data,
// revision and event log, and a volume can be open only once at a time, so the compliance suite
// runs its recovery and locking tests against this backend too. Commits complete synchronously
// (their promise is already settled), which keeps simulator runs deterministic.

import {
  applyCommit,
  assertCommitOps,
  commitConflict,
  type BackendEvent,
  type BackendListener,
  type BackendManifest,
  type BackendSnapshot,
  type CommitOp,
  type CommitResult,
  type KeyVersion,
  type StorageBackend,
} from '../backend.ts';
import { StoreError, internalError, notOpenError } from '../store-errors.ts';
import { append } from '../../append.ts';

export interface MemoryVolume {
  readonly name: string;
  readonly data: Map<string, KeyVersion>;
  revision: number;
  log: BackendEvent[];
  logStartRevision: number;
  /** The backend that has the volume open, if any. */
  holder: object | undefined;
}

export function createMemoryVolume(name = 'memory'): MemoryVolume {
  return { name, data: new Map(), revision: 0, log: [], logStartRevision: 0, holder: undefined };
}

export interface MemoryBackendOptions {
  /** Share a volume to reopen the same data later; without one the data dies with the backend. */
  volume?: MemoryVolume;
  /** Events kept in the volume's log (oldest dropped first). */
  eventLogCapacity?: number | undefined;
}

export const DEFAULT_EVENT_LOG_CAPACITY = 10_000;

export function createMemoryBackend(options: MemoryBackendOptions = {}): StorageBackend {
  return new MemoryBackend(options);
}

class MemoryBackend implements StorageBackend {
  readonly manifest: BackendManifest;
  readonly location: string;
  private readonly volume: MemoryVolume;
  private readonly logCapacity: number;
  private listener: BackendListener | undefined;
  private prefix = '';
  private state: 'new' | 'open' | 'closed' = 'new';

  constructor(options: MemoryBackendOptions) {
    const shared = options.volume !== undefined;
    this.volume = options.volume ?? createMemoryVolume();
    this.location = `memory:${this.volume.name}`;
    this.logCapacity = Math.max(1, options.eventLogCapacity ?? DEFAULT_EVENT_LOG_CAPACITY);
    this.manifest = {
      name: 'memory',
      persistent: shared,
      durable: false,
      exclusive: true,
      persistentEventLog: shared,
      sharedWriters: false,
    };
  }

  _open(prefix: string, listener: BackendListener): Promise<BackendSnapshot> {
    if (this.state !== 'new') return Promise.reject(notOpenError(this.state));
    if (this.volume.holder !== undefined) {
      return Promise.reject(new StoreError('FW_ERR_STORE_LOCKED', `Internal error occurred: storage location ${this.location} is locked: it is already open`));
    }
    this.volume.holder = this;
    this.state = 'open';
    this.prefix = prefix;
    this.listener = listener;
    const records = [...this.volume.data.entries()]
      .filter(([key]) => key.startsWith(prefix))
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
      .map(([key, { value, modRevision }]) => ({ key, value, modRevision }));
    return Promise.resolve({
      revision: this.volume.revision,
      records,
      logStartRevision: this.volume.logStartRevision,
      log: [...this.volume.log],
    });
  }

  _commit(ops: readonly CommitOp[]): Promise<CommitResult> {
    if (this.state !== 'open') return Promise.reject(notOpenError(this.state));
    try {
      assertCommitOps(ops, this.prefix);
    } catch (error) {
      return Promise.reject(internalError('FW_ERR_STORE_WRITE_FAILED', (error as Error).message, error));
    }
    const data = this.volume.data;
    const conflict = commitConflict(data, ops, this.volume.revision);
    if (conflict !== undefined) return Promise.resolve(conflict);
    const revision = ++this.volume.revision;
    const events = applyCommit(data, ops, revision);
    // The log keeps what a restart would know: not the origin (that is this process's memory).
    this.appendLog(events.map((e) => (e.origin === undefined ? e : { ...e, origin: undefined })));
    this.listener!.onEvents(events);
    return Promise.resolve({ ok: true, revision });
  }

  _currentRevision(): Promise<number> {
    if (this.state !== 'open') return Promise.reject(notOpenError(this.state));
    return Promise.resolve(this.volume.revision);
  }

  _knownRevision(): number | undefined {
    return this.state === 'open' ? this.volume.revision : undefined;
  }

  _close(): Promise<void> {
    if (this.state === 'open' && this.volume.holder === this) this.volume.holder = undefined;
    this.state = 'closed';
    this.listener = undefined;
    return Promise.resolve();
  }

  private appendLog(events: BackendEvent[]): void {
    const log = this.volume.log;
    append(log, events);
    // Trim in chunks so the array is not shifted on every write.
    const excess = log.length - this.logCapacity;
    if (excess > 0 && excess >= Math.min(256, this.logCapacity)) {
      const dropped = log.splice(0, excess);
      this.volume.logStartRevision = dropped[dropped.length - 1]!.modRevision;
    }
  }
}
