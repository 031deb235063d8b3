// Early close: uploads the server answers before reading them, and the connection after that
// answer. Each attack sends a request head the server will refuse or cut short (no credentials, a
// bad token, a path or method that is refused, a declared size over the limit, a body that grows
// past it, a content type it does not take), with the body chunked and endless or declared (huge,
// just over the limit, or small), with or without `Expect: 100-continue`, and keeps sending the
// body for as long as the connection takes it. Properties, per attack:
//   - the server answers (one final response, never a 5xx);
//   - once its answer has reached the client, the server reads at most 256 KiB more of the
//     connection (Go's limit), however much the client still had to send;
//   - an answer that leaves part of the body unread says `Connection: close` and the connection
//     closes; one that keeps the connection has read the body to its end, and the same connection
//     then serves the next request;
//   - the server is intact afterwards (harness.ts).
import { once } from 'node:events';
import type { Socket } from 'node:net';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import fc from 'fast-check';
import { MAX_POST_HANDLER_READ_BYTES } from '../../api/transport/http1-connection.ts';
import { chunkFrame, parseResponses, rawConnect, streamUntilClosed } from '../../api/testing/raw-http.ts';
import { checkAsyncProperty } from '../support/runner.ts';
import { ORDINARY_USER, startAdversary, type Adversary } from './harness.ts';

const PLC = '/apis/flowcontrol.apiserver.k8s.io/v1/prioritylevelconfigurations';
/** How much of an endless body the client offers at most: far more than the server may read. */
const ENDLESS_BYTES = 64 * 1024 * 1024;

const attackArb = fc.record({
  who: fc.constantFrom<'none' | 'bad-token' | 'ordinary' | 'admin'>('none', 'bad-token', 'ordinary', 'admin'),
  target: fc.constantFrom(
    ['POST', PLC],
    ['POST', `${PLC}?dryRun=All`],
    ['PUT', PLC],
    ['POST', `${PLC}/exempt`],
    ['POST', '/apis/adversarial.example/v1/things'],
    ['PATCH', `${PLC}/exempt`],
    ['POST', '/healthz'],
    ['POST', '/version'],
  ),
  body: fc.oneof(
    fc.constant({ framing: 'chunked' as const, length: ENDLESS_BYTES }),
    fc.constantFrom(500_000_000, 3 * 1024 * 1024 + 1).map((length) => ({ framing: 'declared' as const, length })),
    fc.integer({ min: 1, max: MAX_POST_HANDLER_READ_BYTES }).map((length) => ({ framing: 'declared' as const, length })),
  ),
  contentType: fc.constantFrom('application/json', 'application/yaml', 'application/merge-patch+json', 'text/plain'),
  expectContinue: fc.boolean(),
});
type Attack = typeof attackArb extends fc.Arbitrary<infer T> ? T : never;

let adversary: Adversary;
let port = 0;

test.before(async () => {
  adversary = await startAdversary();
  port = Number(new URL(adversary.server.baseUrl).port);
});
test.after(() => adversary.close());

function head(attack: Attack): string {
  const [method, path] = attack.target;
  const credential =
    attack.who === 'admin'
      ? `Authorization: Bearer ${adversary.server.token}\r\n`
      : attack.who === 'ordinary'
        ? `Authorization: Bearer ${ORDINARY_USER.token}\r\n`
        : attack.who === 'bad-token'
          ? 'Authorization: Bearer not-a-token\r\n'
          : '';
  const framing = attack.body.framing === 'chunked' ? 'Transfer-Encoding: chunked\r\n' : `Content-Length: ${attack.body.length}\r\n`;
  const expect = attack.expectContinue ? 'Expect: 100-continue\r\n' : '';
  return `${method} ${path} HTTP/1.1\r\nHost: x\r\n${credential}Content-Type: ${attack.contentType}\r\n${framing}${expect}\r\n`;
}

async function run(attack: Attack): Promise<void> {
  const accepted = once(adversary.server.httpServer, 'connection') as Promise<[Socket]>;
  const client = await rawConnect({ port });
  const [serverSocket] = await accepted;
  let readBeforeAnswer = -1;
  const answered = client.until((text) => parseResponses(text).some((r) => r.status >= 200));
  void answered.then(() => (readBeforeAnswer = serverSocket.bytesRead));
  client.socket.write(head(attack));
  if (attack.expectContinue) {
    // A client that asked waits for `100 Continue` (or the answer) before it sends the body.
    await client.until((text) => text.includes('\r\n\r\n'));
  }
  let sent = 0;
  if (!client.isClosed() && !parseResponses(client.received()).some((r) => r.status >= 200)) {
    const payload = Buffer.alloc(64 * 1024, 0x20);
    if (attack.body.framing === 'chunked') {
      sent = await streamUntilClosed(client, chunkFrame(payload), attack.body.length);
    } else {
      const whole = Math.floor(attack.body.length / payload.length);
      sent = await streamUntilClosed(client, payload, whole * payload.length);
      const rest = attack.body.length - whole * payload.length;
      if (rest > 0 && !client.isClosed()) {
        client.socket.write(payload.subarray(0, rest));
        sent += rest;
      }
    }
  }
  await answered;
  const responses = parseResponses(client.received()).filter((r) => r.status >= 200);
  assert.ok(responses.length >= 1, `no answer: ${JSON.stringify(client.received().slice(0, 200))}`);
  const answer = responses[0]!;
  assert.ok(answer.status < 500, `HTTP ${answer.status}: ${answer.body.slice(0, 200)}`);
  const whole = attack.body.framing === 'declared' && sent >= attack.body.length;
  if (answer.headers.get('connection') === 'close') {
    await client.closed;
    const readAfter = serverSocket.bytesRead - readBeforeAnswer;
    assert.ok(readAfter <= MAX_POST_HANDLER_READ_BYTES, `the server read ${readAfter} bytes after its ${answer.status} (the client sent ${sent})`);
  } else {
    assert.ok(whole, `HTTP ${answer.status} keeps the connection, but the body was not sent to its end (${sent} bytes)`);
    // The server drained the body; the connection serves the next request.
    const next = client.received().length;
    client.socket.write('GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n');
    await client.until((text) => parseResponses(text.slice(next)).length > 0);
    const health = parseResponses(client.received().slice(next))[0];
    assert.equal([health?.status, health?.body], [200, 'ok'], `the next request on the connection after HTTP ${answer.status}`);
    client.socket.destroy();
  }
}

test('uploads answered early are not read on; their connections close, or are drained and reused', async () => {
  await checkAsyncProperty(
    'early answers stop the body and close or drain the connection',
    fc.asyncProperty(attackArb, async (attack) => {
      await run(attack);
      await adversary.assertHealthy();
    }),
    { runs: 8 },
  );
});

test.run();
