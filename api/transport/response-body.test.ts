import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { createServer, request, type ServerResponse } from 'node:http';
import { connect, type AddressInfo } from 'node:net';
import { HTTP1_SERVER_OPTIONS, installHttp1Rules } from './http1-connection.ts';
import { BulkScheduler } from '../request/bulk-scheduler.ts';
import { CHUNK_BYTES, ChunkedBody, sendBody, sendBytes } from '../request/response-body.ts';

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

test('one buffer is sent as it is: a small one by res.end with its length, a large one in chunks', async () => {
  const body = Buffer.from('{"a":1}\n');
  const small = await exchange((res) => sendBytes(res, '', 200, 'application/json', body));
  assert.is(small.status, 200);
  assert.is(small.headers['content-type'], 'application/json');
  assert.is(small.headers['content-length'], '8');
  assert.is(small.bytes.toString(), '{"a":1}\n');
  assert.equal(small.writes, [], 'res.end only');
  const big = pattern(2 * CHUNK_BYTES + 3, 7);
  const large = await exchange((res) => sendBytes(res, '', 200, 'application/json', big), { readDelayMs: 20 });
  assert.is(large.headers['content-length'], String(big.byteLength));
  assert.ok(large.bytes.equals(big), 'every byte arrives, in order');
  assert.ok(large.writes.length >= 2 && large.writes.every((n) => n <= CHUNK_BYTES), `written in chunks (${large.writes.join(', ')})`);
  const late = await exchange((res) => {
    res.writeHead(204).end();
    return sendBytes(res, '', 200, 'application/json', body);
  });
  assert.is(late.status, 204, 'a response whose head went out is left as it was');
});

