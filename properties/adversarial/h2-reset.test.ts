// HTTP/2 streams reset mid-body: an ordinary user opens a write (create, update, patch, a review)
// over h2, sends part of its body (JSON, YAML or protobuf, with or without a Content-Length), waits
// until the server is reading it, and resets the stream (CANCEL, INTERNAL_ERROR or REFUSED_STREAM),
// many at once on one session. Properties, per attack:
//   - nothing is logged at error severity (no "internal error", no stack): a client that leaves is
//     not a server fault;
//   - apiserver_request_total counts no 5xx;
//   - every seat the requests took is given back as soon as they end, not at the request timeout
//     (60 s here): executing seats outside the exempt level are back to 0;
//   - the server is intact afterwards (harness.ts).
// A stream left open without a reset is held until the request's deadline, as kube-apiserver holds
// it (docs/reliability.md): the last test shows the deadline ends it.
import { constants, type ClientHttp2Stream } from 'node:http2';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import fc from 'fast-check';
import type { Logger } from '../../api/log.ts';
import { connectH2, type H2Client } from '../../api/testing/h2-client.ts';
import { checkAsyncProperty } from '../support/runner.ts';
import { ORDINARY_USER, sized, startAdversary, type Adversary } from './harness.ts';

const PLC = '/apis/flowcontrol.apiserver.k8s.io/v1/prioritylevelconfigurations';
const TARGETS: [string, string][] = [
  ['POST', PLC],
  ['PUT', `${PLC}/global-default`],
  ['PATCH', `${PLC}/global-default`],
  ['POST', `${PLC}?dryRun=All`],
  ['POST', '/apis/flowcontrol.apiserver.k8s.io/v1/flowschemas'],
  ['DELETE', `${PLC}/not-there`],
];
const BODY = Buffer.from(`{"apiVersion":"flowcontrol.apiserver.k8s.io/v1","kind":"PriorityLevelConfiguration","metadata":{"name":"${'x'.repeat(200)}"}}`);
const RESET_CODES = [constants.NGHTTP2_CANCEL, constants.NGHTTP2_INTERNAL_ERROR, constants.NGHTTP2_REFUSED_STREAM];
/** How long the server may take to end every reset request: a hang guard, far below the 60 s request timeout. */
const SETTLE_MS = 20_000;

const attackArb = fc.record({
  target: fc.constantFrom(...TARGETS),
  contentType: fc.constantFrom('application/json', 'application/yaml', 'application/vnd.kubernetes.protobuf', 'application/merge-patch+json'),
  declared: fc.boolean(),
  sent: fc.integer({ min: 0, max: BODY.length - 1 }),
  code: fc.constantFrom(...RESET_CODES),
  streams: fc.integer({ min: 1, max: sized(20, 200) }),
});
type Attack = typeof attackArb extends fc.Arbitrary<infer T> ? T : never;

const errors: string[] = [];
const logger: Logger = { info: () => undefined, warning: () => undefined, error: (message) => errors.push(message) };
let adversary: Adversary;
let h2: H2Client;

test.before(async () => {
  adversary = await startAdversary({ logger, http2: true });
  const { url, caPem } = adversary.server.h2!;
  h2 = await connectH2(url, { caPem, token: ORDINARY_USER.token });
});
test.after(async () => {
  await h2.close();
  await adversary.close();
});

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function until(what: string, predicate: () => boolean | Promise<boolean>): Promise<void> {
  for (let waited = 0; !(await predicate()); waited += 10) {
    if (waited > SETTLE_MS) assert.unreachable(`${what}: not within ${SETTLE_MS / 1000} s`);
    await sleep(10);
  }
}

/** The 5xx counts of apiserver_request_total, and the executing seats of every non-exempt level. */
async function serverCounts(): Promise<{ fiveHundreds: string[]; seats: number }> {
  const metrics = await adversary.send({ method: 'GET', path: '/metrics' });
  const lines = metrics.text.split('\n');
  const fiveHundreds = lines.filter((line) => line.startsWith('apiserver_request_total{') && /code="5\d\d"/.test(line));
  let seats = 0;
  for (const line of lines) {
    if (!line.startsWith('apiserver_flowcontrol_current_executing_seats{') || line.includes('priority_level="exempt"')) continue;
    seats += Number(line.slice(line.lastIndexOf(' ') + 1));
  }
  return { fiveHundreds, seats };
}

/** Streams answered before their body was sent (a 429 from APF: the ordinary user's level is small). */
let answered = 0;

function open(attack: Attack): ClientHttp2Stream {
  const [method, path] = attack.target;
  const headers: Record<string, string> = {
    ':method': method,
    ':path': path,
    authorization: `Bearer ${ORDINARY_USER.token}`,
    'content-type': attack.contentType,
  };
  if (attack.declared) headers['content-length'] = String(BODY.length);
  const stream = h2.session.request(headers, { endStream: false });
  stream.on('error', () => undefined);
  stream.once('response', () => answered++);
  if (attack.sent > 0) stream.write(BODY.subarray(0, attack.sent));
  return stream;
}

