// How far a configuration is from the objectives: per objective and measure, the worst value over
// its flows (or levels) and every seed, the limit it was held to, whether it meets it, and one
// distance for the search to order candidates by (0 exactly when every objective is met).
//
// A protection (`noWorseThan: baseline`) holds each flow to its own baseline value, so its limit
// differs per flow: the worst is the flow and seed furthest over its own limit, relative to it.

import { round } from '../report.ts';
import type { FlowDigest, RunDigest } from '../run-digest.ts';
import type { Objective } from './objectives.ts';
import type { Matched } from './space.ts';

export interface Worst {
  /** The limit the worst value was held to (for a protection: that flow's baseline plus slack). */
  limit: number;
  /** The worst value over the matched flows (or levels) and the seeds; null when none had a value. */
  worst: number | null;
  /** The flow (or, for borrowedSeats, the level) and seed of the worst value. */
  flow: string | null;
  seed: string | null;
  met: boolean;
  /** For a protection: the baseline's worst value of that flow over the seeds. */
  baseline?: number | null;
}

/** The measures an objective can hold, in the order they are reported. */
export const MEASURES = [
  'waitP99Seconds',
  'latencyP99Seconds',
  'rejectedFraction',
  'latencyP99NoWorse',
  'rejectedNoWorse',
  'borrowedSeats',
  'serverCpu',
  'serverMemory',
] as const;
export type Measure = (typeof MEASURES)[number];

export type ObjectiveOutcome = {
  index: number;
  /** Why an objective the file does not give is held (see withImplicitObjectives). */
  implicit?: string;
  flows: string[];
  levels: string[];
  matched: string[];
  matchedLevels: string[];
  met: boolean;
} & { [M in Measure]?: Worst };

export interface Assessment {
  met: boolean;
  distance: number;
  objectives: ObjectiveOutcome[];
}

type Runs = readonly { seed: string; digest: RunDigest }[];

/** A rejected fraction 5 points over its limit weighs as much as a p99 wait e (2.7) times its limit. */
const REJECTED_WEIGHT = 20;
/** A flow that dispatched nothing has no wait; it counts as this many times over the limit. */
const NO_DISPATCH_RATIO = 1000;
/** Below these, values differ by noise only: the scale a value's excess over its limit is measured against. */
const SCALE_FLOOR: Record<Measure, number> = {
  waitP99Seconds: 1e-3,
  latencyP99Seconds: 1e-3,
  rejectedFraction: 1e-3,
  latencyP99NoWorse: 1e-3,
  rejectedNoWorse: 1e-3,
  borrowedSeats: 1,
  serverCpu: 1e-3,
  serverMemory: 1e-3,
};

/** One value of a measure: whose, in which seed, and the limit it is held to. */
interface Sample {
  who: string;
  seed: string;
  value: number;
  limit: number;
  baseline?: number | null;
}

/** A p99 of a flow that arrived but dispatched nothing counts far over the limit. */
function p99Of(f: FlowDigest, pick: 'waitP99Seconds' | 'latencyP99Seconds', limit: number): number | undefined {
  if (f.arrived === 0) return undefined;
  const value = f[pick];
  return value === null ? (f.dispatched === 0 ? Math.max(limit, SCALE_FLOOR[pick]) * NO_DISPATCH_RATIO : 0) : value;
}

const rejectedOf = (f: FlowDigest): number | undefined => (f.arrived === 0 ? undefined : f.rejectedTotal / f.arrived);

