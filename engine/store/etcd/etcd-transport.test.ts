// The transport against in-process grpc-js servers that play etcd members: answers come back
// decoded and status errors as EtcdCallErrors with their code (classified by etcd-errors.ts), a
// member that keeps failing at the transport level is skipped while etcd's own errors are not held
// against it, a call past its deadline fails as retryable, a closed transport fails calls for good,
// and streams deliver each message and report their end.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { Server, ServerCredentials, type sendUnaryData, type ServerDuplexStream, type ServerUnaryCall, type UntypedServiceImplementation } from '@grpc/grpc-js';
import { realClock } from '../../clock.ts';
import { EtcdCallError, EtcdClientClosedError, isRetryable, NoMemberAvailableError } from './etcd-errors.ts';
import { EtcdTransport, TXN_PATH, WATCH_PATH } from './etcd-transport.ts';

type Unary = (request: Buffer, respond: sendUnaryData<Buffer>) => void;
type Stream = (call: ServerDuplexStream<Buffer, Buffer>, request: Buffer) => void;

interface FakeMember {
  readonly url: string;
  calls: number;
  unary: Unary;
  stream: Stream;
  readonly server: Server;
}

const passThrough = (message: Buffer): Buffer => message;
const method = (path: string, streaming: boolean) => ({
  path,
  requestStream: streaming,
  responseStream: streaming,
  requestSerialize: passThrough,
  requestDeserialize: passThrough,
  responseSerialize: passThrough,
  responseDeserialize: passThrough,
});

const echo: Unary = (request, respond) => respond(null, request);
const status =
  (code: number, details: string): Unary =>
  (_request, respond) =>
    respond({ code, details });
const silent: Unary = () => undefined;

async function fakeMember(unary: Unary, stream: Stream = () => undefined): Promise<FakeMember> {
  const server = new Server();
  const member = { url: '', calls: 0, unary, stream, server };
  const handlers: UntypedServiceImplementation = {
    Txn: (call: ServerUnaryCall<Buffer, Buffer>, respond: sendUnaryData<Buffer>) => {
      member.calls++;
      member.unary(call.request, respond);
    },
    Watch: (call: ServerDuplexStream<Buffer, Buffer>) => {
      member.calls++;
      call.on('data', (request: Buffer) => member.stream(call, request));
      call.on('error', () => undefined);
    },
  };
  server.addService({ Txn: method(TXN_PATH, false), Watch: method(WATCH_PATH, true) }, handlers);
  const port = await new Promise<number>((resolve, reject) =>
    server.bindAsync('127.0.0.1:0', ServerCredentials.createInsecure(), (error, bound) => (error === null ? resolve(bound) : reject(error))),
  );
  member.url = `http://127.0.0.1:${port}`;
  return member;
}

const clock = realClock();
const farDeadline = () => clock.now() + 5_000;
const servers: FakeMember[] = [];
async function members(...behaviours: Unary[]): Promise<FakeMember[]> {
  const created = await Promise.all(behaviours.map((b) => fakeMember(b)));
  servers.push(...created);
  return created;
}
const raw = (message: Buffer): Buffer => message;
const callCode = (error: Error): number | undefined => (error instanceof EtcdCallError ? error.code : undefined);
const failure = (promise: Promise<unknown>): Promise<Error> =>
  promise.then(
    () => assert.unreachable('expected the call to fail') as never,
    (error: Error) => error,
  );

test('a unary call returns the decoded response; a non-OK status is an EtcdCallError with its code', async () => {
  const [m] = await members(echo);
  const transport = new EtcdTransport([m!.url], clock);
  try {
    const response = await transport.unary(TXN_PATH, Buffer.from('hello'), farDeadline(), (message) => message.toString().toUpperCase());
    assert.is(response, 'HELLO');
    m!.unary = status(14, 'etcdserver: leader changed');
    const unavailable = await failure(transport.unary(TXN_PATH, Buffer.from('x'), farDeadline(), raw));
    assert.is(callCode(unavailable), 14);
    assert.is(unavailable.message, '14 UNAVAILABLE: etcdserver: leader changed');
    assert.ok(isRetryable(unavailable));
    m!.unary = status(11, 'etcdserver: mvcc: required revision has been compacted');
    const compacted = await failure(transport.unary(TXN_PATH, Buffer.from('x'), farDeadline(), raw));
    assert.is(callCode(compacted), 11);
    assert.not.ok(isRetryable(compacted), 'an answer retrying cannot change');
  } finally {
    transport.close();
  }
});

test('a response the decoder cannot read fails the call with its error, not retryable, not held against the member', async () => {
  const [m] = await members(echo);
  const transport = new EtcdTransport([m!.url], clock);
  const unreadable = (): never => {
    throw new Error('index out of range');
  };
  try {
    for (let i = 0; i < 4; i++) {
      const error = await failure(transport.unary(TXN_PATH, Buffer.from('x'), farDeadline(), unreadable));
      assert.is(error.message, 'index out of range');
      assert.not.ok(isRetryable(error));
    }
    assert.is(m!.calls, 4, 'the member stayed in rotation');
  } finally {
    transport.close();
  }
});

