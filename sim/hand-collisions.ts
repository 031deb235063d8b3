// Hand collisions, from the requests themselves: which flows' requests were ahead of a request in
// the queue it joined, and how many of its level's queues had nothing waiting then. Shuffle
// sharding puts each request in the shortest queue of its flow's hand; a light flow whose hand
// overlaps a heavy flow's waits behind the heavy one's requests while queues outside its hand sit
// idle. The books are kept per queue (replica, level, queue id) and read by sim/explain/.

/** What one of a flow's requests found ahead of it, recorded in the interval it left its queue. */
export interface HandCollision {
  /** Other flows' requests ahead of it (the most any of the flow's requests found in the interval). */
  ahead: number;
  /** The level's queues with nothing waiting when that request joined. */
  idleQueues: number;
  /** Whose requests were ahead, summed over the flow's requests that left a queue in the interval. */
  by: Record<string, number>;
}

/** Per flow, per report interval (an index into the series) with any collision. */
export type HandCollisionRecords = ReadonlyMap<string, ReadonlyMap<number, HandCollision>>;

/** What a request found when it joined its queue; undefined when only its own flow was ahead. */
export interface Ahead {
  total: number;
  idleQueues: number;
  by: Map<string, number>;
}

/** One queue's waiting requests, by flow; a flow is present only while it has some. */
export type QueueWaiters = Map<string, number>;

export class HandCollisionBooks {
  /**
   * Per level of a replica (any object standing for it), its queues' waiters indexed by queue id
   * (ids are small integers a queue set hands out in turn): a request that queues finds its queue
   * with two lookups and no key built for it.
   */
  private readonly levels = new Map<object, (QueueWaiters | undefined)[]>();
  readonly records = new Map<string, Map<number, HandCollision>>();

  /** The waiters of queue `queueId` of the level `level` stands for. */
  queue(level: object, queueId: number): QueueWaiters {
    let queues = this.levels.get(level);
    if (queues === undefined) this.levels.set(level, (queues = []));
    let waiters = queues[queueId];
    if (waiters === undefined) queues[queueId] = waiters = new Map();
    return waiters;
  }

  /** A request of `flow` joined the queue (it is not counted ahead of itself). */
  joined(waiting: QueueWaiters, flow: string, idleQueues: number): Ahead | undefined {
    let ahead: Ahead | undefined;
    for (const [other, n] of waiting) {
      if (other === flow) continue;
      ahead ??= { total: 0, idleQueues, by: new Map() };
      ahead.total += n;
      ahead.by.set(other, n);
    }
    waiting.set(flow, (waiting.get(flow) ?? 0) + 1);
    return ahead;
  }

  /** It left the queue (dispatched or rejected) in report interval `bucket`. */
  left(waiting: QueueWaiters, flow: string, bucket: number, ahead: Ahead | undefined): void {
    const n = waiting.get(flow) ?? 0;
    if (n <= 1) waiting.delete(flow);
    else waiting.set(flow, n - 1);
    if (ahead === undefined) return;
    let byBucket = this.records.get(flow);
    if (byBucket === undefined) this.records.set(flow, (byBucket = new Map()));
    const record = byBucket.get(bucket);
    if (record === undefined) {
      // Null-prototype: flow names (from a scenario or an audit log's users) such as `constructor` are keys.
      const by: Record<string, number> = Object.create(null);
      for (const [other, k] of ahead.by) by[other] = k;
      byBucket.set(bucket, { ahead: ahead.total, idleQueues: ahead.idleQueues, by });
      return;
    }
    if (ahead.total > record.ahead) {
      record.ahead = ahead.total;
      record.idleQueues = ahead.idleQueues;
    }
    for (const [other, k] of ahead.by) record.by[other] = (record.by[other] ?? 0) + k;
  }
}
