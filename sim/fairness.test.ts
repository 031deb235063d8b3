import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { jainIndex, maxMinFairShares } from './fairness.ts';

test("Jain's index: 1 for equal shares, 1/n when one flow takes everything, in between otherwise", () => {
  assert.is(jainIndex([3, 3, 3, 3]), 1);
  assert.is(jainIndex([10, 0, 0, 0]), 0.25);
  assert.is(jainIndex([1, 2]), 9 / 10);
  assert.is(jainIndex([0, 0]), 1);
  assert.is(jainIndex([5]), 1);
  assert.is(jainIndex([]), undefined);
  // Scale-free: only the proportions matter.
  assert.is(jainIndex([2, 4, 6]), jainIndex([1, 2, 3]));
});

test('max-min fair shares: small demands are met, the rest is split evenly among the others', () => {
  assert.equal(maxMinFairShares([1, 10, 10], 9), [1, 4, 4]);
  assert.equal(maxMinFairShares([2, 2], 10), [2, 2]);
  assert.equal(maxMinFairShares([30, 5, 30], 20), [7.5, 5, 7.5]);
  assert.equal(maxMinFairShares([5], 0), [0]);
  assert.equal(maxMinFairShares([], 5), []);
});

test.run();
