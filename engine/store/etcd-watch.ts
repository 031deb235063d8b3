// One etcd watch over the whole keyspace that survives member restarts. Watching every key, not
// just ours, is what makes progress exact: every etcd revision changes at least one key, so once
// the event of revision N has arrived, nothing at or below N is still on its way. (A manual
// progress request could say the same, but etcd 3.4 before 3.4.25 may answer it ahead of events
// still queued for the stream.) The cost is the traffic of keys that are not ours, which on an etcd
// dedicated to Fairway is none.
//
// The watch resumes from the first revision it has not delivered, on whichever member answers, so
// a reconnect neither skips nor repeats a revision. If etcd compacted that revision meanwhile, the
// watch stops and says so; the owner resynchronises and starts it again.

import type { Etcd3, IEvent, IWatchResponse } from 'etcd3';
import type { Cancel, Clock } from '../clock.ts';

type WatchStream = Awaited<ReturnType<Etcd3['watchClient']['watch']>>;

export interface EtcdWatchHandlers {
  /** The events of one response, oldest first; a revision's events never span two calls. */
  onEvents(events: readonly IEvent[], lastRevision: number): void;
  /** Everything up to `revision` has been delivered, though no event came (a progress notification). */
  onProgress(revision: number): void;
  /** etcd no longer has the revisions the watch needs; it keeps `compactRevision` on. The watch has stopped. */
  onCompacted(compactRevision: number): void;
  /** The stream broke; the watch reconnects by itself. */
  onDisconnected?(error: unknown): void;
}

const ALL_KEYS = Buffer.from([0]);
const FIRST_BACKOFF_MS = 25;
const MAX_BACKOFF_MS = 1_000;

export class EtcdWatch {
  private stream: WatchStream | undefined;
  /** Bumped on every (re)connect and stop, so callbacks of an abandoned stream are ignored. */
  private generation = 0;
  private nextRevision = 0;
  private running = false;
  private backoffMs = FIRST_BACKOFF_MS;
  private cancelRetry: Cancel | undefined;
  /** Reconnects so far (for tests and metrics). */
  reconnects = 0;

  constructor(
    private readonly client: Etcd3,
    private readonly clock: Clock,
    private readonly handlers: EtcdWatchHandlers,
  ) {}

  /** The first revision not yet delivered. */
  get next(): number {
    return this.nextRevision;
  }

  /** Starts (or restarts) the watch at `fromRevision`. */
  start(fromRevision: number): void {
    this.stopStream();
    this.running = true;
    this.nextRevision = fromRevision;
    this.backoffMs = FIRST_BACKOFF_MS;
    void this.connect();
  }

  stop(): void {
    this.running = false;
    this.stopStream();
  }

  private async connect(): Promise<void> {
    const generation = ++this.generation;
    let stream: WatchStream;
    try {
      stream = await this.client.watchClient.watch();
    } catch (error) {
      if (generation === this.generation) this.broken(generation, error);
      return;
    }
    if (generation !== this.generation || !this.running) {
      stream.cancel();
      return;
    }
    this.stream = stream;
    stream.on('data', (response: IWatchResponse) => this.receive(generation, response));
    stream.on('error', (error: unknown) => this.broken(generation, error));
    stream.on('end', () => this.broken(generation, new Error('the etcd watch stream ended')));
    stream.write({
      create_request: { key: ALL_KEYS, range_end: ALL_KEYS, start_revision: this.nextRevision, prev_kv: true, progress_notify: true },
    });
  }

  private receive(generation: number, response: IWatchResponse): void {
    if (generation !== this.generation) return;
    if (response.canceled) {
      const compactRevision = Number(response.compact_revision);
      if (compactRevision > 0) {
        this.stop();
        this.handlers.onCompacted(compactRevision);
      } else {
        this.broken(generation, new Error(`etcd canceled the watch: ${response.cancel_reason || 'no reason given'}`));
      }
      return;
    }
    if (response.created) {
      this.backoffMs = FIRST_BACKOFF_MS;
      return;
    }
    const events = response.events;
    if (events.length > 0) {
      const last = Number(events[events.length - 1]!.kv.mod_revision);
      this.nextRevision = last + 1;
      this.handlers.onEvents(events, last);
      return;
    }
    // A progress notification: etcd sends these only to watchers that have caught up.
    const revision = Number(response.header.revision);
    if (revision >= this.nextRevision) {
      this.nextRevision = revision + 1;
      this.handlers.onProgress(revision);
    }
  }

  private broken(generation: number, error: unknown): void {
    if (generation !== this.generation || !this.running) return;
    this.stopStream();
    this.reconnects++;
    this.handlers.onDisconnected?.(error);
    const delayMs = this.backoffMs;
    this.backoffMs = Math.min(this.backoffMs * 2, MAX_BACKOFF_MS);
    this.cancelRetry = this.clock.after(delayMs, () => {
      this.cancelRetry = undefined;
      if (this.running) void this.connect();
    });
  }

  private stopStream(): void {
    this.generation++;
    this.cancelRetry?.();
    this.cancelRetry = undefined;
    const stream = this.stream;
    this.stream = undefined;
    if (stream !== undefined) {
      stream.on('error', () => undefined); // cancel() reports CANCELLED as an error
      stream.cancel();
    }
  }
}
