// Metric families cheap enough for the request hot path, exposed through a prom-client Registry.
//
// prom-client's own Counter and Histogram validate and hash their label object on every call
// (measured: 0.25 µs per counter increment, 0.6 µs per histogram observation). A request touches
// five or six series, which would cost more than the whole admission. Here a caller looks a series
// up once (`cell(...)`), keeps the cell, and then an observation is a few additions; the registry
// only sees the family at scrape time, through the `get()` contract its own metrics implement.
//
// Labels are printed sorted by name (and `le` last), as Go's client does, so Fairway's output
// reads like kube-apiserver's.

import type { Metric, Registry } from 'prom-client';

export type MetricType = 'counter' | 'gauge' | 'histogram';

export interface Sample {
  metricName?: string;
  labels: Record<string, string>;
  value: number;
}

/** A family whose samples are produced when scraped. */
export class CollectedFamily {
  readonly aggregator = 'sum';

  constructor(
    readonly name: string,
    readonly help: string,
    readonly type: MetricType,
    private readonly collect: () => Sample[],
  ) {}

  async get(): Promise<{ name: string; help: string; type: MetricType; aggregator: string; values: Sample[] }> {
    return { name: this.name, help: this.help, type: this.type, aggregator: this.aggregator, values: this.collect() };
  }

  /** Registry.resetMetrics() calls this; a collected family has nothing of its own to reset. */
  reset(): void {}

  registerIn(registry: Registry): this {
    // The registry reads only name, help, type and get(); the cast is the documented way to add a
    // custom collector to prom-client without its label-hashing classes.
    registry.registerMetric(this as unknown as Metric);
    return this;
  }
}

/** Label pairs in Go's order: sorted by name. */
export function sortedLabels(names: readonly string[], values: readonly string[]): Record<string, string> {
  const pairs = names.map((name, i) => [name, values[i] ?? ''] as const).sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0));
  return Object.fromEntries(pairs);
}

export interface CounterCell {
  value: number;
}

export class CounterVec {
  private readonly cells = new Map<string, { values: readonly string[]; cell: CounterCell }>();
  readonly family: CollectedFamily;

  constructor(
    name: string,
    help: string,
    readonly labelNames: readonly string[],
  ) {
    this.family = new CollectedFamily(name, help, 'counter', () => this.samples());
  }

  /** The series for these label values (in `labelNames` order); keep it for repeated use. */
  cell(...values: string[]): CounterCell {
    const key = values.join('\u0000');
    let entry = this.cells.get(key);
    if (entry === undefined) {
      entry = { values, cell: { value: 0 } };
      this.cells.set(key, entry);
    }
    return entry.cell;
  }

  private samples(): Sample[] {
    return [...this.cells.values()].map(({ values, cell }) => ({ labels: sortedLabels(this.labelNames, values), value: cell.value }));
  }
}

export class HistogramCell {
  /** Observations per bucket (not cumulative); the last slot is beyond the largest bound. */
  readonly counts: Float64Array;
  sum = 0;
  count = 0;

  constructor(private readonly bounds: readonly number[]) {
    this.counts = new Float64Array(bounds.length + 1);
  }

  observe(value: number): void {
    this.counts[bucketIndex(this.bounds, value)]!++;
    this.sum += value;
    this.count++;
  }
}

export class HistogramVec {
  private readonly cells = new Map<string, { values: readonly string[]; cell: HistogramCell }>();
  readonly family: CollectedFamily;

  constructor(
    readonly name: string,
    help: string,
    readonly labelNames: readonly string[],
    readonly bounds: readonly number[],
  ) {
    for (let i = 1; i < bounds.length; i++) {
      if (!(bounds[i]! > bounds[i - 1]!)) throw new Error(`histogram ${name}: bucket bounds must increase`);
    }
    this.family = new CollectedFamily(name, help, 'histogram', () => this.samples());
  }

  cell(...values: string[]): HistogramCell {
    const key = values.join('\u0000');
    let entry = this.cells.get(key);
    if (entry === undefined) {
      entry = { values, cell: new HistogramCell(this.bounds) };
      this.cells.set(key, entry);
    }
    return entry.cell;
  }

  private samples(): Sample[] {
    const out: Sample[] = [];
    for (const { values, cell } of this.cells.values())
      pushHistogram(out, this.name, sortedLabels(this.labelNames, values), this.bounds, cell.counts, cell.sum);
    return out;
  }
}

/** sort.SearchFloat64s, as Go's histograms place a value: the first bound at or above it; NaN goes beyond them all. */
export function bucketIndex(bounds: readonly number[], value: number): number {
  let i = 0;
  while (i < bounds.length && !(bounds[i]! >= value)) i++;
  return i;
}

/** One histogram series: cumulative `_bucket` lines (`+Inf` last), `_sum` and `_count`, from per-bucket weights. */
export function pushHistogram(
  out: Sample[],
  name: string,
  labels: Record<string, string>,
  bounds: readonly number[],
  weights: ArrayLike<number>,
  sum: number,
): void {
  let cumulative = 0;
  bounds.forEach((bound, i) => {
    cumulative += weights[i]!;
    out.push({ metricName: `${name}_bucket`, labels: { ...labels, le: String(bound) }, value: cumulative });
  });
  const count = cumulative + weights[bounds.length]!;
  out.push({ metricName: `${name}_bucket`, labels: { ...labels, le: '+Inf' }, value: count });
  out.push({ metricName: `${name}_sum`, labels, value: sum });
  out.push({ metricName: `${name}_count`, labels, value: count });
}
