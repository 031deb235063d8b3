import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { createPrng, type Prng } from '../random.ts';
import { allocateCurrentLimits, computeConcurrencyAllocation, MIN_TARGET, type AllocationClass, type BorrowingLevelInput } from './concurrency-allocation.ts';
import { computeLevelLimits, type LevelLimitsInput } from './concurrency-limits.ts';

const close = (a: number, b: number, tol = 1e-9) => Math.abs(a - b) <= tol * Math.max(1, Math.abs(a), Math.abs(b));

function solve(required: number, classes: [number, number, number][]) {
  const r = computeConcurrencyAllocation(
    required,
    classes.map(([target, lowerBound, upperBound]) => ({ target, lowerBound, upperBound })),
  );
  if ('error' in r) throw new Error(r.error);
  return r;
}

test('11.5: derived computeConcurrencyAllocation rows', () => {
  const rows: [number, [number, number, number][], number[], number][] = [
    [
      10,
      [
        [5, 1, 10],
        [5, 1, 10],
      ],
      [5, 5],
      1.0,
    ],
    [
      10,
      [
        [1, 1, 10],
        [9, 0, 3],
      ],
      [7, 3],
      7.0,
    ],
    [
      100,
      [
        [30, 10, 40],
        [30, 10, 40],
        [60, 5, 200],
      ],
      [25, 25, 50],
      100 / 120,
    ],
    [
      6,
      [
        [0, 0, 5],
        [0, 0, 5],
      ],
      [3, 3],
      3000,
    ],
    [
      10,
      [
        [2, 2, 4],
        [8, 0, 100],
      ],
      [2, 8],
      1.0,
    ],
  ];
  for (const [required, classes, allocs, fairProp] of rows) {
    const r = solve(required, classes);
    assert.is(r.allocs.length, allocs.length);
    r.allocs.forEach((a, i) => assert.ok(close(a, allocs[i]!), `required ${required}: alloc ${i} = ${a}, want ${allocs[i]}`));
    assert.ok(close(r.fairProp, fairProp), `required ${required}: fairProp ${r.fairProp}, want ${fairProp}`);
  }
});

test('bound-only and degenerate cases', () => {
  assert.equal(
    solve(0, [
      [1, 0, 5],
      [2, 0, 5],
    ]),
    { allocs: [0, 0], fairProp: 0 },
  );
  // Lower bounds already sum to the requirement: fairProp is the smallest relative lower bound.
  assert.equal(
    solve(6, [
      [4, 2, 9],
      [8, 4, 9],
    ]),
    { allocs: [2, 4], fairProp: 0.5 },
  );
  // Upper bounds pinned: fairProp is the largest relative upper bound.
  assert.equal(
    solve(10, [
      [4, 1, 4],
      [2, 1, 6],
    ]),
    { allocs: [4, 6], fairProp: 3 },
  );
  assert.equal(computeConcurrencyAllocation(5, []), { error: 'upper bounds sum to 0, which is lower than the required sum of 5' });
});

test('errors are values with the upstream wording', () => {
  const c = (target: number, lowerBound: number, upperBound: number): AllocationClass => ({ target, lowerBound, upperBound });
  assert.equal(computeConcurrencyAllocation(-1, []), { error: 'negative sums are not supported' });
  assert.equal(computeConcurrencyAllocation(1, [c(1, -1, 2)]), { error: 'lower bound 0 is -1 but negative lower bounds are not allowed' });
  assert.equal(computeConcurrencyAllocation(1, [c(1, 2, 3)]), { error: 'target 0 is 1, which is below its lower bound of 2' });
  assert.equal(computeConcurrencyAllocation(1, [c(3, 2, 1)]), { error: 'upper bound 0 is 1 but should not be less than the lower bound 2' });
  assert.equal(computeConcurrencyAllocation(1, [c(3, 2, 4)]), { error: 'lower bounds sum to 2, which is higher than the required sum of 1' });
  assert.equal(computeConcurrencyAllocation(9, [c(3, 2, 4)]), { error: 'upper bounds sum to 4, which is lower than the required sum of 9' });
  assert.ok('error' in computeConcurrencyAllocation(NaN, [c(1, 0, 1)]));
  assert.ok('error' in computeConcurrencyAllocation(1, [c(NaN, 0, 1)]));
});

