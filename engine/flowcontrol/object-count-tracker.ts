// The stored-object counts the LIST work estimator reads, kept as Kubernetes keeps them
// (k8s.io/apiserver/pkg/util/flowcontrol/request/object_count_tracker.go): the registry polls
// each resource's count about once a minute (registry/generic/registry/store.go,
// --etcd-count-metric-poll-period, jittered); a count not refreshed for 3 minutes is stale, and
// the estimator then charges a LIST the maximum seats; a count not refreshed for an hour is
// pruned, and the resource is then unknown (minimum seats). A failed poll (-1) leaves the old
// count to age. Time comes from the injected clock.

import type { Cancel, Clock } from '../clock.ts';
import { every, repeat } from '../periodic.ts';
import type { ObjectCountResult } from './work-estimate.ts';

/** staleTolerationThreshold: two or three missed polls. */
export const OBJECT_COUNT_STALE_MS = 3 * 60_000;
/** pruneInterval: how often, and after how long without an update, counts are dropped. */
export const OBJECT_COUNT_PRUNE_MS = 60 * 60_000;
/** StorageConfig.CountMetricPollPeriod's default. */
export const OBJECT_COUNT_POLL_MS = 60_000;
/** resourceCountPollPeriodJitter: each wait is period × (1 + 1.2·u), u uniform in [0, 1). */
export const OBJECT_COUNT_POLL_JITTER = 1.2;

export class ObjectCountTracker {
  private readonly counts = new Map<string, { count: number; updatedMs: number }>();

  constructor(private readonly clock: Clock) {}

  /** A poll's result for `resource.group`; a negative count is a failed poll and changes nothing. */
  set(groupResource: string, count: number): void {
    if (count < 0) return;
    this.counts.set(groupResource, { count, updatedMs: this.clock.now() });
  }

  get(groupResource: string): ObjectCountResult {
    const item = this.counts.get(groupResource);
    if (item === undefined) return 'not-found';
    if (item.updatedMs < this.clock.now() - OBJECT_COUNT_STALE_MS) return 'stale';
    return { count: item.count };
  }

  /** Drops every count not updated within `thresholdMs`. */
  prune(thresholdMs = OBJECT_COUNT_PRUNE_MS): void {
    const oldest = this.clock.now() - thresholdMs;
    for (const [key, item] of this.counts) if (!(item.updatedMs > oldest)) this.counts.delete(key);
  }

  /** Prunes every hour until cancelled (RunUntil). */
  startPruning(): Cancel {
    return every(this.clock, OBJECT_COUNT_PRUNE_MS, () => this.prune());
  }
}

export interface ObjectCountPollOptions {
  clock: Clock;
  tracker: ObjectCountTracker;
  /** The resources to poll (`resource.group`) and how to count one: a negative count is a failure. */
  resources: readonly string[];
  count(groupResource: string): number;
  periodMs?: number;
  /** Uniform in [0, 1): the poll jitter. Without it every wait is exactly the period. */
  random?: () => number;
}

/** Polls every resource now and then after each (jittered) period, as the registry does; cancel to stop. */
export function startObjectCountPolling(options: ObjectCountPollOptions): Cancel {
  const periodMs = options.periodMs ?? OBJECT_COUNT_POLL_MS;
  const cancels: Cancel[] = [];
  for (const groupResource of options.resources) {
    // Polled now, then after each jittered period (the jitter drawn right after the poll).
    const poll = () => {
      options.tracker.set(groupResource, options.count(groupResource));
      const jitter = options.random === undefined ? 0 : OBJECT_COUNT_POLL_JITTER * options.random();
      return periodMs * (1 + jitter);
    };
    cancels.push(repeat(options.clock, poll(), poll));
  }
  return () => {
    for (const cancel of cancels) cancel();
  };
}
