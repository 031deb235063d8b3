// End to end: encryption at rest in `fairway serve` (a child process on LevelDB, real files, the
// real KMS test plugin). Objects carry a marker string; after the server stops, no file under the
// data directory contains it and every stored value carries its provider's prefix. Then key
// rotation with `fairway storage migrate`, automatic reload, tampering, and a KMS outage.
import { randomBytes } from 'node:crypto';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { startKmsPlugin } from '../../engine/kms/testing/plugin-process.ts';
import { RELOAD_INTERVAL_ENV } from '../security/encryption-at-rest.ts';
import type { TestClient } from '../testing/http-client.ts';
import { startServerProcess } from '../commands/testing/server-process.ts';
import {
  FS_PATH,
  GROUP,
  PLC_PATH,
  encryptionConfig,
  eventually,
  filesContaining,
  keyOf,
  keyed,
  kmsV2,
  markedFs,
  markedPlc,
  putStoredValue,
  runFairway,
  startListening,
  storedValues,
} from '../commands/testing/encryption-fixtures.ts';

// Automatic reload checks the file every 200 ms instead of every minute (inherited by the servers).
process.env[RELOAD_INTERVAL_ENV] = '200ms';

const MARKER = `fwmark${randomBytes(6).toString('hex')}`;
const FLOWCONTROL = [`*.${GROUP}`];
const PLCS = `prioritylevelconfigurations.${GROUP}`;
const FSS = `flowschemas.${GROUP}`;
let work: string;

test.before(async () => {
  work = await mkdtemp(join(tmpdir(), 'fw-e2e-encryption-'));
});

test.after(async () => {
  await rm(work, { recursive: true, force: true });
});

async function created(client: TestClient, path: string, body: object): Promise<void> {
  const response = await client.request('POST', path, { body });
  assert.is(response.status, 201, response.text);
}

async function createMarked(client: TestClient, tag: string, count = 2): Promise<void> {
  for (let i = 0; i < count; i++) {
    await created(client, PLC_PATH, markedPlc(`${tag}-plc-${i}`, MARKER));
    await created(client, FS_PATH, markedFs(`${tag}-fs-${i}`, MARKER));
  }
}

/** The provider prefix (`k8s:enc:aesgcm:v1:k1:`) of each stored value, by `<resource>/<name>`. */
async function prefixes(dataDir: string): Promise<Map<string, string>> {
  const result = new Map<string, string>();
  for (const [key, value] of await storedValues(join(dataDir, 'store'))) {
    const parts = value.subarray(0, 64).toString('latin1').split(':');
    result.set(key.split('/').slice(3).join('/'), parts[0] === 'k8s' ? `${parts.slice(0, 5).join(':')}:` : '(plaintext)');
  }
  assert.ok(result.size >= 21, `expected the bootstrap objects and ours, found ${result.size}`);
  return result;
}

async function assertNoMarkerOnDisk(dataDir: string): Promise<void> {
  assert.equal(await filesContaining(dataDir, MARKER), [], 'the marker must not be stored in plaintext anywhere');
}

const names = async (client: TestClient, path: string): Promise<string[]> => {
  const response = await client.get(path);
  assert.is(response.status, 200, response.text);
  return (response.json().items as { metadata: { name: string } }[]).map((item) => item.metadata.name).sort();
};

test('aesgcm: nothing readable on disk, every value under k8s:enc:aesgcm:v1:k1:; a tampered value stops the server naming the key', async () => {
  const dataDir = join(work, 'aesgcm');
  const file = join(work, 'aesgcm.yaml');
  await writeFile(file, encryptionConfig([FLOWCONTROL, keyed('aesgcm', [['k1', keyOf(1)]])]));
  const server = await startServerProcess({ storageBackend: 'leveldb', dataDir, args: [`--encryption-provider-config=${file}`] });
  await createMarked(server.client, 'gcm');
  assert.is(await server.stop(), 0, server.stderr());
  await assertNoMarkerOnDisk(dataDir);
  assert.equal(new Set((await prefixes(dataDir)).values()), new Set(['k8s:enc:aesgcm:v1:k1:']));

  const key = `/registry/${GROUP}/prioritylevelconfigurations/gcm-plc-0`;
  const value = (await storedValues(join(dataDir, 'store'))).get(key)!;
  value[value.length - 20]! ^= 0x01; // a ciphertext byte (the trailer is the last 8)
  await putStoredValue(join(dataDir, 'store'), key, value);
  const tampered = await startListening(dataDir, [`--encryption-provider-config=${file}`]).catch((error: Error) => error);
  assert.instance(tampered, Error, 'a server must not start on data it cannot authenticate');
  assert.match((tampered as Error).message, /exited with 1/);
  assert.match((tampered as Error).message, /gcm-plc-0.*aesgcm key "k1": cipher: message authentication failed/);
});

