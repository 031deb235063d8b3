import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { X509Certificate } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import { fakeResponse } from '../testing/fake-response.ts';
import type { Logger } from '../log.ts';
import type { RequestContext } from '../request/http-context.ts';
import { buildAuthenticator } from '../../engine/auth/build-authenticator.ts';
import type { Authenticator } from '../../engine/auth/authenticator.ts';
import { generateCertificateAuthority, issueClientCertificate } from '../../engine/x509/certificates.ts';
import { authenticationRequestOf, createAuthenticationFilter, MAX_KEPT_AUTHORIZATION_LENGTH } from './authentication.ts';
import { connectionOf } from '../request/connection.ts';

/** A socket presenting `pems` as its peer chain (leaf first), the way node:tls reports it. */
function socketWith(pems: readonly string[]) {
  let calls = 0;
  const certs = pems.map((pem) => {
    const parsed = new X509Certificate(pem);
    return { raw: parsed.raw, fingerprint256: parsed.fingerprint256, issuerCertificate: undefined as unknown };
  });
  certs.forEach((cert, i) => (cert.issuerCertificate = certs[i + 1]));
  return {
    getPeerCertificate: () => {
      calls++;
      return certs[0] ?? {};
    },
    calls: () => calls,
  };
}

function fakeContext(path: string, authorization?: string, socket: object = {}) {
  const { res, written } = fakeResponse();
  const headers: Record<string, string> = authorization === undefined ? {} : { authorization };
  const context = {
    req: { headers, socket } as unknown as IncomingMessage,
    res,
    url: new URL(path, 'https://x'),
    requestInfo: { isResourceRequest: false, path, verb: 'get', apiGroup: '', apiVersion: '', namespace: '', resource: '', subresource: '', name: '' },
    user: undefined,
  } as unknown as RequestContext;
  return { context, written, headers };
}

const tokens = new Map([['good', { name: 'alice', groups: ['dev'] }]]);
const authenticator = (anonymous: boolean, clientCaPems?: string[]) => {
  const built = buildAuthenticator({ tokens, anonymous, wallClockMs: () => Date.now(), clientCaPems });
  if (!built.ok) throw new Error(built.error);
  return built.authenticator;
};

test('a known token authenticates, adds system:authenticated and strips the header', async () => {
  const filter = createAuthenticationFilter({ authenticator: authenticator(false) });
  const { context, headers } = fakeContext('/apis', 'Bearer good');
  let ran = false;
  await filter(context, async () => {
    ran = true;
  });
  assert.ok(ran);
  assert.equal(context.user, { name: 'alice', groups: ['dev', 'system:authenticated'] });
  assert.is(headers.authorization, undefined);
});

test('a bad token or none is a 401 Status; health checks without credentials pass as system:anonymous', async () => {
  const filter = createAuthenticationFilter({ authenticator: authenticator(false), isPublicPath: (p) => p === '/healthz' });
  for (const auth of ['Bearer bad', undefined]) {
    const { context, written } = fakeContext('/apis', auth);
    await filter(context, async () => assert.unreachable('must not run'));
    assert.is(written.status, 401);
    assert.is(JSON.parse(written.body!).message, 'Unauthorized');
  }
  const { context } = fakeContext('/healthz');
  await filter(context, async () => undefined);
  assert.equal(context.user, { name: 'system:anonymous', groups: ['system:unauthenticated'] });
});

test('a token that fails authentication is a 401 on a health check too, as in Kubernetes', async () => {
  const filter = createAuthenticationFilter({ authenticator: authenticator(false), isPublicPath: (p) => p === '/healthz' });
  const { context, written } = fakeContext('/healthz', 'Bearer bad');
  await filter(context, async () => assert.unreachable('must not run'));
  assert.is(written.status, 401);
});

test('anonymous auth admits requests without credentials, never bad ones; the failure is logged', async () => {
  const logged: string[] = [];
  const logger: Logger = { info: () => undefined, warning: () => undefined, error: (m) => logged.push(m) };
  const filter = createAuthenticationFilter({ authenticator: authenticator(true), logger });
  const none = fakeContext('/apis');
  await filter(none.context, async () => undefined);
  assert.is(none.context.user?.name, 'system:anonymous');
  const bad = fakeContext('/apis', 'Bearer bad');
  await filter(bad.context, async () => assert.unreachable('must not run'));
  assert.is(bad.written.status, 401);
  assert.equal(logged, ['Unable to authenticate the request: invalid bearer token']);
});

test('a client certificate that does not verify is 401 even with anonymous access on', async () => {
  const ca = await generateCertificateAuthority({ commonName: 'clients' });
  const stranger = await generateCertificateAuthority({ commonName: 'stranger' });
  const filter = createAuthenticationFilter({ authenticator: authenticator(true, [ca.certPem]) });

  const mallory = await issueClientCertificate(stranger, { user: 'mallory' });
  const bad = fakeContext('/apis', undefined, socketWith([mallory.certPem, stranger.certPem]));
  await filter(bad.context, async () => assert.unreachable('must not run'));
  assert.is(bad.written.status, 401);

  const carol = await issueClientCertificate(ca, { user: 'carol', groups: ['ops'] });
  const socket = socketWith([carol.certPem, ca.certPem]);
  for (let i = 0; i < 3; i++) {
    const good = fakeContext('/apis', undefined, socket);
    await filter(good.context, async () => undefined);
    assert.equal(good.context.user, { name: 'carol', groups: ['ops', 'system:authenticated'] });
  }
  assert.is(socket.calls(), 1, 'the chain is read once per connection');
});