/** Every sample of a measure for an objective, over its flows or levels and the seeds. */
function* samples(measure: Measure, o: Objective, m: Matched, runs: Runs, baseline: Runs): Generator<Sample> {
  const flowSamples = function* (
    limitOf: (flow: string) => { limit: number; baseline?: number | null } | undefined,
    pick: (f: FlowDigest, limit: number) => number | undefined,
  ) {
    for (const run of runs) {
      for (const flow of m.flows) {
        const f = run.digest.flows[flow];
        const held = f === undefined ? undefined : limitOf(flow);
        const value = held === undefined ? undefined : pick(f!, held.limit);
        if (held !== undefined && value !== undefined) yield { who: flow, seed: run.seed, value, ...held };
      }
    }
  };
  const fixed = (limit: number | undefined) => () => (limit === undefined ? undefined : { limit });
  /** Each flow's limit from its own worst baseline value: that plus the slack. */
  const noWorse = (pick: (f: FlowDigest) => number | undefined) => (flow: string) => {
    let worst: number | null = null;
    for (const run of baseline) {
      const f = run.digest.flows[flow];
      const value = f === undefined ? undefined : pick(f);
      if (value !== undefined && (worst === null || value > worst)) worst = value;
    }
    return worst === null ? undefined : { limit: worst * (1 + o.noWorseThan!.slack), baseline: worst };
  };
  switch (measure) {
    case 'waitP99Seconds':
    case 'latencyP99Seconds':
      yield* flowSamples(fixed(o[measure]), (f, limit) => p99Of(f, measure, limit));
      return;
    case 'rejectedFraction':
      yield* flowSamples(fixed(o.rejectedFraction), rejectedOf);
      return;
    case 'latencyP99NoWorse':
      if (o.noWorseThan === undefined) return;
      yield* flowSamples(
        noWorse((f) => p99Of(f, 'latencyP99Seconds', 1)),
        (f, limit) => p99Of(f, 'latencyP99Seconds', limit),
      );
      return;
    case 'rejectedNoWorse':
      if (o.noWorseThan === undefined) return;
      yield* flowSamples(noWorse(rejectedOf), rejectedOf);
      return;
    case 'borrowedSeats':
      if (o.borrowedSeats === undefined) return;
      for (const run of runs)
        for (const level of m.levels) {
          const l = run.digest.levels[level];
          if (l !== undefined) yield { who: level, seed: run.seed, value: Math.max(0, l.borrowingMaxSeats), limit: o.borrowedSeats };
        }
      return;
    case 'serverCpu':
    case 'serverMemory': {
      const limit = o[measure];
      if (limit === undefined) return;
      for (const run of runs) {
        const c = run.digest.capacity;
        if (c === null) continue;
        const value = measure === 'serverCpu' ? c.peakCpu : c.memoryBytes === null ? null : c.peakMemoryBytes / c.memoryBytes;
        if (value !== null) yield { who: 'server', seed: run.seed, value, limit };
      }
    }
  }
}

/** The sample furthest over its own limit, relative to the limit; ties keep the first. */
function worstOf(measure: Measure, all: Iterable<Sample>): { worst: Sample | undefined; met: boolean } {
  let worst: Sample | undefined;
  let worstScore = Number.NEGATIVE_INFINITY;
  let met = true;
  for (const s of all) {
    if (s.value > s.limit) met = false;
    const score = (s.value - s.limit) / Math.max(s.limit, SCALE_FLOOR[measure]);
    if (score > worstScore) {
      worst = s;
      worstScore = score;
    }
  }
  return { worst, met };
}

/** How much a measure over its limit adds to the search's distance. */
function distanceOf(measure: Measure, s: Sample): number {
  if (measure === 'rejectedFraction' || measure === 'rejectedNoWorse') return REJECTED_WEIGHT * (s.value - s.limit);
  const floor = SCALE_FLOOR[measure];
  return Math.log(Math.min((s.value + floor) / (s.limit + floor), NO_DISPATCH_RATIO));
}

export function assess(objectives: readonly Objective[], matched: ReadonlyMap<number, Matched>, runs: Runs, baseline: Runs = runs): Assessment {
  let distance = 0;
  const outcomes = objectives.map((objective): ObjectiveOutcome => {
    const m = matched.get(objective.index) ?? { flows: [], levels: [] };
    const outcome: ObjectiveOutcome = {
      index: objective.index,
      ...(objective.implicit === undefined ? {} : { implicit: objective.implicit }),
      flows: objective.flows,
      levels: objective.levels,
      matched: [...m.flows],
      matchedLevels: [...m.levels],
      met: true,
    };
    for (const measure of MEASURES) {
      if (!holds(objective, measure)) continue;
      const { worst, met } = worstOf(measure, samples(measure, objective, m, runs, baseline));
      if (!met) distance += distanceOf(measure, worst!);
      outcome[measure] = {
        limit: round(worst?.limit ?? limitOf(objective, measure)),
        worst: worst === undefined ? null : round(worst.value),
        flow: worst?.who ?? null,
        seed: worst?.seed ?? null,
        met,
        ...(objective.noWorseThan !== undefined && measure.endsWith('NoWorse') ? { baseline: worst?.baseline == null ? null : round(worst.baseline) } : {}),
      };
      outcome.met &&= met;
    }
    return outcome;
  });
  return { met: outcomes.every((o) => o.met), distance: round(distance), objectives: outcomes };
}

/** Whether the objective holds this measure. */
export function holds(o: Objective, measure: Measure): boolean {
  if (measure === 'latencyP99NoWorse' || measure === 'rejectedNoWorse') return o.noWorseThan !== undefined;
  return o[measure] !== undefined;
}

/** The objective's own limit of a measure (a protection's is per flow: its slack stands here). */
function limitOf(o: Objective, measure: Measure): number {
  if (measure === 'latencyP99NoWorse' || measure === 'rejectedNoWorse') return o.noWorseThan!.slack;
  return o[measure] ?? 0;
}
