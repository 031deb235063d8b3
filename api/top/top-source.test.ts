import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadWebhookKubeconfig } from '../../engine/auth/webhook-kubeconfig.ts';
import { realClock } from '../../engine/clock.ts';
import { startHostileServer } from '../../sim/import/testing/hostile-api-server.ts';
import { createSource, DUMP_PRIORITY_LEVELS, DUMP_REQUESTS, METRICS_PATH, refusalMessage, refusedUser, ScrapeError, unreachableMessage } from './top-source.ts';

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

test('a scrape: /metrics is required, each dump optional with the reason it is missing', async () => {
  const dir = await mkdtemp(join(tmpdir(), 'fairway-top-source-'));
  const server = await startHostileServer(dir);
  try {
    const loaded = loadWebhookKubeconfig(server.kubeconfig);
    assert.ok(loaded.ok);
    if (!loaded.ok) return;
    const source = createSource(loaded.connection, realClock(), 5_000);
    const refused = (path: string) => ({ status: 403, body: forbidden(`forbidden: User "eve" cannot get path "${path}"`) });
    server.answers.set(METRICS_PATH, { body: 'apiserver_flowcontrol_nominal_limit_seats{priority_level="a"} 1\n' });
    server.answers.set(DUMP_PRIORITY_LEVELS, refused(DUMP_PRIORITY_LEVELS));
    server.answers.set(DUMP_REQUESTS, refused(DUMP_REQUESTS));
    let scrape = await source.scrape();
    assert.equal(scrape.notices, [
      'user "eve" may not get nonResourceURL /debug/api_priority_and_fairness/dump_*: needs a ClusterRole with nonResourceURLs ' +
        '[/debug/api_priority_and_fairness/*] verbs [get], bound to that user; active queues and flows are not shown',
    ]);
    assert.equal([scrape.dumpPriorityLevels, scrape.dumpRequests], [undefined, undefined]);

    server.answers.set(DUMP_PRIORITY_LEVELS, { body: 'PriorityLevelName, ActiveQueues\n' });
    server.answers.delete(DUMP_REQUESTS);
    scrape = await source.scrape();
    assert.equal(scrape.notices, ['/debug/api_priority_and_fairness/dump_requests: HTTP 404 (is API Priority and Fairness enabled?); flows are not shown']);
    assert.is(scrape.dumpPriorityLevels, 'PriorityLevelName, ActiveQueues\n');

    server.answers.set(METRICS_PATH, refused(METRICS_PATH));
    const error = await source.scrape().then(
      () => undefined,
      (e: unknown) => e,
    );
    assert.instance(error, ScrapeError);
    assert.match(
      (error as Error).message,
      /^user "eve" may not get nonResourceURL \/metrics: needs a ClusterRole with nonResourceURLs \[\/metrics\] verbs \[get\]/,
    );
  } finally {
    await server.close();
    await rm(dir, { recursive: true, force: true });
  }
});

test.run();
