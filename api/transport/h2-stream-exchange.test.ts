import { test } from 'uvu';
import * as assert from 'uvu/assert';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { generateCertificateAuthority, issueServingCertificate } from '../../engine/x509/certificates.ts';
import { createSecureApiServer, type SecureServer } from './secure-server.ts';
import { servedOnStream, StreamRequest, StreamResponse } from './h2-stream-exchange.ts';
import { connectH2, type H2Client } from '../testing/h2-client.ts';

/** What the handler saw and did, per request path. */
interface Seen {
  kind: string;
  method: string;
  url: string;
  httpVersion: string;
  userAgent: string | undefined;
  raw: string[];
  events: string[];
}

let secure: SecureServer;
let client: H2Client;
const seen = new Map<string, Seen>();
const responses = new Map<string, ServerResponse>();

/** One handler that answers like the server's watch: headers, a first line flushed, more on `/more`. */
function handler(req: IncomingMessage, res: ServerResponse): void {
  const url = req.url ?? '';
  const record: Seen = {
    kind: req instanceof StreamRequest ? 'stream' : 'compat',
    method: req.method ?? '',
    url,
    httpVersion: req.httpVersion,
    userAgent: req.headers['user-agent'],
    raw: req.rawHeaders.filter((_, i) => i % 2 === 0 && !req.rawHeaders[i]!.startsWith(':')),
    events: [],
  };
  seen.set(url, record);
  responses.set(url, res);
  res.on('finish', () => record.events.push('finish'));
  res.on('close', () => record.events.push(`close ended=${res.writableEnded} finished=${res.writableFinished}`));
  if (url.includes('missing')) {
    res.statusCode = 404;
    res.setHeader('Content-Type', 'text/plain');
    res.setHeader('X-Removed', 'yes');
    res.removeHeader('x-removed');
    res.setHeader('Warning', ['299 - "one"', '299 - "two"']);
    res.end('not here\n');
    return;
  }
  res.statusCode = 200;
  res.setHeader('Content-Type', 'application/json');
  res.setHeader('Cache-Control', 'no-cache, private');
  record.events.push(`header ${res.getHeader('content-type')}`);
  res.flushHeaders();
  record.events.push(`sent ${res.headersSent}`);
  res.write('{"n":1}\n');
}

test.before(async () => {
  const ca = await generateCertificateAuthority({});
  const serving = await issueServingCertificate(ca, { hosts: ['127.0.0.1'] });
  secure = createSecureApiServer({ certPem: serving.certPem, keyPem: serving.keyPem, http2MaxStreamsPerConnection: 0, handler });
  await secure.listen(0, '127.0.0.1');
  client = await connectH2(`https://127.0.0.1:${(secure.server.address() as AddressInfo).port}`, { caPem: ca.certPem });
});

test.after(async () => {
  await client.close();
  secure.destroy();
  await secure.close();
});

test('only GETs that name a watch are served on the raw stream', () => {
  const h = (method: string, path: string, extra: Record<string, string> = {}) => ({ ':method': method, ':path': path, ...extra });
  assert.ok(servedOnStream(h('GET', '/apis/g/v1/rs?watch=true')));
  assert.ok(servedOnStream(h('GET', '/apis/g/v1/watch/rs')));
  assert.not.ok(servedOnStream(h('GET', '/apis/g/v1/rs')));
  assert.not.ok(servedOnStream(h('POST', '/apis/g/v1/rs?watch=true')));
  assert.not.ok(servedOnStream(h('HEAD', '/apis/g/v1/rs?watch=true')));
  assert.not.ok(servedOnStream(h('GET', '/apis/g/v1/rs?watch=true', { expect: '100-continue' })), 'an Expect goes to the layer that answers it');
});

