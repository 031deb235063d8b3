// Kubernetes' TimingRatioHistogram (util/flowcontrol/metrics/timing_ratio_histogram.go over
// component-base's TimingHistogram): a gauge of numerator / denominator that, when scraped, is a
// histogram of the ratio observed "at the end of every nanosecond". Each bucket holds the
// nanoseconds the ratio spent at or below its bound, `_count` the nanoseconds observed and `_sum`
// the integral of the ratio over them. Exposed as an ordinary Prometheus histogram.
//
// A cell is updated only when its numerator or denominator changes; the time since the last
// change is then credited to the ratio it had. Callers pass the time in, so one reading of the
// clock serves several cells.

import { CollectedFamily, pushHistogram, sortedLabels, type Sample } from './metric-family.ts';

const NS_PER_MS = 1e6;

export class TimingRatioCell {
  /** Nanoseconds per bucket (not cumulative); the last slot is beyond the largest bound. */
  readonly weights: Float64Array;
  sum = 0;
  private ratio = 0;
  /** The bucket of `ratio`, found when the ratio changes rather than each time time is credited. */
  private bucket = 0;

  constructor(
    private readonly bounds: readonly number[],
    private lastMs: number,
    private numerator: number,
    private denominator: number,
  ) {
    this.weights = new Float64Array(bounds.length + 1);
    this.ratioChanged();
  }

  set(numerator: number, nowMs: number): void {
    if (numerator === this.numerator) return;
    this.advance(nowMs);
    this.numerator = numerator;
    this.ratioChanged();
  }

  /** Moves the numerator by `delta`: a count kept in the cell itself. */
  add(delta: number, nowMs: number): void {
    this.set(this.numerator + delta, nowMs);
  }

  setDenominator(denominator: number, nowMs: number): void {
    if (denominator === this.denominator) return;
    this.advance(nowMs);
    this.denominator = denominator;
    this.ratioChanged();
  }

  /** Credits the time since the last change to the current ratio. */
  advance(nowMs: number): void {
    const elapsedNs = (nowMs - this.lastMs) * NS_PER_MS;
    if (!(elapsedNs > 0)) return;
    this.lastMs = nowMs;
    this.weights[this.bucket]! += elapsedNs;
    this.sum += elapsedNs * this.ratio;
  }

  private ratioChanged(): void {
    const ratio = this.numerator / this.denominator;
    this.ratio = ratio;
    // The first bound at or above the ratio (bucketIndex's rule), searched from the bucket it was
    // in: a ratio moves by one request or seat at a time, so this is a step or two, not a scan.
    // (The search runs on the quotient computed here: handing it to bucketIndex boxed it for the
    // call, 16 B per change, six changes per request.)
    const bounds = this.bounds;
    let i = this.bucket;
    while (i > 0 && bounds[i - 1]! >= ratio) i--;
    while (i < bounds.length && !(bounds[i]! >= ratio)) i++;
    this.bucket = i;
  }
}

export class TimingRatioHistogramVec {
  private readonly cells = new Map<string, { values: readonly string[]; cell: TimingRatioCell }>();
  readonly family: CollectedFamily;

  /**
   * `constLabels` are printed on every series (Kubernetes' ConstLabels); `labelNames` are the
   * variable ones, in the order `cell()` takes their values.
   */
  constructor(
    readonly name: string,
    help: string,
    readonly labelNames: readonly string[],
    readonly bounds: readonly number[],
    private readonly now: () => number,
    private readonly constLabels: Readonly<Record<string, string>> = {},
  ) {
    this.family = new CollectedFamily(name, help, 'histogram', () => this.samples());
  }

  /** The series for these label values, created at ratio numerator / denominator. */
  cell(values: readonly string[], numerator = 0, denominator = 1): TimingRatioCell {
    const key = values.join('\u0000');
    let entry = this.cells.get(key);
    if (entry === undefined) {
      entry = { values, cell: new TimingRatioCell(this.bounds, this.now(), numerator, denominator) };
      this.cells.set(key, entry);
    }
    return entry.cell;
  }

  private samples(): Sample[] {
    const nowMs = this.now();
    const out: Sample[] = [];
    for (const { values, cell } of this.cells.values()) {
      cell.advance(nowMs);
      const labels = sortedLabels([...Object.keys(this.constLabels), ...this.labelNames], [...Object.values(this.constLabels), ...values]);
      pushHistogram(out, this.name, labels, this.bounds, cell.weights, cell.sum);
    }
    return out;
  }
}
