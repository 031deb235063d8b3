// The etcd backend's pure parts without etcd: reading a transaction's answer (including a retry
// that finds its own write already applied), the changes a commit's response stands for, the
// difference a re-read reports, watch events as store changes, and the delivery waiters.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { SimClock } from '../../sim-clock.ts';
import type { CommitOp } from '../backend.ts';
import { DeliveryWaiters } from './delivery-waiters.ts';
import { commitRequest, commitResult, eventChange, ownCommitChanges, resyncChanges, type EtcdKeyspace } from './etcd-changes.ts';
import { COMPARE_MOD, EVENT_DELETE, type EtcdEvent, type EtcdKeyValue, type EtcdTxnResponse } from './etcd-proto.ts';

const KEY = '/registry/g/r/a';
const bytes = (text: string) => Buffer.from(text);
const keyspace: EtcdKeyspace = {
  keyPrefix: bytes('/ns/registry/'),
  namespaceLength: 3,
  etcdKey: (key) => bytes(`/ns${key}`),
};
const kv = (key: string, value: string, modRevision: number, version = 2): EtcdKeyValue => ({
  key: bytes(key),
  value: bytes(value),
  createRevision: 1,
  modRevision,
  version,
});
const failed = (revision: number, found: EtcdKeyValue | undefined): EtcdTxnResponse => ({
  header: { revision },
  succeeded: false,
  responses: [{ responseRange: { kvs: found === undefined ? [] : [found] } }],
});
const put = (value: string, expectedModRevision: number, origin?: unknown): CommitOp => ({
  type: 'put',
  key: KEY,
  value: bytes(value),
  expectedModRevision,
  origin,
});

test('the transaction compares every mod revision, writes, and otherwise reads the keys back', () => {
  const request = commitRequest([put('v', 0), { type: 'delete', key: '/registry/g/r/b', expectedModRevision: 7 }], keyspace, false);
  assert.equal(
    request.compare.map((c) => [c.key.toString(), c.target, 'modRevision' in c ? c.modRevision : undefined]),
    [
      ['/ns/registry/g/r/a', COMPARE_MOD, 0],
      ['/ns/registry/g/r/b', COMPARE_MOD, 7],
    ],
  );
  assert.equal(
    request.success.map((op) => Object.keys(op)[0]),
    ['requestPut', 'requestDeleteRange'],
  );
  const keysOnly = (ops: typeof request.failure) => ops.map((op) => ('requestRange' in op ? op.requestRange.keysOnly : undefined));
  assert.equal(keysOnly(request.failure), [true, true]);
  assert.equal(keysOnly(commitRequest([put('v', 0)], keyspace, true).failure), [false], 'a retry reads values');
});

test('a failed transaction reports the actual revision; a retry that finds its own bytes succeeded', () => {
  assert.equal(commitResult([put('v', 0)], { header: { revision: 9 }, succeeded: true, responses: [] }, false), { ok: true, revision: 9 });
  assert.equal(commitResult([put('v', 3)], failed(12, kv('/ns/registry/g/r/a', 'other', 11)), false), {
    ok: false,
    key: KEY,
    actualModRevision: 11,
    revision: 12,
  });
  assert.equal(commitResult([put('v', 3)], failed(12, undefined), false), { ok: false, key: KEY, actualModRevision: 0, revision: 12 });
  // The first attempt was applied at 11 but its answer was lost: the retry sees our bytes there.
  assert.equal(commitResult([put('v', 3)], failed(12, kv('/ns/registry/g/r/a', 'v', 11)), true), { ok: true, revision: 11 });
  // Without an earlier unknown outcome, the same bytes are someone else's write: a conflict.
  assert.equal(commitResult([put('v', 3)], failed(12, kv('/ns/registry/g/r/a', 'v', 11)), false).ok, false);
  assert.equal(commitResult([put('v', 3)], failed(12, kv('/ns/registry/g/r/a', 'w', 11)), true).ok, false);
});

test('a commit response stands for its ops at its revision, unless a delete of nothing is among them', () => {
  const origin = { hint: 1 };
  assert.equal(ownCommitChanges([put('v', 4, origin), { type: 'delete', key: '/registry/g/r/b', expectedModRevision: 2 }], 10), [
    { type: 'put', key: KEY, modRevision: 10, value: bytes('v'), prevModRevision: 4, origin },
    { type: 'delete', key: '/registry/g/r/b', modRevision: 10, prevModRevision: 2 },
  ]);
  assert.is(ownCommitChanges([{ type: 'delete', key: KEY, expectedModRevision: 0 }], 10), undefined);
});

