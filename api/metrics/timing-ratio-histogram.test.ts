import { test } from 'uvu';
import * as assert from 'uvu/assert';
import fc from 'fast-check';
import { DEMAND_SEATS_BUCKETS, PRIORITY_LEVEL_REQUEST_UTILIZATION_BUCKETS, PRIORITY_LEVEL_SEAT_UTILIZATION_BUCKETS, READ_VS_WRITE_BUCKETS } from './buckets.ts';
import { bucketIndex } from './metric-family.ts';
import { TimingRatioCell, TimingRatioHistogramVec } from './timing-ratio-histogram.ts';

/**
 * The timing-ratio rule written as plainly as possible: at every change, the time since the last
 * one is credited to the bucket of numerator / denominator as they were, searched from the first
 * bound. The cell keeps the bucket from change to change instead; it must agree to the bit.
 */
class ReferenceCell {
  readonly weights: number[];
  sum = 0;

  constructor(
    private readonly bounds: readonly number[],
    private lastMs: number,
    private numerator: number,
    private denominator: number,
  ) {
    this.weights = new Array<number>(bounds.length + 1).fill(0);
  }

  set(numerator: number, nowMs: number): void {
    if (numerator === this.numerator) return;
    this.advance(nowMs);
    this.numerator = numerator;
  }

  setDenominator(denominator: number, nowMs: number): void {
    if (denominator === this.denominator) return;
    this.advance(nowMs);
    this.denominator = denominator;
  }

  advance(nowMs: number): void {
    const elapsedNs = (nowMs - this.lastMs) * 1e6;
    if (!(elapsedNs > 0)) return;
    this.lastMs = nowMs;
    const ratio = this.numerator / this.denominator;
    this.weights[bucketIndex(this.bounds, ratio)]! += elapsedNs;
    this.sum += elapsedNs * ratio;
  }
}

type Step =
  | { kind: 'set'; value: number; dtMs: number }
  | { kind: 'add'; value: number; dtMs: number }
  | { kind: 'denominator'; value: number; dtMs: number }
  | { kind: 'advance'; dtMs: number };

// Times move by fractions of a millisecond, stand still, or go back (a reading behind the last
// change counts as no time); denominators include 0 (a ratio of Infinity or NaN).
const dtMs = fc.oneof(fc.constant(0), fc.double({ min: -1, max: 50, noNaN: true }), fc.integer({ min: 0, max: 1000 }));
const step: fc.Arbitrary<Step> = fc.oneof(
  fc.record({ kind: fc.constant('set' as const), value: fc.integer({ min: 0, max: 120 }), dtMs }),
  fc.record({ kind: fc.constant('add' as const), value: fc.integer({ min: -3, max: 3 }), dtMs }),
  fc.record({ kind: fc.constant('denominator' as const), value: fc.oneof(fc.constant(0), fc.integer({ min: 1, max: 100 })), dtMs }),
  fc.record({ kind: fc.constant('advance' as const), dtMs }),
);
const bounds = fc.constantFrom(
  PRIORITY_LEVEL_SEAT_UTILIZATION_BUCKETS,
  PRIORITY_LEVEL_REQUEST_UTILIZATION_BUCKETS,
  READ_VS_WRITE_BUCKETS,
  DEMAND_SEATS_BUCKETS,
);

test('a cell credits every interval to the bucket and sum its ratio had, exactly as the plain rule does', () => {
  fc.assert(
    fc.property(
      bounds,
      fc.integer({ min: 0, max: 60 }),
      fc.integer({ min: 0, max: 60 }),
      fc.array(step, { maxLength: 60 }),
      (b, numerator, denominator, steps) => {
        let nowMs = 1_000;
        const cell = new TimingRatioCell(b, nowMs, numerator, denominator);
        const reference = new ReferenceCell(b, nowMs, numerator, denominator);
        let count = numerator;
        for (const s of steps) {
          nowMs += s.dtMs;
          if (s.kind === 'set') {
            count = s.value;
            cell.set(s.value, nowMs);
            reference.set(s.value, nowMs);
          } else if (s.kind === 'add') {
            count += s.value;
            cell.add(s.value, nowMs);
            reference.set(count, nowMs);
          } else if (s.kind === 'denominator') {
            cell.setDenominator(s.value, nowMs);
            reference.setDenominator(s.value, nowMs);
          } else {
            cell.advance(nowMs);
            reference.advance(nowMs);
          }
        }
        nowMs += 7.25;
        cell.advance(nowMs);
        reference.advance(nowMs);
        assert.equal([...cell.weights], reference.weights);
        assert.is(Object.is(cell.sum, reference.sum), true, `sum ${cell.sum} vs ${reference.sum}`);
      },
    ),
    { numRuns: 300 },
  );
});

test('a ratio that rises through several bounds and falls back lands each interval in its own bucket', () => {
  let nowMs = 0;
  const vec = new TimingRatioHistogramVec('t', 'help', ['l'], [0, 0.25, 0.5, 0.75, 1], () => nowMs);
  const cell = vec.cell(['x'], 0, 4);
  for (const numerator of [3, 1, 4, 6, 0]) {
    nowMs += 1;
    cell.set(numerator, nowMs);
  }
  nowMs += 1;
  cell.advance(nowMs);
  // 1 ms each at 0/4, 3/4, 1/4, 4/4, 6/4 and 0/4.
  assert.equal([...cell.weights], [2e6, 1e6, 0, 1e6, 1e6, 1e6]);
  assert.is(cell.sum, 1e6 * (0.75 + 0.25 + 1 + 1.5));
});

test.run();
