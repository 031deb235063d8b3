// Baseline against variants, run over the same seeds. Every flow draws the same arrivals and
// service times in a seed whatever the configuration (seed.ts), so a seed's baseline and variant
// runs differ only by what the configuration did: metrics are compared seed by seed (paired), and
// a difference counts only when every seed agrees on its direction and the median difference is
// larger than a noise floor. Otherwise the verdict is "within seed noise".

import { spread, type Spread } from '../sweep/summary.ts';
import { round } from '../report.ts';
import { REJECT_REASONS } from '../metrics.ts';
import type { FlowDigest, LevelDigest, RunDigest } from '../run-digest.ts';

/** `new` and `removed`: the row exists in the variant only, or in the baseline only. */
export type Verdict = 'better' | 'worse' | 'noise' | 'new' | 'removed';
export type Unit = 'seconds' | 'fraction' | 'count' | 'seats';

export interface MetricComparison {
  unit: Unit;
  /** true: lower is better; false: higher is better; null: shown, never judged. */
  lowerIsBetter: boolean | null;
  baseline: Spread;
  variant: Spread;
  /** Median over seeds of (variant − baseline) in the same seed. */
  delta: number | null;
  verdict: Extract<Verdict, 'better' | 'worse' | 'noise'> | null;
}

export interface RowComparison {
  name: string;
  /** The flow's priority level in the baseline and in the variant (flows only). */
  level?: { baseline: string; variant: string };
  verdict: Verdict;
  /** How much the judged metrics moved (sum of relative median changes), for ordering. */
  score: number;
  metrics: Record<string, MetricComparison>;
}

export interface VariantComparison {
  name: string;
  files: string[];
  flows: RowComparison[];
  levels: RowComparison[];
}

export interface CompareRun {
  variant: string;
  seed: string;
  ok: boolean;
  digest?: RunDigest;
  /** report.json and report.html, relative to the comparison's directory. */
  report?: string;
  html?: string;
  errors?: string[];
}

export interface Comparison {
  kind: 'SimulationComparison';
  version: 1;
  scenario: string;
  seeds: string[];
  variants: VariantComparison[];
  runs: CompareRun[];
}

interface MetricSpec<T> {
  name: string;
  unit: Unit;
  lowerIsBetter: boolean | null;
  /** Judged metrics decide the row's verdict. */
  judged: boolean;
  pick: (x: T) => number | null;
}

const fraction = (n: number, of: number) => (of > 0 ? n / of : null);

export const FLOW_METRICS: readonly MetricSpec<FlowDigest>[] = [
  { name: 'rejectedFraction', unit: 'fraction', lowerIsBetter: true, judged: true, pick: (f) => fraction(f.rejectedTotal, f.arrived) },
  ...REJECT_REASONS.map((reason) => ({
    name: `rejected.${reason}`,
    unit: 'count' as const,
    lowerIsBetter: true,
    judged: false,
    pick: (f: FlowDigest) => f.rejected[reason],
  })),
  { name: 'waitP50Seconds', unit: 'seconds', lowerIsBetter: true, judged: false, pick: (f) => f.waitP50Seconds },
  { name: 'waitP99Seconds', unit: 'seconds', lowerIsBetter: true, judged: true, pick: (f) => f.waitP99Seconds },
  { name: 'latencyP50Seconds', unit: 'seconds', lowerIsBetter: true, judged: false, pick: (f) => f.latencyP50Seconds },
  { name: 'latencyP99Seconds', unit: 'seconds', lowerIsBetter: true, judged: true, pick: (f) => f.latencyP99Seconds },
  { name: 'seatsPerRequest', unit: 'seats', lowerIsBetter: null, judged: false, pick: (f) => f.seatsPerRequest },
];

export const LEVEL_METRICS: readonly MetricSpec<LevelDigest>[] = [
  { name: 'rejectedTotal', unit: 'count', lowerIsBetter: true, judged: true, pick: (l) => l.rejectedTotal },
  ...REJECT_REASONS.map((reason) => ({
    name: `rejected.${reason}`,
    unit: 'count' as const,
    lowerIsBetter: true,
    judged: false,
    pick: (l: LevelDigest) => l.rejected[reason],
  })),
  { name: 'waitingMean', unit: 'count', lowerIsBetter: true, judged: true, pick: (l) => l.waitingMean },
  { name: 'seatsInUseMean', unit: 'seats', lowerIsBetter: null, judged: false, pick: (l) => l.seatsInUseMean },
  { name: 'nominalCL', unit: 'seats', lowerIsBetter: null, judged: false, pick: (l) => l.nominalCL },
  { name: 'currentCLMean', unit: 'seats', lowerIsBetter: null, judged: false, pick: (l) => l.currentCLMean },
  { name: 'borrowingMeanSeats', unit: 'seats', lowerIsBetter: null, judged: false, pick: (l) => l.borrowingMeanSeats },
];

/** Differences smaller than this are noise whatever the seeds say: 1 ms, 0.1 percentage point, one request, 0.1 seat, or 5% of the baseline. */
const ABSOLUTE_FLOOR: Record<Unit, number> = { seconds: 0.001, fraction: 0.001, count: 1, seats: 0.1 };
const RELATIVE_FLOOR = 0.05;

