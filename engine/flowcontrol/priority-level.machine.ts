// One actor per priority level. Its state is the level's lifecycle and what the controller decided
// for it, changed only by its own transitions, with pure `assign`s (every update a new context):
//   active ── DELETED ──▶ quiescing ── IDLE_CHECK [queue set idle] ──▶ removed (final)
//             ◀── CONFIGURE (the level came back) ──┘
// CONFIGURE (a new spec), LIMITS (the same spec, other limits after a digest) and BORROWED (a new
// CurrentCL after a borrowing adjustment) are the events that change it; the controller sends
// them only when something changed, so a digest or an adjustment of thousands of unchanged levels
// sends nothing to most of them.
//
// Requests do not travel through the actor: admitting one is a direct, synchronous call on the
// level's QueueSet, because an xstate send per request would cost more than the whole admission
// (docs/flow-control.md has the measurement). The QueueSet and the SeatDemandTracker are the
// level's hot-path structures: the actor makes them and is the only one to reconfigure the queue
// set (setConfig, setConcurrencyLimit, on its transitions); the controller is handed their
// references once, calls them per request, and reads the actor's state from its snapshots.
// Queues are rows inside the QueueSet, not actors (docs/flow-control.md says why). No transition is
// delayed, so the actor needs no xstate clock: a level's timing lives in its queue set's deadlines
// and the controller's periodic work, all on the injected Clock.

import { assign, setup } from 'xstate';
import type { Clock } from '../clock.ts';
import type { PriorityLevelConfiguration } from '../resources/types.ts';
import type { LevelLimits } from './concurrency-limits.ts';
import type { LevelConfig } from './level-config.ts';
import { QueueSet, type QueueSetObserver } from './queue-set.ts';
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
  /** Hot-path structure: requests call it directly (see the header). */
  readonly queueSet: QueueSet<D>;
  /** Hot-path structure: time-weighted seat demand of the current borrowing period, and its statistics. */
  readonly demand: SeatDemandTracker;
  readonly plc: PriorityLevelConfiguration;
  readonly config: LevelConfig;
  readonly limits: LevelLimits;
  /** The limit the queue set enforces (applied by the transition that sets it). */
  readonly currentCL: number;
  /**
   * maxSeats for the work estimator (0 for exempt and new Reject levels: the estimator uses 10; a
   * level that stops queuing keeps its last value, as upstream's MaxSeatsTracker does).
   */
  readonly maxSeats: number;
}

export type PriorityLevelEvent =
  | { type: 'CONFIGURE'; plc: PriorityLevelConfiguration; config: LevelConfig; limits: LevelLimits; maxSeats: number }
  | { type: 'LIMITS'; limits: LevelLimits; maxSeats: number }
  | { type: 'BORROWED'; currentCL: number }
  | { type: 'DELETED' }
  | { type: 'IDLE_CHECK' };

export function createPriorityLevelMachine<D>() {
  return setup({
    types: {
      context: {} as PriorityLevelContext<D>,
      input: {} as PriorityLevelInput<D>,
      events: {} as PriorityLevelEvent,
    },
    actions: {
      configure: assign(({ event }) => {
        if (event.type !== 'CONFIGURE') return {};
        return { plc: event.plc, config: event.config, limits: event.limits, maxSeats: event.maxSeats };
      }),
      setLimits: assign(({ event }) => (event.type === 'LIMITS' ? { limits: event.limits, maxSeats: event.maxSeats } : {})),
      borrow: assign(({ event }) => (event.type === 'BORROWED' ? { currentCL: event.currentCL } : {})),
      // After the assign of the same transition: xstate v5 runs a transition's actions in order.
      applyQueuing: ({ context }) => context.queueSet.setConfig(context.config.queuing, context.currentCL),
      applyLimit: ({ context }) => context.queueSet.setConcurrencyLimit(context.currentCL),
    },
    guards: {
      idle: ({ context }) => context.queueSet.isIdle,
    },
  }).createMachine({
    id: 'priority-level',
    context: ({ input }) => ({
      name: input.config.name,
      queueSet: new QueueSet<D>(input.clock, input.config.queuing, input.observer, input.limits.initialCurrentCL),
      demand: new SeatDemandTracker(input.clock.now()),
      plc: input.plc,
      config: input.config,
      limits: input.limits,
      currentCL: input.limits.initialCurrentCL,
      maxSeats: input.maxSeats,
    }),
    initial: 'active',
    on: {
      // A quiescing level keeps a share from its last spec, so its limits follow every digest too.
      LIMITS: { actions: 'setLimits' },
      BORROWED: { actions: ['borrow', 'applyLimit'] },
    },
    states: {
      active: {
        on: {
          CONFIGURE: { actions: ['configure', 'applyQueuing'] },
          DELETED: { target: 'quiescing' },
        },
      },
      quiescing: {
        // No FlowSchema routes here any more; the level keeps its share until its last request ends.
        always: { guard: 'idle', target: 'removed' },
        on: {
          CONFIGURE: { target: 'active', actions: ['configure', 'applyQueuing'] },
          IDLE_CHECK: { guard: 'idle', target: 'removed' },
        },
      },
      removed: { type: 'final' },
    },
  });
}

export type PriorityLevelMachine<D> = ReturnType<typeof createPriorityLevelMachine<D>>;