// Port of upstream conc_alloc_test.go's generator: three styles of problem, plus zero-target classes.
function partition(rng: Prng, n: number, x: number, consume: (j: number, v: number) => void): void {
  if (n <= 0) return;
  const divs = Array.from({ length: n - 1 }, () => rng.next()).sort((a, b) => a - b);
  let last = 0;
  divs.forEach((d, j) => {
    consume(j, (d - last) * x);
    last = d;
  });
  consume(n - 1, (1 - last) * x);
}

function relDiff(a: number, b: number): number {
  const den = Math.max(Math.abs(a), Math.abs(b));
  return den === 0 ? 0 : Math.abs(a - b) / den;
}

test('randomized: sums to requiredSum and each alloc is at a bound or proportional (10000 cases)', () => {
  const rng = createPrng(1234567890);
  const fpSlack = 1e-10;
  let solved = 0;
  for (let iter = 0; iter < 10000; iter++) {
    let probLen = [0, 1, 2, 3, 4, 6, 9][rng.int(7)]!;
    const classes: AllocationClass[] = Array.from({ length: probLen }, () => ({ target: 0, lowerBound: 0, upperBound: 0 }));
    let lowSum = 0;
    let highSum = 0;
    let required = 0;
    if (probLen > 0) {
      const style = rng.int(20);
      if (style === 0) {
        required = rng.int(probLen * 3);
        partition(rng, probLen, required, (j, x) => {
          classes[j] = { lowerBound: x, target: x + 2 * rng.next(), upperBound: x + 3 * rng.next() };
        });
      } else if (style === 1) {
        required = rng.int(probLen * 3) + 1;
        partition(rng, probLen, required, (j, x) => {
          const lowerBound = x * Math.max(0, 1.25 * rng.next() - 1);
          classes[j] = { upperBound: x, lowerBound, target: lowerBound + rng.next() };
        });
      } else {
        for (let j = 0; j < probLen; j++) {
          const x = Math.max(0, rng.next() * 5 - 1);
          classes[j] = { lowerBound: x, target: x + 2 * rng.next(), upperBound: x + 3 * rng.next() };
        }
      }
      for (const c of classes) {
        lowSum += c.lowerBound;
        highSum += c.upperBound;
      }
      if (style > 1) required = Math.round(lowSum + (highSum - lowSum) * rng.next());
    }
    while (rng.next() < 0.25) {
      const extra = { target: 0, lowerBound: 0, upperBound: rng.next() + 0.00001 };
      highSum += extra.upperBound;
      classes.push(extra);
      if (probLen > 1) {
        const m = rng.int(probLen);
        [classes[m], classes[probLen]] = [classes[probLen]!, classes[m]!];
      }
      probLen = classes.length;
    }

    const r = computeConcurrencyAllocation(required, classes);
    const expectError = lowSum - required > fpSlack || required - highSum > fpSlack;
    const where = `case ${iter}: required=${required} classes=${JSON.stringify(classes)}`;
    if ('error' in r) {
      assert.ok(expectError, `${where}: unexpected error ${r.error}`);
      continue;
    }
    assert.not.ok(expectError, `${where}: expected an error, got ${JSON.stringify(r)}`);
    solved++;
    const sum = r.allocs.reduce((a, b) => a + b, 0);
    assert.ok(relDiff(required, sum) <= fpSlack, `${where}: sum ${sum}`);
    classes.forEach((c, j) => {
      const proportional = r.fairProp * Math.max(c.target, MIN_TARGET);
      const got = r.allocs[j]!;
      if (proportional <= c.lowerBound) assert.is(got, c.lowerBound, `${where}: item ${j} should sit at its lower bound`);
      else if (proportional >= c.upperBound) assert.is(got, c.upperBound, `${where}: item ${j} should sit at its upper bound`);
      else assert.ok(relDiff(proportional, got) <= fpSlack, `${where}: item ${j} = ${got}, want ${proportional}`);
    });
  }
  // The generator is mostly feasible; make sure the checks above actually ran.
  assert.ok(solved > 9000, `only ${solved} feasible cases`);
});

