import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { createServer, ServerResponse, type IncomingMessage } from 'node:http';
import { connect, type AddressInfo } from 'node:net';
import { once } from 'node:events';
import { HTTP1_SERVER_OPTIONS } from './http1-connection.ts';
import { addPresetHeaders, PresetHeaders } from '../request/preset-headers.ts';

const PRESET = new PresetHeaders([
  ['X-One', 'a'],
  ['X-Two', ''],
]);

/** The raw response to one GET from a server whose handler is `handler`. */
async function rawResponse(handler: (req: IncomingMessage, res: ServerResponse) => void, options: object = HTTP1_SERVER_OPTIONS): Promise<string> {
  const server = createServer(options, handler);
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const socket = connect((server.address() as AddressInfo).port, '127.0.0.1');
  socket.end('GET / HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n');
  let text = '';
  socket.setEncoding('utf8');
  socket.on('data', (chunk: string) => (text += chunk));
  await once(socket, 'close');
  server.close();
  return text;
}

test('an HTTP/1.1 response carries preset headers once, right after the status line, with the headers set as usual', async () => {
  const text = await rawResponse((_req, res) => {
    addPresetHeaders(res, PRESET);
    res.setHeader('Content-Type', 'text/plain');
    res.end('ok');
  });
  const head = text.split('\r\n\r\n')[0]!.split('\r\n');
  assert.equal(head.slice(0, 4), ['HTTP/1.1 200 OK', 'X-One: a', 'X-Two: ', 'Content-Type: text/plain']);
  assert.is(head.filter((line) => line.startsWith('X-One')).length, 1);
  assert.ok(text.endsWith('\r\n\r\nok'));
});

test('getHeader on an HTTP/1.1 response sees preset headers, in any case, as it would set ones', async () => {
  const seen: unknown[] = [];
  await rawResponse((_req, res) => {
    addPresetHeaders(res, PRESET);
    seen.push(res.getHeader('x-one'), res.getHeader('X-TWO'), res.getHeader('X-Three'));
    res.end('ok');
  });
  assert.equal(seen, ['a', '', undefined]);
});

test('an error answer written by writeHead keeps the preset headers too', async () => {
  const text = await rawResponse((_req, res) => {
    addPresetHeaders(res, PRESET);
    res.writeHead(429, { 'Content-Type': 'text/plain' }).end('no');
  });
  assert.ok(text.startsWith('HTTP/1.1 429 Too Many Requests\r\nX-One: a\r\nX-Two: \r\n'), text);
});

test("another response class (an HTTP/2 compatibility response, Node's own ServerResponse) gets them through setHeader", async () => {
  const text = await rawResponse(
    (_req, res) => {
      assert.ok(!('addHeaderLines' in res));
      addPresetHeaders(res, PRESET);
      assert.is(res.getHeader('x-one'), 'a');
      res.end('ok');
    },
    { ServerResponse },
  );
  assert.match(text, /\r\nX-One: a\r\n/);
});

test('a name or value setHeader would refuse is refused when the preset is made', () => {
  assert.throws(() => new PresetHeaders([['Bad Name', 'x']]));
  assert.throws(() => new PresetHeaders([['X-Ok', 'line\r\nbreak']]));
});

test.run();
