// etcd's messages through protobufjs as the backend uses them, checked against a second reading of
// the same .proto files by @grpc/proto-loader (snake_case names, int64s as decimal strings, enums by
// name: how etcd's own JSON gateway and other gRPC clients see them): the requests we build decode
// to the compares, ops, ranges and compactions we meant, and responses decode to the revisions,
// outcomes, events and values the backend reads, int64s beyond 32 bits included.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { loadSync } from '@grpc/proto-loader';
import { join } from 'node:path';
import { commitRequest, type EtcdKeyspace } from './etcd-changes.ts';
import {
  bytesOf,
  COMPARE_EQUAL,
  COMPARE_VERSION,
  decodeCompactionResponse,
  decodeDeleteRangeResponse,
  decodePutResponse,
  decodeRangeResponse,
  decodeTxnResponse,
  decodeWatchResponse,
  encodeCompactionRequest,
  encodeDeleteRangeRequest,
  encodePutRequest,
  encodeRangeRequest,
  encodeTxnRequest,
  encodeWatchCreate,
  ETCD_PROTO_DIR,
  EVENT_DELETE,
  headerRevision,
  int64,
} from './etcd-proto.ts';

const definition = loadSync(join(ETCD_PROTO_DIR, 'rpc.proto'), { keepCase: true, longs: String, enums: String, defaults: true, oneofs: true });
type Method = { requestDeserialize(bytes: Buffer): any; responseSerialize(value: unknown): Buffer };
const method = (service: string, name: string) => (definition[`etcdserverpb.${service}`] as unknown as Record<string, Method>)[name]!;
const txn = method('KV', 'Txn');
const range = method('KV', 'Range');
const put = method('KV', 'Put');
const deleteRange = method('KV', 'DeleteRange');
const compact = method('KV', 'Compact');
const watch = method('Watch', 'Watch');
const b = (text: string) => Buffer.from(text);
const keyspace: EtcdKeyspace = { keyPrefix: b('/registry/'), namespaceLength: 0, etcdKey: (key) => b(key) };

test('a commit transaction decodes to the compares and ops we meant', () => {
  const value = new Uint8Array(300).fill(7); // not a Buffer, as the store hands values over
  const ops = [
    { type: 'put' as const, key: '/registry/a', value, expectedModRevision: 0 },
    { type: 'delete' as const, key: '/registry/b', expectedModRevision: 1_234_567_890_123 },
  ];
  const decoded = txn.requestDeserialize(encodeTxnRequest(commitRequest(ops, keyspace, false)));
  assert.equal(
    decoded.compare.map((c: any) => [c.key.toString(), c.target, c.result, c.target_union, c[c.target_union]]),
    [
      ['/registry/a', 'Mod', 'Equal', 'mod_revision', '0'],
      ['/registry/b', 'Mod', 'Equal', 'mod_revision', '1234567890123'],
    ],
    'a compared 0 is sent (it selects the oneof), not left out',
  );
  assert.equal(decoded.success[0].request_put.key.toString(), '/registry/a');
  assert.ok(Buffer.from(decoded.success[0].request_put.value).equals(Buffer.from(value)));
  assert.equal(decoded.success[1].request_delete_range.key.toString(), '/registry/b');
  assert.equal(
    decoded.failure.map((op: any) => [op.request_range.key.toString(), op.request_range.keys_only]),
    [
      ['/registry/a', true],
      ['/registry/b', true],
    ],
  );
  const retry = txn.requestDeserialize(encodeTxnRequest(commitRequest(ops.slice(0, 1), keyspace, true)));
  assert.is(retry.failure[0].request_range.keys_only, false, 'a retry reads values back');
});

