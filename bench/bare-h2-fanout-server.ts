// The watch fan-out benchmark's baseline: a bare node:http2 server (TLS, Fairway's certificate, the
// same stream limit and windows) that holds every GET open as a stream with a 200 and, when
// `POST /fire` arrives, writes its body to every open stream: the least any HTTP/2 server can do
// to deliver one event to N watches. Run as a child process by bench/watch-fanout.bench.ts; prints
// its port on stdout once listening.
//
//   node --import tsx bench/bare-h2-fanout-server.ts <cert.pem> <key.pem> <max-streams>
import { readFileSync } from 'node:fs';
import { createSecureServer, type ServerHttp2Stream } from 'node:http2';
import { HTTP2_STREAM_WINDOW_BYTES, MAX_HEADER_BYTES } from '../api/transport/secure-server.ts';

const [certPath, keyPath, streamsText] = process.argv.slice(2);
if (certPath === undefined || keyPath === undefined || streamsText === undefined) {
  process.stderr.write('usage: bare-h2-fanout-server.ts <cert.pem> <key.pem> <max-streams>\n');
  process.exit(2);
}
const streams = Number(streamsText);
const open = new Set<ServerHttp2Stream>();
const server = createSecureServer({
  cert: readFileSync(certPath),
  key: readFileSync(keyPath),
  settings: {
    maxConcurrentStreams: streams,
    initialWindowSize: HTTP2_STREAM_WINDOW_BYTES,
    maxFrameSize: HTTP2_STREAM_WINDOW_BYTES,
    maxHeaderListSize: MAX_HEADER_BYTES,
  },
});
server.on('session', (session) => session.setLocalWindowSize(HTTP2_STREAM_WINDOW_BYTES * streams));
server.on('stream', (stream, headers) => {
  if (headers[':method'] === 'POST') {
    const chunks: Buffer[] = [];
    stream.on('data', (chunk: Buffer) => chunks.push(chunk));
    stream.on('end', () => {
      const bytes = Buffer.concat(chunks);
      for (const watch of open) watch.write(bytes);
      stream.respond({ ':status': 200 });
      stream.end();
    });
    return;
  }
  open.add(stream);
  stream.on('close', () => open.delete(stream));
  stream.on('error', () => undefined);
  stream.respond({ ':status': 200, 'content-type': 'application/json', 'cache-control': 'no-cache, private' });
});
server.listen(0, '127.0.0.1', () => process.stdout.write(`${(server.address() as { port: number }).port}\n`));
process.once('SIGTERM', () => {
  for (const stream of open) stream.close();
  server.close(() => process.exit(0));
  setTimeout(() => process.exit(0), 1_000).unref();
});
