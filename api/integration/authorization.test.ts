// The authorization filter, admission as the registries run it, and the SelfSubjectAccessReview
// route, in a real HTTP server (server.ts) with a stand-in authentication filter (header
// X-Test-User: name,group,...).
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { realClock } from '../../engine/clock.ts';
import type { AuthorizationAttributes, AuthorizationResult, Authorizer } from '../../engine/auth/authorizer.ts';
import { createAuthorizerChain } from '../../engine/auth/authorizer-chain.ts';
import { alwaysAllowAuthorizer } from '../../engine/auth/always.ts';
import { createAdmissionChain } from '../../engine/auth/admission/admission.ts';
import { createEventRateLimit } from '../../engine/auth/admission/event-rate-limit.ts';
import type { ValidatingAdmissionPlugin } from '../../engine/auth/admission/admission.ts';
import type { Filter, RequestContext } from '../request/http-context.ts';
import { createApiServer } from '../assembly/request-path.ts';
import { silentLogger } from '../log.ts';
import { createTestClient, type TestClient } from '../testing/http-client.ts';
import { createAuthorizationFilter } from '../filters/authorization.ts';
import { admitWrite } from '../../engine/registry/requester.ts';
import { requesterOf } from '../handlers/resource.ts';
import { createSelfSubjectAccessReviewHandler, selfSubjectAccessReviewPath } from '../handlers/self-subject-access-review.ts';
import { withReviewRoutes } from '../handlers/review.ts';

const decide = (a: AuthorizationAttributes): AuthorizationResult => {
  if (a.user.name === 'broken') return { decision: 'noOpinion', reason: '', error: 'Post "https://authz/": context deadline exceeded <boom>' };
  if (a.user.name === 'alice') return { decision: 'allow', reason: '' };
  if (a.verb === 'create' && a.resource === 'selfsubjectaccessreviews') return { decision: 'allow', reason: '' };
  if (a.user.name === 'eve') return { decision: 'deny', reason: 'eve is <blocked> & audited' };
  return { decision: 'noOpinion', reason: '' };
};
/** Decides at once for members of the group `now`, as a webhook would from its cache; waits otherwise. */
const policy: Authorizer = {
  authorize: (a) => (a.user.groups.includes('now') ? decide(a) : Promise.resolve(decide(a))),
};

const fakeAuthentication: Filter = (context, next) => {
  const [name = '', ...groups] = String(context.req.headers['x-test-user'] ?? '').split(',');
  context.user = { name, groups };
  return next();
};

const denyWeird: ValidatingAdmissionPlugin = {
  name: 'test',
  validate: (a) =>
    a.object?.weird === true
      ? {
          allowed: false,
          rejection: {
            kind: 'policy-denied',
            policy: 'p.static.k8s.io',
            binding: 'b.static.k8s.io',
            message: 'weird objects are not allowed',
            reason: 'Invalid',
          },
          warnings: ['looked at it'],
        }
      : { allowed: true, warnings: [] },
};

let server: Server;
let client: TestClient;

test.before(async () => {
  const clock = realClock();
  const authorizer = createAuthorizerChain([{ type: 'Webhook', name: 'policy', authorizer: policy }]);
  const admission = createAdmissionChain([
    createEventRateLimit({ limits: [{ type: 'User', qps: 0.001, burst: 2, cacheSize: 0 }] }, { clock, appliesTo: () => true }),
    denyWeird,
  ]);
  const ssar = {
    path: selfSubjectAccessReviewPath('authorization.k8s.io'),
    handler: createSelfSubjectAccessReviewHandler({ authorizer, group: 'authorization.k8s.io' }),
  };
  const resources = async (context: Parameters<Filter>[0]) => {
    let body = '';
    for await (const chunk of context.req) body += String(chunk);
    if (context.req.method === 'POST') {
      const kind = { group: 'flowcontrol.apiserver.k8s.io', version: 'v1', kind: 'FlowSchema' };
      admitWrite(admission, requesterOf(context), 'CREATE', kind, JSON.parse(body) as Record<string, unknown>, undefined);
    }
    context.res.writeHead(200, { 'Content-Type': 'application/json' }).end('{"ok":true}');
  };
  const api = createApiServer({
    clock,
    logger: silentLogger,
    requestTimeoutMs: 10_000,
    filters: [fakeAuthentication, createAuthorizationFilter({ authorizer })],
    health: { healthz: [], livez: [], readyz: [] },
    resources: withReviewRoutes(resources, [ssar]),
    describe: async () => false,
  });
  server = createServer(api.handle);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  client = createTestClient(`http://127.0.0.1:${(server.address() as AddressInfo).port}`);
});
test.after(() => new Promise<void>((resolve) => server.close(() => resolve())));

