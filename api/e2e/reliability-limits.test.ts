// Reliability 4 (docs/reliability.md), limits on a running `fairway serve` (--request-timeout=1s,
// --max-watches-per-user=3): the 3 MiB body cap and kube's 1 MiB header cap; the per-user watch
// cap; --request-timeout, also against a client that stalls in the middle of its body; a watch
// whose client stops reading is cut off while a watch on the same resource sees every event; and
// SIGTERM lets an in-flight request finish, ends watches with a clean end of stream, and exits 0.
// FAIRWAY_LONG=1: ten stalled clients and three slow watchers instead of one each.
import { connect } from 'node:tls';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { startServerProcess, type ServerProcess } from '../commands/testing/server-process.ts';
import { openWatch, sleep, timedRequest, type Endpoint, type WatchStream } from '../testing/load.ts';
import { sampleValue, scrape } from '../testing/metrics.ts';
import { FS, PLC, validPlc } from '../testing/bad-input-corpus.ts';
import { chunkFrame, parseResponses, rawConnect, streamUntilClosed } from '../testing/raw-http.ts';

const LONG = process.env.FAIRWAY_LONG === '1';
const STALLED_CLIENTS = LONG ? 10 : 1;
const SLOW_WATCHERS = LONG ? 3 : 1;
const TOKENS = { bob: 'bob-limits-token-000000001', alice: 'alice-limits-token-0000002' };
let dir: string;
let server: ServerProcess;
let endpoint: Endpoint;

test.before(async () => {
  dir = await mkdtemp(join(tmpdir(), 'fairway-limits-'));
  await writeFile(join(dir, 'tokens.csv'), `${TOKENS.bob},bob,uid-bob,"e2e"\n${TOKENS.alice},alice,uid-alice,"e2e"\n`);
  server = await startServerProcess({ args: ['--request-timeout=1s', '--max-watches-per-user=3', `--token-auth-file=${join(dir, 'tokens.csv')}`] });
  endpoint = { url: server.url, caPem: server.caPem };
});

test.after(async () => {
  await server.stop();
  await rm(dir, { recursive: true, force: true });
});

const send = (method: string, path: string, body?: string | Buffer, headers: Record<string, string> = {}, token = server.token) =>
  timedRequest(endpoint, path, { method, token, headers, timeoutMs: 20_000, body });

/** Writes `request` on a raw TLS connection, then `rest` after `pauseMs` (unless undefined); returns the whole response text. */
function rawExchange(request: string | Buffer, rest?: { pauseMs: number; bytes: string }): Promise<string> {
  return new Promise((resolve) => {
    const socket = connect({ host: '127.0.0.1', port: server.port, ca: server.caPem }, () => {
      socket.write(request);
      if (rest !== undefined) setTimeout(() => socket.writable && socket.write(rest.bytes), rest.pauseMs);
    });
    let data = '';
    socket.on('data', (chunk: Buffer) => (data += chunk.toString('latin1')));
    socket.on('close', () => resolve(data));
    socket.on('error', () => undefined);
  });
}

/** The ExecutingRequests column of a level in dump_priority_levels. */
async function executing(level: string): Promise<number> {
  const dump = (await send('GET', '/debug/api_priority_and_fairness/dump_priority_levels')).text.split('\n');
  const header = dump[0]!.split(',').map((cell) => cell.trim());
  const row = dump
    .find((line) => line.split(',')[0]!.trim() === level)!
    .split(',')
    .map((cell) => cell.trim());
  return Number(row[header.indexOf('ExecutingRequests')]);
}

