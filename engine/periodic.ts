// Periodic work on the injected clock: the one way engine/ repeats something (flow control's
// borrowing adjustment, the object-count polls and pruning, the bootstrap ensurer's rounds).
//
// Why the clock and not RxJS `interval`/`timer`: `Clock.after` is the primitive both the real
// clock and `SimClock` implement, so a repetition is one timer per period with nothing in
// between, in the same total order as every other event of a simulated run. The periods are not
// all fixed (a poll is jittered, the ensurer retries sooner after a failure and its round is
// asynchronous), which `interval` cannot express and `timer` does by resubscribing each round;
// here the work returns its next delay. RxJS still carries streams of values (the configuration
// stream, the digests), on `toRxScheduler(clock)` where they need time.
//
// The next period is armed after the work returns (or its promise settles), as RxJS's `interval`
// does: what the work itself schedules for the same instant comes first.
import type { Cancel, Clock, TimerOptions } from './clock.ts';

/**
 * Runs `work` after `firstDelayMs`, then again after the delay it returns (or resolves to),
 * until the returned function is called. A promise must not reject (the repetition would stop).
 */
export function repeat(clock: Clock, firstDelayMs: number, work: () => number | Promise<number>, options?: TimerOptions): Cancel {
  let stopped = false;
  let cancel: Cancel | undefined;
  const armAfter = (delayMs: number) => {
    if (!stopped) cancel = clock.after(delayMs, tick, options);
  };
  const tick = () => {
    cancel = undefined;
    const next = work();
    if (typeof next === 'number') armAfter(next);
    else void next.then(armAfter);
  };
  armAfter(firstDelayMs);
  return () => {
    stopped = true;
    cancel?.();
    cancel = undefined;
  };
}

/** Runs `work` every `periodMs`, the first time one period from now, until cancelled. */
export function every(clock: Clock, periodMs: number, work: () => void, options?: TimerOptions): Cancel {
  return repeat(
    clock,
    periodMs,
    () => {
      work();
      return periodMs;
    },
    options,
  );
}
