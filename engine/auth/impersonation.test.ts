import { test } from 'uvu';
import * as assert from 'uvu/assert';
import type { AuthorizationAttributes, Authorizer } from './authorizer.ts';
import { allow, noOpinion } from './authorizer.ts';
import { describeUser, impersonate, impersonatedUser, impersonationTargets, type HeaderLine } from './impersonation.ts';

const requestor = { name: 'bob', groups: ['ops', 'system:authenticated'] };
const plain = (user: { name: string; groups: string[]; uid?: string; extra?: Record<string, string[]> }) => ({ ...user, extra: { ...user.extra } });

test('headers become targets in Kubernetes order: user, groups, extras (key unescaped), uid', () => {
  const headers: HeaderLine[] = [
    ['impersonate-uid', '1234'],
    ['impersonate-extra-acme.com%2fproject', 'p1'],
    ['impersonate-group', 'devs'],
    ['impersonate-user', 'jane'],
    ['impersonate-group', 'a,b'],
    ['impersonate-extra-acme.com%2fproject', 'p2'],
  ];
  assert.equal(impersonationTargets(headers), {
    ok: true,
    targets: [
      { kind: 'User', name: 'jane' },
      { kind: 'Group', name: 'devs' },
      { kind: 'Group', name: 'a,b' },
      { kind: 'UserExtra', key: 'acme.com/project', value: 'p1' },
      { kind: 'UserExtra', key: 'acme.com/project', value: 'p2' },
      { kind: 'UID', uid: '1234' },
    ],
  });
  assert.equal(impersonationTargets([]), { ok: true, targets: [] });
  assert.equal(impersonationTargets([['impersonate-user', '']]), { ok: true, targets: [] });
});

test('a service account user name is a ServiceAccount target only when namespace and name are valid', () => {
  assert.equal(impersonationTargets([['impersonate-user', 'system:serviceaccount:kube-system:default']]), {
    ok: true,
    targets: [{ kind: 'ServiceAccount', namespace: 'kube-system', name: 'default' }],
  });
  for (const odd of ['system:serviceaccount:Kube:x', 'system:serviceaccount:a:b:c', 'system:serviceaccount:a']) {
    assert.equal(impersonationTargets([['impersonate-user', odd]]), { ok: true, targets: [{ kind: 'User', name: odd }] }, odd);
  }
});

test('groups, extras or a uid without a user: Kubernetes message, ObjectReferences printed as Go prints them', () => {
  assert.equal(impersonationTargets([['impersonate-group', 'system:masters']]), {
    ok: false,
    error: 'requested [{Group  system:masters    }] without impersonating a user',
  });
  assert.equal(
    impersonationTargets([
      ['impersonate-extra-scopes', 'view'],
      ['impersonate-uid', 'u1'],
    ]),
    {
      ok: false,
      error: 'requested [{UserExtra  view  authentication.k8s.io/v1  scopes} {UID  u1  authentication.k8s.io/v1  }] without impersonating a user',
    },
  );
});

test('the impersonated user: system:authenticated added unless the groups settle it; a service account gets its groups', () => {
  assert.equal(plain(impersonatedUser([{ kind: 'User', name: 'jane' }])), { name: 'jane', groups: ['system:authenticated'], extra: {} });
  assert.equal(
    plain(
      impersonatedUser([
        { kind: 'User', name: 'jane' },
        { kind: 'Group', name: 'system:unauthenticated' },
      ]),
    ),
    {
      name: 'jane',
      groups: ['system:unauthenticated'],
      extra: {},
    },
  );
  assert.equal(plain(impersonatedUser([{ kind: 'User', name: 'system:anonymous' }])), {
    name: 'system:anonymous',
    groups: ['system:unauthenticated'],
    extra: {},
  });
  assert.equal(plain(impersonatedUser([{ kind: 'ServiceAccount', namespace: 'ns', name: 'sa' }])), {
    name: 'system:serviceaccount:ns:sa',
    groups: ['system:serviceaccounts', 'system:serviceaccounts:ns', 'system:authenticated'],
    extra: {},
  });
  assert.equal(
    plain(
      impersonatedUser([
        { kind: 'ServiceAccount', namespace: 'ns', name: 'sa' },
        { kind: 'Group', name: 'g' },
      ]),
    ),
    {
      name: 'system:serviceaccount:ns:sa',
      groups: ['g', 'system:authenticated'],
      extra: {},
    },
  );
  const full = impersonatedUser([
    { kind: 'User', name: 'jane' },
    { kind: 'UserExtra', key: '__proto__', value: 'x' },
    { kind: 'UID', uid: 'u-1' },
  ]);
  assert.equal([full.name, full.uid, full.groups], ['jane', 'u-1', ['system:authenticated']]);
  assert.equal(Object.getOwnPropertyDescriptor(full.extra, '__proto__')?.value, ['x']);
  assert.is(Object.getPrototypeOf(full.extra), null, 'extras keyed by request text live in a null-prototype object');
});