test('a body of exactly 3 MiB is read; one byte more is 413, with or without Content-Length', async () => {
  const object = JSON.stringify(validPlc('big-body'));
  const exact = Buffer.alloc(3 * 1024 * 1024, 0x20);
  exact.write(object);
  assert.is((await send('POST', `${PLC}?dryRun=All`, exact)).status, 201, 'exactly 3 MiB is accepted');
  const over = Buffer.concat([exact, Buffer.from(' ')]);
  const tooLarge = await send('POST', `${PLC}?dryRun=All`, over);
  assert.is(tooLarge.status, 413);
  assert.is(JSON.parse(tooLarge.text).message, 'Request entity too large: limit is 3145728');
  // Chunked (no Content-Length): the cap is enforced while reading.
  const head =
    `POST ${PLC}?dryRun=All HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${server.token}\r\nContent-Type: application/json\r\nTransfer-Encoding: ` +
    'chunked\r\nConnection: close\r\n\r\n';
  const chunked = Buffer.concat([Buffer.from(head), Buffer.from(`${over.length.toString(16)}\r\n`), over, Buffer.from('\r\n0\r\n\r\n')]);
  assert.match(await rawExchange(chunked), /^HTTP\/1\.1 413 /);
});

/** Bytes the server process has read from files and sockets so far (Linux's rchar). */
async function serverReadBytes(): Promise<number> {
  return Number(/rchar: (\d+)/.exec(await readFile(`/proc/${server.pid}/io`, 'utf8'))?.[1]);
}

/**
 * rchar once it holds still: the test before may leave the server reading the rest of its upload
 * for a moment after its answer (a full suite once counted 800 KB of it here).
 */
async function settledReadBytes(): Promise<number> {
  let last = await serverReadBytes();
  for (let i = 0; i < 40; i++) {
    await new Promise((resolve) => setTimeout(resolve, 50));
    const now = await serverReadBytes();
    if (now === last) return now;
    last = now;
  }
  return last;
}

test('HTTP/1.1 over TLS: an endless upload answered early is closed, not read; an unknown method gets 405', async () => {
  const head = `POST ${PLC} HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n`;
  const before = await settledReadBytes();
  const upload = await rawConnect({ port: server.port, caPem: server.caPem });
  upload.socket.write(head);
  const sent = await streamUntilClosed(upload, chunkFrame(Buffer.alloc(64 * 1024, 0x20)), 256 * 1024 * 1024);
  await upload.closed;
  const read = (await serverReadBytes()) - before;
  const [denied] = parseResponses(upload.received());
  assert.equal([denied?.status, denied?.headers.get('connection')], [401, 'close']);
  assert.ok(sent < 256 * 1024 * 1024, 'the server closed the connection');
  // The cap (256 KiB), what the body's buffer holds when it stops, TLS records and the request head.
  assert.ok(read <= 1024 * 1024, `the server read ${read} bytes while the client sent ${sent}`);
  console.log(
    `  reliability-limits early 401: the client sent ${(sent / 1048576).toFixed(1)} MiB before the close; the server read ${(read / 1024).toFixed(0)} KiB`,
  );

  const brew = await rawConnect({ port: server.port, caPem: server.caPem });
  brew.socket.write(`BREW ${PLC} HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${server.token}\r\n\r\n`);
  await brew.closed;
  const [refused] = parseResponses(brew.received());
  assert.is(refused?.status, 405);
  assert.is(JSON.parse(refused!.body).reason, 'MethodNotAllowed');
});

test("headers up to 1 MiB are read (kube-apiserver's limit); beyond, 431", async () => {
  const request = (size: number) =>
    `GET ${PLC}/exempt HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${server.token}\r\nX-Padding: ${'a'.repeat(size)}\r\nConnection: close\r\n\r\n`;
  assert.match(await rawExchange(request(64 * 1024)), /^HTTP\/1\.1 200 /, '64 KiB of headers');
  assert.match(await rawExchange(request((1 << 20) + 1024)), /^HTTP\/1\.1 431 /, 'over 1 MiB of headers');
});

