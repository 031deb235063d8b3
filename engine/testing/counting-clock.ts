// A clock that counts the timers armed on it, for tests that pin how many a component arms.
import type { Clock } from '../clock.ts';

export function countingClock(inner: Clock): { clock: Clock; armed: () => number } {
  let armed = 0;
  const clock: Clock = {
    now: () => inner.now(),
    after: (delayMs, callback, options) => {
      armed++;
      return inner.after(delayMs, callback, options);
    },
  };
  return { clock, armed: () => armed };
}