test("the compactor's transaction: a version compare (0 included), a put, a read", () => {
  const key = b('compact_rev_key');
  const decoded = txn.requestDeserialize(
    encodeTxnRequest({
      compare: [{ key, target: COMPARE_VERSION, result: COMPARE_EQUAL, version: 0 }],
      success: [{ requestPut: { key, value: b('4294967297') } }],
      failure: [{ requestRange: { key } }],
    }),
  );
  assert.equal(
    decoded.compare.map((c: any) => [c.key.toString(), c.target, c.result, c.target_union, c[c.target_union]]),
    [['compact_rev_key', 'Version', 'Equal', 'version', '0']],
  );
  assert.is(decoded.success[0].request_put.value.toString(), '4294967297');
  assert.equal(
    [decoded.failure[0].request_range.key.toString(), decoded.failure[0].request_range.keys_only, decoded.failure[0].request_range.limit],
    ['compact_rev_key', false, '0'],
  );
});

test('range requests: a page of a prefix at a revision, or the newest with keys only; responses give kvs, more and count', () => {
  const decoded = range.requestDeserialize(encodeRangeRequest({ key: b('/registry/a'), rangeEnd: b('/registry0'), limit: 500, revision: 4_294_967_297 }));
  assert.equal(
    [decoded.key.toString(), decoded.range_end.toString(), decoded.limit, decoded.revision, decoded.keys_only, decoded.serializable],
    ['/registry/a', '/registry0', '500', '4294967297', false, false],
    'linearizable: not serializable',
  );
  const newest = range.requestDeserialize(encodeRangeRequest({ key: b('/registry/'), keysOnly: true, limit: 1 }));
  assert.equal([newest.range_end.length, newest.revision, newest.keys_only, newest.limit], [0, '0', true, '1']);
  const header = { cluster_id: '9', member_id: '8', revision: '4294967299', raft_term: '3' };
  const kv = (key: string, mod: string) => ({ key: b(key), create_revision: '2', mod_revision: mod, version: '1', value: b(`v${key}`), lease: '0' });
  const response = decodeRangeResponse(
    range.responseSerialize({ header, kvs: [kv('/registry/a', '4294967298'), kv('/registry/b', '7')], more: true, count: '1200' }),
  );
  assert.equal([headerRevision(response), response.more, int64(response.count)], [4_294_967_299, true, 1200]);
  assert.equal(
    response.kvs.map((k) => [k.key.toString(), int64(k.modRevision), Buffer.from(k.value).toString()]),
    [
      ['/registry/a', 4_294_967_298, 'v/registry/a'],
      ['/registry/b', 7, 'v/registry/b'],
    ],
  );
  const empty = decodeRangeResponse(range.responseSerialize({ header, kvs: [], more: false, count: '0' }));
  assert.equal([empty.kvs.length, empty.more], [0, false]);
});

test('put, delete-range and compaction requests carry what we meant; their responses give the revision', () => {
  const header = { cluster_id: '1', member_id: '1', revision: '77', raft_term: '1' };
  const p = put.requestDeserialize(encodePutRequest({ key: b('/a'), value: new Uint8Array([1, 2, 3]) }));
  assert.equal([p.key.toString(), [...p.value], p.lease, p.prev_kv], ['/a', [1, 2, 3], '0', false]);
  assert.is(headerRevision(decodePutResponse(put.responseSerialize({ header }))), 77);
  const d = deleteRange.requestDeserialize(encodeDeleteRangeRequest({ key: b('/ns/'), rangeEnd: b('/ns0') }));
  assert.equal([d.key.toString(), d.range_end.toString()], ['/ns/', '/ns0']);
  assert.is(headerRevision(decodeDeleteRangeResponse(deleteRange.responseSerialize({ header, deleted: '3' }))), 77);
  const c = compact.requestDeserialize(encodeCompactionRequest({ revision: 4_294_967_297, physical: true }));
  assert.equal([c.revision, c.physical], ['4294967297', true]);
  assert.is(headerRevision(decodeCompactionResponse(compact.responseSerialize({ header }))), 77);
});

test('a watch create request decodes to the range, start revision and flags we meant', () => {
  const zero = Buffer.from([0]);
  const decoded = watch.requestDeserialize(encodeWatchCreate({ key: zero, rangeEnd: zero, startRevision: 70_000, progressNotify: true, prevKv: true }));
  const create = decoded.create_request;
  assert.equal([create.key, create.range_end, create.start_revision, create.progress_notify, create.prev_kv], [zero, zero, '70000', true, true]);
});

