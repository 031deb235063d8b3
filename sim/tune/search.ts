// The tuner's search: best-first over one-step moves, in rounds of a fixed number of candidates,
// each candidate run in every seed. A round's candidates are the unexplored moves from the closest
// candidates so far (distance to the objectives, then size), smallest moves first, moves on the
// levels and flows of failing objectives before any other; a few picks from the rest, drawn with
// the search's own seed, keep the search from only ever looking where it looked before. The first
// round that finds candidates meeting every objective ends the search with the smallest of them.
//
// Nothing here depends on timing: rounds have a fixed size whatever the worker count, and results
// are used in task order, so a seed list and a search seed always give the same recommendation.

import type { Prng } from '../../engine/random.ts';
import type { RunDigest } from '../run-digest.ts';
import type { Assessment } from './assess.ts';
import { candidateKey, candidateSize, compareSize, EMPTY_CANDIDATE, movesFrom, type Candidate, type CandidateSize, type TuneSpace } from './candidate.ts';

export const ROUND_SIZE = 8;
export const BEAM_WIDTH = 3;
/** Of each round, this many candidates are drawn at random from the moves not taken by size. */
const RANDOM_PICKS = 2;

export interface Evaluation {
  index: number;
  round: number;
  key: string;
  candidate: Candidate;
  size: CandidateSize;
  /** undefined when a run of the candidate failed (errors says why). */
  assessment: Assessment | undefined;
  runs: { seed: string; digest: RunDigest }[];
  errors: string[];
}

export interface SearchInput {
  space: TuneSpace;
  budget: number;
  prng: Prng;
  /** Runs the candidates in every seed; results in candidate order. */
  evaluate(candidates: readonly Candidate[]): Promise<{ runs: { seed: string; digest: RunDigest }[]; errors: string[] }[]>;
  assess(runs: readonly { seed: string; digest: RunDigest }[]): Assessment;
  /** The levels and flows the failing objectives of an evaluated candidate involve. */
  focusOf(evaluation: Evaluation): { levels: ReadonlySet<string>; flows: ReadonlySet<string> };
  onRound?(round: number, evaluated: number): void;
}

export interface SearchResult {
  met: boolean;
  /** The smallest candidate meeting every objective, or the closest one. */
  best: Evaluation;
  baseline: Evaluation;
  evaluations: Evaluation[];
}

/**
 * Interleaves moves by the object they change, keeping tier and size order within each: the
 * smallest move on each object first, then the second smallest of each, and so on, so a round
 * tries a new level for a flow as early as yet another tweak of the same level.
 */
function breadthFirst<T extends { tier: number; target: string }>(sorted: [string, T][]): [string, T][] {
  const rank = new Map<string, number>();
  const withRank = sorted.map((entry, i) => {
    const key = `${entry[1].tier}:${entry[1].target}`;
    const r = rank.get(key) ?? 0;
    rank.set(key, r + 1);
    return { entry, r, i };
  });
  return withRank.sort((a, b) => a.entry[1].tier - b.entry[1].tier || a.r - b.r || a.i - b.i).map((x) => x.entry);
}

/** Closest first: met before not, smaller distance, smaller change, then the key (a total order). */
export function closer(a: Evaluation, b: Evaluation): number {
  const da = a.assessment?.met === true ? -1 : (a.assessment?.distance ?? Number.POSITIVE_INFINITY);
  const db = b.assessment?.met === true ? -1 : (b.assessment?.distance ?? Number.POSITIVE_INFINITY);
  return da - db || compareSize(a.size, b.size) || (a.key < b.key ? -1 : a.key > b.key ? 1 : 0);
}

export async function searchConfigurations(input: SearchInput): Promise<SearchResult> {
  const { space } = input;
  const evaluations: Evaluation[] = [];
  const seen = new Set<string>();
  let round = 0;
  const run = async (candidates: Candidate[]): Promise<Evaluation[]> => {
    const results = await input.evaluate(candidates);
    const batch = candidates.map((candidate, i): Evaluation => {
      const { runs, errors } = results[i]!;
      const key = candidateKey(candidate);
      return {
        index: evaluations.length + i,
        round,
        key,
        candidate,
        size: candidateSize(candidate, space),
        assessment: errors.length === 0 ? input.assess(runs) : undefined,
        runs,
        errors,
      };
    });
    evaluations.push(...batch);
    input.onRound?.(round, evaluations.length);
    round++;
    return batch;
  };

  seen.add(candidateKey(EMPTY_CANDIDATE));
  const [baseline] = await run([EMPTY_CANDIDATE]);
  if (baseline!.assessment?.met === true || baseline!.assessment === undefined)
    return { met: baseline!.assessment?.met === true, best: baseline!, baseline: baseline!, evaluations };

  const expanded = new Set<string>();
  while (evaluations.length < input.budget) {
    // The beam: the closest candidates whose moves have not all been tried.
    const frontier = evaluations
      .filter((e) => e.assessment !== undefined && !expanded.has(e.key))
      .sort(closer)
      .slice(0, BEAM_WIDTH);
    if (frontier.length === 0) break;
    const fresh = new Map<string, { candidate: Candidate; tier: number; target: string; size: CandidateSize }>();
    for (const parent of frontier) {
      for (const move of movesFrom(parent.candidate, space, input.focusOf(parent))) {
        const key = candidateKey(move.candidate);
        if (seen.has(key)) continue;
        const known = fresh.get(key);
        if (known === undefined || move.tier < known.tier)
          fresh.set(key, { candidate: move.candidate, tier: move.tier, target: move.target, size: candidateSize(move.candidate, space) });
      }
    }
    const ordered = breadthFirst([...fresh.entries()].sort((a, b) => a[1].tier - b[1].tier || compareSize(a[1].size, b[1].size) || (a[0] < b[0] ? -1 : 1)));
    if (ordered.length === 0) {
      // Every move from the beam was tried: widen the beam.
      for (const e of frontier) expanded.add(e.key);
      continue;
    }
    const room = Math.min(ROUND_SIZE, input.budget - evaluations.length);
    const bySize = ordered.slice(0, Math.max(1, room - RANDOM_PICKS));
    const rest = ordered.slice(bySize.length);
    const picked = [...bySize];
    while (picked.length < room && rest.length > 0) picked.push(rest.splice(input.prng.int(rest.length), 1)[0]!);
    for (const [key] of picked) seen.add(key);
    // A parent whose moves all went into this round needs no second look.
    for (const parent of frontier) {
      if (movesFrom(parent.candidate, space, input.focusOf(parent)).every((m) => seen.has(candidateKey(m.candidate)))) expanded.add(parent.key);
    }
    const batch = await run(picked.map(([, m]) => m.candidate));
    const met = batch.filter((e) => e.assessment?.met === true);
    if (met.length > 0) {
      const best = [...evaluations.filter((e) => e.assessment?.met === true)].sort((a, b) => compareSize(a.size, b.size) || (a.key < b.key ? -1 : 1))[0]!;
      return { met: true, best, baseline: baseline!, evaluations };
    }
  }
  const best = [...evaluations].sort(closer)[0]!;
  return { met: false, best, baseline: baseline!, evaluations };
}
