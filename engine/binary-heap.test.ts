import fc from 'fast-check';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { BinaryHeap } from './binary-heap.ts';

interface Item {
  readonly key: number;
  readonly id: number;
  slot: number;
}

const byKeyThenId = (a: Item, b: Item) => a.key < b.key || (a.key === b.key && a.id < b.id);

test('pops in order, equal keys by the tie-break the order gives', () => {
  const heap = new BinaryHeap<Item>(byKeyThenId);
  const keys = [5, 1, 4, 1, 3, 5, 0, 2];
  keys.forEach((key, id) => heap.push({ key, id, slot: -1 }));
  assert.is(heap.size, keys.length);
  assert.is(heap.peek()!.key, 0);
  const out: string[] = [];
  for (let item = heap.pop(); item !== undefined; item = heap.pop()) out.push(`${item.key}/${item.id}`);
  assert.equal(out, ['0/6', '1/1', '1/3', '2/7', '3/4', '4/2', '5/0', '5/5']);
  assert.is(heap.size, 0);
  assert.is(heap.pop(), undefined);
});

test('an indexed heap reports each slot, and -1 for an entry that left', () => {
  const heap = new BinaryHeap<Item>(byKeyThenId, (item, slot) => {
    item.slot = slot;
  });
  const a = { key: 3, id: 0, slot: -1 };
  const b = { key: 1, id: 1, slot: -1 };
  heap.push(a);
  assert.is(a.slot, 0);
  heap.push(b);
  assert.equal([b.slot, a.slot], [0, 1], 'b rose past a');
  heap.removeAt(b.slot);
  assert.equal([b.slot, a.slot], [-1, 0]);
});

test('against a sorted list: pushes, pops and removals of any entry keep the order and the slots', () => {
  const op = fc.oneof(fc.record({ push: fc.integer({ min: 0, max: 20 }) }), fc.record({ pop: fc.constant(true) }), fc.record({ remove: fc.nat() }));
  fc.assert(
    fc.property(fc.array(op, { maxLength: 200 }), (ops) => {
      const slots = new Map<Item, number>();
      const heap = new BinaryHeap<Item>(byKeyThenId, (item, slot) => {
        item.slot = slot;
        if (slot >= 0) slots.set(item, slot);
        else slots.delete(item);
      });
      let model: Item[] = [];
      let id = 0;
      for (const step of ops) {
        if ('push' in step) {
          const item = { key: step.push, id: id++, slot: -1 };
          heap.push(item);
          model.push(item);
          model.sort((a, b) => (byKeyThenId(a, b) ? -1 : 1));
        } else if ('pop' in step) {
          const item = heap.pop();
          assert.is(item, model.shift());
          if (item !== undefined) assert.is(item.slot, -1);
        } else if (model.length > 0) {
          const item = model[step.remove % model.length]!;
          heap.removeAt(item.slot);
          assert.is(item.slot, -1);
          model = model.filter((other) => other !== item);
        }
        assert.is(heap.size, model.length);
        assert.is(heap.peek(), model[0]);
        assert.is(slots.size, model.length, 'every entry in the heap has a slot, none outside it');
        for (const item of model) assert.is(slots.get(item), item.slot);
        assert.is(new Set(slots.values()).size, model.length, 'no two entries share a slot');
      }
    }),
  );
});

test.run();