test('transaction responses decode to revision, outcome and the kvs read', () => {
  const header = { cluster_id: '9', member_id: '8', revision: '4294967297', raft_term: '3' };
  const ok = decodeTxnResponse(txn.responseSerialize({ header, succeeded: true, responses: [{ response_put: { header } }] }));
  assert.equal([headerRevision(ok), ok.succeeded, ok.responses[0]?.responseRange ?? undefined], [4_294_967_297, true, undefined]);
  const kv = { key: b('/a'), create_revision: '5', mod_revision: '6', version: '2', value: b('v'), lease: '0' };
  const failed = decodeTxnResponse(
    txn.responseSerialize({
      header,
      succeeded: false,
      responses: [{ response_range: { header, kvs: [kv], more: false, count: '1' } }, { response_range: { header, kvs: [], count: '0' } }],
    }),
  );
  assert.is(failed.succeeded, false);
  assert.equal(
    failed.responses.map((r) =>
      r.responseRange?.kvs.map((k) => [k.key.toString(), int64(k.createRevision), int64(k.modRevision), int64(k.version), Buffer.from(k.value).toString()]),
    ),
    [[['/a', 5, 6, 2, 'v']], []],
  );
});

test('watch responses decode events, previous values, progress, creation and cancellation', () => {
  const header = { cluster_id: '1', member_id: '1', revision: '12', raft_term: '1' };
  const kv = (key: string, value: string, mod: number, version: number) => ({
    key: b(key),
    create_revision: '3',
    mod_revision: String(mod),
    version: String(version),
    value: b(value),
    lease: '0',
  });
  const response = decodeWatchResponse(
    watch.responseSerialize({
      header,
      watch_id: '0',
      events: [
        { type: 'Put', kv: kv('/a', 'new', 11, 2), prev_kv: kv('/a', 'old', 10, 1) },
        { type: 'Delete', kv: kv('/b', '', 12, 0) },
      ],
    }),
  );
  assert.equal(
    response.events.map((e) => [
      e.type === EVENT_DELETE ? 'delete' : 'put',
      e.kv.key.toString(),
      int64(e.kv.modRevision),
      Buffer.from(e.kv.value).toString(),
      e.prevKv == null ? undefined : [Buffer.from(e.prevKv.value).toString(), int64(e.prevKv.modRevision)],
    ]),
    [
      ['put', '/a', 11, 'new', ['old', 10]],
      ['delete', '/b', 12, '', undefined],
    ],
  );
  assert.ok(Buffer.isBuffer(bytesOf(response.events[1]!.kv.value)), 'an empty value is still bytes');
  assert.equal(decodeWatchResponse(watch.responseSerialize({ header, watch_id: '0', created: true })).created, true);
  const progress = decodeWatchResponse(watch.responseSerialize({ header, watch_id: '0' }));
  assert.equal([headerRevision(progress), progress.events.length, progress.canceled], [12, 0, false]);
  const canceled = decodeWatchResponse(
    watch.responseSerialize({ header, canceled: true, compact_revision: '40', cancel_reason: 'mvcc: required revision has been compacted' }),
  );
  assert.equal([canceled.canceled, int64(canceled.compactRevision), canceled.cancelReason], [true, 40, 'mvcc: required revision has been compacted']);
});

test('a malformed watch message is an error, not a crash or a wrong value', () => {
  const header = { cluster_id: '1', member_id: '1', revision: '12', raft_term: '1' };
  const whole = watch.responseSerialize({ header, events: [{ type: 'Put', kv: { key: b('/a'), mod_revision: '3', value: b('v') } }] });
  assert.throws(() => decodeWatchResponse(whole.subarray(0, whole.length - 2)));
  assert.throws(() => decodeWatchResponse(watch.responseSerialize({ header, events: [{ type: 'Put' }] })), /without a key-value/);
});

test.run();
