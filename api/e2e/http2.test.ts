// End to end over HTTP/2 (`fairway serve`, ALPN h2), with the behaviours HTTP/1.1 has, on streams
// multiplexed over one connection as client-go sends them: the same answers on both protocols; the
// 3 MiB body cap (then a NO_ERROR reset, the connection still usable); the per-user watch cap;
// request timeouts, also for a stream stalled mid-body; watch streaming and bookmarks; APF seats
// held until a response is on the wire and 429s for a flood on one connection; the stream limit;
// and SIGTERM: GOAWAY, in-flight streams finish, watches end cleanly, exit 0. (A watch whose
// client stops reading is cut off in api/integration/secure-server.test.ts, where the store's buffer is small.)
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { startServerProcess, type ServerProcess } from '../commands/testing/server-process.ts';
import { connectH2, type H2Client } from '../testing/h2-client.ts';
import type { TestClient } from '../testing/http-client.ts';
import { sleep } from '../testing/load.ts';
import { sampleValue } from '../testing/metrics.ts';
import { FS, PLC, validPlc } from '../testing/bad-input-corpus.ts';
import { TOO_MANY_REQUESTS_TEXT, MAX_REQUEST_BODY_BYTES } from '../../engine/status/errors.ts';

const GROUP = 'flowcontrol.apiserver.k8s.io';
const TOKENS = { bob: 'bob-h2-token-00000000000001', flooder: 'flooder-h2-token-0000000002' };
let dir: string;
let server: ServerProcess;
let h1: TestClient;
let h2: H2Client;

test.before(async () => {
  dir = await mkdtemp(join(tmpdir(), 'fairway-h2-'));
  await writeFile(join(dir, 'tokens.csv'), `${TOKENS.bob},bob,uid-bob,"e2e"\n${TOKENS.flooder},flooder,uid-flooder,"e2e"\n`);
  server = await startServerProcess({
    args: ['--max-watches-per-user=3', '--max-requests-inflight=20', '--max-mutating-requests-inflight=10', `--token-auth-file=${join(dir, 'tokens.csv')}`],
  });
  h1 = server.client;
  h2 = await connectH2(server.url, { token: server.token, caPem: server.caPem });
  // Go's transport opens a 1 GB connection window: one paused stream must not stall the others.
  h2.session.setLocalWindowSize(1 << 30);
});

test.after(async () => {
  await h2?.close();
  await server?.stop();
  await rm(dir, { recursive: true, force: true });
});

/** The ExecutingRequests column of a level in dump_priority_levels. */
async function executing(level: string): Promise<number> {
  const dump = (await h2.request('GET', '/debug/api_priority_and_fairness/dump_priority_levels')).text.split('\n');
  const header = dump[0]!.split(',').map((cell) => cell.trim());
  const row = dump
    .find((line) => line.split(',')[0]!.trim() === level)
    ?.split(',')
    .map((cell) => cell.trim());
  return row === undefined ? -1 : Number(row[header.indexOf('ExecutingRequests')]);
}

async function eventually(what: string, probe: () => Promise<boolean>): Promise<void> {
  for (let i = 0; i < 200; i++) {
    if (await probe()) return;
    await sleep(25);
  }
  assert.unreachable(what);
}

test("the server offers h2 with kube-apiserver's stream limit; the same requests answer the same on both protocols", async () => {
  assert.is(h2.session.alpnProtocol, 'h2');
  assert.is(h2.session.remoteSettings.maxConcurrentStreams, 100, "Go's default when --http2-max-streams-per-connection is 0");
  assert.is(h2.session.remoteSettings.initialWindowSize, 256 * 1024);
  const aggregated = 'application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList,application/json';
  const cases: [string, string, Record<string, string>, string | null | undefined][] = [
    ['GET', '/version', {}, undefined],
    ['GET', '/apis', { accept: aggregated }, undefined],
    ['GET', `${PLC}?limit=3`, {}, undefined],
    ['GET', `${PLC}/no-such-level`, {}, undefined],
    ['GET', `${FS}?watch=true&timeoutSeconds=-1&resourceVersion=1`, {}, undefined],
    ['DELETE', '/version', {}, undefined],
    ['GET', PLC, {}, null],
    ['GET', '/healthz', {}, null],
  ];
  for (const [method, path, headers, token] of cases) {
    const one = await h1.request(method, path, { headers, token });
    const two = await h2.request(method, path, { headers, token });
    const label = `${method} ${path}`;
    assert.equal([two.status, two.headers['content-type'], two.text], [one.status, one.headers['content-type'], one.text], label);
  }
  const created = await h2.request('POST', `${PLC}?dryRun=All`, {
    body: JSON.stringify(validPlc('h2-dry-run')),
    headers: { 'content-type': 'application/json' },
  });
  assert.equal([created.status, created.json().metadata.name], [201, 'h2-dry-run']);
});

