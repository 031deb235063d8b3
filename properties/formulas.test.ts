// The concurrency formulas (apf-semantics 0, 8.1, 8.3, 8.4) as properties over
// random configurations: nominal limits add up to ServerCL plus at most the ceil slack, lending
// never exceeds the nominal limit, more shares never mean fewer seats, the borrowing allocation
// keeps every level within [MinCL, MaxCL] and sums as the reference says, the solver agrees with
// an independent bisection, and every rounding step rounds as Go does.

import fc from 'fast-check';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { allocateCurrentLimits, computeConcurrencyAllocation, ALLOCATION_EPSILON, type AllocationClass } from '../engine/flowcontrol/concurrency-allocation.ts';
import { computeLevelLimits, lendableCL, borrowingCL, type LevelLimitsInput } from '../engine/flowcontrol/concurrency-limits.ts';
import { ceilDiv, goLog2, goRound } from '../engine/go-math.ts';
import { seatsTimesDuration } from '../engine/flowcontrol/seat-seconds.ts';
import { bisectionAllocation } from './support/bisection-allocation.ts';
import { checkProperty, expectPropertyToFail } from './support/runner.ts';

const percent = fc.option(fc.integer({ min: 0, max: 100 }), { nil: null });
const borrowPercent = fc.option(fc.integer({ min: 0, max: 300 }), { nil: null });

/** A level list as the controller sees it; at most one exempt level, as with the mandatory `exempt`. */
const levelsArbitrary: fc.Arbitrary<LevelLimitsInput[]> = fc
  .array(fc.record({ ncs: fc.integer({ min: 0, max: 1000 }), lendablePercent: percent, borrowingLimitPercent: borrowPercent }), { minLength: 1, maxLength: 8 })
  .chain((levels) =>
    fc
      .record({ levels: fc.constant(levels), exemptIndex: fc.integer({ min: -1, max: levels.length - 1 }) })
      .map(({ levels, exemptIndex }) => levels.map((l, i) => ({ name: `pl-${i}`, exempt: i === exemptIndex, ...l }))),
  );
const serverCLArbitrary = fc.integer({ min: 1, max: 100_000 });

test('Σ NominalCL is at least ServerCL and at most ServerCL + (levels with shares − 1) ≤ ServerCL + levels', () => {
  checkProperty(
    'formulas: nominal sum',
    fc.property(serverCLArbitrary, levelsArbitrary, (serverCL, levels) => {
      const limits = computeLevelLimits(serverCL, levels);
      fc.pre(limits.shareSum > 0);
      const withShares = levels.filter((l) => (l.ncs ?? 0) > 0).length;
      const sum = limits.levels.reduce((a, l) => a + l.nominalCL, 0);
      assert.is(limits.nominalCLSum, sum);
      assert.ok(sum >= serverCL, `Σ ${sum} < ServerCL ${serverCL}`);
      // Each ceil adds less than one seat, and nothing for a level without shares.
      assert.ok(sum <= serverCL + withShares - 1, `Σ ${sum} > ${serverCL} + ${withShares} − 1`);
      assert.ok(sum <= serverCL + levels.length);
    }),
    { runs: 500 },
  );
});

test('LendableCL ≤ NominalCL, and MinCL ≤ initial CurrentCL ≤ NominalCL ≤ MaxCL', () => {
  checkProperty(
    'formulas: per-level limit order',
    fc.property(serverCLArbitrary, levelsArbitrary, (serverCL, levels) => {
      for (const l of computeLevelLimits(serverCL, levels).levels) {
        assert.ok(l.lendableCL >= 0 && l.lendableCL <= l.nominalCL, `${l.name}: lendable ${l.lendableCL} of nominal ${l.nominalCL}`);
        assert.ok(l.minCL >= 0 && l.minCL <= l.initialCurrentCL && l.initialCurrentCL <= l.nominalCL && l.nominalCL <= l.maxCL, JSON.stringify(l));
      }
    }),
    { runs: 500 },
  );
});

test("raising one level's shares never lowers its NominalCL (nor raises anyone else's)", () => {
  checkProperty(
    'formulas: shares monotone',
    fc.property(serverCLArbitrary, levelsArbitrary, fc.nat(), fc.integer({ min: 1, max: 1000 }), (serverCL, levels, pick, extra) => {
      const k = pick % levels.length;
      const raised = levels.map((l, i) => (i === k ? { ...l, ncs: (l.ncs ?? 0) + extra } : l));
      const before = computeLevelLimits(serverCL, levels).levels;
      const after = computeLevelLimits(serverCL, raised).levels;
      assert.ok(after[k]!.nominalCL >= before[k]!.nominalCL, `level ${k}: ${before[k]!.nominalCL} → ${after[k]!.nominalCL}`);
      before.forEach((b, i) => i === k || assert.ok(after[i]!.nominalCL <= b.nominalCL, `level ${i} grew`));
    }),
    { runs: 500 },
  );
});