test('over HTTP/2 the chain is read from the session socket, once per connection', async () => {
  const ca = await generateCertificateAuthority({ commonName: 'clients' });
  const carol = await issueClientCertificate(ca, { user: 'carol' });
  const sessionSocket = socketWith([carol.certPem]);
  const streamRequest = (n: number) => ({ headers: {}, socket: { stream: n }, stream: { session: { socket: sessionSocket } } }) as unknown as IncomingMessage;
  const first = authenticationRequestOf(streamRequest(1));
  const second = authenticationRequestOf(streamRequest(2));
  assert.is(first.peerCertificates?.length, 1);
  assert.is(first.peerCertificates, second.peerCertificates);
  assert.is(sessionSocket.calls(), 1);
});

/** What the filter did with one request: its user, or the status it answered. */
async function outcome(filter: ReturnType<typeof createAuthenticationFilter>, authorization: string | undefined, socket: object, path = '/apis') {
  const { context, written } = fakeContext(path, authorization, socket);
  let ran = false;
  await filter(context, async () => {
    ran = true;
  });
  return { ran, user: context.user, status: written.status, body: written.body };
}

/** Counts the answers `inner` is asked for; `keepable` overrides what it says of its answers. */
function counted(inner: Authenticator, keepable = inner.headerAnswersKeepable): Authenticator & { calls: number } {
  const spy = {
    calls: 0,
    headerAnswersKeepable: keepable,
    authenticate: (request: Parameters<Authenticator['authenticate']>[0]) => {
      spy.calls++;
      return inner.authenticate(request);
    },
  };
  return spy;
}

test('requests on one connection are answered exactly as each would be on a connection of its own, whatever the order of headers', async () => {
  const headers = [
    'Bearer good',
    'Bearer good',
    'Bearer bad',
    undefined,
    'bearer good',
    'Bearer good extra',
    'Basic Zm9v',
    'Bearer good',
    undefined,
    'Bearer bad',
  ];
  for (const anonymous of [false, true]) {
    const logged: string[] = [];
    const freshLogged: string[] = [];
    const logger = (into: string[]): Logger => ({ info: () => undefined, warning: () => undefined, error: (m) => into.push(m) });
    const shared = createAuthenticationFilter({ authenticator: authenticator(anonymous), logger: logger(logged), isPublicPath: (p) => p === '/healthz' });
    const fresh = createAuthenticationFilter({ authenticator: authenticator(anonymous), logger: logger(freshLogged), isPublicPath: (p) => p === '/healthz' });
    const socket = {};
    for (const path of ['/apis', '/healthz'])
      for (const header of headers) assert.equal(await outcome(shared, header, socket, path), await outcome(fresh, header, {}, path), `${header} on ${path}`);
    assert.equal(logged, freshLogged, 'every failure is logged, the repeated ones too');
    assert.ok(logged.length > 0);
  }
});

test('a connection without a certificate asks the authenticator again only when the header changes', async () => {
  const spy = counted(authenticator(false));
  const filter = createAuthenticationFilter({ authenticator: spy });
  const socket = {};
  for (const header of ['Bearer good', 'Bearer good', 'Bearer good', 'Bearer bad', 'Bearer bad', 'Bearer good']) await outcome(filter, header, socket);
  assert.is(spy.calls, 3);
  // Another authenticator (another server) on the same connection is asked itself.
  const other = counted(authenticator(false));
  const second = await outcome(createAuthenticationFilter({ authenticator: other }), 'Bearer good', socket);
  assert.is(other.calls, 1);
  assert.is(second.user?.name, 'alice');
});

test('an authenticator whose answers may change for the same header (expiry, revocation) is asked on every request', async () => {
  const spy = counted(authenticator(false), false);
  const filter = createAuthenticationFilter({ authenticator: spy });
  const socket = {};
  for (let i = 0; i < 3; i++) assert.is((await outcome(filter, 'Bearer good', socket)).user?.name, 'alice');
  assert.is(spy.calls, 3);
  assert.is(connectionOf({ headers: {}, socket } as unknown as IncomingMessage).lastAuthentication, undefined);
});

test('a connection with a client certificate asks the authenticator on every request (a certificate expires)', async () => {
  const ca = await generateCertificateAuthority({ commonName: 'clients' });
  const carol = await issueClientCertificate(ca, { user: 'carol' });
  const spy = counted(authenticator(false, [ca.certPem]));
  const filter = createAuthenticationFilter({ authenticator: spy });
  const socket = socketWith([carol.certPem, ca.certPem]);
  for (let i = 0; i < 3; i++) assert.is((await outcome(filter, 'Bearer good', socket)).user?.name, 'carol');
  assert.is(spy.calls, 3);
});

test('a connection does not keep an Authorization header longer than any token: it is asked again, and only a short one is kept', async () => {
  const spy = counted(authenticator(false));
  const filter = createAuthenticationFilter({ authenticator: spy });
  const socket = {};
  const long = `Bearer ${'t'.repeat(MAX_KEPT_AUTHORIZATION_LENGTH)}`;
  for (let i = 0; i < 3; i++) assert.is((await outcome(filter, long, socket)).status, 401);
  assert.is(spy.calls, 3);
  const connection = connectionOf({ headers: {}, socket } as unknown as IncomingMessage);
  assert.is(connection.lastAuthentication, undefined, 'the long header is not held by the idle connection');
  for (let i = 0; i < 2; i++) assert.is((await outcome(filter, 'Bearer good', socket)).user?.name, 'alice');
  assert.is(spy.calls, 4);
  assert.is(connection.lastAuthentication?.authorization, 'Bearer good');
  assert.is((await outcome(filter, long, socket)).status, 401);
  assert.is(spy.calls, 5);
  assert.is(connection.lastAuthentication?.authorization, 'Bearer good', 'the last short header stays');
  assert.is((await outcome(filter, 'Bearer good', socket)).user?.name, 'alice');
  assert.is(spy.calls, 5);
});

test.run();
