import { once } from 'node:events';
import { createServer, IncomingMessage, request as httpRequest, ServerResponse } from 'node:http';
import { Socket, type AddressInfo } from 'node:net';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import type { RequestInfo } from '../../engine/request/request-info.ts';
import { SimClock } from '../../engine/sim-clock.ts';
import type { Filter, RequestContext } from '../request/http-context.ts';
import { createFairwayMetrics, type FairwayMetrics } from './fairway-metrics.ts';
import { metricsHandler } from './metrics-handler.ts';
import { cleanDryRun, cleanScope, createRequestMetricsFilter, reportedVerb } from './request-metrics.ts';
import { podsInfo } from '../filters/testing/apf-fixtures.ts';
import { parseExposition, sampleValue } from './testing/exposition.ts';
import { ServedLabels } from './served-labels.ts';
import type { DiscoveryModel, ResourceModel } from '../discovery/discovery.ts';
import { parseRequestInfo } from '../request/request-info.ts';
import { UNDETACHED, withEndHooks } from '../request/testing/request-context.ts';

const q = (query = '') => new URLSearchParams(query);
const healthz: RequestInfo = {
  isResourceRequest: false,
  path: '/healthz',
  verb: 'get',
  apiGroup: '',
  apiVersion: '',
  namespace: '',
  resource: '',
  subresource: '',
  name: '',
};

// Each test's metrics stop after it: their event-loop monitor and GC observer would outlive it.
const running: FairwayMetrics[] = [];
const started = (metrics: FairwayMetrics): FairwayMetrics => (running.push(metrics), metrics);
test.after.each(() => {
  for (const metrics of running.splice(0)) metrics.stop();
});

test('the verb label is the canonical HTTP verb, as kube-apiserver reports it', () => {
  assert.is(reportedVerb('GET', podsInfo('get', 'default', 'p'), q(), undefined), 'GET');
  assert.is(reportedVerb('GET', podsInfo('list'), q(), undefined), 'LIST');
  assert.is(reportedVerb('GET', { ...podsInfo('list'), namespace: '' }, q(), undefined), 'LIST', 'cluster scope lists too');
  assert.is(reportedVerb('GET', podsInfo('watch'), q('watch=true'), undefined), 'WATCH');
  assert.is(reportedVerb('GET', podsInfo('list'), q('watch=1'), undefined), 'WATCH');
  assert.is(reportedVerb('GET', podsInfo('list'), q('watch=false'), undefined), 'LIST');
  assert.is(reportedVerb('POST', podsInfo('create'), q(), 'application/json'), 'POST');
  assert.is(reportedVerb('PATCH', podsInfo('patch', 'default', 'p'), q(), 'application/apply-patch+yaml'), 'APPLY');
  assert.is(reportedVerb('PATCH', podsInfo('patch', 'default', 'p'), q(), 'application/merge-patch+json'), 'PATCH');
  assert.is(reportedVerb('POST', { ...podsInfo('create', 'default', 'p'), subresource: 'exec' }, q(), undefined), 'CONNECT');
  assert.is(reportedVerb('DELETE', podsInfo('deletecollection'), q(), undefined), 'DELETE');
  assert.is(reportedVerb('GET', healthz, q(), undefined), 'GET');
  assert.is(reportedVerb('BREW', healthz, q(), undefined), 'other');
});

test('scope and dry-run labels follow CleanScope and cleanDryRun', () => {
  assert.is(cleanScope(podsInfo('get', 'default', 'p')), 'resource');
  assert.is(cleanScope(podsInfo('create')), 'resource');
  assert.is(cleanScope(podsInfo('list')), 'namespace');
  assert.is(cleanScope({ ...podsInfo('list'), namespace: '' }), 'cluster');
  assert.is(cleanScope(healthz), '');
  assert.is(cleanDryRun(q()), '');
  assert.is(cleanDryRun(q('dryRun=All')), 'All');
  assert.is(cleanDryRun(q('dryRun=All&dryRun=All')), 'All');
  assert.is(cleanDryRun(q('dryRun=Some')), 'invalid');
});

const pods: ResourceModel = {
  resource: 'pods',
  singularResource: 'pod',
  kind: 'Pod',
  scope: 'Namespaced',
  verbs: ['get', 'list', 'create'],
  subresources: [{ subresource: 'exec', kind: 'PodExecOptions', verbs: ['create'] }],
};
/** A server that serves pods (core v1) only. */
const podsServed = (): ServedLabels =>
  new ServedLabels({
    apidiscoveryGroup: 'apidiscovery.k8s.io',
    core: { name: '', versions: [{ version: 'v1', resources: [pods], schemas: {} }] },
    groups: [],
  } satisfies DiscoveryModel).addPaths(['/healthz']);

function fakeContext(method: string, path: string, requestInfo: RequestInfo, receivedMs: number): RequestContext & { runEndHooks(): void } {
  const req = new IncomingMessage(new Socket());
  req.method = method;
  const res = new ServerResponse(req);
  return withEndHooks({
    req,
    res,
    url: new URL(`http://localhost${path}`),
    query: new URL(`http://localhost${path}`).searchParams,
    requestInfo,
    user: { name: 'u', groups: [] },
    receivedMs,
    deadlineMs: receivedMs + 60_000,
    signal: new AbortController().signal,
    watchInitialized: Promise.resolve(),
    markWatchInitialized: () => {},
    ...UNDETACHED,
  });
}

