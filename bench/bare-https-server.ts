// The benchmark's baseline: a bare node:https server that answers each path with fixed bytes (the
// very bytes Fairway sent for it), with Fairway's TLS certificate. Run as a child process by
// bench/api.bench.ts and bench/listener.bench.ts; prints its port on stdout once listening.
// `--listener=fairway` serves the same handler through Fairway's own listening side
// (createSecureApiServer: TLS with h2 and http/1.1 through ALPN, Http1Response, the HTTP/1.1
// connection rules) instead of node:https, so the two differ only in what carries the bytes.
//
//   node --import tsx bench/bare-https-server.ts <responses.json> <cert.pem> <key.pem> [--listener=fairway]
import { readFileSync } from 'node:fs';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { createServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import { createSecureApiServer } from '../api/transport/secure-server.ts';

const [responsesPath, certPath, keyPath] = process.argv.slice(2);
if (responsesPath === undefined || certPath === undefined || keyPath === undefined) {
  process.stderr.write('usage: bare-https-server.ts <responses.json> <cert.pem> <key.pem>\n');
  process.exit(2);
}
const responses = new Map<string, Buffer>(
  Object.entries(JSON.parse(readFileSync(responsesPath, 'utf8')) as Record<string, string>).map(([path, body]) => [path, Buffer.from(body, 'utf8')]),
);
const handler = (req: IncomingMessage, res: ServerResponse): void => {
  const body = responses.get(req.url ?? '');
  if (body === undefined) {
    res.statusCode = 404;
    res.end();
    return;
  }
  res.statusCode = 200;
  res.setHeader('Content-Type', 'application/json');
  res.setHeader('Content-Length', body.length);
  res.end(body);
};
const cert = readFileSync(certPath, 'utf8');
const key = readFileSync(keyPath, 'utf8');
if (process.argv.includes('--listener=fairway')) {
  const secure = createSecureApiServer({ certPem: cert, keyPem: key, http2MaxStreamsPerConnection: 0, handler });
  await secure.listen(0, '127.0.0.1');
  process.stdout.write(`${(secure.server.address() as AddressInfo).port}\n`);
  process.once('SIGTERM', () => {
    secure.destroy();
    process.exit(0);
  });
} else {
  const server = createServer({ cert, key, ALPNProtocols: ['http/1.1'] }, handler);
  server.listen(0, '127.0.0.1', () => process.stdout.write(`${(server.address() as AddressInfo).port}\n`));
  process.once('SIGTERM', () => server.close(() => process.exit(0)));
}
