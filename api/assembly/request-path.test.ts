// Request time-outs on a virtual clock: real node:http requests, the request path's own deadlines.
import { createServer, request, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { SimClock } from '../../engine/sim-clock.ts';
import { silentLogger } from '../log.ts';
import type { RequestContext } from '../request/http-context.ts';
import { createApiServer } from './request-path.ts';

const PLC = '/apis/flowcontrol.apiserver.k8s.io/v1/prioritylevelconfigurations/p';

interface Answer {
  status: number;
  body: string;
}

/** A GET; a connection cut before the answer gives status 0. */
function get(server: Server, path: string): Promise<Answer> {
  const { port } = server.address() as AddressInfo;
  return new Promise((resolve) => {
    const req = request({ port, path, headers: { Accept: 'application/json' } }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => (body += chunk));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
    });
    req.on('error', () => resolve({ status: 0, body: '' }));
    req.end();
  });
}

/** The request path on a virtual clock, listening on a real socket, with `resources` as its only handler. */
async function start(clock: SimClock, resources: (context: RequestContext) => Promise<void>) {
  const apiServer = createApiServer({
    clock,
    logger: silentLogger,
    requestTimeoutMs: 60_000,
    filters: [],
    health: { healthz: [], livez: [], readyz: [] },
    resources,
    describe: async () => false,
  });
  const server = createServer(apiServer.handle);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const close = async () => {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  };
  return { apiServer, server, close };
}

test("requests wait on one timer: a shorter ?timeout= ends first, the server's own --request-timeout later, each with kube's 504", async () => {
  const clock = new SimClock(0);
  const aborted: string[] = [];
  // A handler that never answers: it waits for its request to be aborted.
  const { apiServer, server, close } = await start(
    clock,
    (context) =>
      new Promise<void>((resolve) =>
        context.signal.addEventListener('abort', () => {
          aborted.push(`${context.url.search}@${clock.now()}`);
          resolve();
        }),
      ),
  );
  const inFlight = async (count: number) => {
    while (apiServer.inFlight < count) await new Promise((resolve) => setImmediate(resolve));
  };
  try {
    const answers: string[] = [];
    // Received at 0 and at 1 s, so each deadline is its own: 60 s, then 6 s and 61 s.
    const own = get(server, PLC).then((a) => (answers.push('own'), a));
    await inFlight(1);
    clock.advance(1_000);
    const short = get(server, `${PLC}?timeout=5s`).then((a) => (answers.push('short'), a));
    const long = get(server, `${PLC}?timeout=10m`).then((a) => (answers.push('long'), a));
    await inFlight(3);
    assert.is(clock.pending, 1, 'one timer for three deadlines');
    clock.advance(5_000);
    const shortAnswer = await short;
    assert.equal(answers, ['short']);
    assert.is(clock.pending, 1);
    clock.advance(54_000);
    const ownAnswer = await own;
    assert.equal(answers, ['short', 'own']);
    clock.advance(1_000);
    const longAnswer = await long;
    assert.equal(answers, ['short', 'own', 'long'], 'a ?timeout= above --request-timeout is capped by it');
    for (const answer of [shortAnswer, ownAnswer, longAnswer]) {
      assert.is(answer.status, 504);
      const status = JSON.parse(answer.body) as { kind: string; reason: string; code: number; message: string };
      assert.equal(
        [status.kind, status.reason, status.code, status.message],
        ['Status', 'Timeout', 504, 'Timeout: request did not complete within requested timeout - context deadline exceeded'],
      );
    }
    assert.equal(aborted, ['?timeout=5s@6000', '@60000', '?timeout=10m@61000'], 'each handler is told at its deadline');
    while (apiServer.inFlight > 0) await new Promise((resolve) => setImmediate(resolve));
    assert.is(clock.pending, 0, 'no timer left once the last deadline fired');
  } finally {
    await close();
  }
});

test('a request that ends before its deadline is never timed out; the one timer outlives it, unused, until it fires', async () => {
  const clock = new SimClock(0);
  const aborted: string[] = [];
  const { apiServer, server, close } = await start(clock, async (context) => {
    context.signal.addEventListener('abort', () => aborted.push(context.url.search));
    context.res.statusCode = 200;
    context.res.end('{}');
  });
  try {
    for (const path of [PLC, `${PLC}?timeout=5s`]) {
      const answer = await get(server, path);
      assert.is(answer.status, 200);
      while (apiServer.inFlight > 0) await new Promise((resolve) => setImmediate(resolve));
      assert.is(clock.pending, 1, `${path}: the timer is not cancelled with the request's deadline`);
    }
    clock.advance(120_000);
    assert.equal(aborted, [], 'no request ended is told of a deadline');
    assert.is(clock.pending, 0, 'the timer fired once, found nothing due and was not armed again');
  } finally {
    await close();
  }
});

test.run();
