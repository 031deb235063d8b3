// Stop-the-world pauses of the server's runtime (docs/simulator.md, "The main thread"), opt-in as
// `server.pauses`: V8's garbage collections stop the JavaScript thread that allocated, so while one
// runs the main thread makes no progress, whatever its queue holds. Each kind of pause (a scavenge
// every few tens of milliseconds, a mark-compact now and then) is a Poisson process of its own: gaps
// exponential with the mean interval `every`, lengths from a duration distribution. The pool's
// threads are isolates with heaps of their own: a main-thread pause does not stop them.
//
// Deterministic: each kind draws from its own named PRNG stream (a gap, then a length), so turning
// pauses on shifts no flow's arrivals or service times, and adding a kind shifts no other kind's.

import type { Prng } from '../engine/random.ts';
import { exponentialMs, serviceMeanMs, serviceSampler, type ServiceSpec } from './distributions.ts';
import type { CpuClock } from './shared-cpu.ts';

export interface PauseSpec {
  /** Mean interval between the starts of two pauses of this kind (ms). */
  everyMs: number;
  /**
   * How long one pause holds the main thread: a distribution, or measured lengths drawn one at
   * random for each pause (a measured run's rare long pause stays in it, where a fit through two
   * quantiles would lose it).
   */
  duration: ServiceSpec | { type: 'measured'; valuesMs: number[] };
}

/** The mean length of one pause (ms). */
function meanLengthMs(duration: PauseSpec['duration']): number {
  if (duration.type !== 'measured') return serviceMeanMs(duration);
  return duration.valuesMs.reduce((sum, ms) => sum + ms, 0) / duration.valuesMs.length;
}

/** The share of the main thread's time the pauses take on average: Σ E[duration] ÷ every. */
export function pauseShare(specs: readonly PauseSpec[]): number {
  return specs.reduce((share, spec) => share + meanLengthMs(spec.duration) / spec.everyMs, 0);
}

function lengthSampler(duration: PauseSpec['duration']): { nextMs(prng: Prng): number } {
  if (duration.type !== 'measured') return serviceSampler(duration);
  const values = duration.valuesMs;
  return { nextMs: (prng) => values[prng.int(values.length)]! };
}

/**
 * Calls `pause(ms)` at each pause's start, for every kind, until `untilMs`; `prngOf(i)` is kind i's
 * stream. Nothing is scheduled without specs, so a scenario without pauses runs as before.
 */
export function schedulePauses(
  clock: CpuClock,
  specs: readonly PauseSpec[],
  prngOf: (index: number) => Prng,
  untilMs: number,
  pause: (ms: number) => void,
): void {
  specs.forEach((spec, index) => {
    const prng = prngOf(index);
    const lengths = lengthSampler(spec.duration);
    const next = (): void => {
      const gapMs = exponentialMs(prng, spec.everyMs);
      const lengthMs = lengths.nextMs(prng);
      if (clock.now() + gapMs >= untilMs) return;
      clock.after(gapMs, () => {
        pause(lengthMs);
        next();
      });
    };
    next();
  });
}
