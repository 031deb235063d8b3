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

import type { Cancel, Clock } from '../../clock.ts';
import { decodeWatchResponse, encodeWatchCreate, headerRevision, int64, type EtcdEvent, type EtcdWatchResponse } from './etcd-proto.ts';
import { WATCH_PATH, type EtcdStream, type EtcdTransport } from './etcd-transport.ts';

export interface EtcdWatchHandlers {
  /** The events of one response, oldest first; a revision's events never span two calls. */
  onEvents(events: readonly EtcdEvent[], lastRevision: number): void;
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
  private stream: EtcdStream | undefined;
  /** Bumped on every (re)connect and stop, so callbacks of an abandoned stream are ignored. */
  private generation = 0;
  private nextRevision = 0;
  private running = false;
  private backoffMs = FIRST_BACKOFF_MS;
  private cancelRetry: Cancel | undefined;
  /** Reconnects so far (for tests and metrics). */
  reconnects = 0;

  constructor(
    private readonly transport: EtcdTransport,
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
    this.connect();
  }

  stop(): void {
    this.running = false;
    this.stopStream();
  }

  private connect(): void {
    const generation = ++this.generation;
    this.stream = this.transport.stream(WATCH_PATH, {
      onMessage: (message) => {
        if (generation !== this.generation) return;
        let response: EtcdWatchResponse;
        try {
          response = decodeWatchResponse(message);
        } catch (error) {
          this.broken(generation, error);
          return;
        }
        this.receive(generation, response);
      },
      onEnd: (error) => this.broken(generation, error),
    });
    this.stream.write(encodeWatchCreate({ key: ALL_KEYS, rangeEnd: ALL_KEYS, startRevision: this.nextRevision, prevKv: true, progressNotify: true }));
  }

  private receive(generation: number, response: EtcdWatchResponse): void {
    if (generation !== this.generation) return;
    if (response.canceled) {
      const compactRevision = int64(response.compactRevision);
      if (compactRevision > 0) {
        this.stop();
        this.handlers.onCompacted(compactRevision);
      } else {
        this.broken(generation, new Error(`etcd canceled the watch: ${response.cancelReason || 'no reason given'}`));
      }
      return;
    }
    if (response.created) {
      this.backoffMs = FIRST_BACKOFF_MS;
      return;
    }
    const events = response.events;
    if (events.length > 0) {
      const last = int64(events[events.length - 1]!.kv.modRevision);
      this.nextRevision = last + 1;
      this.handlers.onEvents(events, last);
      return;
    }
    // A progress notification: etcd sends these only to watchers that have caught up.
    const revision = headerRevision(response);
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
      if (this.running) this.connect();
    });
  }

  private stopStream(): void {
    this.generation++;
    this.cancelRetry?.();
    this.cancelRetry = undefined;
    const stream = this.stream;
    this.stream = undefined;
    stream?.cancel();
  }
}
