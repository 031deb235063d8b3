import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { request as httpsRequest } from 'node:https';
import type { AddressInfo, Socket } from 'node:net';
import { connect as tlsConnect } from 'node:tls';
import { realClock } from '../../engine/clock.ts';
import { createMemoryBackend } from '../../engine/store/memory/memory-backend.ts';
import { createStore } from '../../engine/store/store.ts';
import type { Store } from '../../engine/store/store-types.ts';
import { createFairwayServer, type FairwayServer } from '../assembly/assembled-server.ts';
import { silentLogger } from '../log.ts';
import { generateCertificateAuthority, issueServingCertificate, type KeyPairPem } from '../../engine/x509/certificates.ts';
import { createSecureApiServer, maxConcurrentStreams, type SecureServer } from '../transport/secure-server.ts';
import { connectH2 } from '../testing/h2-client.ts';
import { sampleValue } from '../testing/metrics.ts';
import { validPlc } from '../testing/bad-input-corpus.ts';
import { testAccessControl } from '../security/testing/access-control.ts';

const PLC = '/apis/flowcontrol.apiserver.k8s.io/v1/prioritylevelconfigurations';
const TOKEN = 'secure-server-test-token';
let ca: KeyPairPem;
let store: Store;
let fairway: FairwayServer;
let secure: SecureServer;
let url: string;

test.before(async () => {
  ca = await generateCertificateAuthority({});
  const serving = await issueServingCertificate(ca, { hosts: ['127.0.0.1'] });
  // A small watcher buffer: a watch that stops reading is cut off after a few events.
  store = createStore({ backend: createMemoryBackend(), clock: realClock(), watcherBufferSize: 20 });
  await store.open();
  fairway = createFairwayServer({
    store,
    logger: silentLogger,
    requestTimeoutMs: 60_000,
    serverConcurrencyLimit: 600,
    enablePriorityAndFairness: true,
    apfEnforce: true,
    accessControl: await testAccessControl(new Map([[TOKEN, { name: 'admin', groups: ['system:masters'] }]])),
    serverAddress: () => '127.0.0.1',
  });
  secure = createSecureApiServer({ certPem: serving.certPem, keyPem: serving.keyPem, http2MaxStreamsPerConnection: 0, handler: fairway.apiServer.handle });
  await secure.listen(0, '127.0.0.1');
  url = `https://127.0.0.1:${(secure.server.address() as AddressInfo).port}`;
  const probe = await connectH2(url, { token: TOKEN, caPem: ca.certPem });
  while ((await probe.request('GET', '/readyz')).status !== 200) await new Promise((resolve) => setTimeout(resolve, 20));
  await probe.close();
});

test.after(async () => {
  fairway.beginShutdown();
  const closed = secure.close();
  await fairway.apiServer.drain(2_000);
  secure.destroy();
  await closed;
  fairway.stop();
  await store.close();
});

test("the stream limit is the flag, or 100 (Go's client default) for 0", () => {
  assert.is(maxConcurrentStreams(0), 100);
  assert.is(maxConcurrentStreams(-5), 100);
  assert.is(maxConcurrentStreams(1000), 1000);
});

test('one handler for both protocols: h2 through ALPN, and HTTP/1.1 for clients that do not offer it', async () => {
  const h2 = await connectH2(url, { token: TOKEN, caPem: ca.certPem });
  const viaH2 = await h2.request('GET', `${PLC}/exempt`);
  await h2.close();
  const viaH1 = await new Promise<{ status: number; version: string; text: string }>((resolve, reject) => {
    const req = httpsRequest(`${url}${PLC}/exempt`, { ca: ca.certPem, headers: { authorization: `Bearer ${TOKEN}` } }, (res) => {
      let text = '';
      res.on('data', (chunk: Buffer) => (text += chunk.toString('utf8')));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, version: res.httpVersion, text }));
    });
    req.on('error', reject);
    req.end();
  });
  assert.equal([viaH2.status, viaH1.status, viaH1.version], [200, 200, '1.1']);
  assert.is(viaH2.text, viaH1.text);
});

test("request headers beyond Node's default 64 KiB list limit are read on HTTP/2 (kube-apiserver reads up to 1 MiB)", async () => {
  const h2 = await connectH2(url, { token: TOKEN, caPem: ca.certPem, maxSendHeaderBlockLength: 1 << 20 });
  try {
    // nghttp2 takes one field up to 64 KiB and a bounded number of CONTINUATION frames, and Node's
    // client sends 16 KiB frames: 150 KB in fields of 30 KB is what this client can send.
    const headers = Object.fromEntries(Array.from({ length: 5 }, (_, i) => [`x-padding-${i}`, 'p'.repeat(30_000)]));
    assert.is((await h2.request('GET', '/version', { headers })).status, 200);
  } finally {
    await h2.close();
  }
});

