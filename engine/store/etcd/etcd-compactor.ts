// Periodic etcd compaction, coordinated between replicas the way kube-apiserver's compactor does
// it, through one key (`compact_rev_key`): each round, a replica records the current revision in
// that key with a compare-and-swap on the key's version. Only the replica whose swap succeeds
// compacts, and it compacts the revision recorded one round earlier, so etcd always keeps at least
// one interval of history. Replicas (and kube-apiserver itself, on a shared etcd with an empty
// namespace) therefore compact once per interval between them, not once each.

import type { Cancel, Clock } from '../../clock.ts';
import { errorText, withRetries, type EtcdClient, type EtcdConnectionOptions } from './etcd-client.ts';
import { COMPARE_EQUAL, COMPARE_VERSION, headerRevision, int64 } from './etcd-proto.ts';

export const COMPACT_REVISION_KEY = 'compact_rev_key';

export interface CompactionRound {
  /** This replica won the round and compacted etcd at this revision (0: nothing to compact yet). */
  readonly compacted: number;
  /** The revision recorded for the next round. */
  readonly recorded: number;
}

export class EtcdCompactor {
  /** Version of the key as we last saw it; 0 = absent. */
  private version = 0;
  /** The revision we recorded (or saw recorded) last round: the next one to compact. */
  private pendingRevision = 0;
  private cancelTimer: Cancel | undefined;
  private running = false;
  /** The last failure, for status pages; compaction failing is not fatal. */
  lastError: string | undefined;

  constructor(
    private readonly client: EtcdClient,
    private readonly connection: EtcdConnectionOptions,
    private readonly key: Buffer,
    private readonly intervalMs: number,
  ) {}

  start(): void {
    if (this.running || this.intervalMs <= 0) return;
    this.running = true;
    this.schedule();
  }

  stop(): void {
    this.running = false;
    this.cancelTimer?.();
    this.cancelTimer = undefined;
  }

  /** One round of the protocol (the timer calls this; tests may too). */
  async round(): Promise<CompactionRound> {
    const request = {
      compare: [{ key: this.key, target: COMPARE_VERSION, result: COMPARE_EQUAL, version: this.version }],
      success: [{ requestPut: { key: this.key, value: Buffer.from(String(this.pendingRevision)) } }],
      failure: [{ requestRange: { key: this.key } }],
    };
    const response = await withRetries(this.connection, (options) => this.client.txn(request, options.deadline));
    const current = headerRevision(response);
    if (!response.succeeded) {
      // Another replica recorded a revision since; start over from what it wrote.
      const kv = response.responses[0]?.responseRange?.kvs[0];
      this.version = kv === undefined ? 0 : int64(kv.version);
      this.pendingRevision = current;
      return { compacted: 0, recorded: current };
    }
    this.version++;
    const target = this.pendingRevision;
    this.pendingRevision = current;
    if (target > 0) {
      try {
        await withRetries(this.connection, (options) => this.client.compact({ revision: target, physical: false }, options.deadline));
      } catch (error) {
        // Already compacted at or past it (by etcd's own auto-compaction, say) is not a failure.
        if (!/compacted/.test(errorText(error))) throw error;
      }
    }
    return { compacted: target, recorded: current };
  }

  private schedule(): void {
    this.cancelTimer = this.clock.after(this.intervalMs, () => {
      this.cancelTimer = undefined;
      void this.round()
        .then(
          () => (this.lastError = undefined),
          (error: unknown) => (this.lastError = errorText(error)),
        )
        .finally(() => {
          if (this.running) this.schedule();
        });
    });
  }

  private get clock(): Clock {
    return this.connection.clock;
  }
}
