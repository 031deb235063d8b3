// What happened between two scrapes of one /metrics: a counter's increase and a histogram's
// window (its buckets' increases) summed over the series a caller groups together, and Prometheus'
// histogram_quantile over such a window. A series whose count went down was reset (the server
// restarted) and counts from 0, as Prometheus' rate() does. `sim import --traffic` groups by
// FlowSchema × level, `fairway top` by level and by FlowSchema.

import { samplesByKey, type ExpositionSample } from './prometheus-text.ts';

/** A sample's labels less `le`: which series of a histogram a bucket belongs to. */
export const seriesOf = (labels: Record<string, string>) => JSON.stringify(Object.entries(labels).filter(([k]) => k !== 'le'));
/** A finite, non-negative value, or 0 (a counter that reads NaN or negative counts nothing). */
const num = (value: number | undefined) => (value !== undefined && Number.isFinite(value) && value >= 0 ? value : 0);

/** Δ of a counter summed over a group's series; a counter that went down (a restart) counts from 0. */
export function counterDelta(before: readonly ExpositionSample[] | undefined, after: readonly ExpositionSample[] | undefined): number {
  const prior = new Map((before ?? []).map((m) => [seriesOf(m.labels), num(m.value)]));
  let delta = 0;
  for (const m of after ?? []) {
    const now = num(m.value);
    const then = prior.get(seriesOf(m.labels)) ?? 0;
    delta += now >= then ? now - then : now;
  }
  return delta;
}

export interface HistogramDelta {
  count: number;
  sum: number;
  /** Cumulative counts by upper bound, ascending, +Inf last. */
  buckets: [number, number][];
}

/** One scrape's histograms of a family, grouped by `keyOf` (undefined leaves a series out). */
export interface Histograms {
  count: Map<string, ExpositionSample[]>;
  sum: Map<string, ExpositionSample[]>;
  bucket: Map<string, ExpositionSample[]>;
}

export function histograms(samples: readonly ExpositionSample[], family: string, keyOf: (labels: Record<string, string>) => string | undefined): Histograms {
  return {
    count: samplesByKey(samples, `${family}_count`, keyOf),
    sum: samplesByKey(samples, `${family}_sum`, keyOf),
    bucket: samplesByKey(samples, `${family}_bucket`, keyOf),
  };
}

/** The window's histogram of a group: each series' after − before (from 0 when its count went down). */
export function histogramDelta(before: Histograms, after: Histograms, key: string): HistogramDelta {
  const restarted = new Set<string>();
  const priorCount = new Map((before.count.get(key) ?? []).map((m) => [seriesOf(m.labels), num(m.value)]));
  let count = 0;
  for (const m of after.count.get(key) ?? []) {
    const id = seriesOf(m.labels);
    const then = priorCount.get(id) ?? 0;
    if (num(m.value) < then) restarted.add(id);
    count += num(m.value) - (restarted.has(id) ? 0 : then);
  }
  const minus = (list: ExpositionSample[] | undefined, prior: ExpositionSample[] | undefined, keyOfSample: (m: ExpositionSample) => string) => {
    const then = new Map((prior ?? []).map((m) => [keyOfSample(m), num(m.value)]));
    return (list ?? []).map((m) => [m, num(m.value) - (restarted.has(seriesOf(m.labels)) ? 0 : (then.get(keyOfSample(m)) ?? 0))] as const);
  };
  let sum = 0;
  for (const [, value] of minus(after.sum.get(key), before.sum.get(key), (m) => seriesOf(m.labels))) sum += value;
  const buckets = new Map<number, number>();
  for (const [m, value] of minus(after.bucket.get(key), before.bucket.get(key), (m) => JSON.stringify(Object.entries(m.labels)))) {
    const le = m.labels.le;
    const bound = le === '+Inf' ? Number.POSITIVE_INFINITY : Number(le);
    if (le === undefined || Number.isNaN(bound)) continue;
    buckets.set(bound, (buckets.get(bound) ?? 0) + value);
  }
  return { count, sum, buckets: [...buckets].sort((a, b) => a[0] - b[0]) };
}

/** Prometheus' histogram_quantile: linear within the bucket the rank falls in. */
export function histogramQuantile(q: number, h: HistogramDelta): number | undefined {
  if (h.count <= 0 || h.buckets.length === 0) return undefined;
  const rank = q * h.buckets[h.buckets.length - 1]![1];
  let lowerBound = 0;
  let lowerCount = 0;
  for (const [bound, cumulative] of h.buckets) {
    if (cumulative >= rank) {
      if (bound === Number.POSITIVE_INFINITY) return lowerBound;
      const inBucket = cumulative - lowerCount;
      return inBucket <= 0 ? bound : lowerBound + ((bound - lowerBound) * (rank - lowerCount)) / inBucket;
    }
    lowerBound = bound;
    lowerCount = cumulative;
  }
  return lowerBound;
}