/** The raw bytes of one keep-alive GET to a server of `options` answering with `handler`, Date blanked. */
async function rawExchange(options: object, handler: (res: ServerResponse) => unknown): Promise<string> {
  const server = createServer(options, (_req, res) => void handler(res));
  installHttp1Rules(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  try {
    const { port } = server.address() as AddressInfo;
    const text = await new Promise<string>((resolve, reject) => {
      const socket = connect(port, '127.0.0.1', () => socket.write('GET / HTTP/1.1\r\nHost: x\r\n\r\n'));
      let received = '';
      socket.on('data', (chunk: Buffer) => {
        received += chunk.toString('latin1');
        if (received.endsWith('{"a":1}\n')) {
          socket.destroy();
          resolve(received);
        }
      });
      socket.on('error', reject);
    });
    return text.replace(/^Date: .*$/m, 'Date: -');
  } finally {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  }
}

test("an HTTP/1.1 response's head is the one setHeader gave, byte for byte, however it is built", async () => {
  const body = Buffer.from('{"a":1}\n');
  const expected =
    'HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: 8\r\nDate: -\r\nConnection: keep-alive\r\nKeep-Alive: timeout=5\r\n\r\n{"a":1}\n';
  assert.is(await rawExchange(HTTP1_SERVER_OPTIONS, (res) => sendBytes(res, '', 200, 'application/json', body)), expected);
  assert.is(await rawExchange({}, (res) => sendBytes(res, '', 200, 'application/json', body)), expected);
  const withWarning = await rawExchange(HTTP1_SERVER_OPTIONS, (res) => {
    res.setHeader('Warning', '299 - "x"');
    return sendBody(res, '', 200, 'application/json', [body], body.byteLength);
  });
  assert.is(withWarning, expected.replace('OK\r\n', 'OK\r\nWarning: 299 - "x"\r\n'), 'headers set before keep their place');
});

test('a small body goes out in one call with its length; a large one in chunks of at most CHUNK_BYTES', async () => {
  const small = await exchange((res) => sendBody(res, '', 201, 'application/json', [Buffer.from('{"a":'), Buffer.from('1}\n')], 8));
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
  const large = await exchange((res) => sendBody(res, '', 200, 'application/json', parts, total), { readDelayMs: 50 });
  assert.is(large.status, 200);
  assert.is(large.headers['content-length'], String(total));
  assert.ok(large.bytes.equals(Buffer.concat(parts)), 'every byte arrives, in order');
  assert.ok(large.writes.length >= Math.floor(total / CHUNK_BYTES) - 1, `written in chunks (${large.writes.length} writes)`);
  assert.ok(
    large.writes.every((n) => n <= CHUNK_BYTES),
    'no write is larger than a chunk',
  );
});

test("a LIST's whole pieces are reused once written, and every body still arrives byte for byte", async () => {
  // Parts smaller than a piece, so each piece is a copy: the flood case that allocated 64 KiB per piece.
  const bodyOf = (seed: number) => Array.from({ length: 400 }, (_, i) => pattern(1000 + (i % 7), seed + i));
  const pieces: ArrayBufferLike[][] = [];
  const serve = (seed: number) => {
    const parts = bodyOf(seed);
    const total = parts.reduce((sum, p) => sum + p.byteLength, 0);
    const seen: ArrayBufferLike[] = [];
    pieces.push(seen);
    return exchange((res) => {
      const write = res.write.bind(res);
      res.write = ((chunk: Uint8Array, ...rest: never[]) => {
        if (chunk.byteLength === CHUNK_BYTES) seen.push(chunk.buffer);
        return write(chunk, ...rest);
      }) as typeof res.write;
      return sendBody(res, '', 200, 'application/json', parts, total);
    }).then((sent) => ({ sent, expected: Buffer.concat(parts) }));
  };
  const first = await serve(1);
  const second = await serve(2);
  assert.ok(first.sent.bytes.equals(first.expected), 'the first body arrives whole');
  assert.ok(second.sent.bytes.equals(second.expected), 'the second body arrives whole, though written from reused pieces');
  assert.ok(pieces[0]!.length >= 5, `the first body went out in whole pieces (${pieces[0]!.length})`);
  const firstBuffers = new Set(pieces[0]);
  assert.ok(
    pieces[1]!.some((buffer) => firstBuffers.has(buffer)),
    'the second body reuses pieces the first one wrote',
  );
});

test('between two chunks the event loop runs other work', async () => {
  const seen: string[] = [];
  const parts = Array.from({ length: 8 }, (_, i) => pattern(CHUNK_BYTES, i));
  await exchange((res) => {
    const sent = sendBody(res, '', 200, 'application/octet-stream', parts, 8 * CHUNK_BYTES);
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
    const body = new ChunkedBody(res, '');
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
    const body = new ChunkedBody(res, '', { abandonWhen: () => stalled });
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

test('bodies streaming at once share the turns of the event loop, not a chunk each per turn', async () => {
  // A scheduler whose clock says each write fills the turn: one write per turn over all bodies.
  let clock = 0;
  const flows = new Set<string>();
  const scheduler = new BulkScheduler({ defer: setImmediate, now: () => clock++, turnMs: 0.5, turnBytes: 1 << 30, grantBytes: CHUNK_BYTES });
  const enqueue = scheduler.request.bind(scheduler);
  scheduler.request = (writer, flow, bytesLeft) => {
    flows.add(flow);
    enqueue(writer, flow, bytesLeft);
  };
  // Counts turns of the event loop independently of the writers.
  let iteration = 0;
  let ticking = true;
  const tick = () => {
    iteration++;
    if (ticking) setImmediate(tick);
  };
  setImmediate(tick);
  const writesPerTurn = new Map<number, number>();
  const bodies = Array.from({ length: 8 }, (_, i) => pattern(6 * CHUNK_BYTES + i, i));
  let served = 0;
  const server = createServer((_req, res) => {
    const body = bodies[served]!;
    const flow = served++ % 2 === 0 ? 'uid-a' : 'uid-b';
    res.setHeader('Content-Length', body.byteLength);
    const write = res.write.bind(res);
    res.write = ((chunk: Uint8Array, ...rest: never[]) => {
      writesPerTurn.set(iteration, (writesPerTurn.get(iteration) ?? 0) + 1);
      return write(chunk, ...rest);
    }) as typeof res.write;
    const chunked = new ChunkedBody(res, flow, { scheduler });
    chunked.append(body);
    void chunked.end();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  try {
    const { port } = server.address() as AddressInfo;
    const received = await Promise.all(
      bodies.map(
        () =>
          new Promise<Buffer>((resolve, reject) => {
            const req = request({ host: '127.0.0.1', port, path: '/' }, (res) => {
              const chunks: Buffer[] = [];
              res.on('data', (chunk: Buffer) => chunks.push(chunk));
              res.on('end', () => resolve(Buffer.concat(chunks)));
            });
            req.on('error', reject);
            req.end();
          }),
      ),
    );
    const sorted = (xs: Buffer[]) => [...xs].sort((a, b) => a.byteLength - b.byteLength);
    assert.ok(
      sorted(received).every((bytes, i) => bytes.equals(sorted(bodies)[i]!)),
      'every body arrives whole',
    );
  } finally {
    ticking = false;
    await new Promise((resolve) => server.close(resolve));
  }
  assert.equal([...flows].sort(), ['uid-a', 'uid-b'], 'each body is scheduled in the flow it was given');
  assert.ok(writesPerTurn.size >= 8 * 5, `${writesPerTurn.size} turns wrote`);
  assert.is(Math.max(...writesPerTurn.values()), 1, 'one write per turn, however many bodies are streaming');
});

test.run();