test('--max-watches-per-user: the next watch gets 429 with Retry-After; other users are not affected; a closed watch frees its slot', async () => {
  const watchPath = `${PLC}?watch=true`;
  const bobs: WatchStream[] = [];
  for (let i = 0; i < 3; i++) {
    const watch = openWatch(endpoint, watchPath, TOKENS.bob);
    await watch.until(() => watch.status !== 0);
    assert.is(watch.status, 200, `bob's watch ${i + 1}`);
    bobs.push(watch);
  }
  const refused = await send('GET', watchPath, undefined, {}, TOKENS.bob);
  assert.is(refused.status, 429);
  assert.is(refused.headers['retry-after'], '1');
  const status = JSON.parse(refused.text);
  assert.is(status.reason, 'TooManyRequests');
  assert.is(status.message, 'Too many requests: user "bob" already has 3 open watches, the most --max-watches-per-user allows');
  assert.equal(status.details, { retryAfterSeconds: 1 });

  const alices = openWatch(endpoint, watchPath, TOKENS.alice);
  await alices.until(() => alices.status !== 0);
  assert.is(alices.status, 200, 'another user still watches');
  assert.is((await send('GET', `${PLC}/exempt`, undefined, {}, TOKENS.bob)).status, 200, 'bob can still do everything else');

  bobs.pop()!.close();
  let again: WatchStream | undefined;
  for (let i = 0; i < 100; i++) {
    again = openWatch(endpoint, watchPath, TOKENS.bob);
    await again.until(() => again!.status !== 0);
    if (again.status === 200) break;
    await sleep(20);
  }
  assert.is(again!.status, 200, 'a closed watch frees its slot');
  for (const watch of [...bobs, alices, again!]) watch.close();
});

test('--request-timeout: a request still waiting at its deadline gets 504, also per ?timeout=', async () => {
  const current = Number(JSON.parse((await send('GET', `${PLC}?limit=1`)).text).metadata.resourceVersion);
  // A future resourceVersion waits up to 3 s for the store; the 1 s request timeout ends it first.
  const late = await send('GET', `${PLC}/exempt?resourceVersion=${current + 1000}`);
  assert.is(late.status, 504);
  assert.is(JSON.parse(late.text).message, 'Timeout: request did not complete within requested timeout - context deadline exceeded');
  const asked = await send('GET', `${PLC}/exempt?resourceVersion=${current + 1000}&timeout=200ms`);
  assert.is(asked.status, 504);
  assert.match(JSON.parse(asked.text).message, /request did not complete within requested timeout/);
});

test(`--request-timeout: ${STALLED_CLIENTS} client(s) stalling mid-body get 504 and their seats are released`, async () => {
  const body = JSON.stringify(validPlc('slow-body'));
  const head =
    `POST ${PLC}?dryRun=All HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${TOKENS.bob}\r\nContent-Type: application/json\r\nContent-Length: ` +
    `${body.length}\r\nConnection: close\r\n\r\n`;
  // Half the body, then nothing: the connection stays open from the client's side.
  const exchanges = Array.from({ length: STALLED_CLIENTS }, () => rawExchange(head + body.slice(0, 10)));
  let seen = 0;
  for (let i = 0; i < 100 && seen < STALLED_CLIENTS; i++) {
    await sleep(10);
    seen = await executing('global-default');
  }
  assert.is(seen, STALLED_CLIENTS, 'each stalled request holds a seat of its level meanwhile');
  for (const response of await Promise.all(exchanges)) {
    assert.match(response, /^HTTP\/1\.1 504 /);
    assert.match(response, /request did not complete within requested timeout/);
  }
  for (let i = 0; i < 100 && (await executing('global-default')) > 0; i++) await sleep(10);
  assert.is(await executing('global-default'), 0, 'the seats are released once the requests timed out');
});

