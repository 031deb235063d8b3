// `fairway storage migrate` on a real LevelDB directory: objects written under an old key are
// rewritten with the configuration's write key (counted per resource), a second run finds nothing
// to do, and the command refuses clearly when the store is in use, missing or misconfigured.
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { ClassicLevel } from 'classic-level';
import { SimClock } from '../../engine/sim-clock.ts';
import { loadEncryptionConfig } from '../../engine/config/encryption-config.ts';
import { createLevelDbBackend } from '../../engine/store/leveldb/leveldb-backend.ts';
import { createStore } from '../../engine/store/store.ts';
import { createResourceTransformers, routeByStorageKey } from '../../engine/store/transformers/resource-transformers.ts';
import { FS, PLC, plc } from '../../engine/store/testing/suite-kit.ts';
import { storedResources } from '../security/encryption-at-rest.ts';
import { runStorageMigrate } from './storage-migrate.ts';

const KEY1 = Buffer.alloc(32, 1).toString('base64');
const KEY2 = Buffer.alloc(32, 2).toString('base64');

const config = (keys: [string, string][]) => `apiVersion: apiserver.config.k8s.io/v1
kind: EncryptionConfiguration
resources:
  - resources: ["*.flowcontrol.apiserver.k8s.io"]
    providers:
      - aescbc:
          keys:
${keys.map(([name, secret]) => `            - name: ${name}\n              secret: ${secret}`).join('\n')}
`;

async function run(args: string[]) {
  let stdout = '';
  let stderr = '';
  const code = await runStorageMigrate(args, { stdout: (t) => (stdout += t), stderr: (t) => (stderr += t) });
  return { code, stdout, stderr };
}

/** The stored values' `k8s:enc:aescbc:v1:<key>` prefixes, by resource. */
async function prefixes(location: string): Promise<string[]> {
  const db = new ClassicLevel<string, Uint8Array>(location, { keyEncoding: 'utf8', valueEncoding: 'view' });
  const found = new Set<string>();
  for await (const [key, value] of db.iterator({ gte: '/registry/', lt: '/registry0' })) {
    found.add(`${key.split('/')[3]} ${Buffer.from(value.subarray(0, 40)).toString('latin1').split(':').slice(0, 5).join(':')}`);
  }
  await db.close();
  return [...found].sort();
}

let dir: string;
let dataDir: string;
let oldFile: string;
let rotatedFile: string;
let newFile: string;

test.before(async () => {
  dir = await mkdtemp(join(tmpdir(), 'fw-migrate-'));
  dataDir = join(dir, 'data');
  oldFile = join(dir, 'old.yaml');
  rotatedFile = join(dir, 'rotated.yaml');
  newFile = join(dir, 'new.yaml');
  await writeFile(oldFile, config([['key1', KEY1]]));
  await writeFile(
    rotatedFile,
    config([
      ['key2', KEY2],
      ['key1', KEY1],
    ]),
  );
  await writeFile(newFile, config([['key2', KEY2]]));
  const loaded = await loadEncryptionConfig(oldFile);
  assert.ok(loaded.ok);
  const clock = new SimClock();
  const transformers = await createResourceTransformers(loaded.value, { clock });
  const store = createStore({
    backend: createLevelDbBackend({ location: join(dataDir, 'store') }),
    clock,
    transformer: routeByStorageKey(transformers, storedResources()),
  });
  await store.open();
  for (const name of ['a', 'b', 'c']) await store.for(PLC).create(plc(name));
  await store.for(FS).create({ apiVersion: FS.apiVersion, kind: FS.kind, metadata: { name: 'f' }, spec: {} });
  await store.close();
});

test.after(async () => {
  await rm(dir, { recursive: true, force: true });
});

test('without the old key the objects cannot be read: exit 1 naming the key they need', async () => {
  const result = await run(['--data-dir', dataDir, '--encryption-provider-config', newFile]);
  assert.is(result.code, 1);
  assert.match(result.stderr, /reading \/registry\/flowcontrol\.apiserver\.k8s\.io\/\w+\/\w+ .*aescbc: no matching key.*"k8s:enc:aescbc:v1:key1:"/);
});

test('the new key first: every object is rewritten with it, counted per resource', async () => {
  const result = await run([`--data-dir=${dataDir}`, `--encryption-provider-config=${rotatedFile}`]);
  assert.is(result.code, 0, result.stderr);
  assert.is(result.stdout, 'migrated 4 objects: prioritylevelconfigurations.flowcontrol.apiserver.k8s.io 3, flowschemas.flowcontrol.apiserver.k8s.io 1\n');
  assert.equal(await prefixes(join(dataDir, 'store')), ['flowschemas k8s:enc:aescbc:v1:key2', 'prioritylevelconfigurations k8s:enc:aescbc:v1:key2']);
});

test('then the old key can go: nothing left to rewrite', async () => {
  const result = await run(['--data-dir', dataDir, '--encryption-provider-config', newFile]);
  assert.is(result.code, 0, result.stderr);
  assert.match(
    result.stdout,
    new RegExp(
      String.raw`^migrated 0 objects: .*\nalready in the write format 4 objects: ` +
        String.raw`prioritylevelconfigurations\.flowcontrol\.apiserver\.k8s\.io 3, ` +
        String.raw`flowschemas\.flowcontrol\.apiserver\.k8s\.io 1\n$`,
    ),
  );
});

test('a store held by another process is refused, as are a missing store, a bad file and bad flags', async () => {
  const loaded = await loadEncryptionConfig(newFile);
  assert.ok(loaded.ok);
  const transformers = await createResourceTransformers(loaded.value, { clock: new SimClock() });
  const open = createStore({
    backend: createLevelDbBackend({ location: join(dataDir, 'store') }),
    clock: new SimClock(),
    transformer: routeByStorageKey(transformers, storedResources()),
  });
  await open.open();
  try {
    const locked = await run(['--data-dir', dataDir, '--encryption-provider-config', newFile]);
    assert.is(locked.code, 1);
    assert.match(locked.stderr, /is in use: stop fairway serve first/);
  } finally {
    await open.close();
  }
  const missing = await run(['--data-dir', join(dir, 'nowhere'), '--encryption-provider-config', newFile]);
  assert.is(missing.code, 1);
  assert.match(missing.stderr, /Error: --data-dir ".*nowhere": no such directory/);
  const badFile = join(dir, 'bad.yaml');
  await writeFile(badFile, config([['key1', 'c2hvcnQ=']]));
  const bad = await run(['--data-dir', dataDir, '--encryption-provider-config', badFile]);
  assert.is(bad.code, 1);
  assert.match(bad.stderr, /bad\.yaml: error while parsing file: resources\[0\]\.providers\[0\]\.aescbc\.keys\[0\]\.secret: Invalid value/);
  assert.is((await run(['--data-dir', dataDir])).code, 2);
  assert.is((await run(['--nope=1', '--encryption-provider-config', newFile])).code, 2);
});

test.run();
