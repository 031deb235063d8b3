import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { effectiveMaxSeats, maxSeatsForLevel } from './max-seats.ts';

test('11.6: upstream max_seats_test vectors', () => {
  const rows: [number, number, number][] = [
    [5, 6, 1],
    [10, 6, 1],
    [15, 6, 2],
    [20, 6, 3],
    [35, 6, 5],
    [100, 6, 15],
    [200, 6, 30],
    [10, 1, 2],
    [100, 20, 5],
  ];
  for (const [nominal, hand, expected] of rows) assert.is(maxSeatsForLevel(nominal, hand), expected, `(${nominal}, ${hand})`);
});

test('11.2: maxSeats of the default queuing levels at ServerCL 600, and the effective value', () => {
  // [nominalCL, handSize, formula, effective]
  const rows: Record<string, [number, number, number, number]> = {
    system: [74, 6, 12, 10],
    'node-high': [98, 6, 15, 10],
    'leader-election': [25, 4, 4, 4],
    'workload-high': [98, 6, 15, 10],
    'workload-low': [245, 6, 37, 10],
    'global-default': [49, 6, 8, 8],
  };
  for (const [name, [nominal, hand, formula, effective]] of Object.entries(rows)) {
    assert.is(maxSeatsForLevel(nominal, hand), formula, name);
    assert.is(effectiveMaxSeats(maxSeatsForLevel(nominal, hand)), effective, name);
  }
});

test('11.2: maxSeats at ServerCL 100 (the floor(nominal/handSize) term binds)', () => {
  const nominal = { system: 13, 'node-high': 17, 'leader-election': 5, 'workload-high': 17, 'workload-low': 41, 'global-default': 9 };
  const hand = { system: 6, 'node-high': 6, 'leader-election': 4, 'workload-high': 6, 'workload-low': 6, 'global-default': 6 };
  const expected = { system: 2, 'node-high': 2, 'leader-election': 1, 'workload-high': 2, 'workload-low': 6, 'global-default': 1 };
  for (const name of Object.keys(nominal) as (keyof typeof nominal)[]) {
    assert.is(maxSeatsForLevel(nominal[name], hand[name]), expected[name], name);
  }
});

test('effectiveMaxSeats: untracked (0) and anything above 10 become 10', () => {
  assert.is(effectiveMaxSeats(0), 10);
  assert.is(effectiveMaxSeats(undefined), 10);
  assert.is(effectiveMaxSeats(37), 10);
  assert.is(effectiveMaxSeats(10), 10);
  assert.is(effectiveMaxSeats(5), 5);
  assert.is(effectiveMaxSeats(1), 1);
});

test('maxSeatsForLevel rejects impossible arguments clearly', () => {
  assert.throws(() => maxSeatsForLevel(10, 0), /handSize must be a positive integer/);
  assert.throws(() => maxSeatsForLevel(-1, 6), /nominalCL must be a non-negative integer/);
  assert.is(maxSeatsForLevel(0, 6), 1);
});

test.run();
