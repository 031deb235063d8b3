// The benchmark's baseline: a bare node:https server that answers each path with fixed bytes (the
// very bytes Fairway sent for it), with Fairway's TLS certificate. Run as a child process by
// bench/api.bench.ts; prints its port on stdout once listening.
//
//   node --import tsx bench/bare-https-server.ts <responses.json> <cert.pem> <key.pem>
import { readFileSync } from 'node:fs';
import { createServer } from 'node:https';

const [responsesPath, certPath, keyPath] = process.argv.slice(2);
if (responsesPath === undefined || certPath === undefined || keyPath === undefined) {
  process.stderr.write('usage: bare-https-server.ts <responses.json> <cert.pem> <key.pem>\n');
  process.exit(2);
}
const responses = new Map<string, Buffer>(
  Object.entries(JSON.parse(readFileSync(responsesPath, 'utf8')) as Record<string, string>).map(([path, body]) => [path, Buffer.from(body, 'utf8')]),
);
const server = createServer({ cert: readFileSync(certPath), key: readFileSync(keyPath), ALPNProtocols: ['http/1.1'] }, (req, res) => {
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
});
server.listen(0, '127.0.0.1', () => process.stdout.write(`${(server.address() as { port: number }).port}\n`));
process.once('SIGTERM', () => server.close(() => process.exit(0)));