async function run(attack: Attack): Promise<void> {
  const inFlight = () => adversary.server.fairway.apiServer.inFlight;
  const before = inFlight();
  answered = 0;
  const streams = Array.from({ length: attack.streams }, () => open(attack));
  // Reset once the server holds every request it has not answered (reading its body, or queued).
  await until('the requests reached the server', () => inFlight() - before + answered >= attack.streams);
  for (const stream of streams) stream.close(attack.code);
  await until('the reset requests ended', () => inFlight() <= before);
  await until('their seats were given back', async () => (await serverCounts()).seats === 0);
  const { fiveHundreds } = await serverCounts();
  assert.equal(fiveHundreds, [], 'a reset stream was counted as a server error');
  assert.equal(errors, [], 'a reset stream was logged as an error');
}

test('control: a whole body on the same session is answered', async () => {
  const response = await h2.request('POST', `${PLC}?dryRun=All`, {
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({
      apiVersion: 'flowcontrol.apiserver.k8s.io/v1',
      kind: 'PriorityLevelConfiguration',
      metadata: { name: 'h2-control' },
      spec: { type: 'Limited', limited: { nominalConcurrencyShares: 1, limitResponse: { type: 'Reject' } } },
    }),
  });
  assert.is(response.status, 201, response.text.slice(0, 300));
});

test('streams reset mid-body: no 5xx counted, nothing logged as an error, seats given back', async () => {
  await checkAsyncProperty(
    'h2 resets mid-body are the client leaving, not a server fault',
    fc.asyncProperty(attackArb, async (attack) => {
      await run(attack);
      await adversary.assertHealthy();
    }),
    { runs: 6 },
  );
});

test('the reported case: 3 sessions resetting 100 creates each mid-body', async () => {
  const sessions = [h2, ...(await Promise.all([1, 2].map(() => connectH2(adversary.server.h2!.url, { caPem: adversary.server.h2!.caPem }))))];
  const before = adversary.server.fairway.apiServer.inFlight;
  answered = 0;
  const streams = sessions.flatMap((session) =>
    Array.from({ length: 100 }, () => {
      const stream = session.session.request(
        { ':method': 'POST', ':path': PLC, authorization: `Bearer ${ORDINARY_USER.token}`, 'content-type': 'application/json' },
        { endStream: false },
      );
      stream.on('error', () => undefined);
      stream.once('response', () => answered++);
      stream.write(BODY.subarray(0, 10));
      return stream;
    }),
  );
  await until('the requests reached the server', () => adversary.server.fairway.apiServer.inFlight - before + answered >= streams.length);
  for (const stream of streams) stream.close(constants.NGHTTP2_CANCEL);
  await until('the reset requests ended', () => adversary.server.fairway.apiServer.inFlight <= before);
  const { fiveHundreds, seats } = await serverCounts();
  assert.equal(fiveHundreds, []);
  assert.is(seats, 0);
  assert.equal(errors, []);
  await Promise.all(sessions.slice(1).map((session) => session.close()));
  await adversary.assertHealthy();
});

test('a half-open POST (no END_STREAM, no reset) holds its seat until its deadline, as in kube-apiserver, then gets 504 and gives it back', async () => {
  const stream = h2.session.request(
    { ':method': 'POST', ':path': `${PLC}?timeout=1s`, authorization: `Bearer ${ORDINARY_USER.token}`, 'content-type': 'application/json' },
    { endStream: false },
  );
  stream.on('error', () => undefined);
  stream.write(BODY.subarray(0, 10));
  const status = new Promise<number>((resolve) => stream.once('response', (headers) => resolve(Number(headers[':status']))));
  await until('the request holds a seat', async () => (await serverCounts()).seats > 0);
  assert.is(await status, 504);
  await until('its seat was given back', async () => (await serverCounts()).seats === 0);
  stream.close(constants.NGHTTP2_CANCEL);
  assert.equal(errors, []);
});

test('an answer before the body (413 for a declared 500 MB) ends the stream: its seat comes back though the client never ends it', async () => {
  const stream = h2.session.request(
    { ':method': 'POST', ':path': PLC, authorization: `Bearer ${ORDINARY_USER.token}`, 'content-type': 'application/json', 'content-length': '500000000' },
    { endStream: false },
  );
  stream.on('error', () => undefined);
  stream.write(BODY.subarray(0, 10));
  const status = await new Promise<number>((resolve) => stream.once('response', (headers) => resolve(Number(headers[':status']))));
  assert.is(status, 413);
  await until('the stream was ended by the server', () => stream.closed);
  assert.is(stream.rstCode, constants.NGHTTP2_NO_ERROR);
  assert.is((await serverCounts()).seats, 0);
  assert.equal(errors, []);
});

test.run();
