// The transport against in-process grpc-js servers that play etcd members: answers and status
// errors come back typed as the etcd3 library types them (so retry decisions are unchanged), a
// member that keeps failing at the transport level is skipped while etcd's own errors are not held
// against it, a call past its deadline fails as retryable, and streams deliver each message and
// report their end.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { Server, ServerCredentials, type sendUnaryData, type ServerDuplexStream, type ServerUnaryCall, type UntypedServiceImplementation } from '@grpc/grpc-js';
import { realClock } from '../clock.ts';
import { isRetryable } from './etcd-client.ts';
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
const status = (code: number, details: string): Unary => (_request, respond) => respond({ code, details });
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
const failure = (promise: Promise<unknown>): Promise<Error> =>
  promise.then(
    () => assert.unreachable('expected the call to fail') as never,
    (error: Error) => error,
  );

test('a unary call returns the response message; status errors are typed as the etcd3 library types them', async () => {
  const [m] = await members(echo);
  const transport = new EtcdTransport([m!.url], clock);
  try {
    const response = await transport.unary(TXN_PATH, Buffer.from('hello'), farDeadline());
    assert.is(response.toString(), 'hello');
    m!.unary = status(14, 'etcdserver: leader changed');
    const unavailable = await failure(transport.unary(TXN_PATH, Buffer.from('x'), farDeadline()));
    assert.is(unavailable.constructor.name, 'GRPCUnavailableError');
    assert.match(unavailable.message, /etcdserver: leader changed/);
    assert.ok(isRetryable(unavailable));
    m!.unary = status(11, 'etcdserver: mvcc: required revision has been compacted');
    const compacted = await failure(transport.unary(TXN_PATH, Buffer.from('x'), farDeadline()));
    assert.not.ok(isRetryable(compacted), 'an answer retrying cannot change');
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
      results.push(await transport.unary(TXN_PATH, Buffer.from('ok'), farDeadline()).then((r) => r.toString(), () => 'failed'));
    }
    assert.is(bad!.calls, 3, 'the bad member got calls until its third consecutive failure');
    assert.is(results.filter((r) => r === 'ok').length, 9);
    // Election errors come from etcd itself: the member stays in rotation.
    const [electing, other] = await members(status(14, 'etcdserver: no leader'), echo);
    const second = new EtcdTransport([electing!.url, other!.url], clock);
    try {
      for (let i = 0; i < 12; i++) await second.unary(TXN_PATH, Buffer.from('ok'), farDeadline()).catch(() => undefined);
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
    for (let i = 0; i < 3; i++) await transport.unary(TXN_PATH, Buffer.from('x'), farDeadline()).catch(() => undefined);
    const skipped = await failure(transport.unary(TXN_PATH, Buffer.from('x'), farDeadline()));
    assert.is(bad!.calls, 3);
    assert.ok(isRetryable(skipped), skipped.message);
  } finally {
    transport.close();
  }
  const [gone] = await members(echo);
  await gone!.server.forceShutdown();
  const nobody = new EtcdTransport([gone!.url], clock);
  try {
    const refused = await failure(nobody.unary(TXN_PATH, Buffer.from('x'), farDeadline()));
    assert.is(refused.constructor.name, 'GRPCUnavailableError');
    assert.ok(isRetryable(refused));
  } finally {
    nobody.close();
  }
});

test('a call past its deadline fails as DEADLINE_EXCEEDED, retryable (the outcome is unknown)', async () => {
  const [m] = await members(silent);
  const transport = new EtcdTransport([m!.url], clock);
  try {
    const error = await failure(transport.unary(TXN_PATH, Buffer.from('x'), clock.now() + 100));
    assert.is(error.constructor.name, 'GRPCDeadlineExceededError');
    assert.ok(isRetryable(error));
  } finally {
    transport.close();
  }
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
    assert.is(error.constructor.name, 'GRPCUnavailableError');
    assert.match(error.message, /going away/);
  } finally {
    transport.close();
  }
});

test.after(() => {
  for (const m of servers) m.server.forceShutdown();
});

test.run();