// apf-semantics 4.1: the bootstrap priority levels.
const DEFAULT_LEVELS: LevelLimitsInput[] = [
  { name: 'exempt', exempt: true, ncs: 0, lendablePercent: 0, borrowingLimitPercent: null },
  { name: 'catch-all', exempt: false, ncs: 5, lendablePercent: 0, borrowingLimitPercent: null },
  { name: 'system', exempt: false, ncs: 30, lendablePercent: 33, borrowingLimitPercent: null },
  { name: 'node-high', exempt: false, ncs: 40, lendablePercent: 25, borrowingLimitPercent: null },
  { name: 'leader-election', exempt: false, ncs: 10, lendablePercent: 0, borrowingLimitPercent: null },
  { name: 'workload-high', exempt: false, ncs: 40, lendablePercent: 50, borrowingLimitPercent: null },
  { name: 'workload-low', exempt: false, ncs: 100, lendablePercent: 90, borrowingLimitPercent: null },
  { name: 'global-default', exempt: false, ncs: 20, lendablePercent: 50, borrowingLimitPercent: null },
];

/** Limits from concurrency-limits.ts plus a per-level demand (high watermark = smoothed = demand). */
function borrowingInput(serverCL: number, levels: LevelLimitsInput[], demand: Record<string, number> = {}) {
  const limits = computeLevelLimits(serverCL, levels);
  return {
    nominalCLSum: limits.nominalCLSum,
    levels: limits.levels.map(
      (l): BorrowingLevelInput => ({
        name: l.name,
        exempt: l.exempt,
        nominalCL: l.nominalCL,
        minCL: l.minCL,
        maxCL: l.maxCL,
        highWatermark: demand[l.name] ?? 0,
        smoothedDemand: demand[l.name] ?? 0,
        previousCurrentCL: l.initialCurrentCL,
      }),
    ),
  };
}

function currentCLs(result: ReturnType<typeof allocateCurrentLimits>): Record<string, number> {
  return Object.fromEntries(result.levels.map((l) => [l.name, l.currentCL]));
}

test('11.2: idle borrowing update at ServerCL 600 hands out seats in proportion to MinCL', () => {
  const r = allocateCurrentLimits(borrowingInput(600, DEFAULT_LEVELS));
  assert.equal(currentCLs(r), {
    exempt: 0,
    'catch-all': 30,
    system: 117,
    'node-high': 170,
    'leader-election': 58,
    'workload-high': 114,
    'workload-low': 56,
    'global-default': 56,
  });
  assert.ok(close(r.fairFrac, 602 / 258));
  assert.is(r.solverError, undefined);
  const system = r.levels.find((l) => l.name === 'system')!;
  assert.equal([system.minCurrentCL, system.target], [50, 50]);
});

test('11.2: idle borrowing update at ServerCL 100 and 3000', () => {
  const order = ['catch-all', 'system', 'node-high', 'leader-election', 'workload-high', 'workload-low', 'global-default'];
  const r100 = currentCLs(allocateCurrentLimits(borrowingInput(100, DEFAULT_LEVELS)));
  assert.equal(
    order.map((n) => r100[n]),
    [7, 21, 30, 11, 18, 9, 9],
  );
  const r3000 = currentCLs(allocateCurrentLimits(borrowingInput(3000, DEFAULT_LEVELS)));
  assert.equal(
    order.map((n) => r3000[n]),
    [145, 576, 856, 287, 571, 284, 284],
  );
});

