import { test } from 'uvu';
import * as assert from 'uvu/assert';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { RequestContext } from '../http-context.ts';
import { bearerToken, createAuthenticationFilter } from './authentication.ts';

function fakeContext(path: string, authorization?: string) {
  const written: { status?: number; body?: string } = {};
  const headers: Record<string, string> = authorization === undefined ? {} : { authorization };
  const res = {
    headersSent: false,
    statusCode: 200,
    setHeader: () => undefined,
    end(body: string) {
      written.status = res.statusCode;
      written.body = body;
    },
  } as unknown as ServerResponse;
  const context = {
    req: { headers, socket: {} } as unknown as IncomingMessage,
    res,
    url: new URL(path, 'https://x'),
    requestInfo: { isResourceRequest: false, path, verb: 'get', apiGroup: '', apiVersion: '', namespace: '', resource: '', subresource: '', name: '' },
    user: undefined,
  } as unknown as RequestContext;
  return { context, written, headers };
}

const tokens = new Map([['good', { name: 'alice', groups: ['dev'] }]]);

test('bearerToken reads the scheme case-insensitively and rejects empty tokens', () => {
  assert.is(bearerToken('Bearer abc'), 'abc');
  assert.is(bearerToken('bearer abc'), 'abc');
  assert.is(bearerToken('Basic abc'), undefined);
  assert.is(bearerToken('Bearer '), undefined);
  assert.is(bearerToken('Bearer'), undefined);
  assert.is(bearerToken(undefined), undefined);
});

test('a known token authenticates, adds system:authenticated and strips the header', async () => {
  const filter = createAuthenticationFilter({ tokens });
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
  const filter = createAuthenticationFilter({ tokens, isPublicPath: (p) => p === '/healthz' });
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
  const filter = createAuthenticationFilter({ tokens, isPublicPath: (p) => p === '/healthz' });
  const { context, written } = fakeContext('/healthz', 'Bearer bad');
  await filter(context, async () => assert.unreachable('must not run'));
  assert.is(written.status, 401);
});

test('anonymous auth admits requests without credentials, never bad ones', async () => {
  const filter = createAuthenticationFilter({ tokens, anonymous: true });
  const none = fakeContext('/apis');
  await filter(none.context, async () => undefined);
  assert.is(none.context.user?.name, 'system:anonymous');
  const bad = fakeContext('/apis', 'Bearer bad');
  await filter(bad.context, async () => assert.unreachable('must not run'));
  assert.is(bad.written.status, 401);
});

test.run();