test('aescbc with automatic reload, then rotation: new first key, migrate, old key removed, restart: everything reads', async () => {
  const dataDir = join(work, 'aescbc');
  const file = join(work, 'aescbc.yaml');
  await writeFile(file, encryptionConfig([FLOWCONTROL, keyed('aescbc', [['key1', keyOf(1)]])]));
  const server = await startServerProcess({
    storageBackend: 'leveldb',
    dataDir,
    args: [`--encryption-provider-config=${file}`, '--encryption-provider-config-automatic-reload'],
  });
  await createMarked(server.client, 'cbc');

  // An invalid edit: logged, the configuration in force kept, the server healthy and writing.
  await writeFile(
    file,
    encryptionConfig([
      FLOWCONTROL,
      keyed('aescbc', [
        ['key2', 'c2hvcnQ='],
        ['key1', keyOf(1)],
      ]),
    ]),
  );
  const rejected = await eventually(
    'the rejected reload in the log',
    10_000,
    async () => server.stderr().match(/^E.*not reloaded, keeping sha256:\w+: (.*)$/m)?.[1],
  );
  assert.match(rejected, /aescbc\.yaml: error while parsing file: resources\[0\]\.providers\[0\]\.aescbc\.keys\[0\]\.secret: Invalid value: "REDACTED"/);
  assert.is((await server.client.get('/healthz')).status, 200);
  await created(server.client, PLC_PATH, markedPlc('after-invalid-edit', MARKER));

  // A valid edit with a new first key: new writes use it, without a restart.
  await writeFile(
    file,
    encryptionConfig([
      FLOWCONTROL,
      keyed('aescbc', [
        ['key2', keyOf(2)],
        ['key1', keyOf(1)],
      ]),
    ]),
  );
  await eventually('the reload in the log', 10_000, async () =>
    /^I.*encryption provider configuration reloaded from .*aescbc key "key2"/m.test(server.stderr()) ? true : undefined,
  );
  await created(server.client, PLC_PATH, markedPlc('after-reload', MARKER));
  const before = { plcs: await names(server.client, PLC_PATH), fss: await names(server.client, FS_PATH) };
  const marked = (await server.client.get(`${PLC_PATH}/cbc-plc-1`)).json();
  assert.is(await server.stop(), 0, server.stderr());

  await assertNoMarkerOnDisk(dataDir);
  const stored = await prefixes(dataDir);
  assert.is(stored.get('prioritylevelconfigurations/after-reload'), 'k8s:enc:aescbc:v1:key2:');
  assert.is(stored.get('prioritylevelconfigurations/after-invalid-edit'), 'k8s:enc:aescbc:v1:key1:');
  const underKey1 = [...stored.values()].filter((p) => p === 'k8s:enc:aescbc:v1:key1:').length;
  assert.ok(underKey1 >= 5);

  const migrate = await runFairway(['storage', 'migrate', `--data-dir=${dataDir}`, `--encryption-provider-config=${file}`]);
  assert.is(migrate.code, 0, migrate.stderr);
  const counts = migrate.stdout.match(new RegExp(`^migrated (\\d+) objects: ${PLCS} (\\d+), ${FSS} (\\d+)$`, 'm'));
  assert.ok(counts, migrate.stdout);
  assert.is(Number(counts[1]), underKey1);
  assert.is(Number(counts[2]) + Number(counts[3]), underKey1);
  assert.equal(new Set((await prefixes(dataDir)).values()), new Set(['k8s:enc:aescbc:v1:key2:']));

  await writeFile(file, encryptionConfig([FLOWCONTROL, keyed('aescbc', [['key2', keyOf(2)]])]));
  const restarted = await startServerProcess({ storageBackend: 'leveldb', dataDir, args: [`--encryption-provider-config=${file}`] });
  assert.equal({ plcs: await names(restarted.client, PLC_PATH), fss: await names(restarted.client, FS_PATH) }, before);
  for (const name of before.plcs) assert.is((await restarted.client.get(`${PLC_PATH}/${name}`)).status, 200, name);
  for (const name of before.fss) assert.is((await restarted.client.get(`${FS_PATH}/${name}`)).status, 200, name);
  const reread = (await restarted.client.get(`${PLC_PATH}/cbc-plc-1`)).json();
  assert.equal([reread.metadata.labels, reread.metadata.annotations, reread.spec], [marked.metadata.labels, marked.metadata.annotations, marked.spec]);
  assert.is(await restarted.stop(), 0, restarted.stderr());
  await assertNoMarkerOnDisk(dataDir);
});

