// The restart baseline of bench/startup.bench.ts: bare node (no tsx, nothing compiled) opens the
// data dir's LevelDB with classic-level, reads the serving certificate Fairway wrote, and listens
// on node:https, answering /readyz 200. SIGTERM closes the server and the database, then exits.
//
//   node bench/bare-leveldb-server.mjs <data-dir> <port>
import { readFileSync } from 'node:fs';
import { createServer } from 'node:https';
import { join } from 'node:path';
import { ClassicLevel } from 'classic-level';

const [dataDir, port] = process.argv.slice(2);
if (dataDir === undefined || port === undefined) {
  process.stderr.write('usage: bare-leveldb-server.mjs <data-dir> <port>\n');
  process.exit(2);
}
const db = new ClassicLevel(join(dataDir, 'store'), { keyEncoding: 'buffer', valueEncoding: 'buffer' });
await db.open();
const pki = join(dataDir, 'pki');
const tls = { cert: readFileSync(join(pki, 'apiserver.crt')), key: readFileSync(join(pki, 'apiserver.key')), ALPNProtocols: ['http/1.1'] };
const server = createServer(tls, (req, res) => {
  res.statusCode = req.url === '/readyz' ? 200 : 404;
  res.end(req.url === '/readyz' ? 'ok' : '');
});
server.listen(Number(port), '127.0.0.1');
process.once('SIGTERM', () => {
  server.close();
  server.closeAllConnections();
  void db.close().then(() => process.exit(0));
});
