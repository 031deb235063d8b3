import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parse } from 'yaml';
import { renderKubeconfig, writeAdminKubeconfig, writeKubeconfig } from './kubeconfig.ts';

const CA = '-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----\n';
const decode = (b64: string) => Buffer.from(b64, 'base64').toString('utf8');

test('the admin kubeconfig names the server, embeds the CA and carries the token', () => {
  const config = parse(renderKubeconfig({ serverUrl: 'https://127.0.0.1:6443', caPem: CA, user: { name: 'admin', token: 's3cret' } }));
  assert.is(config.apiVersion, 'v1');
  assert.is(config.kind, 'Config');
  assert.is(config['current-context'], 'fairway');
  assert.equal(config.contexts, [{ context: { cluster: 'fairway', user: 'admin' }, name: 'fairway' }]);
  assert.is(config.clusters[0].cluster.server, 'https://127.0.0.1:6443');
  assert.is(decode(config.clusters[0].cluster['certificate-authority-data']), CA);
  assert.not.ok('insecure-skip-tls-verify' in config.clusters[0].cluster);
  assert.equal(config.users, [{ name: 'admin', user: { token: 's3cret' } }]);
});

test('a client-certificate user embeds the certificate and key', () => {
  const config = parse(
    renderKubeconfig({ serverUrl: 'https://[::1]:6443', caPem: CA, user: { name: 'alice', clientCertPem: 'CERT', clientKeyPem: 'KEY' }, name: 'other' }),
  );
  assert.is(config['current-context'], 'other');
  const user = config.users[0].user;
  assert.equal([decode(user['client-certificate-data']), decode(user['client-key-data'])], ['CERT', 'KEY']);
  assert.is(config.clusters[0].cluster.server, 'https://[::1]:6443');
});

test('writeAdminKubeconfig writes atomically with mode 0600, replacing an existing file', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'fw-kubeconfig-'));
  try {
    const path = join(dir, 'kubeconfig');
    writeFileSync(path, 'old', { mode: 0o644 });
    await writeAdminKubeconfig(path, { serverUrl: 'https://localhost:6443', caPem: CA, token: 't' });
    assert.is(statSync(path).mode & 0o777, 0o600);
    assert.is(parse(readFileSync(path, 'utf8')).users[0].user.token, 't');
    assert.equal(readdirSync(dir), ['kubeconfig'], 'no temporary file left behind');
    await writeKubeconfig(path, { serverUrl: 'https://localhost:6443', caPem: CA, user: { name: 'bob', token: 'u' } });
    assert.is(parse(readFileSync(path, 'utf8')).users[0].name, 'bob');
    let failed = false;
    await writeAdminKubeconfig(join(dir, 'missing-dir', 'kubeconfig'), { serverUrl: 'x', caPem: CA, token: 't' }).catch(() => (failed = true));
    assert.ok(failed, 'a write into a missing directory rejects');
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test.run();