test('a body over 3 MiB is 413 on its stream (with or without content-length), then reset with NO_ERROR; the connection serves on', async () => {
  const tooBig = Buffer.alloc(MAX_REQUEST_BODY_BYTES + 1, 0x20);
  const withLength = await h2.request('POST', PLC, { body: tooBig, headers: { 'content-type': 'application/json', 'content-length': String(tooBig.length) } });
  assert.is(withLength.status, 413);
  assert.is(withLength.json().reason, 'RequestEntityTooLarge');
  const streamed = await h2.request('POST', PLC, {
    pieces: [
      { pauseMs: 0, bytes: tooBig.subarray(0, 2 << 20) },
      { pauseMs: 50, bytes: tooBig.subarray(2 << 20) },
    ],
    headers: { 'content-type': 'application/json' },
  });
  assert.is(streamed.status, 413);
  assert.is(streamed.rstCode, 0, 'NO_ERROR');
  const exact = await h2.request('POST', `${PLC}?dryRun=All`, {
    body: Buffer.alloc(MAX_REQUEST_BODY_BYTES, 0x20),
    headers: { 'content-type': 'application/json' },
  });
  assert.is(exact.status, 400, 'exactly 3 MiB is read (and is not an object)');
  assert.is((await h2.request('GET', '/version')).status, 200, 'the same connection still serves');
});

test('--max-watches-per-user: the next watch on the connection gets 429 with Retry-After; a closed one frees its slot', async () => {
  const watches = [0, 1, 2].map(() => h2.watch(`${PLC}?watch=true`, { token: TOKENS.bob }));
  for (const watch of watches) await watch.until(() => watch.status !== 0);
  const fourth = await h2.request('GET', `${PLC}?watch=true`, { token: TOKENS.bob });
  assert.is(fourth.status, 429);
  assert.ok(Number(fourth.headers['retry-after']) >= 1);
  watches[0]!.close();
  await watches[0]!.until(() => watches[0]!.ended);
  await eventually('a slot frees up', async () => {
    const again = h2.watch(`${PLC}?watch=true`, { token: TOKENS.bob });
    await again.until(() => again.status !== 0);
    again.close();
    return again.status === 200;
  });
  for (const watch of watches) watch.close();
});

test('timeouts: 504 for a request waiting past its deadline and for a stream stalled mid-body; the seat is released', async () => {
  const current = Number((await h2.request('GET', `${PLC}?limit=1`)).json().metadata.resourceVersion);
  const late = await h2.request('GET', `${PLC}/exempt?resourceVersion=${current + 1000}&timeout=500ms`);
  assert.is(late.status, 504);
  assert.is(late.json().message, 'Timeout: request did not complete within requested timeout - context deadline exceeded');
  const body = JSON.stringify(validPlc('h2-slow-body'));
  const stalled = h2.request('POST', `${PLC}?dryRun=All&timeout=1s`, {
    token: TOKENS.bob,
    pieces: [{ pauseMs: 0, bytes: body.slice(0, 10) }],
    keepOpen: true,
    headers: { 'content-type': 'application/json' },
  });
  await eventually('the stalled request holds a seat', async () => (await executing('global-default')) === 1);
  const response = await stalled;
  assert.is(response.status, 504);
  assert.match(response.text, /request did not complete within requested timeout/);
  await eventually('the seat is released', async () => (await executing('global-default')) === 0);
  assert.is((await h2.request('GET', '/version')).status, 200);
});

test('watches stream over HTTP/2: initial events, the initial-events-end bookmark, then changes', async () => {
  const watch = h2.watch(`${PLC}?watch=true&sendInitialEvents=true&allowWatchBookmarks=true&resourceVersionMatch=NotOlderThan`);
  await watch.until(() => watch.events.some((event) => event.type === 'BOOKMARK'));
  const bookmark = watch.events.find((event) => event.type === 'BOOKMARK');
  assert.equal(bookmark.object.metadata.annotations, { 'k8s.io/initial-events-end': 'true' });
  const initial = watch.events.slice(0, watch.events.indexOf(bookmark));
  assert.ok(initial.length >= 8 && initial.every((event) => event.type === 'ADDED'), 'the current state first');
  const created = await h2.request('POST', PLC, { body: JSON.stringify(validPlc('h2-watched')), headers: { 'content-type': 'application/json' } });
  assert.is(created.status, 201);
  await watch.until(() => watch.events.some((event) => event.type === 'ADDED' && event.object.metadata.name === 'h2-watched'));
  assert.is(watch.status, 200);
  watch.close();
  assert.is((await h2.request('DELETE', `${PLC}/h2-watched`)).status, 200);
});

const level = (name: string) => ({
  apiVersion: `${GROUP}/v1`,
  kind: 'PriorityLevelConfiguration',
  metadata: { name },
  spec: { type: 'Limited', limited: { nominalConcurrencyShares: 10, lendablePercent: 0, borrowingLimitPercent: 0, limitResponse: { type: 'Reject' } } },
});
const schema = (name: string, levelName: string, user: string) => ({
  apiVersion: `${GROUP}/v1`,
  kind: 'FlowSchema',
  metadata: { name },
  spec: {
    priorityLevelConfiguration: { name: levelName },
    matchingPrecedence: 500,
    distinguisherMethod: { type: 'ByUser' },
    rules: [
      {
        subjects: [{ kind: 'User', user: { name: user } }],
        resourceRules: [{ verbs: ['*'], apiGroups: ['*'], resources: ['*'], clusterScope: true, namespaces: ['*'] }],
      },
    ],
  },
});