test('a watch on the raw stream answers exactly as through the compatibility layer: status, headers, body', async () => {
  const lean = client.watch('/watch?same');
  const compat = client.watch('/plain?same');
  await lean.until(() => lean.events.length > 0);
  await compat.until(() => compat.events.length > 0);
  assert.equal([seen.get('/watch?same')?.kind, seen.get('/watch?same')?.httpVersion], ['stream', '2.0']);
  assert.equal([seen.get('/plain?same')?.kind, seen.get('/plain?same')?.httpVersion], ['compat', '2.0']);
  const both = await Promise.all([client.request('GET', '/watch/missing', { headers: { 'user-agent': 'probe' } }), client.request('GET', '/plain/missing')]);
  assert.equal([seen.get('/watch/missing')!.method, seen.get('/watch/missing')!.userAgent], ['GET', 'probe']);
  assert.ok(seen.get('/watch/missing')!.raw.includes('user-agent'), 'raw headers, as the impersonation filter reads them');
  const [viaStream, viaCompat] = both;
  const strip = (headers: Record<string, unknown>) => Object.fromEntries(Object.entries(headers).filter(([name]) => name !== 'date'));
  assert.equal(strip(viaStream.headers), strip(viaCompat.headers));
  assert.is(viaStream.headers['x-removed'], undefined);
  assert.ok(typeof viaStream.headers.date === 'string', 'a Date header, as the compatibility response sends');
  assert.equal([viaStream.status, viaStream.text], [404, 'not here\n']);
  assert.equal(lean.events, compat.events);
  assert.equal(lean.status, compat.status);
  lean.close();
  compat.close();
});

test('the raw-stream response: headers sent on flush, a write returns true while the stream takes it, finish then close when the client goes', async () => {
  const watch = client.watch('/watch?lifecycle');
  await watch.until(() => watch.events.length > 0);
  const record = seen.get('/watch?lifecycle')!;
  const res = responses.get('/watch?lifecycle')! as unknown as StreamResponse;
  assert.ok(res instanceof StreamResponse);
  assert.equal(record.events, ['header application/json', 'sent true']);
  assert.ok(res.write(Buffer.from('{"n":2}\n')));
  await watch.until(() => watch.events.length > 1);
  assert.not.ok(res.writableFinished);
  watch.close();
  for (let i = 0; i < 100 && !res.writableFinished; i++) await new Promise((resolve) => setTimeout(resolve, 10));
  assert.equal(record.events.slice(2), ['finish', 'close ended=false finished=true'], 'as a compatibility response reports a cut stream');
  assert.ok(res.destroyed);
  assert.not.ok(res.write('late'), 'a write after the stream is gone goes nowhere');
});

test('ending the response ends the stream cleanly', async () => {
  const watch = client.watch('/watch?ending');
  await watch.until(() => watch.events.length > 0);
  const res = responses.get('/watch?ending')!;
  res.end();
  await watch.until(() => watch.ended);
  assert.ok(watch.complete, 'END_STREAM, not a reset');
  for (let i = 0; i < 100 && !res.writableFinished; i++) await new Promise((resolve) => setTimeout(resolve, 10));
  assert.equal(seen.get('/watch?ending')!.events.slice(2), ['finish', 'close ended=true finished=true']);
});

test("the response's listeners: in the order added, `once` called once, `off` removes only its own", () => {
  const fakeStream = { on: () => fakeStream } as unknown as ConstructorParameters<typeof StreamResponse>[0];
  const res = new StreamResponse(fakeStream);
  const calls: string[] = [];
  const a = () => calls.push('a');
  const b = () => calls.push('b');
  const c = () => calls.push('c');
  res.on('drain', a).once('drain', b).on('close', c).on('drain', c);
  assert.ok(res.emit('drain'));
  res.emit('drain');
  res.off('drain', c);
  res.emit('drain');
  assert.not.ok(res.emit('finish'), 'no listener');
  res.off('drain', a);
  assert.not.ok(res.emit('drain'));
  assert.ok(res.emit('close'));
  assert.equal(calls, ['a', 'b', 'c', 'a', 'c', 'a', 'c']);
});

test.run();
