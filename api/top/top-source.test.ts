import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { refusalMessage, refusedUser, unreachableMessage } from './top-source.ts';

const forbidden = (message: string) => JSON.stringify({ kind: 'Status', apiVersion: 'v1', status: 'Failure', message, reason: 'Forbidden', code: 403 });

test('a 403 names the user and the ClusterRole rule that would allow the path', () => {
  const body = forbidden('forbidden: User "dave" cannot get path "/metrics"');
  assert.is(refusedUser(body), 'dave');
  assert.is(
    refusalMessage('/metrics', 403, body),
    'user "dave" may not get nonResourceURL /metrics: needs a ClusterRole with nonResourceURLs [/metrics] verbs [get], bound to that user',
  );
  assert.is(
    refusalMessage('/debug/api_priority_and_fairness/dump_requests', 403, 'not json', '/debug/api_priority_and_fairness/*'),
    "the kubeconfig's user may not get nonResourceURL /debug/api_priority_and_fairness/dump_requests: " +
      'needs a ClusterRole with nonResourceURLs [/debug/api_priority_and_fairness/*] verbs [get], bound to that user',
  );
  assert.match(refusalMessage('/metrics', 401, ''), /did not accept the kubeconfig's credentials .*401 Unauthorized/);
});

test('an unreachable server: the address and the reason in words', () => {
  const refused = Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:1'), { code: 'ECONNREFUSED' });
  assert.match(unreachableMessage('https://127.0.0.1:1', refused), /^cannot reach https:\/\/127\.0\.0\.1:1: connection refused/);
  const unknownHost = Object.assign(new Error('getaddrinfo ENOTFOUND x'), { code: 'ENOTFOUND' });
  assert.is(unreachableMessage('https://x:6443', unknownHost), 'cannot reach https://x:6443: no such host');
  assert.is(unreachableMessage('https://x', new Error('self-signed certificate')), 'cannot reach https://x: self-signed certificate');
});

test.run();