test('a member failing at the transport level 3 times in a row is skipped; etcd errors do not count', async () => {
  const [bad, good] = await members(status(14, 'connection refused by proxy'), echo);
  const transport = new EtcdTransport([bad!.url, good!.url], clock);
  try {
    const results: string[] = [];
    for (let i = 0; i < 12; i++) {
      results.push(
        await transport.unary(TXN_PATH, Buffer.from('ok'), farDeadline(), raw).then(
          (r) => r.toString(),
          () => 'failed',
        ),
      );
    }
    assert.is(bad!.calls, 3, 'the bad member got calls until its third consecutive failure');
    assert.is(results.filter((r) => r === 'ok').length, 9);
    // Election errors come from etcd itself: the member stays in rotation.
    const [electing, other] = await members(status(14, 'etcdserver: no leader'), echo);
    const second = new EtcdTransport([electing!.url, other!.url], clock);
    try {
      for (let i = 0; i < 12; i++) await second.unary(TXN_PATH, Buffer.from('ok'), farDeadline(), raw).catch(() => undefined);
      assert.is(electing!.calls, 6);
    } finally {
      second.close();
    }
  } finally {
    transport.close();
  }
});

test('every member skipped: a retryable error without a call; a dead endpoint is UNAVAILABLE', async () => {
  const [bad] = await members(status(13, 'broken'));
  const transport = new EtcdTransport([bad!.url], clock);
  try {
    for (let i = 0; i < 3; i++) await transport.unary(TXN_PATH, Buffer.from('x'), farDeadline(), raw).catch(() => undefined);
    const skipped = await failure(transport.unary(TXN_PATH, Buffer.from('x'), farDeadline(), raw));
    assert.is(bad!.calls, 3);
    assert.instance(skipped, NoMemberAvailableError);
    assert.ok(isRetryable(skipped), skipped.message);
  } finally {
    transport.close();
  }
  const [gone] = await members(echo);
  await gone!.server.forceShutdown();
  const nobody = new EtcdTransport([gone!.url], clock);
  try {
    const refused = await failure(nobody.unary(TXN_PATH, Buffer.from('x'), farDeadline(), raw));
    assert.is(callCode(refused), 14);
    assert.ok(isRetryable(refused));
  } finally {
    nobody.close();
  }
});

test('a call past its deadline fails as DEADLINE_EXCEEDED, retryable (the outcome is unknown)', async () => {
  const [m] = await members(silent);
  const transport = new EtcdTransport([m!.url], clock);
  try {
    const error = await failure(transport.unary(TXN_PATH, Buffer.from('x'), clock.now() + 100, raw));
    assert.is(callCode(error), 4);
    assert.ok(isRetryable(error));
  } finally {
    transport.close();
  }
});

test('closing fails the calls under way and every later call and stream for good (not retryable)', async () => {
  const [m] = await members(silent);
  const transport = new EtcdTransport([m!.url], clock);
  const underway = failure(transport.unary(TXN_PATH, Buffer.from('x'), farDeadline(), raw));
  while (m!.calls === 0) await new Promise((resolve) => setTimeout(resolve, 5));
  transport.close();
  const cancelled = await underway;
  assert.instance(cancelled, EtcdClientClosedError);
  assert.not.ok(isRetryable(cancelled));
  const later = await failure(transport.unary(TXN_PATH, Buffer.from('x'), farDeadline(), raw));
  assert.instance(later, EtcdClientClosedError);
  const ended = await new Promise<Error>((resolve) => transport.stream(WATCH_PATH, { onMessage: () => undefined, onEnd: resolve }));
  assert.instance(ended, EtcdClientClosedError);
});

test('a stream delivers each message and reports how it ended', async () => {
  const [m] = await members(echo);
  m!.stream = (call, request) => {
    call.write(request);
    call.write(Buffer.from(`${request}!`));
    if (request.toString() === 'bye') call.emit('error', { code: 14, details: 'going away' });
  };
  const transport = new EtcdTransport([m!.url], clock);
  try {
    const got: string[] = [];
    const ended = new Promise<Error>((resolve) => {
      const stream = transport.stream(WATCH_PATH, { onMessage: (message) => got.push(message.toString()), onEnd: resolve });
      stream.write(Buffer.from('hi'));
      stream.write(Buffer.from('bye'));
    });
    const error = await ended;
    assert.equal(got, ['hi', 'hi!', 'bye', 'bye!']);
    assert.is(callCode(error), 14);
    assert.match(error.message, /going away/);
  } finally {
    transport.close();
  }
});

test.after(() => {
  for (const m of servers) m.server.forceShutdown();
});

test.run();