function recordingAuthorizer(
  refuse?: (a: AuthorizationAttributes) => { reason: string; error?: string } | undefined,
): Authorizer & { asked: AuthorizationAttributes[] } {
  const asked: AuthorizationAttributes[] = [];
  return {
    asked,
    authorize: async (attributes) => {
      asked.push(attributes);
      const refusal = refuse?.(attributes);
      if (refusal === undefined) return allow();
      return { ...noOpinion(refusal.reason), ...(refusal.error !== undefined ? { error: refusal.error } : {}) };
    },
  };
}

test('each target is authorized as `impersonate` on its resource, in order', async () => {
  const authorizer = recordingAuthorizer();
  const outcome = await impersonate(
    requestor,
    [
      ['impersonate-user', 'system:serviceaccount:ns:sa'],
      ['impersonate-group', 'devs'],
      ['impersonate-extra-scopes', 'view'],
      ['impersonate-uid', 'u1'],
    ],
    authorizer,
  );
  assert.is(outcome.kind, 'impersonating');
  const summary = authorizer.asked.map((a) => [
    a.user.name,
    a.verb,
    a.apiGroup,
    a.apiVersion,
    a.resource,
    a.subresource,
    a.namespace,
    a.name,
    a.isResourceRequest,
  ]);
  assert.equal(summary, [
    ['bob', 'impersonate', '', '', 'serviceaccounts', '', 'ns', 'sa', true],
    ['bob', 'impersonate', '', '', 'groups', '', '', 'devs', true],
    ['bob', 'impersonate', 'authentication.k8s.io', 'v1', 'userextras', 'scopes', '', 'view', true],
    ['bob', 'impersonate', 'authentication.k8s.io', 'v1', 'uids', '', '', 'u1', true],
  ]);
});

test('the first refusal forbids with its attributes and reason; an authorizer error forbids too', async () => {
  const refusing = recordingAuthorizer((a) => (a.resource === 'groups' ? { reason: 'no groups for bob' } : undefined));
  const outcome = await impersonate(
    requestor,
    [
      ['impersonate-user', 'jane'],
      ['impersonate-group', 'system:masters'],
      ['impersonate-uid', 'x'],
    ],
    refusing,
  );
  assert.is(outcome.kind, 'forbidden');
  if (outcome.kind !== 'forbidden') return;
  assert.is(outcome.attributes.resource, 'groups');
  assert.is(outcome.attributes.name, 'system:masters');
  assert.is(outcome.reason, 'no groups for bob');
  assert.is(refusing.asked.length, 2, 'nothing asked after the refusal');

  const failing = recordingAuthorizer(() => ({ reason: '', error: 'webhook down' }));
  assert.is((await impersonate(requestor, [['impersonate-user', 'jane']], failing)).kind, 'forbidden');
  assert.equal(await impersonate(requestor, [['accept', 'x']], failing), { kind: 'none' });
});

test('describeUser prints name[groups] as Kubernetes logs it', () => {
  assert.is(describeUser({ name: 'admin', groups: ['system:masters', 'system:authenticated'] }), 'admin[system:masters,system:authenticated]');
  assert.is(describeUser({ name: '', groups: [] }), '<empty>');
});

test.run();