const EXEMPT_BORROWING_LEVELS: LevelLimitsInput[] = [
  { name: 'workload-high', exempt: false, ncs: 40, lendablePercent: 50, borrowingLimitPercent: null },
  { name: 'exempt', exempt: true, ncs: 0, lendablePercent: 0, borrowingLimitPercent: null },
  { name: 'workload-low', exempt: false, ncs: 100, lendablePercent: 90, borrowingLimitPercent: null },
  { name: 'catch-all', exempt: false, ncs: 5, lendablePercent: 0, borrowingLimitPercent: null },
];

test('11.3: exempt demand beyond everything leaves every limited level at MinCL', () => {
  const all = { exempt: 970, 'workload-high': 970, 'workload-low': 970, 'catch-all': 970 };
  const r = allocateCurrentLimits(borrowingInput(870, EXEMPT_BORROWING_LEVELS, all));
  assert.equal(currentCLs(r), { exempt: 970, 'workload-high': 120, 'workload-low': 60, 'catch-all': 30 });
  assert.is(r.fairFrac, 0);
});

test('11.3: exempt demand 330 shares the remainder halfway between MinCL and minCurrentCL', () => {
  const demand = { exempt: 330, 'workload-high': 970, 'workload-low': 970, 'catch-all': 970 };
  const r = allocateCurrentLimits(borrowingInput(870, EXEMPT_BORROWING_LEVELS, demand));
  assert.equal(currentCLs(r), { exempt: 330, 'workload-high': 180, 'workload-low': 330, 'catch-all': 30 });
  assert.is(r.fairFrac, 0);
});

test('11.3: exempt demand 540 with an idle workload-low gives every level its minCurrentCL', () => {
  const demand = { exempt: 540, 'workload-high': 970, 'workload-low': 1, 'catch-all': 970 };
  const r = allocateCurrentLimits(borrowingInput(870, EXEMPT_BORROWING_LEVELS, demand));
  assert.equal(currentCLs(r), { exempt: 540, 'workload-high': 240, 'workload-low': 60, 'catch-all': 30 });
});

test('11.4: borrowing limits at ServerCL 24 with demand 24 vs 6', () => {
  const levels = (pl0: [number, number], pl1: [number, number]): LevelLimitsInput[] => [
    { name: 'pl0', exempt: false, ncs: 100, lendablePercent: pl0[0], borrowingLimitPercent: pl0[1] },
    { name: 'pl1', exempt: false, ncs: 100, lendablePercent: pl1[0], borrowingLimitPercent: pl1[1] },
    { name: 'catch-all', exempt: false, ncs: 5, lendablePercent: 0, borrowingLimitPercent: null },
    { name: 'exempt', exempt: true, ncs: 0, lendablePercent: 0, borrowingLimitPercent: null },
  ];
  const demand = { pl0: 24, pl1: 6 };
  const lendableLimited = allocateCurrentLimits(borrowingInput(24, levels([50, 67], [33, 50]), demand));
  assert.equal(currentCLs(lendableLimited), { pl0: 16, pl1: 8, 'catch-all': 1, exempt: 0 });
  assert.ok(close(lendableLimited.fairFrac, 2 / 3));
  const borrowingLimited = allocateCurrentLimits(borrowingInput(24, levels([50, 33], [67, 50]), demand));
  assert.equal(currentCLs(borrowingLimited), { pl0: 16, pl1: 8, 'catch-all': 1, exempt: 0 });
  assert.ok(close(borrowingLimited.fairFrac, 9 / 7));
});

test('a solver error keeps the previous CurrentCLs (backstop)', () => {
  const r = allocateCurrentLimits({
    nominalCLSum: 100,
    levels: [
      { name: 'a', exempt: false, nominalCL: 10, minCL: 5, maxCL: 20, highWatermark: 0, smoothedDemand: 0, previousCurrentCL: 7 },
      { name: 'b', exempt: false, nominalCL: 10, minCL: 5, maxCL: 20, highWatermark: 0, smoothedDemand: 0, previousCurrentCL: 13 },
    ],
  });
  assert.equal(currentCLs(r), { a: 7, b: 13 });
  assert.is(r.fairFrac, 0);
  assert.match(r.solverError ?? '', /upper bounds sum to 40/);
});

test.run();