export function noiseFloor(unit: Unit, baselineMedian: number | null): number {
  return Math.max(ABSOLUTE_FLOOR[unit], RELATIVE_FLOOR * Math.abs(baselineMedian ?? 0));
}

function median(xs: readonly number[]): number | null {
  if (xs.length === 0) return null;
  const s = [...xs].sort((a, b) => a - b);
  const mid = s.length >> 1;
  return s.length % 2 === 1 ? s[mid]! : (s[mid - 1]! + s[mid]!) / 2;
}

/**
 * `absentIsZero`: a row missing on one side counts as 0 there for counts and fractions (a level
 * that did not exist rejected nothing), so nothing → hundreds of rejections is judged as such.
 */
export function compareMetric<T>(
  spec: MetricSpec<T>,
  baseline: readonly (T | undefined)[],
  variant: readonly (T | undefined)[],
  absentIsZero = false,
): MetricComparison {
  const zero = absentIsZero && (spec.unit === 'count' || spec.unit === 'fraction') ? 0 : null;
  const b = baseline.map((x) => (x === undefined ? zero : spec.pick(x)));
  const v = variant.map((x) => (x === undefined ? zero : spec.pick(x)));
  const diffs: number[] = [];
  for (let i = 0; i < b.length; i++) if (b[i] !== null && b[i] !== undefined && v[i] !== null && v[i] !== undefined) diffs.push(v[i]! - b[i]!);
  const delta = median(diffs);
  const baselineSpread = spread(b);
  let verdict: Verdict | null = null;
  if (spec.lowerIsBetter !== null) {
    verdict = 'noise';
    const floor = noiseFloor(spec.unit, baselineSpread.median);
    if (delta !== null && Math.abs(delta) > floor) {
      const improving = (d: number) => (spec.lowerIsBetter ? d < 0 : d > 0);
      if (diffs.every((d) => improving(d))) verdict = 'better';
      else if (diffs.every((d) => !improving(d) && d !== 0)) verdict = 'worse';
    }
  }
  return {
    unit: spec.unit,
    lowerIsBetter: spec.lowerIsBetter,
    baseline: baselineSpread,
    variant: spread(v),
    delta: delta === null ? null : round(delta),
    verdict,
  };
}

function compareRow<T>(
  name: string,
  specs: readonly MetricSpec<T>[],
  baseline: readonly (T | undefined)[],
  variant: readonly (T | undefined)[],
): RowComparison {
  const metrics: Record<string, MetricComparison> = {};
  const presence = baseline.every((x) => x === undefined) ? 'new' : variant.every((x) => x === undefined) ? 'removed' : undefined;
  let better = false;
  let worse = false;
  let score = 0;
  for (const spec of specs) {
    const m = compareMetric(spec, baseline, variant, presence !== undefined);
    metrics[spec.name] = m;
    if (!spec.judged || m.verdict === null || m.verdict === 'noise') continue;
    if (m.verdict === 'better') better = true;
    else worse = true;
    score += Math.abs(m.delta ?? 0) / Math.max(Math.abs(m.baseline.median ?? 0), noiseFloor(m.unit, null));
  }
  // A row that got better on one measure and worse on another is a loser: the cost must be seen.
  // A new row that rejects or queues is worse than the nothing before it; a removed row's requests
  // went elsewhere, and are judged in their own rows.
  const verdict: Verdict = presence === 'removed' ? 'removed' : worse ? 'worse' : presence === 'new' ? 'new' : better ? 'better' : 'noise';
  return { name, verdict, score: round(score, 4), metrics };
}

const VERDICT_ORDER: Record<Verdict, number> = { worse: 0, better: 0, new: 1, removed: 1, noise: 2 };

/** Winners and losers first (largest change first), then new and removed rows, then the rows within seed noise, by name. */
export function orderRows(rows: RowComparison[]): RowComparison[] {
  return rows.sort((a, b) => VERDICT_ORDER[a.verdict] - VERDICT_ORDER[b.verdict] || b.score - a.score || (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
}

/** Compares one variant's runs with the baseline's, seed by seed (runs in the same seed order). */
export function compareVariant(name: string, files: string[], baseline: readonly RunDigest[], variant: readonly RunDigest[]): VariantComparison {
  const names = <K extends 'flows' | 'levels'>(key: K) => [...new Set([...baseline, ...variant].flatMap((d) => Object.keys(d[key])))];
  const flows = names('flows').map((flow) => {
    const row = compareRow(
      flow,
      FLOW_METRICS,
      baseline.map((d) => d.flows[flow]),
      variant.map((d) => d.flows[flow]),
    );
    const levelOf = (runs: readonly RunDigest[]) => runs.find((d) => d.flows[flow] !== undefined)?.flows[flow]?.priorityLevel ?? '';
    return { ...row, level: { baseline: levelOf(baseline), variant: levelOf(variant) } };
  });
  const levels = names('levels').map((level) =>
    compareRow(
      level,
      LEVEL_METRICS,
      baseline.map((d) => d.levels[level]),
      variant.map((d) => d.levels[level]),
    ),
  );
  return { name, files, flows: orderRows(flows), levels: orderRows(levels) };
}
