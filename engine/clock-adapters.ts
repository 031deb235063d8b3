// The one injected Clock, seen as RxJS's `SchedulerLike` (passed explicitly to every time-based
// operator), so streams run on simulated time under a virtual clock and stay deterministic. xstate
// gets no clock: no machine has a delayed transition (docs/flow-control.md, "Time and determinism").

import { Subscription, type SchedulerAction, type SchedulerLike } from 'rxjs';
import type { Cancel, Clock } from './clock.ts';

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