test('KMS v2 (test plugin) and secretbox; a plugin outage: 500 naming the provider, other resources served, nothing lost', async () => {
  const plugin = await startKmsPlugin();
  try {
    const dataDir = join(work, 'kms');
    const file = join(work, 'kms.yaml');
    await writeFile(file, encryptionConfig([[FSS], kmsV2('vault', plugin.endpoint)], [[PLCS], keyed('secretbox', [['sb1', keyOf(3)]])]));
    const args = [`--encryption-provider-config=${file}`];
    const server = await startServerProcess({ storageBackend: 'leveldb', dataDir, args });
    await createMarked(server.client, 'kms');
    // The plugin dies while the server runs: the seed is held, reads come from the cache, and
    // writes go on (kube-apiserver allows 3 minutes after the last good status).
    await plugin.kill();
    assert.is((await server.client.get(`${FS_PATH}/kms-fs-0`)).status, 200);
    await created(server.client, FS_PATH, markedFs('written-while-plugin-down', MARKER));
    const fss = await names(server.client, FS_PATH);
    assert.is(await server.stop(), 0, server.stderr());

    await assertNoMarkerOnDisk(dataDir);
    const stored = await prefixes(dataDir);
    for (const [name, prefix] of stored) assert.is(prefix, name.startsWith('flowschemas/') ? 'k8s:enc:kms:v2:vault:' : 'k8s:enc:secretbox:v1:sb1:', name);

    // A restart while the plugin is down: FlowSchemas cannot be decrypted, PLCs are served.
    const down = await startListening(dataDir, args);
    try {
      for (const [method, path, body] of [
        ['GET', `${FS_PATH}/kms-fs-0`, undefined],
        ['GET', FS_PATH, undefined],
        ['POST', FS_PATH, markedFs('refused-during-outage', MARKER)],
      ] as const) {
        const response = await down.client.request(method, path, { body });
        assert.is(response.status, 500, `${method} ${path}: ${response.text}`);
        const status = response.json();
        assert.equal([status.kind, status.reason, status.code], ['Status', 'InternalError', 500]);
        assert.match(status.message, /kms provider "vault": got unexpected nil transformer: no DEK seed from the plugin yet/);
      }
      assert.is((await down.client.get(`${PLC_PATH}/kms-plc-0`)).status, 200);
      await created(down.client, PLC_PATH, markedPlc('written-during-outage', MARKER));
      assert.is((await down.client.get('/readyz')).status, 500);

      await plugin.restart();
      // Health probes (as a kubelet would send) make the provider ask the plugin again.
      await eventually('FlowSchemas to read again', 20_000, async () => {
        await down.client.get('/healthz');
        return (await down.client.get(`${FS_PATH}/kms-fs-0`)).status === 200 ? true : undefined;
      });
      assert.equal(await names(down.client, FS_PATH), fss);
      assert.is((await down.client.get(`${FS_PATH}/kms-fs-1`)).json().metadata.annotations.note, `secret ${MARKER}`);
      await created(down.client, FS_PATH, markedFs('after-outage', MARKER));
      await eventually('readiness', 20_000, async () => ((await down.client.get('/readyz')).status === 200 ? true : undefined));
    } finally {
      assert.is(await down.stop(), 0, down.stderr());
    }
    await assertNoMarkerOnDisk(dataDir);
    assert.is((await prefixes(dataDir)).get('flowschemas/after-outage'), 'k8s:enc:kms:v2:vault:');
  } finally {
    await plugin.stop();
  }
});

test.run();