const as = (user: string) => ({ headers: { 'X-Test-User': user } });
const FS = '/apis/flowcontrol.apiserver.k8s.io/v1/flowschemas';

test('403 bodies are worded as kube-apiserver words them', async () => {
  const named = await client.request('DELETE', `${FS}/beta`, as('bob,dev'));
  assert.is(named.status, 403);
  assert.equal(named.json(), {
    kind: 'Status',
    apiVersion: 'v1',
    metadata: {},
    status: 'Failure',
    message:
      'flowschemas.flowcontrol.apiserver.k8s.io "beta" is forbidden: User "bob" cannot delete resource "flowschemas" in API group ' +
      '"flowcontrol.apiserver.k8s.io" at the cluster scope',
    reason: 'Forbidden',
    details: { name: 'beta', group: 'flowcontrol.apiserver.k8s.io', kind: 'flowschemas' },
    code: 403,
  });
  const withReason = await client.get(`${FS}?watch=1`, as('eve'));
  assert.is(
    withReason.json().message,
    'flowschemas.flowcontrol.apiserver.k8s.io is forbidden: User "eve" cannot watch resource "flowschemas" in API group ' +
      '"flowcontrol.apiserver.k8s.io" at the cluster scope: eve is <blocked> & audited',
  );
  const path = await client.get('/metrics?<x>', as('<bob>'));
  assert.equal([path.status, path.json().message, path.json().details], [403, 'forbidden: User "&lt;bob&gt;" cannot get path "/metrics"', {}]);
});

test('an authorizer error is a plain-text 500 naming the request URI', async () => {
  const response = await client.get(`${FS}?limit=5`, as('broken'));
  assert.is(response.status, 500);
  assert.is(response.headers['content-type'], 'text/plain; charset=utf-8');
  assert.is(response.headers['x-content-type-options'], 'nosniff');
  assert.is(response.text, `Internal Server Error: "${FS}?limit=5": Post "https://authz/": context deadline exceeded &lt;boom&gt;\n`);
});

test('allowed requests reach the handler; admission refuses with 429 past the burst and with the policy Status', async () => {
  assert.is((await client.get(FS, as('alice'))).status, 200);
  const weird = await client.request('POST', FS, { ...as('alice'), body: { metadata: { name: 'odd' }, weird: true } });
  assert.is(weird.status, 422);
  assert.equal(weird.json(), {
    kind: 'Status',
    apiVersion: 'v1',
    metadata: {},
    status: 'Failure',
    message:
      "flowschemas.flowcontrol.apiserver.k8s.io \"odd\" is forbidden: ValidatingAdmissionPolicy 'p.static.k8s.io' with binding 'b.static.k8s.io' " +
      'denied request: weird objects are not allowed',
    reason: 'Invalid',
    details: {
      name: 'odd',
      group: 'flowcontrol.apiserver.k8s.io',
      kind: 'flowschemas',
      causes: [{ message: "ValidatingAdmissionPolicy 'p.static.k8s.io' with binding 'b.static.k8s.io' denied request: weird objects are not allowed" }],
    },
    code: 422,
  });
  assert.equal(weird.headers.warning, '299 - "looked at it"');
  // Burst 2: the refused write above took a token too (the limiter runs first), this one the last.
  assert.is((await client.request('POST', FS, { ...as('alice'), body: { metadata: { name: 'a' } } })).status, 200);
  const limited = await client.request('POST', FS, { ...as('alice'), body: { metadata: { name: 'b' } } });
  assert.equal(
    [limited.status, limited.json()],
    [
      429,
      {
        kind: 'Status',
        apiVersion: 'v1',
        metadata: {},
        status: 'Failure',
        message: 'Too many requests: Too many requests: limit reached on type User for key alice',
        reason: 'TooManyRequests',
        code: 429,
      },
    ],
  );
});