/** The filter in front of `handler`, then the end of the request as the server ends it. */
async function serve(filter: Filter, context: RequestContext & { runEndHooks(): void }, handler: () => Promise<void>): Promise<void> {
  await filter(context, handler);
  context.runEndHooks();
}

test('the request-metrics filter counts answered resource requests with their code and duration; APF drops add a 429', async () => {
  const clock = new SimClock(5_000);
  const metrics = started(createFairwayMetrics(podsServed()));
  const filter = createRequestMetricsFilter(metrics.requests, clock);
  const list = fakeContext('GET', '/api/v1/namespaces/default/pods', podsInfo('list'), clock.now());
  await serve(filter, list, async () => {
    clock.advance(300);
    list.res.statusCode = 200;
  });
  const missing = fakeContext('GET', '/api/v1/namespaces/default/pods/x', podsInfo('get', 'default', 'x'), clock.now());
  await serve(filter, missing, async () => {
    missing.res.statusCode = 404;
  });
  await serve(filter, fakeContext('GET', '/healthz', healthz, clock.now()), async () => {});
  metrics.apfFilterObserver.rejected?.(fakeContext('POST', '/api/v1/namespaces/default/pods?dryRun=All', podsInfo('create'), clock.now()), undefined as never);

  const samples = parseExposition(await metrics.registry.metrics());
  const labels = { component: 'apiserver', dry_run: '', group: '', resource: 'pods', subresource: '', version: 'v1' };
  assert.is(sampleValue(samples, 'apiserver_request_total', { ...labels, verb: 'LIST', scope: 'namespace', code: '200' }), 1);
  assert.is(sampleValue(samples, 'apiserver_request_total', { ...labels, verb: 'GET', scope: 'resource', code: '404' }), 1);
  assert.is(sampleValue(samples, 'apiserver_request_total', { ...labels, dry_run: 'All', verb: 'POST', scope: 'resource', code: '429' }), 1);
  assert.is(samples.filter((s) => s.name === 'apiserver_request_total').length, 3, 'non-resource requests are not counted');
  const listDuration = { ...labels, verb: 'LIST', scope: 'namespace' };
  assert.is(sampleValue(samples, 'apiserver_request_duration_seconds_bucket', { ...listDuration, le: '0.2' }), 0);
  assert.is(sampleValue(samples, 'apiserver_request_duration_seconds_bucket', { ...listDuration, le: '0.4' }), 1);
  assert.is(sampleValue(samples, 'apiserver_request_duration_seconds_sum', listDuration), 0.3);
  const { dry_run: _, ...terminationLabels } = labels;
  assert.is(sampleValue(samples, 'apiserver_request_terminations_total', { ...terminationLabels, verb: 'POST', scope: 'resource', code: '429' }), 1);
});

/** The samples after answering each (method, URL, code) for requests sharing one RequestInfo, as a kept target's do. */
async function countSharedTarget(answers: [string, string, number][]): Promise<ReturnType<typeof parseExposition>> {
  const clock = new SimClock(5_000);
  const metrics = started(createFairwayMetrics(podsServed()));
  const filter = createRequestMetricsFilter(metrics.requests, clock);
  const shared = podsInfo('get', 'default', 'x');
  for (const [method, url, code] of answers) {
    const context = fakeContext(method, url, shared, clock.now());
    await serve(filter, context, async () => {
      context.res.statusCode = code;
    });
  }
  return parseExposition(await metrics.registry.metrics());
}

test('requests sharing one RequestInfo (a query-less target) are counted by their own method, query and code', async () => {
  const samples = await countSharedTarget([
    ['GET', '/api/v1/namespaces/default/pods/x', 200],
    ['GET', '/api/v1/namespaces/default/pods/x', 200],
    ['GET', '/api/v1/namespaces/default/pods/x', 404],
    ['DELETE', '/api/v1/namespaces/default/pods/x', 200],
    ['DELETE', '/api/v1/namespaces/default/pods/x?dryRun=All', 200],
  ]);
  const labels = { component: 'apiserver', dry_run: '', group: '', resource: 'pods', subresource: '', version: 'v1', scope: 'resource' };
  assert.is(sampleValue(samples, 'apiserver_request_total', { ...labels, verb: 'GET', code: '200' }), 2);
  assert.is(sampleValue(samples, 'apiserver_request_total', { ...labels, verb: 'GET', code: '404' }), 1);
  assert.is(sampleValue(samples, 'apiserver_request_total', { ...labels, verb: 'DELETE', code: '200' }), 1);
  assert.is(sampleValue(samples, 'apiserver_request_total', { ...labels, dry_run: 'All', verb: 'DELETE', code: '200' }), 1);
});