test('a watch whose client stops reading is cut off (only its stream); the connection serves on', async () => {
  const reader = await connectH2(url, { token: TOKEN, caPem: ca.certPem, settings: { initialWindowSize: 16_384 } });
  reader.session.setLocalWindowSize(1 << 30);
  const writer = await connectH2(url, { token: TOKEN, caPem: ca.certPem });
  try {
    const slow = reader.watch(`${PLC}?watch=true&resourceVersion=0`);
    await slow.until(() => slow.status !== 0);
    slow.pause();
    const terminated = async () =>
      sampleValue((await writer.request('GET', '/metrics')).text, 'apiserver_terminated_watchers_total', { resource: 'prioritylevelconfigurations' }) ?? 0;
    const padded = (i: number) => ({ ...validPlc(`slow-${i}`), metadata: { name: `slow-${i}`, annotations: { padding: 'p'.repeat(4_000) } } });
    let written = 0;
    for (let i = 0; i < 200 && (await terminated()) === 0; i++, written++) {
      const created = await writer.request('POST', PLC, { body: JSON.stringify(padded(i)), headers: { 'content-type': 'application/json' } });
      assert.is(created.status, 201, created.text);
    }
    for (let i = 0; i < 200 && (await terminated()) === 0; i++) await new Promise((resolve) => setTimeout(resolve, 50));
    assert.is(await terminated(), 1, 'the watch was cut off');
    slow.resume();
    await slow.until(() => slow.ended);
    const seen = slow.events.filter((event) => String(event.object?.metadata?.name).startsWith('slow-')).length;
    assert.ok(seen < written, `the watch ended early (${seen} of ${written} events)`);
    assert.is((await reader.request('GET', '/version')).status, 200, 'its connection still serves');
  } finally {
    await Promise.all([reader.close(), writer.close()]);
  }
});

/** The calls that hand bytes to a TLS socket's native side: each one is one SSL_write, so one TLS record (below 16 KiB) and one `write` syscall. */
const HANDLE_WRITES = ['writev', 'writeBuffer', 'writeLatin1String', 'writeUtf8String', 'writeAsciiString', 'writeUcs2String'] as const;

/** Counts the write calls the TLS handles of connections accepted from now on receive. */
function countHandleWrites(server: SecureServer): { calls: number; stop(): void } {
  const counter = { calls: 0, stop: () => server.server.off('secureConnection', onConnection) };
  function onConnection(socket: Socket): void {
    const handle = (socket as unknown as { _handle: Record<string, (...args: unknown[]) => unknown> })._handle;
    for (const name of HANDLE_WRITES) {
      const original = handle[name];
      if (typeof original !== 'function') continue;
      handle[name] = function (this: unknown, ...args: unknown[]) {
        counter.calls++;
        return original.apply(this, args);
      };
    }
  }
  server.server.on('secureConnection', onConnection);
  return counter;
}

test('an HTTP/1.1 GET is answered in one write to the TLS socket (head and body in one TLS record), keep-alive and pipelined alike', async () => {
  const writes = countHandleWrites(secure);
  const { port } = secure.server.address() as AddressInfo;
  const socket = tlsConnect({ host: '127.0.0.1', port, ca: ca.certPem, ALPNProtocols: ['http/1.1'] });
  try {
    await new Promise<void>((resolve, reject) => socket.once('secureConnect', resolve).once('error', reject));
    assert.is(socket.alpnProtocol, 'http/1.1');
    let received = '';
    socket.on('data', (chunk: Buffer) => (received += chunk.toString('latin1')));
    const get = `GET ${PLC}/exempt HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer ${TOKEN}\r\nAccept: application/json\r\n\r\n`;
    const responses = async (count: number) => {
      for (let i = 0; i < 500 && (received.match(/HTTP\/1\.1 200 OK/g) ?? []).length < count; i++) await new Promise((resolve) => setTimeout(resolve, 10));
      const seen = received.match(/HTTP\/1\.1 200 OK/g) ?? [];
      assert.is(seen.length, count, received);
    };
    // The first request on a connection, then one on the kept-alive connection.
    socket.write(get);
    await responses(1);
    assert.is(writes.calls, 1, 'the first response: one write');
    socket.write(get);
    await responses(2);
    assert.is(writes.calls, 2, 'a kept-alive response: one write');
    // Two pipelined requests in one segment: one write each.
    socket.write(get + get);
    await responses(4);
    assert.is(writes.calls, 4, 'pipelined responses: one write each');
    assert.ok(received.includes('"name":"exempt"'), 'bodies came with the heads');
    assert.match(received, /X-Kubernetes-Pf-Prioritylevel-Uid/i);
  } finally {
    writes.stop();
    socket.destroy();
  }
});

test('close(): GOAWAY to HTTP/2 sessions; an open stream finishes first', async () => {
  const ca2 = ca;
  const serving = await issueServingCertificate(ca2, { hosts: ['127.0.0.1'] });
  let release: () => void = () => undefined;
  const held = new Promise<void>((resolve) => (release = resolve));
  const server = createSecureApiServer({
    certPem: serving.certPem,
    keyPem: serving.keyPem,
    http2MaxStreamsPerConnection: 0,
    handler: (req, res) => void held.then(() => res.end(`done ${req.url}\n`)),
  });
  await server.listen(0, '127.0.0.1');
  const client = await connectH2(`https://127.0.0.1:${(server.server.address() as AddressInfo).port}`, { caPem: ca.certPem });
  const pending = client.request('GET', '/slow');
  await new Promise((resolve) => setTimeout(resolve, 50));
  assert.equal(server.connections, { http2: 1, http1: 0 });
  const closed = server.close();
  for (let i = 0; i < 100 && client.goaways.length === 0; i++) await new Promise((resolve) => setTimeout(resolve, 10));
  assert.equal(client.goaways, [0], 'GOAWAY with NO_ERROR');
  release();
  assert.equal([(await pending).status, (await pending).text], [200, 'done /slow\n']);
  await closed;
  for (let i = 0; i < 100 && server.connections.http2 > 0; i++) await new Promise((resolve) => setTimeout(resolve, 10));
  assert.equal(server.connections, { http2: 0, http1: 0 });
});

test.run();
