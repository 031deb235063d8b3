// Arrival processes and service-time distributions for scenario flows. Each sampler draws from
// the flow's own PRNG in a fixed order (one arrival gap, then one service time), so a flow's
// workload is a function of the seed and the flow alone, whatever the engine does with it.
// Pure functions of (spec, PRNG state); times in milliseconds.

import type { Prng } from '../engine/random.ts';

export type ArrivalSpec =
  | { type: 'constant'; ratePerSecond: number }
  | { type: 'poisson'; ratePerSecond: number }
  /** Poisson at `ratePerSecond` for `onMs`, then silence for `offMs`, repeating from the flow's start. */
  | { type: 'burst'; ratePerSecond: number; onMs: number; offMs: number };

export type ServiceSpec =
  | { type: 'constant'; valueMs: number }
  | { type: 'exponential'; meanMs: number }
  /** Log-normal given by two quantiles people know: the median and the 99th percentile. */
  | { type: 'lognormal'; medianMs: number; p99Ms: number };

/** Φ⁻¹(0.99): the standard normal's 99th percentile. */
export const NORMAL_Z_P99 = 2.3263478740408408;

/** Exponential with the given mean; `1 - u` keeps the argument of the log in (0, 1]. */
export function exponentialMs(prng: Prng, meanMs: number): number {
  return -Math.log(1 - prng.next()) * meanMs;
}

/** One standard normal draw (Box–Muller, cosine branch only: always two uniforms per draw). */
export function standardNormal(prng: Prng): number {
  const u1 = prng.next();
  const u2 = prng.next();
  return Math.sqrt(-2 * Math.log(1 - u1)) * Math.cos(2 * Math.PI * u2);
}

export function lognormalSigma(medianMs: number, p99Ms: number): number {
  return Math.log(p99Ms / medianMs) / NORMAL_Z_P99;
}

/** The distribution's mean: a log-normal's is its median × e^(σ²/2). */
export function serviceMeanMs(spec: ServiceSpec): number {
  switch (spec.type) {
    case 'constant':
      return spec.valueMs;
    case 'exponential':
      return spec.meanMs;
    case 'lognormal':
      return spec.medianMs * Math.exp(lognormalSigma(spec.medianMs, spec.p99Ms) ** 2 / 2);
  }
}

export interface ServiceSampler {
  nextMs(prng: Prng): number;
}

export function serviceSampler(spec: ServiceSpec): ServiceSampler {
  switch (spec.type) {
    case 'constant': {
      const valueMs = spec.valueMs;
      return { nextMs: () => valueMs };
    }
    case 'exponential': {
      const meanMs = spec.meanMs;
      return { nextMs: (prng) => exponentialMs(prng, meanMs) };
    }
    case 'lognormal': {
      const medianMs = spec.medianMs;
      const sigma = lognormalSigma(spec.medianMs, spec.p99Ms);
      return { nextMs: (prng) => medianMs * Math.exp(sigma * standardNormal(prng)) };
    }
  }
}

/**
 * Generates arrival times: `first(startMs)` gives the first arrival at or after the flow's start,
 * `next(previousMs)` the one after that. Either may return a time past the flow's end; the caller
 * stops there.
 */
export interface ArrivalProcess {
  first(prng: Prng): number;
  next(prng: Prng, previousMs: number): number;
}

export function arrivalProcess(spec: ArrivalSpec, startMs: number): ArrivalProcess {
  switch (spec.type) {
    case 'constant': {
      const gapMs = 1000 / spec.ratePerSecond;
      // The first request comes one gap after the start, like the rest: a rate, not a burst at 0.
      return { first: () => startMs + gapMs, next: (_prng, previousMs) => previousMs + gapMs };
    }
    case 'poisson': {
      const meanGapMs = 1000 / spec.ratePerSecond;
      return {
        first: (prng) => startMs + exponentialMs(prng, meanGapMs),
        next: (prng, previousMs) => previousMs + exponentialMs(prng, meanGapMs),
      };
    }
    case 'burst': {
      const meanGapMs = 1000 / spec.ratePerSecond;
      const periodMs = spec.onMs + spec.offMs;
      const onMs = spec.onMs;
      // A Poisson process restricted to the on-windows: memorylessness lets a gap that would end
      // in the off-window simply restart at the next window's opening.
      const within = (prng: Prng, fromMs: number): number => {
        let t = fromMs;
        for (;;) {
          const candidate = t + exponentialMs(prng, meanGapMs);
          const window = Math.floor((t - startMs) / periodMs);
          const windowEndMs = startMs + window * periodMs + onMs;
          if (candidate < windowEndMs) return candidate;
          t = startMs + (window + 1) * periodMs;
        }
      };
      return { first: (prng) => within(prng, startMs), next: (prng, previousMs) => within(prng, previousMs) };
    }
  }
}
