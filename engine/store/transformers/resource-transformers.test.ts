import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { SimClock } from '../../sim-clock.ts';
import { parseEncryptionConfig } from '../../config/encryption-config.ts';
import { createResourceTransformers, routeByStorageKey } from './resource-transformers.ts';
import { isTransformError } from './transform-error.ts';
import { createFakeKms } from './testing/fake-kms.ts';
import { seededRandom, toText, utf8 } from './testing/fixed-random.ts';

const K32 = Buffer.alloc(32, 4).toString('base64');
const K32B = Buffer.alloc(32, 5).toString('base64');
const FS = 'flowschemas.flowcontrol.apiserver.k8s.io';
const PLC = 'prioritylevelconfigurations.flowcontrol.apiserver.k8s.io';
const at = { key: '/registry/flowcontrol.apiserver.k8s.io/flowschemas/catch-all' };

function load(text: string, options = {}) {
  const loaded = parseEncryptionConfig(utf8(`apiVersion: apiserver.config.k8s.io/v1\nkind: EncryptionConfiguration\n${text}`), 'enc.yaml', options);
  if (!loaded.ok) throw new Error(loaded.error.message);
  return loaded.value;
}

const deps = () => ({ clock: new SimClock(0), random: seededRandom('resources') });
const prefixOf = (bytes: Uint8Array) => toText(bytes).split(':').slice(0, 5).join(':');

test('each resource gets its rule: exact first, then its group wildcard; unmatched resources are plaintext', async () => {
  const transformers = await createResourceTransformers(
    load(`resources:
  - resources: [${FS}]
    providers: [{aesgcm: {keys: [{name: fs, secret: ${K32}}]}}]
  - resources: ["*.flowcontrol.apiserver.k8s.io"]
    providers: [{secretbox: {keys: [{name: group, secret: ${K32}}]}}]
`),
    deps(),
  );
  const stored = async (resource: string) => transformers.transformerFor(resource).transformToStorage(utf8('{}'), at);
  assert.is(prefixOf(await stored(FS)), 'k8s:enc:aesgcm:v1:fs');
  assert.is(prefixOf(await stored(PLC)), 'k8s:enc:secretbox:v1:group');
  assert.is(toText(await stored('configmaps')), '{}');
  const encrypted = await stored(FS);
  try {
    await transformers.transformerFor('configmaps').transformFromStorage(encrypted, at);
    assert.unreachable('plaintext-only resource returned encrypted data');
  } catch (error) {
    assert.ok(isTransformError(error) && error.reason === 'encrypted-data');
    assert.is(
      (error as Error).message,
      'identity transformer tried to read encrypted data (the stored value starts with "k8s:enc:aesgcm:v1:fs:"; no encryption rule covers this resource)',
    );
  }
  assert.is(transformers.transformerFor({ group: 'flowcontrol.apiserver.k8s.io', resource: 'flowschemas' }), transformers.transformerFor(FS));
  assert.equal(await transformers.health(), []);
  transformers.close();
});

test('one store-wide transformer routes each storage key to its resource rule', async () => {
  const transformers = await createResourceTransformers(
    load(`resources:
  - resources: [${FS}]
    providers: [{aesgcm: {keys: [{name: fs, secret: ${K32}}]}}]
  - resources: ["*.*"]
    providers: [{aescbc: {keys: [{name: rest, secret: ${K32}}]}}]
`),
    deps(),
  );
  const store = routeByStorageKey(transformers, [
    { group: 'flowcontrol.apiserver.k8s.io', resource: 'flowschemas' },
    { group: 'flowcontrol.apiserver.k8s.io', resource: 'prioritylevelconfigurations' },
  ]);
  const write = async (key: string) => prefixOf(await store.transformToStorage(utf8('{}'), { key }));
  assert.is(await write('/registry/flowcontrol.apiserver.k8s.io/flowschemas/exempt'), 'k8s:enc:aesgcm:v1:fs');
  assert.is(await write('/registry/flowcontrol.apiserver.k8s.io/prioritylevelconfigurations/exempt'), 'k8s:enc:aescbc:v1:rest');
  assert.is(await write('/registry/configmaps/default/x'), 'k8s:enc:aescbc:v1:rest');
  const key = '/registry/flowcontrol.apiserver.k8s.io/flowschemas/exempt';
  const stored = await store.transformToStorage(utf8('{"a":1}'), { key });
  assert.is(toText((await store.transformFromStorage(stored, { key })).data), '{"a":1}');
  transformers.close();
});