test('APF over one connection: a LIST holds its seats until its body is on the wire; a flood of streams gets 429', async () => {
  const json = { 'content-type': 'application/json' };
  assert.is((await h2.request('POST', PLC, { body: JSON.stringify(level('h2-flood')), headers: json })).status, 201);
  assert.is((await h2.request('POST', FS, { body: JSON.stringify(schema('h2-flood', 'h2-flood', 'flooder')), headers: json })).status, 201);
  for (let i = 0; i < 12; i++) {
    const padded = { ...level(`h2-bulk-${i}`), metadata: { name: `h2-bulk-${i}`, annotations: { 'e2e.fairway.io/padding': 'p'.repeat(64_000) } } };
    assert.is((await h2.request('POST', PLC, { body: JSON.stringify(padded), headers: json })).status, 201);
  }
  await eventually('the level is in force', async () => (await executing('h2-flood')) === 0);

  // The flooder's own connection, as client-go's: a small stream window it stops reading from.
  const flooder = await connectH2(server.url, { token: TOKENS.flooder, caPem: server.caPem, settings: { initialWindowSize: 65_535 } });
  flooder.session.setLocalWindowSize(1 << 30);
  try {
    const held = flooder.watch(PLC);
    await held.until(() => held.status !== 0 || held.events.length > 0);
    held.pause();
    assert.is(held.status, 200);
    await eventually('the paused LIST holds its seats', async () => (await executing('h2-flood')) > 0);
    await sleep(300);
    assert.ok((await executing('h2-flood')) > 0, 'still held while the body waits for the client');

    const flood = await Promise.all(Array.from({ length: 8 }, () => flooder.request('GET', `${PLC}?limit=1`)));
    const rejected = flood.filter((response) => response.status === 429);
    assert.ok(rejected.length > 0, `some of the flood is rejected: ${flood.map((r) => r.status).join(' ')}`);
    for (const response of rejected) {
      assert.is(response.text, `${TOO_MANY_REQUESTS_TEXT}\n`);
      assert.ok(Number(response.headers['retry-after']) >= 1);
    }

    held.resume();
    await held.until(() => held.ended);
    assert.ok(held.complete, 'the held LIST completes once read');
    await eventually('seats come back', async () => (await executing('h2-flood')) === 0);
    const metrics = (await h2.request('GET', '/metrics')).text;
    assert.ok(
      (sampleValue(metrics, 'apiserver_flowcontrol_rejected_requests_total', { priority_level: 'h2-flood', reason: 'concurrency-limit' }) ?? 0) >=
        rejected.length,
    );
  } finally {
    await flooder.close();
  }
});

test('--http2-max-streams-per-connection and --disable-http2-serving', async () => {
  const limited = await startServerProcess({ args: ['--http2-max-streams-per-connection=3'] });
  const plain = await startServerProcess({ args: ['--disable-http2-serving'] });
  try {
    const client = await connectH2(limited.url, { token: limited.token, caPem: limited.caPem });
    assert.is(client.session.remoteSettings.maxConcurrentStreams, 3);
    await client.close();
    let refused = '';
    await connectH2(plain.url, { token: plain.token, caPem: plain.caPem }).catch((error: Error) => (refused = error.message));
    assert.match(refused, /no application protocol/, 'a client asking only for h2 is refused in the TLS handshake');
    assert.is((await plain.client.get('/version')).status, 200, 'HTTP/1.1 still served');
  } finally {
    await Promise.all([limited.stop(), plain.stop()]);
  }
});

test('SIGTERM over HTTP/2: GOAWAY, the in-flight stream finishes, the watch ends cleanly, exit 0', async () => {
  const other = await startServerProcess();
  const client = await connectH2(other.url, { token: other.token, caPem: other.caPem });
  try {
    const watch = client.watch(`${PLC}?watch=true`);
    await watch.until(() => watch.events.length > 0);
    const body = JSON.stringify(validPlc('h2-in-flight'));
    const inFlight = client.request('POST', PLC, {
      pieces: [
        { pauseMs: 0, bytes: body.slice(0, 20) },
        { pauseMs: 400, bytes: body.slice(20) },
      ],
      headers: { 'content-type': 'application/json' },
    });
    await sleep(100);
    const stopped = other.stop({ keepData: true });
    await eventually('the client is told to go away', async () => client.goaways.length > 0);
    const response = await inFlight;
    assert.is(response.status, 201, 'the in-flight create completed');
    await watch.until(() => watch.ended);
    assert.ok(watch.complete, 'the watch ended with END_STREAM, not a reset');
    assert.is(await stopped, 0, 'exit code 0');
  } finally {
    await client.close().catch(() => undefined);
    await other.stop();
  }
});

test.run();
