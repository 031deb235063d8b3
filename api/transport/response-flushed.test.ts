import { createServer, request, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { HTTP1_SERVER_OPTIONS } from './http1-connection.ts';
import { responseFlushed, whenFlushed } from '../request/response-flushed.ts';

/** A server whose handler sends `bytes` and reports when `responseFlushed` resolved; the client starts paused. */
async function exchange(bytes: number, end: boolean) {
  const events: string[] = [];
  let response: ServerResponse | undefined;
  const server = createServer((_req, res) => {
    response = res;
    if (end) res.end(Buffer.alloc(bytes, 0x61));
    events.push('handler returned');
    void responseFlushed(res).then(() => events.push('flushed'));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  const body = new Promise<number>((resolve) => {
    request({ host: '127.0.0.1', port, path: '/' }, (res) => {
      res.pause();
      let received = 0;
      res.on('data', (chunk: Buffer) => (received += chunk.length));
      res.on('end', () => resolve(received));
      // Read only after the server had every chance to flush on its own.
      setTimeout(() => {
        events.push('client reads');
        res.resume();
      }, 200);
    }).end();
  });
  return { events, body, server, response: () => response };
}

test('a large body to a paused client is flushed only after the client reads', async () => {
  const run = await exchange(32 * 1024 * 1024, true);
  assert.is(await run.body, 32 * 1024 * 1024);
  await new Promise((resolve) => setImmediate(resolve));
  assert.equal(run.events, ['handler returned', 'client reads', 'flushed']);
  run.server.close();
});

test('a small body is flushed without the client reading', async () => {
  const run = await exchange(10, true);
  await run.body;
  assert.equal(run.events, ['handler returned', 'flushed', 'client reads']);
  run.server.close();
});

test('a response nobody ended resolves at once', async () => {
  const run = await exchange(0, false);
  while (run.response() === undefined) await new Promise((resolve) => setTimeout(resolve, 5));
  await new Promise((resolve) => setImmediate(resolve));
  assert.equal(run.events, ['handler returned', 'flushed']);
  run.response()!.end();
  await run.body;
  run.server.close();
});

test('whenFlushed on an HTTP/1.1 response runs each hook once, in the order added, on its one close listener', async () => {
  const calls: string[] = [];
  const listeners: number[] = [];
  const server = createServer(HTTP1_SERVER_OPTIONS, (_req, res) => {
    res.end('{}');
    for (const name of ['a', 'b', 'c']) whenFlushed(res, () => calls.push(name), undefined);
    listeners.push(res.listenerCount('close'));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  await new Promise<void>((resolve) => request({ host: '127.0.0.1', port, path: '/' }, (res) => res.resume().on('end', resolve)).end());
  await new Promise((resolve) => setImmediate(resolve));
  assert.equal(calls, ['a', 'b', 'c']);
  assert.equal(listeners, [1], "the hooks ride on the response's own listener");
  server.close();
});

test('whenFlushed hands each hook its response and argument: HTTP/1.1 hooks, a plain response, and at once when already flushed', async () => {
  const calls: [string, string, boolean][] = [];
  const hook = (res: ServerResponse, arg: string): void => {
    calls.push([arg, (res as { label?: string }).label ?? '', res.writableEnded]);
  };
  for (const options of [HTTP1_SERVER_OPTIONS, {}]) {
    const server = createServer(options, (_req, res) => {
      (res as { label?: string }).label = options === HTTP1_SERVER_OPTIONS ? 'http1' : 'plain';
      whenFlushed(res, hook, 'before end');
      res.end('{}');
      for (const name of ['a', 'b', 'c']) whenFlushed(res, hook, name);
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const port = (server.address() as AddressInfo).port;
    await new Promise<void>((resolve) => request({ host: '127.0.0.1', port, path: '/' }, (res) => res.resume().on('end', resolve)).end());
    await new Promise((resolve) => setImmediate(resolve));
    server.close();
  }
  // Not ended yet when asked: flushed at once, as responseFlushed resolves at once.
  assert.equal(calls, [
    ['before end', 'http1', false],
    ['a', 'http1', true],
    ['b', 'http1', true],
    ['c', 'http1', true],
    ['before end', 'plain', false],
    ['a', 'plain', true],
    ['b', 'plain', true],
    ['c', 'plain', true],
  ]);
});

test.run();
