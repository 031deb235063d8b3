// How failed etcd calls are classified: every gRPC status code, retryable or not, exactly as the
// etcd3 npm client's recoverable errors were (the backend's retries kept their decisions when it
// stopped using that library); etcd's own answers never count against a member; a client that was
// closed or members all skipped; anything else (a decoding error, a bug) is not retried.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { status as Status } from '@grpc/grpc-js';
import { countsAgainstMember, EtcdCallError, EtcdClientClosedError, isRetryable, NoMemberAvailableError } from './etcd-errors.ts';

test('retryable status codes: cancelled, unknown, deadline, resource exhausted, aborted, internal, unavailable', () => {
  const retryable = [];
  for (let code = 1; code <= 16; code++) if (isRetryable(new EtcdCallError(code, 'connection reset'))) retryable.push(Status[code]);
  assert.equal(retryable, ['CANCELLED', 'UNKNOWN', 'DEADLINE_EXCEEDED', 'RESOURCE_EXHAUSTED', 'ABORTED', 'INTERNAL', 'UNAVAILABLE']);
});

test("etcd's answers are retried when their code says so, but never count against the member", () => {
  const election = new EtcdCallError(Status.UNAVAILABLE, 'etcdserver: leader changed');
  assert.ok(isRetryable(election));
  assert.not.ok(countsAgainstMember(election));
  assert.ok(election.fromEtcd);
  const full = new EtcdCallError(Status.RESOURCE_EXHAUSTED, 'etcdserver: mvcc: database space exceeded');
  assert.equal([isRetryable(full), countsAgainstMember(full)], [true, false]);
  const compacted = new EtcdCallError(Status.OUT_OF_RANGE, 'etcdserver: mvcc: required revision has been compacted');
  assert.equal([isRetryable(compacted), countsAgainstMember(compacted)], [false, false]);
  const denied = new EtcdCallError(Status.PERMISSION_DENIED, 'etcdserver: permission denied');
  assert.equal([isRetryable(denied), countsAgainstMember(denied)], [false, false]);
});

test('transport failures count against the member; answers that are not retryable do not', () => {
  for (const code of [Status.UNAVAILABLE, Status.DEADLINE_EXCEEDED, Status.INTERNAL, Status.CANCELLED]) {
    assert.ok(countsAgainstMember(new EtcdCallError(code, 'No connection established')), Status[code]);
  }
  assert.not.ok(countsAgainstMember(new EtcdCallError(Status.INVALID_ARGUMENT, 'request is malformed')));
  assert.not.ok(countsAgainstMember(new NoMemberAvailableError('all skipped')));
});

test('members all skipped is retryable; a closed client, a decoding error or a non-error are not', () => {
  assert.ok(isRetryable(new NoMemberAvailableError('every etcd member failed recently')));
  assert.not.ok(isRetryable(new EtcdClientClosedError('closed')));
  assert.not.ok(isRetryable(new RangeError('index out of range')));
  assert.not.ok(isRetryable(undefined));
  assert.not.ok(isRetryable({ code: Status.UNAVAILABLE }), 'a look-alike object is not an etcd call error');
});

test('the message names the code and the details', () => {
  const error = new EtcdCallError(Status.UNAVAILABLE, 'etcdserver: no leader');
  assert.is(error.message, '14 UNAVAILABLE: etcdserver: no leader');
  assert.is(error.name, 'EtcdCallError');
  assert.instance(error, Error);
});

test.run();
