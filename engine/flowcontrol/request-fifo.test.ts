import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { FifoNode, RequestFifo } from './request-fifo.ts';

const item = (id: number, seats = 1) => ({ id, initialSeats: seats, maxSeats: seats * 2, totalWork: seats * 300000 });
const node = (id: number, seats = 1) => new FifoNode(item(id, seats));

test('keeps FIFO order and running sums', () => {
  const fifo = new RequestFifo<ReturnType<typeof item>>();
  fifo.enqueue(node(1));
  fifo.enqueue(node(2, 3));
  assert.is(fifo.length, 2);
  assert.is(fifo.initialSeatsSum, 4);
  assert.is(fifo.maxSeatsSum, 8);
  assert.is(fifo.totalWorkSum, 1200000);
  assert.is(fifo.dequeue()?.id, 1);
  assert.is(fifo.initialSeatsSum, 3);
  assert.is(fifo.peek()?.id, 2);
});

test('removal from the middle is O(1), idempotent, and keeps the sums right', () => {
  const fifo = new RequestFifo<ReturnType<typeof item>>();
  fifo.enqueue(node(1));
  const two = node(2, 5);
  fifo.enqueue(two);
  fifo.enqueue(node(3));
  assert.ok(fifo.remove(two));
  assert.not.ok(fifo.remove(two));
  assert.equal(
    [...fifo].map((i) => i.id),
    [1, 3],
  );
  assert.is(fifo.maxSeatsSum, 4);
  assert.is(fifo.totalWorkSum, 600000);
  fifo.dequeue();
  fifo.dequeue();
  assert.is(fifo.dequeue(), undefined);
  assert.is(fifo.length, 0);
  assert.is(fifo.totalWorkSum, 0);
});

test.run();
