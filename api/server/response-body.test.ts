import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { createServer, request, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { CHUNK_BYTES, ChunkedBody, sendBody } from './response-body.ts';

/** Serves one response with `handler`, reads it (slowly when asked) and reports what was written. */
async function exchange(handler: (res: ServerResponse) => unknown, options: { readDelayMs?: number } = {}) {
  const writes: number[] = [];
  let handled: Promise<unknown> = Promise.resolve();
  const server = createServer((_req, res) => {
    const write = res.write.bind(res);
    res.write = ((chunk: Uint8Array, ...rest: never[]) => {
      writes.push(chunk.byteLength);
      return write(chunk, ...rest);
    }) as typeof res.write;
    handled = Promise.resolve(handler(res));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  try {
    const { port } = server.address() as AddressInfo;
    const body = await new Promise<{ status: number; headers: Record<string, unknown>; bytes: Buffer }>((resolve, reject) => {
      const req = request({ host: '127.0.0.1', port, path: '/' }, (res) => {
        const chunks: Buffer[] = [];
        if (options.readDelayMs !== undefined) {
          res.pause();
          setTimeout(() => res.resume(), options.readDelayMs);
        }
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, bytes: Buffer.concat(chunks) }));
      });
      req.on('error', reject);
      req.end();
    });
    await handled;
    return { ...body, writes };
  } finally {
    await new Promise((resolve) => server.close(resolve));
  }
}

const pattern = (length: number, seed: number): Buffer => {
  const bytes = Buffer.allocUnsafe(length);
  for (let i = 0; i < length; i++) bytes[i] = (i * 31 + seed) & 0xff;
  return bytes;
};

test('a small body goes out in one call with its length; a large one in chunks of at most CHUNK_BYTES', async () => {
  const small = await exchange((res) => sendBody(res, 201, 'application/json', [Buffer.from('{"a":'), Buffer.from('1}\n')], 8));
  assert.is(small.status, 201);
  assert.is(small.bytes.toString(), '{"a":1}\n');
  assert.is(small.headers['content-length'], '8');
  assert.equal(small.writes, [], 'res.end only');

  // Many small parts and a few larger than a chunk, as a LIST of cached objects can be.
  const parts = [
    ...Array.from({ length: 500 }, (_, i) => pattern(700 + (i % 50), i)),
    pattern(3 * CHUNK_BYTES + 17, 1),
    pattern(5, 2),
    pattern(CHUNK_BYTES, 3),
  ];
  const total = parts.reduce((sum, p) => sum + p.byteLength, 0);
  const large = await exchange((res) => sendBody(res, 200, 'application/json', parts, total), { readDelayMs: 50 });
  assert.is(large.status, 200);
  assert.is(large.headers['content-length'], String(total));
  assert.ok(large.bytes.equals(Buffer.concat(parts)), 'every byte arrives, in order');
  assert.ok(large.writes.length >= Math.floor(total / CHUNK_BYTES) - 1, `written in chunks (${large.writes.length} writes)`);
  assert.ok(
    large.writes.every((n) => n <= CHUNK_BYTES),
    'no write is larger than a chunk',
  );
});

test('between two chunks the event loop runs other work', async () => {
  const seen: string[] = [];
  const parts = Array.from({ length: 8 }, (_, i) => pattern(CHUNK_BYTES, i));
  await exchange((res) => {
    const sent = sendBody(res, 200, 'application/octet-stream', parts, 8 * CHUNK_BYTES);
    // Queued once the first chunk is written: it runs while the body is still under way.
    setImmediate(() => seen.push(res.writableEnded ? 'other work after the body' : 'other work during the body'));
    return Promise.resolve(sent).then(() => seen.push('body done'));
  });
  assert.equal(seen, ['other work during the body', 'body done']);
});

test('a response closed by the client stops the writer', async () => {
  let done!: (finished: boolean) => void;
  const outcome = new Promise<boolean>((resolve) => (done = resolve));
  const server = createServer((_req, res) => {
    const body = new ChunkedBody(res);
    for (let i = 0; i < 200; i++) body.append(pattern(CHUNK_BYTES, i));
    res.statusCode = 200;
    void body.end().then(done);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  const req = request({ host: '127.0.0.1', port, path: '/' }, (res) => {
    res.once('data', () => req.destroy());
  });
  req.on('error', () => undefined);
  req.end();
  assert.is(await outcome, false, 'end() reports that the body was not finished');
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
});

test('a writer waiting on a full socket gives up when told to, and says so', async () => {
  let stalled = false;
  const server = createServer((_req, res) => {
    const body = new ChunkedBody(res, { abandonWhen: () => stalled });
    for (let i = 0; i < 400; i++) body.append(pattern(CHUNK_BYTES, i));
    res.statusCode = 200;
    void body.end().then((finished) => done({ finished, abandoned: body.abandoned, destroyed: res.destroyed }));
  });
  let done!: (r: { finished: boolean; abandoned: boolean; destroyed: boolean }) => void;
  const result = new Promise<{ finished: boolean; abandoned: boolean; destroyed: boolean }>((resolve) => (done = resolve));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  // A client that reads the headers and then nothing more.
  const req = request({ host: '127.0.0.1', port, path: '/' }, (res) => {
    res.pause();
    stalled = true;
  });
  req.on('error', () => undefined);
  req.end();
  assert.equal(await result, { finished: false, abandoned: true, destroyed: true });
  req.destroy();
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
});

test.run();
