// The one injected Clock, seen through the two shapes the libraries want: xstate's `Clock`
// (setTimeout/clearTimeout, set once on a root actor and inherited by its children) and RxJS's
// `SchedulerLike` (passed explicitly to every time-based operator). With a virtual clock both
// libraries run on simulated time, so actors and streams stay deterministic.

import { Subscription, type SchedulerAction, type SchedulerLike } from 'rxjs';
import type { ActorOptions, AnyActorLogic } from 'xstate';
import type { Cancel, Clock } from './clock.ts';

/** xstate does not export its `Clock` type; this is the shape `createActor(logic, { clock })` takes. */
export type XstateClock = NonNullable<ActorOptions<AnyActorLogic>['clock']>;

export function toXstateClock(clock: Clock): XstateClock {
  let nextId = 1;
  const pending = new Map<number, Cancel>();
  return {
    setTimeout(fn: () => void, timeout: number) {
      const id = nextId++;
      pending.set(
        id,
        clock.after(timeout, () => {
          pending.delete(id);
          fn();
        }),
      );
      return id;
    },
    clearTimeout(id: number) {
      pending.get(id)?.();
      pending.delete(id);
    },
  };
}

class ClockAction<T> extends Subscription implements SchedulerAction<T> {
  private cancelPending: Cancel | undefined;

  constructor(
    private readonly clock: Clock,
    private readonly work: (this: SchedulerAction<T>, state?: T) => void,
  ) {
    super(() => {
      this.cancelPending?.();
      this.cancelPending = undefined;
    });
  }

  // RxJS reschedules periodic work (interval, timer with period) by calling schedule() again on
  // the same action from inside `work`; each call replaces the pending one.
  schedule(state?: T, delay = 0): Subscription {
    if (this.closed) return this;
    this.cancelPending?.();
    this.cancelPending = this.clock.after(delay, () => {
      this.cancelPending = undefined;
      if (!this.closed) this.work.call(this, state);
    });
    return this;
  }
}

export function toRxScheduler(clock: Clock): SchedulerLike {
  return {
    now: () => clock.now(),
    schedule<T>(work: (this: SchedulerAction<T>, state?: T) => void, delay = 0, state?: T): Subscription {
      return new ClockAction<T>(clock, work).schedule(state, delay);
    },
  };
}