test('one series counts each code by itself however the codes alternate, codes outside the label set as "other"', async () => {
  const codes = [200, 200, 404, 200, 1000, 1000, 404, 200, 99, 200];
  const samples = await countSharedTarget(codes.map((code) => ['GET', '/api/v1/namespaces/default/pods/x', code]));
  const labels = { component: 'apiserver', dry_run: '', group: '', resource: 'pods', subresource: '', version: 'v1', scope: 'resource', verb: 'GET' };
  assert.is(sampleValue(samples, 'apiserver_request_total', { ...labels, code: '200' }), 5);
  assert.is(sampleValue(samples, 'apiserver_request_total', { ...labels, code: '404' }), 2);
  assert.is(sampleValue(samples, 'apiserver_request_total', { ...labels, code: 'other' }), 3);
});

test('labels from the URL name only what is served; everything else is one "other" bucket per level', () => {
  const served = podsServed();
  const labels = (path: string) => served.resource(parseRequestInfo('GET', path, q()));
  assert.equal(labels('/api/v1/namespaces/default/pods/p'), { group: '', version: 'v1', resource: 'pods', subresource: '' });
  assert.equal(labels('/api/v1/namespaces/default/pods/p/exec'), { group: '', version: 'v1', resource: 'pods', subresource: 'exec' });
  assert.equal(labels('/api/v1/namespaces/default/pods/p/s1'), { group: '', version: 'v1', resource: 'pods', subresource: 'other' });
  assert.equal(labels('/api/v1/r1/n'), { group: '', version: 'v1', resource: 'other', subresource: 'other' });
  assert.equal(labels('/api/v9/pods'), { group: '', version: 'other', resource: 'other', subresource: 'other' });
  assert.equal(labels('/apis/g1.x/v1/r1/n/s1'), { group: 'other', version: 'other', resource: 'other', subresource: 'other' });
  assert.equal(labels('/apis/__proto__/constructor/prototype'), { group: 'other', version: 'other', resource: 'other', subresource: 'other' });
  assert.is(served.path('/healthz'), '/healthz');
  assert.is(served.path('/api/v1'), '/api/v1', 'discovery paths of the model are served');
  assert.is(served.path('/x1'), 'other');
});

test('thousands of requests to unserved paths, rejections and odd methods add a bounded number of series', async () => {
  const clock = new SimClock(0);
  const metrics = started(createFairwayMetrics(podsServed()));
  const filter = createRequestMetricsFilter(metrics.requests, clock);
  const count = async () => {
    const text = await metrics.registry.metrics();
    return text.split('\n').filter((line) => line.startsWith('apiserver_request_')).length;
  };
  const send = async (i: number, code: number) => {
    const path = [`/apis/g${i}.x/v1/r${i}/n/s${i}`, `/api/v1/r${i}`, `/api/v1/namespaces/n${i}/pods/p${i}/s${i}`, `/x${i}/y`][i % 4]!;
    const method = ['GET', 'POST', `M${i}`, 'DELETE'][i % 4]!;
    const context = fakeContext(method, `${path}?dryRun=d${i}&watch=${i}`, parseRequestInfo(method, path, q(`dryRun=d${i}`)), clock.now());
    await serve(filter, context, async () => {
      context.res.statusCode = code;
    });
    metrics.apfFilterObserver.rejected?.(context, undefined as never);
  };
  for (let i = 0; i < 400; i++) await send(i, i % 2 === 0 ? 403 : 404);
  const after400 = await count();
  for (let i = 400; i < 4_000; i++) await send(i, i % 2 === 0 ? 403 : 404);
  assert.is(await count(), after400, '3,600 more distinct paths add no series');
  assert.ok(after400 < 400, `${after400} lines for 400 distinct paths`);
});

test('GET /metrics serves the registry in the Prometheus text format', async () => {
  const metrics = started(createFairwayMetrics());
  const handler = metricsHandler(metrics.registry);
  const server = createServer((req, res) => {
    void handler({
      req,
      res,
      url: new URL(`http://localhost${req.url ?? '/'}`),
      query: new URL(`http://localhost${req.url ?? '/'}`).searchParams,
      requestInfo: healthz,
      user: undefined,
      receivedMs: 0,
      deadlineMs: 0,
      signal: new AbortController().signal,
      watchInitialized: Promise.resolve(),
      markWatchInitialized: () => {},
      ...UNDETACHED,
    });
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  try {
    const { status, type, body } = await new Promise<{ status: number; type: string; body: string }>((resolve, reject) => {
      httpRequest({ host: '127.0.0.1', port: (server.address() as AddressInfo).port, path: '/metrics', agent: false }, (res) => {
        let body = '';
        res.on('data', (c: Buffer) => (body += c.toString()));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, type: String(res.headers['content-type']), body }));
      })
        .on('error', reject)
        .end();
    });
    assert.is(status, 200);
    assert.is(type, 'text/plain; version=0.0.4; charset=utf-8');
    assert.ok(body.includes('# TYPE apiserver_flowcontrol_nominal_limit_seats gauge\n'));
    assert.ok(body.includes('# TYPE apiserver_request_duration_seconds histogram\n'));
    assert.ok(body.includes('# TYPE nodejs_gc_duration_seconds histogram\n'));
  } finally {
    server.close();
  }
});

test.run();
