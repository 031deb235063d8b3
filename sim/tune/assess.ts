// How far a configuration is from the objectives: per objective, the worst value over its flows
// and every seed, whether it meets the limit, and one distance for the search to order candidates
// by (0 exactly when every objective is met).

import { round } from '../report.ts';
import type { RunDigest } from '../sweep/run-digest.ts';
import type { Objective } from './objectives.ts';

export interface Worst {
  limit: number;
  /** The worst value over the matched flows and the seeds; null when no flow had a value. */
  worst: number | null;
  flow: string | null;
  seed: string | null;
  met: boolean;
}

export interface ObjectiveOutcome {
  index: number;
  flows: string[];
  matched: string[];
  waitP99Seconds?: Worst;
  rejectedFraction?: Worst;
  met: boolean;
}

export interface Assessment {
  met: boolean;
  distance: number;
  objectives: ObjectiveOutcome[];
}

/** A rejected fraction 5 points over its limit weighs as much as a p99 wait e (2.7) times its limit. */
const REJECTED_WEIGHT = 20;
/** A flow that dispatched nothing has no wait; it counts as this many times over the limit. */
const NO_DISPATCH_RATIO = 1000;

export function assess(
  objectives: readonly Objective[],
  matched: ReadonlyMap<number, readonly string[]>,
  runs: readonly { seed: string; digest: RunDigest }[],
): Assessment {
  let distance = 0;
  const outcomes = objectives.map((objective): ObjectiveOutcome => {
    const flows = matched.get(objective.index) ?? [];
    const outcome: ObjectiveOutcome = { index: objective.index, flows: objective.flows, matched: [...flows], met: true };
    if (objective.waitP99Seconds !== undefined) {
      const limit = objective.waitP99Seconds;
      const worst = worstOf(flows, runs, (f) =>
        f.arrived === 0 ? undefined : f.waitP99Seconds === null ? (f.dispatched === 0 ? limit * NO_DISPATCH_RATIO : 0) : f.waitP99Seconds,
      );
      const met = worst.value === null || worst.value <= limit;
      if (!met) distance += Math.log(Math.min(worst.value! / limit, NO_DISPATCH_RATIO));
      outcome.waitP99Seconds = { limit, worst: worst.value === null ? null : round(worst.value), flow: worst.flow, seed: worst.seed, met };
      outcome.met &&= met;
    }
    if (objective.rejectedFraction !== undefined) {
      const limit = objective.rejectedFraction;
      const worst = worstOf(flows, runs, (f) => (f.arrived === 0 ? undefined : f.rejectedTotal / f.arrived));
      const met = worst.value === null || worst.value <= limit;
      if (!met) distance += REJECTED_WEIGHT * (worst.value! - limit);
      outcome.rejectedFraction = { limit, worst: worst.value === null ? null : round(worst.value), flow: worst.flow, seed: worst.seed, met };
      outcome.met &&= met;
    }
    return outcome;
  });
  return { met: outcomes.every((o) => o.met), distance: round(distance), objectives: outcomes };
}

function worstOf(
  flows: readonly string[],
  runs: readonly { seed: string; digest: RunDigest }[],
  pick: (f: RunDigest['flows'][string]) => number | undefined,
): { value: number | null; flow: string | null; seed: string | null } {
  let best: { value: number | null; flow: string | null; seed: string | null } = { value: null, flow: null, seed: null };
  for (const run of runs) {
    for (const flow of flows) {
      const f = run.digest.flows[flow];
      if (f === undefined) continue;
      const value = pick(f);
      if (value !== undefined && (best.value === null || value > best.value)) best = { value, flow, seed: run.seed };
    }
  }
  return best;
}

/** "argo-gets wait p99 1.2 s (limit 100 ms, seed 3)" lines for what still fails. */
export function failures(assessment: Assessment, fmtSeconds: (s: number) => string): string[] {
  const lines: string[] = [];
  for (const o of assessment.objectives) {
    const w = o.waitP99Seconds;
    if (w !== undefined && !w.met)
      lines.push(`objectives[${o.index}]: ${w.flow} wait p99 ${fmtSeconds(w.worst!)} in seed ${w.seed} (limit ${fmtSeconds(w.limit)})`);
    const r = o.rejectedFraction;
    if (r !== undefined && !r.met)
      lines.push(`objectives[${o.index}]: ${r.flow} rejected ${(r.worst! * 100).toPrecision(3)}% in seed ${r.seed} (limit ${r.limit * 100}%)`);
  }
  return lines;
}