// --- borrowing allocation ------------------------------------------------------------------------

const allocationInput = fc.record({ serverCL: fc.integer({ min: 1, max: 2000 }), levels: levelsArbitrary }).chain(({ serverCL, levels }) => {
  const limits = computeLevelLimits(serverCL, levels);
  const demand = fc.record({ highWatermark: fc.integer({ min: 0, max: 2 * serverCL }), smoothed: fc.double({ min: 0, max: 2 * serverCL, noNaN: true }) });
  return fc.record({ limits: fc.constant(limits), demands: fc.array(demand, { minLength: levels.length, maxLength: levels.length }) });
});

test('the allocation keeps every CurrentCL within [MinCL, MaxCL] and sums as the reference says', () => {
  checkProperty(
    'formulas: borrowing allocation',
    fc.property(allocationInput, ({ limits, demands }) => {
      const inputs = limits.levels.map((l, i) => ({
        name: l.name,
        exempt: l.exempt,
        nominalCL: l.nominalCL,
        minCL: l.minCL,
        maxCL: l.maxCL,
        highWatermark: demands[i]!.highWatermark,
        smoothedDemand: demands[i]!.smoothed,
        previousCurrentCL: l.initialCurrentCL,
      }));
      const result = allocateCurrentLimits({ nominalCLSum: limits.nominalCLSum, levels: inputs });
      // The case analysis of apf-semantics 8.3, recomputed here.
      let remaining = limits.nominalCLSum;
      let minCLSum = 0;
      let minCurrentSum = 0;
      let maxCLSum = 0;
      const minCurrent = inputs.map((l) => (l.exempt ? Math.max(l.minCL, l.highWatermark) : Math.max(l.minCL, Math.min(l.nominalCL, l.highWatermark))));
      inputs.forEach((l, i) => {
        if (l.exempt) remaining -= minCurrent[i]!;
        else {
          minCLSum += l.minCL;
          minCurrentSum += minCurrent[i]!;
          maxCLSum += l.maxCL;
        }
      });
      const limited = inputs.map((l, i) => ({ l, i, cl: result.levels[i]!.currentCL })).filter((x) => !x.l.exempt);
      const limitedSum = limited.reduce((a, x) => a + x.cl, 0);
      const roundingSlack = limited.length / 2;
      inputs.forEach((l, i) => {
        const cl = result.levels[i]!.currentCL;
        if (l.exempt) assert.is(cl, minCurrent[i], `exempt ${l.name}`);
        else assert.ok(Number.isInteger(cl) && cl >= l.minCL && cl <= l.maxCL, `${l.name}: ${cl} outside [${l.minCL}, ${l.maxCL}]`);
      });
      if (remaining <= minCLSum) {
        limited.forEach((x) => assert.is(x.cl, x.l.minCL, `${x.l.name} should sit at MinCL`));
      } else if (remaining <= minCurrentSum) {
        limited.forEach((x) => assert.ok(x.cl <= minCurrent[x.i]!, `${x.l.name} above its minCurrentCL`));
        assert.ok(Math.abs(limitedSum - remaining) <= roundingSlack, `Σ ${limitedSum} vs remaining ${remaining}`);
      } else if (limited.length > 0 && limits.nominalCLSum - maxCLSum <= ALLOCATION_EPSILON) {
        assert.is(result.solverError, undefined);
        limited.forEach((x) => assert.ok(x.cl >= minCurrent[x.i]!, `${x.l.name} below its minCurrentCL`));
        assert.ok(Math.abs(limitedSum - limits.nominalCLSum) <= roundingSlack, `Σ ${limitedSum} vs nominal sum ${limits.nominalCLSum}`);
      } else if (limited.length > 0) {
        // More seats than the limited levels may hold at all: the solver fails and the previous limits stay.
        assert.type(result.solverError, 'string');
        limited.forEach((x) => assert.is(x.cl, x.l.previousCurrentCL, `${x.l.name} should keep its previous limit`));
      }
    }),
    { runs: 500 },
  );
});

const classArbitrary: fc.Arbitrary<AllocationClass> = fc
  .record({ lower: fc.integer({ min: 0, max: 10_000 }), extraTarget: fc.integer({ min: 0, max: 10_000 }), extraUpper: fc.integer({ min: 0, max: 10_000 }) })
  .map(({ lower, extraTarget, extraUpper }) => ({ lowerBound: lower / 100, target: (lower + extraTarget) / 100, upperBound: (lower + extraUpper) / 100 }));

