// How a request ends on the server's request path: end hooks, the filters that rely on them
// (APF seats, request metrics) when its handler answers or throws, and the requests in flight.
import { once } from 'node:events';
import { createServer, request as httpRequest, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { realClock, type Clock } from '../../engine/clock.ts';
import { countingClock } from '../../engine/testing/counting-clock.ts';
import { createPriorityAndFairnessFilter } from '../filters/priority-and-fairness.ts';
import { silentLogger } from '../log.ts';
import { createFairwayMetrics } from '../metrics/fairway-metrics.ts';
import { createRequestMetricsFilter } from '../metrics/request-metrics.ts';
import { AUTHENTICATED, newTestController } from '../filters/testing/apf-fixtures.ts';
import { parseExposition, sampleValue } from '../metrics/testing/exposition.ts';
import type { Filter, RequestContext } from '../request/http-context.ts';
import { createApiServer, type ApiServer } from './request-path.ts';
import type { RouteHandler } from './routing.ts';

const PLC_PATH = '/apis/flowcontrol.apiserver.k8s.io/v1/prioritylevelconfigurations/p1';
const asMallory: Filter = (context, next) => {
  context.user = { name: 'mallory', groups: AUTHENTICATED };
  return next();
};

async function listen(
  filters: Filter[],
  resources: RouteHandler,
  clock: Clock = realClock(),
): Promise<{ server: Server; api: ApiServer; get(path?: string): Promise<{ status: number; body: string }> }> {
  const api = createApiServer({
    clock,
    logger: silentLogger,
    requestTimeoutMs: 60_000,
    filters,
    health: { healthz: [], livez: [], readyz: [] },
    resources,
    describe: async () => false,
  });
  const server = createServer(api.handle);
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const port = (server.address() as AddressInfo).port;
  const get = (path = PLC_PATH) =>
    new Promise<{ status: number; body: string }>((resolve, reject) => {
      httpRequest({ host: '127.0.0.1', port, path, agent: false, headers: { accept: 'application/json' } }, (res) => {
        let body = '';
        res.on('data', (c: Buffer) => (body += c.toString()));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
      })
        .on('error', reject)
        .end();
    });
  return { server, api, get };
}

async function eventually(check: () => boolean, what: string): Promise<void> {
  for (let i = 0; i < 200; i++) {
    if (check()) return;
    await new Promise((r) => setTimeout(r, 5));
  }
  assert.unreachable(`never: ${what}`);
}

test('a handler that throws: its 500 is what the request metrics count, and APF holds the seats until that answer is written', async () => {
  const clock = realClock();
  const controller = newTestController({ clock });
  const metrics = createFairwayMetrics();
  const seatsInUse = () => controller.dump().levels.reduce((sum, l) => sum + l.queueSet.seatsInUse, 0);
  let seatsWhileHandling = -1;
  const { server, get } = await listen(
    [asMallory, createPriorityAndFairnessFilter({ controller, enforce: true, clock }), createRequestMetricsFilter(metrics.requests, clock)],
    async () => {
      seatsWhileHandling = seatsInUse();
      throw new Error('the handler failed');
    },
  );
  try {
    const reply = await get();
    assert.is(reply.status, 500);
    assert.is(seatsWhileHandling, 1);
    await eventually(() => seatsInUse() === 0, 'seats released');
    const samples = parseExposition(await metrics.registry.metrics());
    const labels = {
      component: 'apiserver',
      dry_run: '',
      group: 'flowcontrol.apiserver.k8s.io',
      resource: 'prioritylevelconfigurations',
      scope: 'resource',
      subresource: '',
      verb: 'GET',
      version: 'v1',
    };
    assert.is(sampleValue(samples, 'apiserver_request_total', { ...labels, code: '500' }), 1);
    assert.is(sampleValue(samples, 'apiserver_request_total', { ...labels, code: '200' }), undefined);
  } finally {
    server.close();
    metrics.stop();
  }
});

test('end hooks run once each, last registered first, each with its own argument, after the chain and before the response is done', async () => {
  const ran: string[] = [];
  // One hook shared by every filter, as the server's filters share theirs: the argument says whose it is.
  const hook = (c: RequestContext, name: string) => ran.push(`${name} ${c.res.statusCode} ended=${c.res.writableEnded}`);
  const hooking =
    (name: string): Filter =>
    (context, next) => {
      context.onEnd(hook, name);
      return next();
    };
  const { server, get } = await listen([hooking('a'), hooking('b'), hooking('c'), hooking('d')], async (context) => {
    ran.push('handler');
    context.res.statusCode = 204;
    context.res.end();
  });
  try {
    assert.is((await get()).status, 204);
    await eventually(() => ran.length === 5, 'every hook ran');
    assert.equal(ran, ['handler', 'd 204 ended=true', 'c 204 ended=true', 'b 204 ended=true', 'a 204 ended=true']);
  } finally {
    server.close();
  }
});

test('a chain that answered before returning (no promise) ends the request at once: end hooks before any later turn', async () => {
  const ran: string[] = [];
  const hooking: Filter = (context, next) => {
    context.onEnd((c: RequestContext) => ran.push(`hook ${c.res.statusCode} ended=${c.res.writableEnded}`));
    return next();
  };
  const { server, api, get } = await listen([hooking], (context) => {
    queueMicrotask(() => ran.push('microtask'));
    context.res.statusCode = 204;
    context.res.end();
    return undefined;
  });
  try {
    assert.is((await get()).status, 204);
    await eventually(() => api.inFlight === 0, 'the request ended');
    assert.equal(ran, ['hook 204 ended=true', 'microtask']);
  } finally {
    server.close();
  }
});

test('a request answered within the chain arms no deadline timer; one still going on after it does, and gets its 504', async () => {
  const { clock, armed } = countingClock(realClock());
  const { server, api, get } = await listen(
    [],
    (context) => {
      if (context.requestInfo.name === 'slow') return new Promise<void>(() => {});
      context.res.statusCode = 204;
      context.res.end();
      return undefined;
    },
    clock,
  );
  try {
    assert.is((await get('/api/v1/namespaces/default/pods/now?timeout=10s')).status, 204);
    assert.is(armed(), 0, 'no timer for a request answered at once');
    assert.is((await get('/api/v1/namespaces/default/pods/slow?timeout=50ms')).status, 504);
    assert.ok(armed() >= 1, 'the deadline of a request still going on');
    await eventually(() => api.inFlight === 1, 'the abandoned handler is the only one left');
  } finally {
    server.close();
  }
});

test('requests in flight are counted as they come and go in any order, and drain waits for the last', async () => {
  const gates = new Map<string, () => void>();
  const { server, api, get } = await listen([], async (context) => {
    await new Promise<void>((resolve) => gates.set(context.requestInfo.name, resolve));
    context.res.end();
  });
  try {
    const replies = ['a', 'b', 'c'].map((name) => get(`/api/v1/namespaces/default/pods/${name}`));
    await eventually(() => gates.size === 3, 'three requests in the handler');
    assert.is(api.inFlight, 3);
    gates.get('b')!();
    await replies[1];
    await eventually(() => api.inFlight === 2, 'the middle one gone');
    gates.get('a')!();
    await replies[0];
    await eventually(() => api.inFlight === 1, 'the first one gone');
    let drained = false;
    const drain = api.drain(10_000).then(() => (drained = true));
    await new Promise((r) => setTimeout(r, 20));
    assert.not.ok(drained, 'drain waits for the last request');
    gates.get('c')!();
    await drain;
    await replies[2];
    assert.is(api.inFlight, 0);
  } finally {
    server.close();
  }
});

test('a filter that throws at once is answered 500 and the request ends like any other', async () => {
  const ended: string[] = [];
  const { server, api, get } = await listen(
    [
      (context, next) => {
        context.onEnd((c) => ended.push(`ended ${c.res.statusCode}`));
        return next();
      },
      () => {
        throw new Error('a filter failed');
      },
    ],
    async () => assert.unreachable('the handler ran'),
  );
  try {
    assert.is((await get()).status, 500);
    await eventually(() => api.inFlight === 0, 'the request ended');
    assert.equal(ended, ['ended 500']);
  } finally {
    server.close();
  }
});

test.run();
