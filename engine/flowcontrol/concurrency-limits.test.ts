import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { borrowingCL, computeLevelLimits, initialCurrentCL, lendableCL, nominalCL, type LevelLimitsInput } from './concurrency-limits.ts';

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

function byName(serverCL: number, levels = DEFAULT_LEVELS) {
  const out = computeLevelLimits(serverCL, levels);
  return { ...out, get: (name: string) => out.levels.find((l) => l.name === name)! };
}

test('11.2: the default configuration at ServerCL 600, every column', () => {
  const r = byName(600);
  assert.is(r.shareSum, 245);
  assert.is(r.nominalCLSum, 602);
  // name: nominal, lendable, min, borrowing, max, initial CurrentCL
  const expected: Record<string, [number, number, number, number, number, number]> = {
    exempt: [0, 0, 0, 600, 600, 0],
    'catch-all': [13, 0, 13, 600, 613, 13],
    system: [74, 24, 50, 600, 674, 62],
    'node-high': [98, 25, 73, 600, 698, 86],
    'leader-election': [25, 0, 25, 600, 625, 25],
    'workload-high': [98, 49, 49, 600, 698, 74],
    'workload-low': [245, 221, 24, 600, 845, 135],
    'global-default': [49, 25, 24, 600, 649, 37],
  };
  for (const [name, [nominal, lendable, min, borrowing, max, initial]] of Object.entries(expected)) {
    const l = r.get(name);
    assert.equal([l.nominalCL, l.lendableCL, l.minCL, l.borrowingCL, l.maxCL, l.initialCurrentCL], [nominal, lendable, min, borrowing, max, initial], name);
  }
});

test('11.2: ServerCL 100 and 3000 nominal and minimum limits', () => {
  const names = ['catch-all', 'system', 'node-high', 'leader-election', 'workload-high', 'workload-low', 'global-default'];
  const r100 = byName(100);
  assert.equal(
    names.map((n) => r100.get(n).nominalCL),
    [3, 13, 17, 5, 17, 41, 9],
  );
  assert.is(r100.nominalCLSum, 105);
  assert.equal(
    names.map((n) => r100.get(n).minCL),
    [3, 9, 13, 5, 8, 4, 4],
  );
  const r3000 = byName(3000);
  assert.equal(
    names.map((n) => r3000.get(n).nominalCL),
    [62, 368, 490, 123, 490, 1225, 245],
  );
  assert.is(r3000.nominalCLSum, 3003);
});

test('11.3: limits of the exempt-borrowing test (ServerCL 870)', () => {
  const r = byName(870, [
    { name: 'workload-high', exempt: false, ncs: 40, lendablePercent: 50, borrowingLimitPercent: null },
    { name: 'exempt', exempt: true, ncs: 0, lendablePercent: 0, borrowingLimitPercent: null },
    { name: 'workload-low', exempt: false, ncs: 100, lendablePercent: 90, borrowingLimitPercent: null },
    { name: 'catch-all', exempt: false, ncs: 5, lendablePercent: 0, borrowingLimitPercent: null },
  ]);
  assert.is(r.nominalCLSum, 870);
  const triple = (n: string) => [r.get(n).nominalCL, r.get(n).minCL, r.get(n).maxCL];
  assert.equal(triple('workload-high'), [240, 120, 1110]);
  assert.equal(triple('workload-low'), [600, 60, 1470]);
  assert.equal(triple('catch-all'), [30, 30, 900]);
  assert.equal(triple('exempt'), [0, 0, 870]);
});

test('11.4: limits of the borrowing test (ServerCL 24), both cases', () => {
  const levels = (pl0: [number, number], pl1: [number, number]): LevelLimitsInput[] => [
    { name: 'pl0', exempt: false, ncs: 100, lendablePercent: pl0[0], borrowingLimitPercent: pl0[1] },
    { name: 'pl1', exempt: false, ncs: 100, lendablePercent: pl1[0], borrowingLimitPercent: pl1[1] },
    { name: 'catch-all', exempt: false, ncs: 5, lendablePercent: 0, borrowingLimitPercent: null },
    { name: 'exempt', exempt: true, ncs: 0, lendablePercent: 0, borrowingLimitPercent: null },
  ];
  const c1 = byName(24, levels([50, 67], [33, 50]));
  assert.is(c1.shareSum, 205);
  assert.is(c1.nominalCLSum, 25);
  assert.equal([c1.get('pl0').nominalCL, c1.get('pl1').nominalCL, c1.get('catch-all').nominalCL], [12, 12, 1]);
  assert.equal([c1.get('pl0').minCL, c1.get('pl0').maxCL, c1.get('pl1').minCL, c1.get('pl1').maxCL], [6, 20, 8, 18]);
  const c2 = byName(24, levels([50, 33], [67, 50]));
  assert.equal([c2.get('pl0').minCL, c2.get('pl0').maxCL, c2.get('pl1').minCL, c2.get('pl1').maxCL], [6, 16, 4, 18]);
});

test('per-formula helpers: nil percents, exempt borrowing, zero shares, half rounding', () => {
  assert.is(nominalCL(600, 30, 245), 74);
  assert.is(nominalCL(600, 5, 0), 0);
  assert.is(lendableCL(49, 50), 25);
  assert.is(lendableCL(49, null), 0);
  assert.is(lendableCL(49, undefined), 0);
  assert.is(borrowingCL(600, 49, null), 600);
  assert.is(borrowingCL(600, 49, 50), 25);
  assert.is(borrowingCL(600, 49, 50, true), 600);
  assert.is(initialCurrentCL(49, 25), 37);
  const none = computeLevelLimits(600, [{ name: 'exempt', exempt: true, ncs: null, lendablePercent: null, borrowingLimitPercent: null }]);
  assert.equal(none, {
    shareSum: 0,
    nominalCLSum: 0,
    levels: [{ name: 'exempt', exempt: true, nominalCL: 0, lendableCL: 0, borrowingCL: 600, minCL: 0, maxCL: 600, initialCurrentCL: 0 }],
  });
});

test('bad input is a clear RangeError', () => {
  assert.throws(() => computeLevelLimits(-1, DEFAULT_LEVELS), /serverCL must be a non-negative integer/);
  assert.throws(
    () => computeLevelLimits(600, [{ name: 'x', exempt: false, ncs: 1.5, lendablePercent: 0, borrowingLimitPercent: null }]),
    /nominalConcurrencyShares of x/,
  );
  assert.throws(
    () => computeLevelLimits(600, [{ name: 'x', exempt: false, ncs: 1, lendablePercent: 101, borrowingLimitPercent: null }]),
    /lendablePercent of x must be an integer in \[0, 100\]/,
  );
});

test.run();
