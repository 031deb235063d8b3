import { test } from 'uvu';
import * as assert from 'uvu/assert';
import fc from 'fast-check';
import { goStableSort } from './go-stable-sort.ts';

/** What sort.SliceStable does below 21 elements: one insertion sort. */
function insertionSort<T>(items: T[], less: (a: T, b: T) => boolean): T[] {
  for (let i = 1; i < items.length; i++) {
    for (let j = i; j > 0 && less(items[j]!, items[j - 1]!); j--) [items[j], items[j - 1]] = [items[j - 1]!, items[j]!];
  }
  return items;
}

test('up to 20 items it is an insertion sort, whatever `less` says (even an inconsistent one)', () => {
  fc.assert(
    fc.property(fc.array(fc.nat(30), { maxLength: 20 }), fc.array(fc.boolean(), { minLength: 31 * 31, maxLength: 31 * 31 }), (items, table) => {
      const less = (a: number, b: number) => table[a * 31 + b]!;
      assert.equal(goStableSort([...items], less), insertionSort([...items], less));
    }),
    { seed: 7, numRuns: 300 },
  );
});

test('with a consistent order it is a stable sort at any size', () => {
  fc.assert(
    fc.property(fc.array(fc.tuple(fc.nat(20), fc.nat()), { maxLength: 400 }), (items) => {
      const byKey = (a: [number, number], b: [number, number]) => a[0] < b[0];
      assert.equal(
        goStableSort([...items], byKey),
        [...items].sort((a, b) => a[0] - b[0]),
      );
    }),
    { seed: 7, numRuns: 200 },
  );
});

test("strategicpatch's lenient less (an item missing from the order is less than anything) still yields a permutation", () => {
  const order = [9, 7, 5, 3, 1];
  const less = (a: number, b: number) => {
    const ia = order.indexOf(a);
    const ib = order.indexOf(b);
    return ia >= 0 && ib >= 0 ? ia < ib : true;
  };
  const many = Array.from({ length: 1000 }, (_, i) => i % 13);
  const sorted = goStableSort([...many], less);
  assert.equal(
    [...sorted].sort((a, b) => a - b),
    [...many].sort((a, b) => a - b),
  );
});

test('the work grows as n log² n: 20,000 items, far fewer comparisons than an insertion sort makes', () => {
  let comparisons = 0;
  const items = Array.from({ length: 20_000 }, (_, i) => (i * 7919) % 20_000);
  goStableSort(items, (a, b) => {
    comparisons++;
    return a < b;
  });
  assert.equal(
    items,
    Array.from({ length: 20_000 }, (_, i) => i),
  );
  const n = 20_000;
  const log = Math.log2(n);
  assert.ok(comparisons < n * log * log, `${comparisons} comparisons`);
  // An insertion sort of a shuffled list compares about n²/4 times: 100 million here.
  assert.ok(comparisons * 100 < (n * n) / 4, `${comparisons} comparisons`);
});

test.run();