test('the allocation solver agrees with an independent bisection, and fails exactly when infeasible', () => {
  const problem = fc.record({ classes: fc.array(classArbitrary, { minLength: 1, maxLength: 8 }), where: fc.double({ min: -0.2, max: 1.2, noNaN: true }) });
  checkProperty(
    'formulas: allocation solver',
    fc.property(problem, ({ classes, where }) => {
      const low = classes.reduce((a, c) => a + c.lowerBound, 0);
      const high = classes.reduce((a, c) => a + c.upperBound, 0);
      const required = Math.max(0, low + where * (high - low));
      const result = computeConcurrencyAllocation(required, classes);
      const feasible = low - required <= ALLOCATION_EPSILON && required - high <= ALLOCATION_EPSILON;
      if (!feasible) {
        assert.ok('error' in result, `infeasible problem solved: required ${required}, bounds [${low}, ${high}]`);
        return;
      }
      if ('error' in result) throw new Error(`feasible problem failed: ${result.error}`);
      const expected = bisectionAllocation(required, classes);
      const slack = 1e-6 * Math.max(1, required);
      result.allocs.forEach((a, j) => assert.ok(Math.abs(a - expected[j]!) <= slack, `class ${j}: ${a} vs bisection ${expected[j]}`));
      assert.ok(Math.abs(result.allocs.reduce((s, a) => s + a, 0) - required) <= slack);
    }),
    { runs: 1000 },
  );
});

// --- Go rounding ---------------------------------------------------------------------------------

/** Go's math.Round from the language definition: nearest integer, halves away from zero. */
const goRoundOracle = (x: number) => (x < 0 ? -Math.round(-x) : Math.round(x));
const roundingInputs = fc.oneof(
  fc.double(),
  fc.integer({ min: -(2 ** 40), max: 2 ** 40 }).map((k) => k + 0.5),
  fc.integer({ min: -(2 ** 40), max: 2 ** 40 }).map((k) => k / 4),
);

test("goRound rounds halves away from zero, as Go's math.Round; JavaScript's Math.round does not", () => {
  checkProperty(
    'formulas: goRound = Go',
    fc.property(roundingInputs, (x) => assert.ok(Object.is(goRound(x), goRoundOracle(x)), `goRound(${x}) = ${goRound(x)}`)),
    { runs: 1000 },
  );
  expectPropertyToFail(
    'control: Math.round',
    fc.property(roundingInputs, (x) => assert.ok(Object.is(Math.round(x), goRoundOracle(x)))),
    { runs: 1000 },
  );
});

/** round-half-up of a/b for non-negative integers, exactly. */
const roundRatio = (a: bigint, b: bigint) => (2n * a + b) / (2n * b);

test('LendableCL and BorrowingCL round n·p/100 exactly as Go does (halves up)', () => {
  checkProperty(
    'formulas: percent rounding',
    fc.property(fc.integer({ min: 0, max: 1_000_000 }), fc.integer({ min: 0, max: 100 }), fc.integer({ min: 0, max: 1000 }), (nominal, lend, borrow) => {
      assert.is(lendableCL(nominal, lend), Number(roundRatio(BigInt(nominal * lend), 100n)));
      assert.is(borrowingCL(600, nominal, borrow), Number(roundRatio(BigInt(nominal * borrow), 100n)));
    }),
    { runs: 1000 },
  );
});

test('NominalCL is the exact integer ceiling of ServerCL·NCS/shareSum', () => {
  checkProperty(
    'formulas: ceil division',
    fc.property(fc.integer({ min: 0, max: 2 ** 53 - 1 }), fc.integer({ min: 1, max: 2 ** 31 }), (a, b) => {
      assert.is(ceilDiv(a, b), Number((BigInt(a) + BigInt(b) - 1n) / BigInt(b)));
    }),
    { runs: 1000 },
  );
});

test('SeatsTimesDuration is round(seats·ns/10) with halves away from zero, in either sign', () => {
  checkProperty(
    'formulas: seat-seconds rounding',
    fc.property(fc.integer({ min: 0, max: 1000 }), fc.integer({ min: -(10 ** 12), max: 10 ** 12 }), (seats, ns) => {
      const product = BigInt(seats) * BigInt(ns);
      const magnitude = ((product < 0n ? -product : product) + 5n) / 10n;
      assert.is(seatsTimesDuration(seats, ns), product < 0n ? -magnitude : magnitude);
    }),
    { runs: 1000 },
  );
});

test('log2 is exact on powers of two (the entropy check depends on it)', () => {
  checkProperty(
    'formulas: exact log2',
    fc.property(fc.integer({ min: -1074, max: 1023 }), (k) => assert.is(goLog2(2 ** k), k)),
    { runs: 500 },
  );
});

test.run();
