import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { WriteQueue } from './write-queue.ts';

interface Entry {
  ops: string[];
}

function recorder(failOn?: string) {
  const batches: string[][] = [];
  const log: string[] = [];
  let release: (() => void) | undefined;
  const flush = async (ops: string[]): Promise<void> => {
    log.push(`flush ${ops.join(',')}`);
    await new Promise<void>((resolve) => (release = resolve));
    if (failOn !== undefined && ops.includes(failOn)) throw new Error(`disk full at ${failOn}`);
    batches.push(ops);
    log.push(`written ${ops.join(',')}`);
  };
  return { batches, log, flush, release: () => release?.() };
}

const tick = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

test('writes queued in one turn share a batch; writes during a flush share the next; acks follow the write', async () => {
  const r = recorder();
  const queue = new WriteQueue<string, Entry>(r.flush);
  const acks: Promise<void>[] = ['a', 'b', 'c'].map((op) => queue.submit({ ops: [op] }).then(() => void r.log.push(`ack ${op}`)));
  await tick();
  assert.equal(r.log, ['flush a,b,c'], 'one batch, nothing acknowledged before it is written');
  const later = ['d', 'e'].map((op) => queue.submit({ ops: [op] }).then(() => void r.log.push(`ack ${op}`)));
  r.release();
  await Promise.all(acks);
  await tick();
  r.release();
  await Promise.all(later);
  // The next batch starts as soon as the previous one is written (before its writers even resume).
  assert.equal(r.log, ['flush a,b,c', 'written a,b,c', 'flush d,e', 'ack a', 'ack b', 'ack c', 'written d,e', 'ack d', 'ack e']);
  assert.is(queue.batches, 2);
  await queue.idle();
});

test('a batch holds at most maxWritesPerBatch writers', async () => {
  const sizes: number[] = [];
  const queue = new WriteQueue<number, { ops: number[] }>(async (ops) => void sizes.push(ops.length), 2);
  await Promise.all([1, 2, 3, 4, 5].map((n) => queue.submit({ ops: [n, n] })));
  assert.equal(sizes, [4, 4, 2]);
});

test('a failed flush rejects its writers and every later one', async () => {
  const r = recorder('b');
  const queue = new WriteQueue<string, Entry>(r.flush);
  const first = queue.submit({ ops: ['a'] });
  const second = queue.submit({ ops: ['b'] });
  await tick();
  r.release();
  const outcomes = await Promise.allSettled([first, second]);
  assert.equal(
    outcomes.map((o) => o.status),
    ['rejected', 'rejected'],
  );
  const after = await Promise.allSettled([queue.submit({ ops: ['c'] })]);
  assert.is(after[0]!.status, 'rejected');
  assert.match(String((after[0] as PromiseRejectedResult).reason), /disk full at b/);
});

test.run();
