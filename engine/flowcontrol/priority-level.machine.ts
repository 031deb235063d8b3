// One actor per priority level. It owns the level's lifecycle and configuration:
//   active ── DELETED ──▶ quiescing ── IDLE_CHECK [queue set idle] ──▶ removed (final)
//             ◀── CONFIGURE (the level came back) ──┘
// and, while the level has more queues than its configuration wants, one child actor per queue
// (queue.machine.ts) that follows the surplus queues until attrition removes them. A level in its
// steady state has no queue actors: thousands of levels of 64 queues each would otherwise be
// hundreds of thousands of actors that never receive an event.
//
// Requests do not travel through the actor: admitting one is a direct, synchronous call on the
// level's QueueSet (held in the context), because an xstate send per request would cost more
// than the whole admission (see docs/flow-control.md for the measurement). Configuration changes
// and deletion are events. The numbers the controller derives for every level at every digest
// and borrowing adjustment (limits, maxSeats, CurrentCL) are the level's books, written in place:
// with thousands of levels an event per level per adjustment cost more than the digest itself.

import { assign, enqueueActions, setup } from 'xstate';
import type { Clock } from '../clock.ts';
import type { PriorityLevelConfiguration } from '../resources/types.ts';
import type { LevelLimits } from './concurrency-limits.ts';
import type { LevelConfig } from './level-config.ts';
import { QueueSet, type QueueSetObserver } from './queue-set.ts';
import { queueMachine } from './queue.machine.ts';
import { SeatDemandTracker } from './seat-demand.ts';

export interface PriorityLevelInput<D> {
  clock: Clock;
  plc: PriorityLevelConfiguration;
  config: LevelConfig;
  limits: LevelLimits;
  maxSeats: number;
  observer: QueueSetObserver<D>;
}

export interface PriorityLevelContext<D> {
  readonly name: string;
  readonly queueSet: QueueSet<D>;
  /** Time-weighted seat demand of the current borrowing period. */
  readonly demand: SeatDemandTracker;
  /** Ids of the queues that have a child actor (the bookkeeping of syncQueueActors). */
  readonly queueActorIds: Set<number>;
  /** Derived numbers the controller keeps up to date in place (see the header). */
  readonly books: LevelBooks;
  plc: PriorityLevelConfiguration;
  config: LevelConfig;
}

export interface LevelBooks {
  limits: LevelLimits;
  /** The limit the queue set enforces; writing it here does not apply it (QueueSet.setConcurrencyLimit does). */
  currentCL: number;
  /**
   * maxSeats for the work estimator (0 for exempt and new Reject levels: the estimator uses 10; a
   * level that stops queuing keeps its last value, as upstream's MaxSeatsTracker does).
   */
  maxSeats: number;
}

export type PriorityLevelEvent =
  | { type: 'CONFIGURE'; plc: PriorityLevelConfiguration; config: LevelConfig; limits: LevelLimits; maxSeats: number }
  | { type: 'QUEUES_CHANGED' }
  | { type: 'DELETED' }
  | { type: 'IDLE_CHECK' };

export const queueActorId = (queueId: number): string => `queue-${queueId}`;

export function createPriorityLevelMachine<D>() {
  return setup({
    types: {
      context: {} as PriorityLevelContext<D>,
      input: {} as PriorityLevelInput<D>,
      events: {} as PriorityLevelEvent,
    },
    actors: { queue: queueMachine },
    actions: {
      // While the level has surplus queues, every queue has an actor, retiring until attrition
      // removes its queue; actors of removed queues end. Once the surplus is gone (or the level
      // grew again) the remaining actors go back to serving and end: a steady level needs none.
      syncQueueActors: enqueueActions(({ context, enqueue }) => {
        const surplus = context.queueSet.queueCount > Math.max(0, context.config.queuing.desiredNumQueues);
        if (!surplus && context.queueActorIds.size === 0) return;
        const ids = context.queueSet.queueIds();
        const live = new Set(surplus ? ids : []);
        for (const queueId of context.queueActorIds) {
          if (live.has(queueId)) continue;
          enqueue.sendTo(queueActorId(queueId), { type: ids.includes(queueId) ? 'KEEP' : 'REMOVED' });
          enqueue.stopChild(queueActorId(queueId));
          context.queueActorIds.delete(queueId);
        }
        if (!surplus) return;
        for (const queueId of ids) {
          if (context.queueActorIds.has(queueId)) continue;
          context.queueActorIds.add(queueId);
          const id = queueActorId(queueId);
          enqueue.spawnChild('queue', { id, input: { queueId } });
          enqueue.sendTo(id, { type: 'RETIRE' });
        }
      }),
      storeConfig: assign(({ context, event }) => {
        if (event.type !== 'CONFIGURE') return {};
        context.books.limits = event.limits;
        context.books.maxSeats = event.maxSeats;
        return { plc: event.plc, config: event.config };
      }),
      applyQueuing: ({ context }) => context.queueSet.setConfig(context.config.queuing, context.books.currentCL),
    },
    guards: {
      idle: ({ context }) => context.queueSet.isIdle,
    },
  }).createMachine({
    id: 'priority-level',
    context: ({ input }) => {
      const queueSet = new QueueSet<D>(input.clock, input.config.queuing, input.observer, input.limits.initialCurrentCL);
      return {
        name: input.config.name,
        queueSet,
        demand: new SeatDemandTracker(input.clock.now()),
        queueActorIds: new Set<number>(),
        books: { limits: input.limits, currentCL: input.limits.initialCurrentCL, maxSeats: input.maxSeats },
        plc: input.plc,
        config: input.config,
      };
    },
    entry: 'syncQueueActors',
    initial: 'active',
    on: {
      QUEUES_CHANGED: { actions: 'syncQueueActors' },
    },
    states: {
      active: {
        on: {
          CONFIGURE: { actions: ['storeConfig', 'applyQueuing', 'syncQueueActors'] },
          DELETED: { target: 'quiescing' },
        },
      },
      quiescing: {
        // No FlowSchema routes here any more; the level keeps its share until its last request ends.
        always: { guard: 'idle', target: 'removed' },
        on: {
          CONFIGURE: { target: 'active', actions: ['storeConfig', 'applyQueuing', 'syncQueueActors'] },
          IDLE_CHECK: { guard: 'idle', target: 'removed' },
        },
      },
      removed: { type: 'final' },
    },
  });
}

export type PriorityLevelMachine<D> = ReturnType<typeof createPriorityLevelMachine<D>>;
