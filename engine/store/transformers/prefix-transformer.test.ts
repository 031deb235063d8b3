// Read/write selection by prefix, as kube-apiserver does it: the first provider and first key
// write; any provider and key reads by prefix; anything but the first reads as stale.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import type { EncryptionKey } from '../../config/encryption-types.ts';
import { identityTransformer } from './transformer.ts';
import { createPrefixTransformer, prefixEntry } from './prefix-transformer.ts';
import { keyedProviderEntry } from './keyed-provider.ts';
import { TransformError, isTransformError } from './transform-error.ts';
import { seededRandom, toText, utf8 } from './testing/fixed-random.ts';

const random = seededRandom('prefix');
const key = (name: string, fill: number, bytes = 32): EncryptionKey => ({ name, secret: Buffer.alloc(bytes, fill).toString('base64') });
const at = { key: '/registry/flowcontrol.apiserver.k8s.io/flowschemas/global-default' };
const noMatch = () => new TransformError('no-matching-prefix', 'no matching prefix found');

function chain(...entries: Parameters<typeof createPrefixTransformer>[0]) {
  return createPrefixTransformer(entries, noMatch);
}

async function failure(promise: Promise<unknown>): Promise<TransformError> {
  try {
    await promise;
  } catch (error) {
    if (isTransformError(error)) return error;
    throw error;
  }
  throw new Error('expected a failure');
}

test('writes with the first provider and its first key, in kube-apiserver format', async () => {
  const t = chain(keyedProviderEntry('aescbc', [key('new', 1), key('old', 2)], random), prefixEntry('', identityTransformer));
  const stored = await t.transformToStorage(utf8('{"kind":"FlowSchema"}'), at);
  assert.is(toText(stored.subarray(0, 'k8s:enc:aescbc:v1:new:'.length)), 'k8s:enc:aescbc:v1:new:');
  assert.equal(await t.transformFromStorage(stored, at).then((r) => ({ text: toText(r.data), stale: r.stale })), {
    text: '{"kind":"FlowSchema"}',
    stale: false,
  });
});

test('key rotation: a value under the second key still reads, and is stale', async () => {
  const before = chain(keyedProviderEntry('aesgcm', [key('k1', 1)], random));
  const stored = await before.transformToStorage(utf8('v'), at);
  const after = chain(keyedProviderEntry('aesgcm', [key('k2', 2), key('k1', 1)], random));
  const read = await after.transformFromStorage(stored, at);
  assert.equal({ text: toText(read.data), stale: read.stale }, { text: 'v', stale: true });
  const rewritten = await after.transformToStorage(read.data, at);
  assert.ok(toText(rewritten).startsWith('k8s:enc:aesgcm:v1:k2:'));
  assert.is((await after.transformFromStorage(rewritten, at)).stale, false);
});

test('provider migration: a value of a later provider reads stale; plaintext reads through identity, stale', async () => {
  const secretbox = keyedProviderEntry('secretbox', [key('sb', 3)], random);
  const aescbc = keyedProviderEntry('aescbc', [key('cbc', 4)], random);
  const old = await chain(aescbc).transformToStorage(utf8('x'), at);
  const t = chain(secretbox, aescbc, prefixEntry('', identityTransformer));
  assert.equal(await t.transformFromStorage(old, at).then((r) => [toText(r.data), r.stale]), ['x', true]);
  assert.equal(await t.transformFromStorage(utf8('{"plain":true}'), at).then((r) => [toText(r.data), r.stale]), ['{"plain":true}', true]);
});

test('identity first (decrypting away from encryption): plaintext is fresh, encrypted data still reads through the later provider', async () => {
  const aescbc = keyedProviderEntry('aescbc', [key('cbc', 4)], random);
  const encrypted = await chain(aescbc).transformToStorage(utf8('secret'), at);
  const t = chain(prefixEntry('', identityTransformer), aescbc);
  assert.equal(await t.transformFromStorage(encrypted, at).then((r) => [toText(r.data), r.stale]), ['secret', true]);
  assert.equal(await t.transformFromStorage(utf8('plain'), at).then((r) => [toText(r.data), r.stale]), ['plain', false]);
  assert.is(toText(await t.transformToStorage(utf8('plain'), at)), 'plain');
});

test('identity alone refuses encrypted data instead of returning ciphertext as plaintext', async () => {
  const encrypted = await chain(keyedProviderEntry('aescbc', [key('cbc', 4)], random)).transformToStorage(utf8('secret'), at);
  const error = await failure(chain(prefixEntry('', identityTransformer)).transformFromStorage(encrypted, at));
  assert.is(error.message, 'no matching prefix found');
});

test('no matching key: the provider says so, naming its kind', async () => {
  const writer = chain(keyedProviderEntry('aescbc', [key('gone', 5)], random));
  const stored = await writer.transformToStorage(utf8('x'), at);
  const error = await failure(chain(keyedProviderEntry('aescbc', [key('k1', 1)], random)).transformFromStorage(stored, at));
  assert.is(error.message, 'aescbc: no matching key was found for the provided AES transformer');
  const box = await chain(keyedProviderEntry('secretbox', [key('gone', 5)], random)).transformToStorage(utf8('x'), at);
  const boxError = await failure(chain(keyedProviderEntry('secretbox', [key('k1', 1)], random)).transformFromStorage(box, at));
  assert.is(boxError.message, 'secretbox: no matching key was found for the provided Secretbox transformer');
});

test('a wrong key under the right name is an error naming provider and key, never garbage', async () => {
  const stored = await chain(keyedProviderEntry('aesgcm', [key('k1', 1)], random)).transformToStorage(utf8('x'), at);
  const error = await failure(chain(keyedProviderEntry('aesgcm', [key('k1', 9)], random)).transformFromStorage(stored, at));
  assert.is(error.message, 'aesgcm key "k1": cipher: message authentication failed');
  assert.is(error.reason, 'decrypt-failed');
  assert.is(error.provider, 'aesgcm key "k1"');
});

test('several matching providers failing: every distinct reason is kept, Go aggregate style', async () => {
  const stored = await chain(keyedProviderEntry('aesgcm', [key('k1', 1)], random)).transformToStorage(utf8('x'), at);
  const same = chain(keyedProviderEntry('aesgcm', [key('k1', 7)], random), keyedProviderEntry('aesgcm', [key('k1', 8)], random));
  assert.is((await failure(same.transformFromStorage(stored, at))).message, 'aesgcm key "k1": cipher: message authentication failed');
  const different = chain(keyedProviderEntry('aesgcm', [key('k2', 7)], random), keyedProviderEntry('aesgcm', [key('k1', 8)], random));
  assert.is(
    (await failure(different.transformFromStorage(stored, at))).message,
    '[aesgcm: no matching key was found for the provided AES transformer, aesgcm key "k1": cipher: message authentication failed]',
  );
});

test('prefix bytes are compared exactly, so a key name that prefixes another does not capture it', async () => {
  const stored = await chain(keyedProviderEntry('aescbc', [key('k10', 1)], random)).transformToStorage(utf8('x'), at);
  const t = chain(keyedProviderEntry('aescbc', [key('k1', 2), key('k10', 1)], random));
  assert.equal(await t.transformFromStorage(stored, at).then((r) => [toText(r.data), r.stale]), ['x', true]);
});

test.run();