test(`${SLOW_WATCHERS} watch(es) whose client stops reading are cut off; a watch on the same resource sees every event`, async () => {
  const name = 'slow-reader-target';
  const created = await send(
    'POST',
    FS,
    JSON.stringify({
      apiVersion: 'flowcontrol.apiserver.k8s.io/v1',
      kind: 'FlowSchema',
      metadata: { name },
      spec: {
        priorityLevelConfiguration: { name: 'global-default' },
        matchingPrecedence: 9000,
        rules: [{ subjects: [{ kind: 'User', user: { name: 'nobody' } }], nonResourceRules: [{ verbs: ['get'], nonResourceURLs: ['/nothing'] }] }],
      },
    }),
  );
  assert.is(created.status, 201);
  const from = JSON.parse(created.text).metadata.resourceVersion;
  const path = `${FS}?watch=true&resourceVersion=${from}&fieldSelector=metadata.name%3D${name}`;
  const slows = Array.from({ length: SLOW_WATCHERS }, () => openWatch(endpoint, path, TOKENS.alice));
  const fast = openWatch(endpoint, path, server.token);
  for (const slow of slows) {
    await slow.until(() => slow.status !== 0);
    slow.pause();
  }
  await fast.until(() => fast.status !== 0);

  const terminated = async () => sampleValue(await scrape(endpoint, server.token), 'apiserver_terminated_watchers_total', { resource: 'flowschemas' }) ?? 0;
  const padding = 'p'.repeat(8_000);
  const written: number[] = [];
  for (let i = 0; i < 6_000; i++) {
    const patch = JSON.stringify({ metadata: { annotations: { 'e2e.fairway.io/n': String(i), 'e2e.fairway.io/padding': padding } } });
    const response = await send('PATCH', `${FS}/${name}`, patch, { 'Content-Type': 'application/merge-patch+json' });
    assert.is(response.status, 200, response.text);
    written.push(Number(JSON.parse(response.text).metadata.resourceVersion));
    if (i % 100 === 99 && (await terminated()) >= SLOW_WATCHERS) break;
  }
  for (let i = 0; i < 100 && (await terminated()) < SLOW_WATCHERS; i++) await sleep(50);
  assert.is(await terminated(), SLOW_WATCHERS, 'each slow watch was cut off (apiserver_terminated_watchers_total)');

  const last = written[written.length - 1]!;
  const fastRvs = () => fast.events.map((event) => Number(event.object.metadata.resourceVersion));
  await fast.until(() => fastRvs().includes(last));
  const ours = new Set(written);
  // The Dangling condition writer's own update of the new FlowSchema is in the stream too.
  assert.equal(
    fastRvs().filter((rv) => ours.has(rv)),
    written,
    'the reading watch saw every change, in order',
  );
  assert.is((await send('GET', `${FS}/${name}`)).status, 200, 'the server serves meanwhile');

  for (const slow of slows) {
    slow.resume();
    await slow.until(() => slow.ended);
    assert.ok(slow.events.length < written.length, `the slow watch ended early (${slow.events.length} of ${written.length} events)`);
    assert.not.ok(slow.complete, 'its connection was closed, not its stream finished');
  }
  fast.close();
});

test('SIGTERM: an in-flight request finishes, watches end cleanly, new connections are refused, exit 0', async () => {
  const other = await startServerProcess();
  try {
    const otherEndpoint = { url: other.url, caPem: other.caPem };
    const watch = openWatch(otherEndpoint, `${PLC}?watch=true`, other.token);
    await watch.until(() => watch.events.length > 0);
    // A create whose body is still on its way when the signal arrives.
    const body = JSON.stringify(validPlc('in-flight'));
    const head =
      `POST ${PLC} HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${other.token}\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\n` +
      'Connection: close\r\n\r\n';
    const inFlight = new Promise<string>((resolve) => {
      const socket = connect({ host: '127.0.0.1', port: other.port, ca: other.caPem }, () => {
        socket.write(head + body.slice(0, 20));
        setTimeout(() => socket.write(body.slice(20)), 300);
      });
      let data = '';
      socket.on('data', (chunk: Buffer) => (data += chunk.toString('utf8')));
      socket.on('close', () => resolve(data));
      socket.on('error', () => undefined);
    });
    await sleep(100);
    const stopped = other.stop({ keepData: true });
    await sleep(100);
    const late = await timedRequest(otherEndpoint, `${PLC}/exempt`, { token: other.token, timeoutMs: 5_000 });
    assert.is(late.status, 0, `a new connection after SIGTERM is refused (${late.error})`);
    const response = await inFlight;
    assert.match(response, /^HTTP\/1\.1 201 /, 'the in-flight create completed');
    await watch.until(() => watch.ended);
    assert.ok(watch.complete, 'the watch ended with a clean end of stream');
    assert.is(await stopped, 0, 'exit code 0');
  } finally {
    await other.stop();
  }
});

test.run();
