import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { X509Certificate } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { createServer, request, type ServerOptions } from 'node:https';
import type { AddressInfo } from 'node:net';
import type { TLSSocket } from 'node:tls';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { spawnSync } from 'node:child_process';
import { CERT_FILES, checkClientCaBundle, checkServingPair, ensureServingCertificates, servingHosts } from './tls.ts';
import { generateCertificateAuthority, issueClientCertificate, issueServingCertificate } from '../../engine/x509/certificates.ts';

const NOW = Date.parse('2026-03-01T00:00:00Z');
const DAY = 24 * 60 * 60 * 1000;

function withDir<T>(run: (dir: string) => Promise<T>): Promise<T> {
  const dir = mkdtempSync(join(tmpdir(), 'fw-tls-'));
  return run(dir).finally(() => rmSync(dir, { recursive: true, force: true }));
}

/** Starts an https server on 127.0.0.1 that answers 200 with the client's certificate subject. */
async function serve(options: ServerOptions, use: (port: number) => Promise<void>): Promise<void> {
  const server = createServer(options, (req, res) => {
    const socket = req.socket as TLSSocket;
    const peer = socket.getPeerCertificate();
    res.end(JSON.stringify({ authorized: socket.authorized, subject: peer?.subject ?? null }));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  try {
    await use((server.address() as AddressInfo).port);
  } finally {
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  }
}

function get(
  port: number,
  options: { ca?: string; cert?: string; key?: string; servername?: string },
): Promise<{ ok: true; body: any } | { ok: false; code: string }> {
  return new Promise((resolve) => {
    const req = request({ host: '127.0.0.1', port, path: '/', method: 'GET', agent: false, ...options }, (res) => {
      let body = '';
      res.on('data', (chunk) => (body += chunk));
      res.on('end', () => resolve({ ok: true, body: JSON.parse(body) }));
    });
    req.on('error', (error: NodeJS.ErrnoException) => resolve({ ok: false, code: error.code ?? error.message }));
    req.end();
  });
}

test('servingHosts: loopbacks, localhost, a specific bind address, never the unspecified one', () => {
  assert.equal(servingHosts('127.0.0.1'), ['localhost', '127.0.0.1', '::1']);
  assert.equal(servingHosts('0.0.0.0'), ['localhost', '127.0.0.1', '::1']);
  assert.equal(servingHosts('::'), ['localhost', '127.0.0.1', '::1']);
  assert.equal(servingHosts('10.0.0.5', ['My-Host', '0:0:0:0:0:0:0:1']), ['localhost', '127.0.0.1', '::1', '10.0.0.5', 'my-host']);
});

test('first start generates CA and serving cert with private keys 0600; the next start reuses them', () =>
  withDir(async (dir) => {
    const first = await ensureServingCertificates({ certDir: join(dir, 'pki'), bindAddress: '127.0.0.1', nowMs: NOW });
    assert.equal(first.written, ['ca', 'serving']);
    assert.is(statSync(join(dir, 'pki', CERT_FILES.caKey)).mode & 0o777, 0o600);
    assert.is(statSync(first.keyPath).mode & 0o777, 0o600);
    assert.is(readFileSync(first.certPath, 'utf8'), first.serving.certPem);
    const cert = new X509Certificate(first.serving.certPem);
    assert.is(cert.subjectAltName, 'DNS:localhost, IP Address:127.0.0.1, IP Address:0:0:0:0:0:0:0:1');
    assert.ok(cert.verify(new X509Certificate(first.ca.certPem).publicKey));
    assert.ok(new X509Certificate(first.ca.certPem).ca);
    assert.not.ok(cert.ca);
    const again = await ensureServingCertificates({ certDir: join(dir, 'pki'), bindAddress: '127.0.0.1', nowMs: NOW + DAY });
    assert.equal(again.written, []);
    assert.equal([again.ca, again.serving], [first.ca, first.serving]);
  }));

test('a new bind address gets a new serving cert from the same CA; damage or expiry regenerates', () =>
  withDir(async (dir) => {
    const first = await ensureServingCertificates({ certDir: dir, bindAddress: '127.0.0.1', nowMs: NOW });
    const moved = await ensureServingCertificates({ certDir: dir, bindAddress: '10.1.2.3', nowMs: NOW });
    assert.equal(moved.written, ['serving']);
    assert.is(moved.ca.certPem, first.ca.certPem);
    assert.ok(new X509Certificate(moved.serving.certPem).checkIP('10.1.2.3'));

    writeFileSync(join(dir, CERT_FILES.key), 'not a key');
    assert.equal((await ensureServingCertificates({ certDir: dir, bindAddress: '10.1.2.3', nowMs: NOW })).written, ['serving']);

    const nearExpiry = NOW + 362 * DAY; // the serving cert is valid for a year, renewed a week ahead
    const renewed = await ensureServingCertificates({ certDir: dir, bindAddress: '10.1.2.3', nowMs: nearExpiry });
    assert.equal(renewed.written, ['serving']);

    writeFileSync(join(dir, CERT_FILES.caCert), '-----BEGIN CERTIFICATE-----\ngarbage\n-----END CERTIFICATE-----\n');
    const rebuilt = await ensureServingCertificates({ certDir: dir, bindAddress: '10.1.2.3', nowMs: NOW });
    assert.equal(rebuilt.written, ['ca', 'serving']);
    assert.ok(new X509Certificate(rebuilt.serving.certPem).verify(new X509Certificate(rebuilt.ca.certPem).publicKey));
  }));

test('a real TLS server with the generated cert is trusted through the CA, by IP and by name', () =>
  withDir(async (dir) => {
    const { ca, serving } = await ensureServingCertificates({ certDir: dir, bindAddress: '127.0.0.1' });
    await serve({ cert: serving.certPem, key: serving.keyPem }, async (port) => {
      const byIp = await get(port, { ca: ca.certPem });
      assert.ok(byIp.ok, JSON.stringify(byIp));
      const byName = await get(port, { ca: ca.certPem, servername: 'localhost' });
      assert.ok(byName.ok, JSON.stringify(byName));
      const wrongName = await get(port, { ca: ca.certPem, servername: 'example.com' });
      assert.equal(wrongName, { ok: false, code: 'ERR_TLS_CERT_ALTNAME_INVALID' });
      const otherCa = await generateCertificateAuthority();
      const untrusted = await get(port, { ca: otherCa.certPem });
      assert.not.ok(untrusted.ok);
    });
  }));

test('client certificates signed by the CA authenticate as CN = user, O = groups', () =>
  withDir(async (dir) => {
    const { ca, serving } = await ensureServingCertificates({ certDir: dir, bindAddress: '127.0.0.1' });
    const client = await issueClientCertificate(ca, { user: 'alice', groups: ['system:masters', 'ops, with comma'] });
    await serve({ cert: serving.certPem, key: serving.keyPem, ca: ca.certPem, requestCert: true, rejectUnauthorized: false }, async (port) => {
      const withCert = await get(port, { ca: ca.certPem, cert: client.certPem, key: client.keyPem });
      assert.ok(withCert.ok);
      if (withCert.ok) {
        assert.is(withCert.body.authorized, true);
        assert.is(withCert.body.subject.CN, 'alice');
        assert.equal(withCert.body.subject.O, ['system:masters', 'ops, with comma']);
      }
      const stranger = await issueClientCertificate(await generateCertificateAuthority(), { user: 'mallory' });
      const foreign = await get(port, { ca: ca.certPem, cert: stranger.certPem, key: stranger.keyPem });
      assert.ok(foreign.ok && foreign.body.authorized === false);
    });
  }));

test('a serving pair is checked before use: junk and a key of another certificate are refused, naming both files', async () => {
  const ca = await generateCertificateAuthority();
  const one = await issueServingCertificate(ca, { hosts: ['127.0.0.1'] });
  const other = await issueServingCertificate(ca, { hosts: ['127.0.0.1'] });
  checkServingPair(one.certPem, one.keyPem, 'a.crt', 'a.key');
  assert.throws(() => checkServingPair('junk', 'junk', 'a.crt', 'a.key'), /^failed to load the serving certificate "a\.crt" and key "a\.key": .*no start line/);
  assert.throws(() => checkServingPair(one.certPem, other.keyPem, 'a.crt', 'b.key'), /"a\.crt" and key "b\.key": .*key values mismatch/);
});

test('a client CA bundle must hold a certificate', async () => {
  const ca = await generateCertificateAuthority();
  checkClientCaBundle(`# comment\n${ca.certPem}`, 'ca.crt');
  for (const junk of ['', 'not a certificate', '-----BEGIN CERTIFICATE-----\nAAAA\n-----END CERTIFICATE-----\n', ca.keyPem]) {
    assert.throws(
      () => checkClientCaBundle(junk, 'ca.crt'),
      /^unable to load client CA file "ca\.crt": data does not contain any valid RSA or ECDSA certificates$/,
    );
  }
});

test('openssl agrees that the chain verifies (when openssl is installed)', () =>
  withDir(async (dir) => {
    const probe = spawnSync('openssl', ['version'], { encoding: 'utf8' });
    if (probe.error) return; // not installed: Node's own verification above stands
    const { caCertPath, certPath } = await ensureServingCertificates({ certDir: dir, bindAddress: '127.0.0.1' });
    const result = spawnSync('openssl', ['verify', '-CAfile', caCertPath, '-purpose', 'sslserver', certPath], { encoding: 'utf8' });
    assert.is(result.stdout.trim(), `${certPath}: OK`, result.stderr);
  }));

test.run();
