// The hand-collision books: who was ahead of a flow's requests, summed per interval, with flow
// names that are also Object.prototype's members counted like any other.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { HandCollisionBooks } from './hand-collisions.ts';

test('requests of other flows ahead are summed per interval, whatever the flows are called', () => {
  const books = new HandCollisionBooks();
  const queue = books.queue({}, 3);
  for (const heavy of ['constructor', '__proto__', 'toString']) books.joined(queue, heavy, 2);
  const first = books.joined(queue, 'light', 2);
  const second = books.joined(queue, 'light', 2);
  books.left(queue, 'light', 7, first);
  books.left(queue, 'light', 7, second);
  const record = books.records.get('light')?.get(7);
  assert.ok(record !== undefined);
  assert.is(record.ahead, 3);
  assert.is(record.idleQueues, 2);
  assert.equal(Object.entries(record.by).sort(), [
    ['__proto__', 2],
    ['constructor', 2],
    ['toString', 2],
  ]);
  assert.is(Object.getPrototypeOf(record.by), null);
});

test.run();
