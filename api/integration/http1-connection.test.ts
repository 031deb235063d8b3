// HTTP/1.1 connection rules on raw sockets against the whole server in-process: early responses
// stop the body from being read, parse errors are answered in order, unknown methods get 405.
import { once } from 'node:events';
import type { Socket } from 'node:net';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { startInProcessServer, type InProcessServer } from './testing/in-process.ts';
import { chunkFrame, parseResponses, rawConnect, streamUntilClosed, type RawConnection } from '../testing/raw-http.ts';
import { MAX_POST_HANDLER_READ_BYTES } from '../transport/http1-connection.ts';

const PLC = '/apis/flowcontrol.apiserver.k8s.io/v1/prioritylevelconfigurations';
let server: InProcessServer;
let port = 0;

test.before(async () => {
  server = await startInProcessServer();
  await server.ready();
  port = Number(new URL(server.baseUrl).port);
});
test.after(() => server.close());

/** A connection and the server's end of it. */
async function connect(): Promise<{ client: RawConnection; serverSocket: Socket }> {
  const accepted = once(server.httpServer, 'connection') as Promise<[Socket]>;
  const client = await rawConnect({ port });
  const [serverSocket] = await accepted;
  return { client, serverSocket };
}

/**
 * Sends `head`, then streams `frame` until the server closes; returns what the server read after
 * its response reached the client, and the response.
 */
async function earlyResponse(head: string, frame: Buffer) {
  const { client, serverSocket } = await connect();
  client.socket.write(head);
  let readBeforeResponse = -1;
  void client.until((text) => text.includes('\r\n\r\n')).then(() => (readBeforeResponse = serverSocket.bytesRead));
  const sent = await streamUntilClosed(client, frame, 256 * 1024 * 1024);
  await client.closed;
  return { sent, readAfterResponse: serverSocket.bytesRead - readBeforeResponse, response: parseResponses(client.received())[0], text: client.received() };
}

const chunked = (headers: string) => `POST ${PLC} HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n${headers}\r\n`;
const frame = chunkFrame(Buffer.alloc(64 * 1024, 0x20));

test('an unauthenticated chunked upload gets 401 at once, and the server closes having read at most 256 KiB more', async () => {
  const { sent, readAfterResponse, response } = await earlyResponse(chunked(''), frame);
  assert.is(response?.status, 401);
  assert.is(response?.headers.get('connection'), 'close');
  assert.ok(sent < 256 * 1024 * 1024, 'the server closed the connection');
  assert.ok(readAfterResponse <= MAX_POST_HANDLER_READ_BYTES, `read ${readAfterResponse} bytes after its response`);
});

test('a declared body over the limit gets 413, and the server closes without reading it', async () => {
  const request = `POST ${PLC} HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${server.token}\r\n`;
  const head = `${request}Content-Type: application/json\r\nContent-Length: 500000000\r\n\r\n`;
  const { sent, readAfterResponse, response } = await earlyResponse(head, Buffer.alloc(64 * 1024, 0x20));
  assert.is(response?.status, 413);
  assert.is(response?.headers.get('connection'), 'close');
  assert.ok(sent < 256 * 1024 * 1024);
  assert.ok(readAfterResponse <= MAX_POST_HANDLER_READ_BYTES, `read ${readAfterResponse} bytes after its response`);
});

test('a chunked body that grows past the limit gets 413 once 3 MiB are read, and nothing much after', async () => {
  const { sent, readAfterResponse, response } = await earlyResponse(chunked(`Authorization: Bearer ${server.token}\r\n`), frame);
  assert.is(response?.status, 413);
  assert.is(JSON.parse(response!.body).reason, 'RequestEntityTooLarge');
  assert.is(response?.headers.get('connection'), 'close');
  assert.ok(sent < 256 * 1024 * 1024);
  assert.ok(readAfterResponse <= MAX_POST_HANDLER_READ_BYTES, `read ${readAfterResponse} bytes after its response`);
});

test('a small unread body (declared, under 256 KiB) is drained and the connection serves the next request', async () => {
  const { client } = await connect();
  const body = 'x'.repeat(10_000);
  client.socket.write(`POST ${PLC} HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\n\r\n${body}`);
  client.socket.write(`GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n`);
  await client.until((text) => parseResponses(text).length === 2);
  const [denied, health] = parseResponses(client.received());
  assert.is(denied?.status, 401);
  assert.is.not(denied?.headers.get('connection'), 'close');
  assert.is(health?.status, 200);
  assert.is(health?.body, 'ok');
  client.socket.destroy();
});