test('kubectl auth can-i: JSON and protobuf reviews answer for the caller', async () => {
  const review = (spec: object) => ({ apiVersion: 'authorization.k8s.io/v1', kind: 'SelfSubjectAccessReview', spec });
  const allowed = await client.request('POST', selfSubjectAccessReviewPath('authorization.k8s.io'), {
    ...as('alice'),
    body: review({ resourceAttributes: { verb: 'list', group: 'flowcontrol.apiserver.k8s.io', resource: 'prioritylevelconfigurations' } }),
  });
  assert.is(allowed.status, 201);
  assert.equal(allowed.json(), {
    kind: 'SelfSubjectAccessReview',
    apiVersion: 'authorization.k8s.io/v1',
    metadata: { creationTimestamp: null },
    spec: { resourceAttributes: { verb: 'list', group: 'flowcontrol.apiserver.k8s.io', resource: 'prioritylevelconfigurations' } },
    status: { allowed: true },
  });
  const denied = await client.request('POST', selfSubjectAccessReviewPath('authorization.k8s.io'), {
    ...as('eve'),
    body: review({ nonResourceAttributes: { path: '/metrics', verb: 'get' } }),
  });
  assert.equal(denied.json().status, { allowed: false, denied: true, reason: 'eve is <blocked> & audited' });
  const neither = await client.request('POST', selfSubjectAccessReviewPath('authorization.k8s.io'), { ...as('bob'), body: review({}) });
  assert.is(neither.status, 422);
  assert.is(
    neither.json().message,
    'SelfSubjectAccessReview.authorization.k8s.io "" is invalid: spec.resourceAttributes: Invalid value: <nil>: exactly one of nonResourceAttributes ' +
      'or resourceAttributes must be specified',
  );
});

test('a decision made at once answers as a pending one does: the same 403s, 500 and pass-through', async () => {
  const requests: Array<[method: string, path: string, user: string]> = [
    ['DELETE', `${FS}/beta`, 'bob,dev'],
    ['GET', `${FS}?watch=1`, 'eve'],
    ['GET', '/metrics?<x>', '<bob>'],
    ['GET', `${FS}?limit=5`, 'broken'],
    ['GET', FS, 'alice'],
  ];
  for (const [method, path, user] of requests) {
    const pending = await client.request(method, path, as(user));
    const atOnce = await client.request(method, path, as(`${user},now`));
    const answer = (r: typeof pending) => [r.status, r.headers['content-type'], r.headers['x-content-type-options'], r.text];
    assert.equal(answer(atOnce), answer(pending), `${method} ${path} as ${user}`);
  }
});

test('allowed at once, the filter returns what next() returns: no promise or async frame of its own', async () => {
  const filter = createAuthorizationFilter({
    authorizer: createAuthorizerChain([{ type: 'AlwaysAllow', name: 'alwaysallow', authorizer: alwaysAllowAuthorizer }]),
  });
  const requestInfo = {
    verb: 'get',
    isResourceRequest: true,
    path: `${FS}/beta`,
    namespace: '',
    apiGroup: 'flowcontrol.apiserver.k8s.io',
    apiVersion: 'v1',
    resource: 'flowschemas',
    subresource: '',
    name: 'beta',
  };
  const context = { requestInfo, user: { name: 'root', groups: ['system:masters'] }, query: new URLSearchParams() } as unknown as RequestContext;
  const downstream = Promise.resolve();
  assert.is(
    filter(context, () => downstream),
    downstream,
    'system:masters',
  );
  context.user = { name: 'bob', groups: [] };
  assert.is(
    filter(context, () => downstream),
    downstream,
    'AlwaysAllow',
  );
});

test('each request is authorized with its own target and user, whatever the request before it asked', () => {
  const seen: string[] = [];
  const filter = createAuthorizationFilter({
    authorizer: {
      authorize: (a) => {
        seen.push(`${a.user.name} ${a.verb} ${a.resource}/${a.name}`);
        return { decision: 'allow', reason: '' };
      },
    },
  });
  const target = (name: string) =>
    Object.freeze({
      isResourceRequest: true,
      path: `/api/v1/pods/${name}`,
      verb: 'get',
      apiPrefix: 'api',
      apiGroup: '',
      apiVersion: 'v1',
      namespace: '',
      resource: 'pods',
      subresource: '',
      name,
    });
  const [a, b] = [target('a'), target('b')];
  const alice = { name: 'alice', groups: [] };
  const bob = { name: 'bob', groups: [] };
  const unfrozen = { ...a, name: 'c', path: '/api/v1/pods/c' };
  const requests = [
    [a, alice],
    [a, alice],
    [a, bob],
    [b, bob],
    [unfrozen, bob],
    [a, alice],
  ] as const;
  const ask = (requestInfo: object, user: object) =>
    filter({ requestInfo, user, req: { headers: {} }, query: new URLSearchParams() } as unknown as RequestContext, () => undefined);
  for (const [requestInfo, user] of requests) ask(requestInfo, user);
  // A RequestInfo that is not frozen may change between two requests that share it.
  ask(unfrozen, bob);
  unfrozen.name = 'd';
  ask(unfrozen, bob);
  assert.equal(seen, [
    'alice get pods/a',
    'alice get pods/a',
    'bob get pods/a',
    'bob get pods/b',
    'bob get pods/c',
    'alice get pods/a',
    'bob get pods/c',
    'bob get pods/d',
  ]);
});

test.run();
