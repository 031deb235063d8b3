import { test } from 'uvu';
import * as assert from 'uvu/assert';
import type { IncomingMessage } from 'node:http';
import { connectionOf } from './connection.ts';

test('one record per connection: the HTTP/2 session socket keys it, later reads never touch the socket', () => {
  let reads = 0;
  const live = { remoteAddress: '::1', remotePort: 4242 };
  const sessionSocket = new Proxy(live, {
    get(target, prop) {
      reads++;
      if (reads > 3) throw new Error('The socket has been disconnected from the Http2Session');
      return target[prop as keyof typeof target];
    },
  });
  const request = () => ({ headers: {}, socket: {}, stream: { session: { socket: sessionSocket } } }) as unknown as IncomingMessage;
  const first = connectionOf(request());
  assert.equal(first, { srcIP: '[::1]:4242', peerCertificates: [], lastAuthentication: undefined, lastTarget: undefined });
  assert.is(connectionOf(request()), first);
});

test('a session gone before its first request is read gives an empty record, not an exception', () => {
  const gone = new Proxy(
    {},
    {
      get: () => {
        throw new Error('unbound');
      },
    },
  );
  const req = { headers: {}, socket: gone } as unknown as IncomingMessage;
  assert.equal(connectionOf(req), { srcIP: '', peerCertificates: [], lastAuthentication: undefined, lastTarget: undefined });
});

test.run();
