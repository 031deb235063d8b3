// The one source of time for the engine. Nothing in engine/ reads the wall clock or starts timers
// itself: the server injects `realClock()`, the simulator and tests inject a virtual clock
// (engine/sim-clock.ts), so one seed gives one history.
//
// `after` takes a callback rather than returning a promise, so a virtual clock knows the
// consequences of an instant are done when the callback returns.

export type Cancel = () => void;

export interface TimerOptions {
  /**
   * false: the timer alone does not keep the process running (Node's `unref`), for timers that
   * only matter while something else (a connection, a listening socket) keeps it running. A
   * virtual clock has no process to keep and ignores it.
   */
  keepsProcessAlive?: boolean;
}

export interface Clock {
  /** Milliseconds since an arbitrary, fixed origin; may be fractional; never goes backwards. */
  now(): number;
  /** Runs `callback` once, `delayMs` from now (0 or negative: as soon as possible). */
  after(delayMs: number, callback: () => void, options?: TimerOptions): Cancel;
}

/**
 * The longest delay Node's setTimeout keeps (a signed 32-bit count of ms, about 24.8 days); a
 * longer one fires after 1 ms instead.
 */
export const MAX_TIMER_DELAY_MS = 2 ** 31 - 1;

/** The real clock: monotonic time from `performance`, timers from Node's event loop. */
export function realClock(): Clock {
  const origin = performance.timeOrigin;
  return {
    now: () => origin + performance.now(),
    after(delayMs, callback, options) {
      const weak = options?.keepsProcessAlive === false;
      if (!(delayMs > MAX_TIMER_DELAY_MS)) {
        const timer = setTimeout(callback, Math.max(0, delayMs));
        if (weak) timer.unref();
        return () => clearTimeout(timer);
      }
      // Longer delays (a watch's timeoutSeconds can ask for years) wait in chained steps.
      let timer: ReturnType<typeof setTimeout>;
      const wait = (leftMs: number) => {
        timer = leftMs > MAX_TIMER_DELAY_MS ? setTimeout(() => wait(leftMs - MAX_TIMER_DELAY_MS), MAX_TIMER_DELAY_MS) : setTimeout(callback, leftMs);
        if (weak) timer.unref();
      };
      wait(delayMs);
      return () => clearTimeout(timer);
    },
  };
}

/**
 * RFC 3339 in UTC as Go's `time.RFC3339Nano` prints it (trailing zeros dropped). Epoch milliseconds
 * in a double keep about microsecond precision, so the fraction is rounded to microseconds.
 */
export function formatRfc3339Nano(epochMs: number): string {
  const whole = Math.floor(epochMs);
  const iso = new Date(whole).toISOString(); // 2026-11-21T05:11:26.123Z
  const nanos = Math.round((epochMs - whole) * 1e3) * 1e3 + (whole % 1000) * 1e6;
  const base = iso.slice(0, 19);
  if (nanos === 0) return `${base}Z`;
  return `${base}.${String(nanos).padStart(9, '0').replace(/0+$/, '')}Z`;
}

/** RFC 3339 to the second, as metav1.Time serialises (`creationTimestamp`, `lastTransitionTime`). */
export function formatRfc3339(epochMs: number): string {
  return `${new Date(Math.floor(epochMs)).toISOString().slice(0, 19)}Z`;
}