test('a re-read reports changed and new keys in revision order, and deletions at its own revision', () => {
  const known = new Map([
    ['/registry/g/r/same', 5],
    ['/registry/g/r/changed', 6],
    ['/registry/g/r/gone', 7],
  ]);
  const records = [
    { key: '/registry/g/r/changed', value: bytes('c'), modRevision: 30 },
    { key: '/registry/g/r/new', value: bytes('n'), modRevision: 20 },
    { key: '/registry/g/r/same', value: bytes('s'), modRevision: 5 },
  ];
  assert.equal(
    resyncChanges(40, records, known).map((c) => `${c.type} ${c.key}@${c.modRevision} prev ${c.prevModRevision}`),
    ['put /registry/g/r/new@20 prev 0', 'put /registry/g/r/changed@30 prev 6', 'delete /registry/g/r/gone@40 prev 7'],
  );
  assert.equal(resyncChanges(40, records.slice(2), new Map([['/registry/g/r/same', 5]])), []);
});

test('watch events: keys outside the prefix are skipped, the namespace stripped, our origin handed back', () => {
  const known = new Map([[KEY, 3]]);
  const origins: string[] = [];
  const takeOrigin = (key: string, value: Uint8Array) => {
    origins.push(`${key}=${Buffer.from(value).toString()}`);
    return Buffer.from(value).toString() === 'mine' ? 'hint' : undefined;
  };
  const event = (type: 'put' | 'delete', current: EtcdKeyValue, prev?: EtcdKeyValue): EtcdEvent => ({
    type: type === 'delete' ? EVENT_DELETE : 0,
    kv: current,
    prevKv: prev ?? null,
  });
  assert.is(eventChange(event('put', kv('/other/registry/g/r/a', 'x', 9)), keyspace, known, takeOrigin), undefined);
  assert.is(eventChange(event('put', kv('/ns/fairway', 'x', 9)), keyspace, known, takeOrigin), undefined);
  const mine = eventChange(event('put', kv('/ns/registry/g/r/a', 'mine', 9), kv('/ns/registry/g/r/a', 'old', 3)), keyspace, known, takeOrigin)!;
  assert.equal([mine.key, mine.modRevision, mine.prevModRevision, mine.origin, Buffer.from(mine.prevValue!).toString()], [KEY, 9, 3, 'hint', 'old']);
  const created = eventChange(event('put', kv('/ns/registry/g/r/b', 'theirs', 10, 1)), keyspace, known, takeOrigin)!;
  assert.equal([created.key, created.prevModRevision, created.origin], ['/registry/g/r/b', 0, undefined]);
  // Without a previous value (not requested, or compacted), the last delivered revision stands in.
  const updated = eventChange(event('put', kv('/ns/registry/g/r/a', 'theirs', 11, 3)), keyspace, known, takeOrigin)!;
  assert.is(updated.prevModRevision, 3);
  const deleted = eventChange(event('delete', kv('/ns/registry/g/r/a', '', 12), kv('/ns/registry/g/r/a', 'last', 11)), keyspace, known, takeOrigin)!;
  assert.equal([deleted.type, deleted.modRevision, deleted.prevModRevision, deleted.value], ['delete', 12, 11, undefined]);
  assert.equal(origins, [`${KEY}=mine`, '/registry/g/r/b=theirs', `${KEY}=theirs`], 'only puts under the prefix look for an origin');
});

test('delivery waiters are released as revisions are delivered, or give up after the budget', async () => {
  const clock = new SimClock(1_000);
  const waiters = new DeliveryWaiters(clock, 500);
  const done: number[] = [];
  for (const revision of [5, 7, 9]) void waiters.wait(revision).then(() => done.push(revision));
  waiters.release(7);
  await Promise.resolve();
  assert.equal(done, [5, 7]);
  clock.advance(499);
  await Promise.resolve();
  assert.equal(done, [5, 7]);
  clock.advance(1);
  await Promise.resolve();
  assert.equal(done, [5, 7, 9], 'gave up after the budget');
  void waiters.wait(20).then(() => done.push(20));
  waiters.releaseAll();
  await Promise.resolve();
  assert.equal(done, [5, 7, 9, 20]);
});

test.run();