test('a value no provider can read says which prefix it carries', async () => {
  const old = await createResourceTransformers(
    load(`resources:\n  - resources: ["*.*"]\n    providers: [{aescbc: {keys: [{name: retired, secret: ${K32}}]}}]\n`),
    deps(),
  );
  const value = await old.transformerFor(FS).transformToStorage(utf8('{}'), at);
  const now = await createResourceTransformers(
    load(`resources:\n  - resources: ["*.*"]\n    providers: [{secretbox: {keys: [{name: k, secret: ${K32B}}]}}, {identity: {}}]\n`),
    deps(),
  );
  try {
    await now.transformerFor(FS).transformFromStorage(value, at);
    assert.unreachable('read should fail');
  } catch (error) {
    assert.ok(isTransformError(error));
    assert.is((error as Error).message, 'no matching prefix found (the stored value starts with "k8s:enc:aescbc:v1:retired:")');
  }
});

test('the rotation procedure: add the new key second, then first, then drop the old one', async () => {
  const step = (keys: string) => createResourceTransformers(load(`resources:\n  - resources: [${FS}]\n    providers: [{aescbc: {keys: [${keys}]}}]\n`), deps());
  const oldKey = `{name: old, secret: ${K32}}`;
  const newKey = `{name: new, secret: ${K32B}}`;
  const v0 = await (await step(oldKey)).transformerFor(FS).transformToStorage(utf8('x'), at);
  const both = await step(`${oldKey}, ${newKey}`);
  assert.is(prefixOf(await both.transformerFor(FS).transformToStorage(utf8('x'), at)), 'k8s:enc:aescbc:v1:old');
  const flipped = await step(`${newKey}, ${oldKey}`);
  const read = await flipped.transformerFor(FS).transformFromStorage(v0, at);
  assert.is(read.stale, true);
  const v1 = await flipped.transformerFor(FS).transformToStorage(read.data, at);
  const onlyNew = await step(newKey);
  assert.equal(
    await onlyNew
      .transformerFor(FS)
      .transformFromStorage(v1, at)
      .then((r) => [toText(r.data), r.stale]),
    ['x', false],
  );
  // Dropped too early: the error names the provider and the key the value needs.
  try {
    await onlyNew.transformerFor(FS).transformFromStorage(v0, at);
    assert.unreachable('a value under a removed key must not read');
  } catch (error) {
    assert.ok(isTransformError(error) && error.reason === 'no-matching-prefix' && error.provider === 'aescbc');
    assert.is(
      (error as Error).message,
      'aescbc: no matching key was found for the provided AES transformer (the stored value starts with "k8s:enc:aescbc:v1:old:")',
    );
  }
});

test('KMS providers are connected through the injected connector, one per configured element', async () => {
  const random = seededRandom('kms');
  const connected: string[] = [];
  const transformers = await createResourceTransformers(
    load(`resources:
  - resources: [${FS}]
    providers: [{kms: {apiVersion: v2, name: a, endpoint: "unix:///tmp/a.sock"}}]
  - resources: [${PLC}]
    providers: [{kms: {apiVersion: v2, name: b, endpoint: "unix:///tmp/b.sock", timeout: 500ms}}]
`),
    {
      clock: new SimClock(0),
      random,
      connectKmsV2: (kms) => {
        connected.push(`${kms.name} ${kms.endpoint} ${kms.timeoutMs}`);
        return createFakeKms(random);
      },
    },
  );
  assert.equal(connected, ['a unix:///tmp/a.sock 3000', 'b unix:///tmp/b.sock 500']);
  assert.is(prefixOf(await transformers.transformerFor(PLC).transformToStorage(utf8('{}'), at)), 'k8s:enc:kms:v2:b');
  assert.equal(
    (await transformers.health()).map((h) => [h.name, h.path, h.health.healthy]),
    [
      ['a', 'resources[0].providers[0]', true],
      ['b', 'resources[1].providers[0]', true],
    ],
  );
  transformers.close();
});

test.run();
