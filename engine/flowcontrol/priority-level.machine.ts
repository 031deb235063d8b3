// One actor per priority level. It owns the level's lifecycle and configuration:
//   active ── DELETED ──▶ quiescing ── IDLE_CHECK [queue set idle] ──▶ removed (final)
//             ◀── CONFIGURE (the level came back) ──┘
// and it keeps one child actor per queue (queue.machine.ts) in step with the queue set.
//
// Requests do not travel through the actor: admitting one is a direct, synchronous call on the
// level's QueueSet (held in the context), because an xstate send per request would cost more
// than the whole admission (see docs/flow-control.md for the measurement). Configuration and
// CurrentCL changes, which are rare, are events.

import { assign, enqueueActions, setup } from 'xstate';
import type { Clock } from '../clock.ts';
import type { PriorityLevelConfiguration } from '../resources/types.ts';
import type { LevelLimits } from './concurrency-limits.ts';
import type { LevelConfig } from './level-config.ts';
import { QueueSet, type QueueSetObserver } from './queue-set.ts';
import { queueMachine } from './queue.machine.ts';
import { SeatDemandTracker, ZERO_SEAT_DEMAND_STATS, type SeatDemandStats } from './seat-demand.ts';

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
  plc: PriorityLevelConfiguration;
  config: LevelConfig;
  limits: LevelLimits;
  currentCL: number;
  /** maxSeats for the work estimator (0 for exempt and Reject levels: the estimator uses 10). */
  maxSeats: number;
  demandStats: SeatDemandStats;
}

export type PriorityLevelEvent =
  | { type: 'CONFIGURE'; plc: PriorityLevelConfiguration; config: LevelConfig; limits: LevelLimits; maxSeats: number }
  | { type: 'SET_CURRENT_CL'; currentCL: number; demandStats: SeatDemandStats }
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
      // Spawn actors for new queues, end those of removed queues, and mark surplus queues as
      // retiring (they go as soon as they empty) or serving again.
      syncQueueActors: enqueueActions(({ context, enqueue }) => {
        const ids = context.queueSet.queueIds();
        const live = new Set(ids);
        for (const queueId of context.queueActorIds) {
          if (live.has(queueId)) continue;
          enqueue.sendTo(queueActorId(queueId), { type: 'REMOVED' });
          enqueue.stopChild(queueActorId(queueId));
          context.queueActorIds.delete(queueId);
        }
        const surplus = ids.length > Math.max(0, context.config.queuing.desiredNumQueues);
        for (const queueId of ids) {
          const id = queueActorId(queueId);
          if (!context.queueActorIds.has(queueId)) {
            context.queueActorIds.add(queueId);
            enqueue.spawnChild('queue', { id, input: { queueId } });
          } else {
            enqueue.sendTo(id, { type: surplus ? 'RETIRE' : 'KEEP' });
          }
        }
      }),
      storeConfig: assign(({ event }) =>
        event.type === 'CONFIGURE' ? { plc: event.plc, config: event.config, limits: event.limits, maxSeats: event.maxSeats } : {},
      ),
      applyQueuing: ({ context }) => context.queueSet.setConfig(context.config.queuing, context.currentCL),
      storeCurrentCL: assign(({ event }) => (event.type === 'SET_CURRENT_CL' ? { currentCL: event.currentCL, demandStats: event.demandStats } : {})),
      applyCurrentCL: ({ context }) => context.queueSet.setConcurrencyLimit(context.currentCL),
    },
    guards: {
      idle: ({ context }) => context.queueSet.isIdle,
    },
  }).createMachine({
    id: 'priority-level',
    context: ({ input }) => {
      const queueSet = new QueueSet<D>(input.clock, input.config.queuing, input.observer);
      queueSet.setConfig(input.config.queuing, input.limits.initialCurrentCL);
      return {
        name: input.config.name,
        queueSet,
        demand: new SeatDemandTracker(input.clock.now()),
        queueActorIds: new Set<number>(),
        plc: input.plc,
        config: input.config,
        limits: input.limits,
        currentCL: input.limits.initialCurrentCL,
        maxSeats: input.maxSeats,
        demandStats: ZERO_SEAT_DEMAND_STATS,
      };
    },
    entry: 'syncQueueActors',
    initial: 'active',
    on: {
      SET_CURRENT_CL: { actions: ['storeCurrentCL', 'applyCurrentCL'] },
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
