// An open watch keeps no frame of the filter chain: once its initial events are out, the chain's
// promise has settled (every filter's `next()` with it) and the request is detached, while the
// stream goes on; the end-of-request work (end hooks, the in-flight count) runs when it ends.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import type { Filter, RequestContext } from '../request/http-context.ts';
import { openStream } from '../testing/http-client.ts';
import { startInProcessServer } from './testing/in-process.ts';

const PLC = '/apis/flowcontrol.apiserver.k8s.io/v1/prioritylevelconfigurations';
const settle = () => new Promise((resolve) => setImmediate(resolve));

test('after its initial events a watch holds no pending filter promise; it streams on and ends the request when closed', async () => {
  const settled = new Set<RequestContext>();
  const ended: RequestContext[] = [];
  const watches: RequestContext[] = [];
  const probe: Filter = (context, next) => {
    const rest = next();
    if (context.requestInfo.verb === 'watch') {
      watches.push(context);
      void Promise.resolve(rest).then(() => {
        settled.add(context);
        if (context.detached) context.onEnd((c) => ended.push(c));
      });
    }
    return rest;
  };
  const server = await startInProcessServer({ extraFilters: [probe] });
  try {
    await server.ready();
    const watch = openStream(server.baseUrl, `${PLC}?watch=true`, { token: server.token });
    await watch.until((events) => events.length > 0);
    await settle();
    assert.is(watches.length, 1);
    const context = watches[0]!;
    assert.ok(settled.has(context), "the chain's promise settled once the initial events were out");
    assert.ok(context.detached, 'the request is detached');
    assert.is(server.fairway.apiServer.inFlight, 1, 'yet still in flight');

    const before = watch.events.length;
    const created = await server.client.request('POST', PLC, {
      body: {
        apiVersion: 'flowcontrol.apiserver.k8s.io/v1',
        kind: 'PriorityLevelConfiguration',
        metadata: { name: 'detached-probe' },
        spec: { type: 'Limited', limited: { nominalConcurrencyShares: 1, limitResponse: { type: 'Reject' } } },
      },
    });
    assert.is(created.status, 201);
    await watch.until((events) => events.length > before);
    assert.equal(watch.events.at(-1)?.object?.metadata?.name, 'detached-probe', 'the detached watch still streams');

    watch.close();
    for (let i = 0; i < 200 && server.fairway.apiServer.inFlight > 0; i++) await new Promise((resolve) => setTimeout(resolve, 10));
    assert.is(server.fairway.apiServer.inFlight, 0, 'closing the watch ends the request');
    assert.equal(ended, [context], 'end hooks ran once, when the watch ended');
  } finally {
    await server.close();
  }
});

test('a watch that ends before it has to wait (an ERROR event) is not detached', async () => {
  const watches: RequestContext[] = [];
  const probe: Filter = (context, next) => {
    if (context.requestInfo.verb === 'watch') watches.push(context);
    return next();
  };
  const server = await startInProcessServer({ extraFilters: [probe], windowCapacity: 2 });
  try {
    await server.ready();
    const watch = openStream(server.baseUrl, `${PLC}?watch=true&resourceVersion=1`, { token: server.token });
    await watch.until(() => false);
    assert.is(watch.events[0]?.type, 'ERROR', '410 Expired as an event');
    assert.ok(watches.length === 1 && !watches[0]!.detached);
  } finally {
    await server.close();
  }
});

test.run();