test('Expect: 100-continue is answered only when the body is read: a refused request never has its body sent', async () => {
  const refused = await connect();
  refused.client.socket.write(`POST ${PLC} HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 100\r\nExpect: 100-continue\r\n\r\n`);
  await refused.client.closed;
  const [denied, ...rest] = parseResponses(refused.client.received());
  assert.equal([denied?.status, denied?.headers.get('connection'), rest.length], [401, 'close', 0], refused.client.received());

  const accepted = await connect();
  const body = JSON.stringify({ metadata: { name: 'continued' }, spec: { type: 'Limited', limited: { limitResponse: { type: 'Reject' } } } });
  accepted.client.socket.write(
    `POST ${PLC}?dryRun=All HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${server.token}\r\nContent-Type: application/json\r\nContent-Length: ` +
      `${body.length}\r\nExpect: 100-continue\r\n\r\n`,
  );
  await accepted.client.until((text) => text.includes('\r\n\r\n'));
  assert.match(accepted.client.received(), /^HTTP\/1\.1 100 Continue\r\n\r\n$/);
  accepted.client.socket.write(body);
  await accepted.client.until((text) => parseResponses(text).length === 2);
  assert.equal(
    parseResponses(accepted.client.received()).map((r) => r.status),
    [100, 201],
  );
  accepted.client.socket.destroy();
});

test('an unknown method gets 405 with a Status, then the connection closes', async () => {
  const { client } = await connect();
  client.socket.write(`BREW ${PLC} HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${server.token}\r\n\r\n`);
  await client.closed;
  const [response, ...rest] = parseResponses(client.received());
  assert.is(response?.status, 405);
  assert.is(response?.headers.get('content-type'), 'application/json');
  assert.is(response?.headers.get('connection'), 'close');
  const status = JSON.parse(response!.body);
  assert.equal(
    [status.kind, status.reason, status.code, status.message],
    ['Status', 'MethodNotAllowed', 405, 'the server does not allow this method on the requested resource'],
  );
  assert.is(rest.length, 0);
});

test('CONNECT is answered as Go’s server lets kube-apiserver answer it (401, 404, 405), then the connection closes', async () => {
  const cases: [string, number, string][] = [
    ['CONNECT example.com:443 HTTP/1.1\r\nHost: example.com:443\r\n\r\n', 401, 'Unauthorized'],
    [`CONNECT example.com:443 HTTP/1.1\r\nHost: example.com:443\r\nAuthorization: Bearer ${server.token}\r\n\r\n`, 404, 'NotFound'],
    [`CONNECT ${PLC} HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${server.token}\r\n\r\n`, 405, 'MethodNotAllowed'],
  ];
  for (const [head, code, reason] of cases) {
    const { client } = await connect();
    client.socket.write(`${head}GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n`);
    await client.closed;
    const responses = parseResponses(client.received());
    assert.is(responses.length, 1, client.received());
    assert.is(responses[0]?.headers.get('connection'), 'close');
    const status = JSON.parse(responses[0]!.body);
    assert.equal([responses[0]?.status, status.kind, status.reason], [code, 'Status', reason]);
  }
});

test('a parse error never overtakes the response to an earlier request on the same connection', async () => {
  const { client } = await connect();
  // A watch that streams for a second, then a request Node's parser refuses, in one write.
  const watch = `GET ${PLC}?watch=true&timeoutSeconds=1 HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${server.token}\r\n\r\n`;
  client.socket.write(`${watch}BREW / HTTP/1.1\r\nHost: x\r\n\r\n`);
  await client.closed;
  const responses = parseResponses(client.received());
  assert.equal(
    responses.map((r) => r.status),
    [200, 405],
    client.received().slice(0, 300),
  );
  assert.ok(responses[0]!.body.includes('"type":"ADDED"'), 'the watch streamed its events to the end');

  const second = await connect();
  second.client.socket.write(`GET /healthz HTTP/1.1\r\nHost: x\r\n\r\nGET /\x01 HTTP/1.1\r\n\r\n`);
  await second.client.closed;
  const [health, bad] = parseResponses(second.client.received());
  assert.equal([health?.status, health?.body, bad?.status, bad?.body], [200, 'ok', 400, '400 Bad Request']);
});

test('nothing after a parse error is read as a request', async () => {
  const { client } = await connect();
  client.socket.write(`BREW / HTTP/1.1\r\nHost: x\r\n\r\nGET /healthz HTTP/1.1\r\nHost: x\r\n\r\n`);
  await client.closed;
  assert.equal(
    parseResponses(client.received()).map((r) => r.status),
    [405],
  );
});

test('broken chunk framing fails that request with 400, in order, and closes the connection', async () => {
  const { client } = await connect();
  client.socket.write(`GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n`);
  client.socket.write(chunked(`Authorization: Bearer ${server.token}\r\n`));
  client.socket.write('5\r\n{"a":\r\nzz\r\n');
  await client.closed;
  const [health, broken, ...rest] = parseResponses(client.received());
  assert.is(health?.status, 200);
  assert.is(broken?.status, 400);
  assert.is(JSON.parse(broken!.body).message, 'unable to read the request body: invalid byte in chunk length');
  assert.is(broken?.headers.get('connection'), 'close');
  assert.is(rest.length, 0);
});

test.run();
