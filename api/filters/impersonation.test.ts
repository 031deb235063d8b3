import { test } from 'uvu';
import * as assert from 'uvu/assert';
import type { IncomingMessage } from 'node:http';
import { fakeResponse } from '../testing/fake-response.ts';
import type { Authorizer } from '../../engine/auth/authorizer.ts';
import { allow, noOpinion } from '../../engine/auth/authorizer.ts';
import type { RequestContext } from '../request/http-context.ts';
import { createImpersonationFilter } from './impersonation.ts';

function fakeContext(rawHeaders: string[]) {
  const { res, written } = fakeResponse();
  const headers: Record<string, string> = {};
  for (let i = 0; i < rawHeaders.length; i += 2) headers[rawHeaders[i]!.toLowerCase()] = rawHeaders[i + 1]!;
  const context = {
    req: { headers, rawHeaders, url: '/apis' } as unknown as IncomingMessage,
    res,
    url: new URL('/apis', 'https://x'),
    signal: new AbortController().signal,
    user: { name: 'bob', groups: ['system:authenticated'] },
  } as unknown as RequestContext;
  return { context, written, headers };
}

/** Bob may impersonate users and the group `devs`; nothing else. */
const policy: Authorizer = {
  authorize: async (a) =>
    a.verb === 'impersonate' && (a.resource === 'users' || (a.resource === 'groups' && a.name === 'devs')) ? allow() : noOpinion('not in the policy'),
};

test('without impersonation headers the request goes on untouched', async () => {
  const filter = createImpersonationFilter({ authorizer: policy });
  const { context } = fakeContext(['Accept', 'application/json']);
  let ran = false;
  await filter(context, async () => {
    ran = true;
  });
  assert.ok(ran);
  assert.is(context.user?.name, 'bob');
  assert.is(context.impersonator, undefined);
});

test('an allowed impersonation replaces the user, keeps the requestor and drops the headers', async () => {
  const filter = createImpersonationFilter({ authorizer: policy });
  const { context, headers } = fakeContext(['Impersonate-User', 'jane', 'Impersonate-Group', 'devs', 'Accept', 'application/json']);
  await filter(context, async () => undefined);
  assert.equal([context.user?.name, context.user?.groups], ['jane', ['devs', 'system:authenticated']]);
  assert.is(context.impersonator?.name, 'bob');
  assert.equal(Object.keys(headers), ['accept']);
});

test('impersonation header names are matched in any case, after other headers', async () => {
  for (const name of ['impersonate-user', 'IMPERSONATE-USER', 'iMpErSoNaTe-UsEr']) {
    const filter = createImpersonationFilter({ authorizer: policy });
    const { context } = fakeContext(['Accept', 'application/json', 'Ignore-Me', 'x', name, 'jane']);
    await filter(context, async () => undefined);
    assert.is(context.user?.name, 'jane', name);
  }
});

test('a refused impersonation is 403 with Kubernetes message', async () => {
  const filter = createImpersonationFilter({ authorizer: policy });
  const { context, written } = fakeContext(['Impersonate-User', 'jane', 'Impersonate-Group', 'system:masters']);
  await filter(context, async () => assert.unreachable('must not run'));
  assert.is(written.status, 403);
  assert.equal(JSON.parse(written.body!), {
    kind: 'Status',
    apiVersion: 'v1',
    metadata: {},
    status: 'Failure',
    message: 'groups "system:masters" is forbidden: User "bob" cannot impersonate resource "groups" in API group "" at the cluster scope: not in the policy',
    reason: 'Forbidden',
    details: { name: 'system:masters', kind: 'groups' },
    code: 403,
  });
  assert.is(context.user?.name, 'bob');
});

test('extras and uids are checked in authentication.k8s.io; a group without a user is 400', async () => {
  const filter = createImpersonationFilter({ authorizer: policy });
  const extra = fakeContext(['Impersonate-User', 'jane', 'Impersonate-Extra-Scopes', 'view']);
  await filter(extra.context, async () => assert.unreachable('must not run'));
  assert.is(
    JSON.parse(extra.written.body!).message,
    'userextras.authentication.k8s.io "view" is forbidden: User "bob" cannot impersonate resource "userextras/scopes" in API group ' +
      '"authentication.k8s.io" at the cluster scope: not in the policy',
  );
  const groupOnly = fakeContext(['Impersonate-Group', 'devs']);
  await filter(groupOnly.context, async () => assert.unreachable('must not run'));
  assert.is(groupOnly.written.status, 400);
  assert.is(JSON.parse(groupOnly.written.body!).message, 'requested [{Group  devs    }] without impersonating a user');
});

test.run();
