import { test } from 'uvu';
import * as assert from 'uvu/assert';
import type { KmsV1Service } from '../../kms/kms-service.ts';
import { KmsCallError } from '../../kms/kms-service.ts';
import { createKmsV1Provider } from './kms-v1.ts';
import { createAesCbcTransformer } from './aescbc.ts';
import { createPrefixTransformer, concatBytes, textBytes } from './prefix-transformer.ts';
import { TransformError, isTransformError } from './transform-error.ts';
import { seededRandom, toText, utf8 } from './testing/fixed-random.ts';

const at = { key: '/registry/flowcontrol.apiserver.k8s.io/flowschemas/exempt' };
const PREFIX = 'k8s:enc:kms:v1:old-kms:';

/** Wraps by XOR with a fixed pad (tests only), counting calls. */
function fakeV1(): KmsV1Service & { calls: { encrypt: number; decrypt: number }; down: boolean } {
  const pad = (bytes: Uint8Array) => bytes.map((b, i) => b ^ (0x5a + i));
  const fake = {
    calls: { encrypt: 0, decrypt: 0 },
    down: false,
    async encrypt(plain: Uint8Array) {
      fake.calls.encrypt++;
      if (fake.down) throw new KmsCallError('Unavailable', 'connection refused');
      return concatBytes(Uint8Array.of(0xee), pad(plain));
    },
    async decrypt(cipher: Uint8Array) {
      fake.calls.decrypt++;
      if (fake.down) throw new KmsCallError('Unavailable', 'connection refused');
      return pad(cipher.subarray(1));
    },
    close() {},
  };
  return fake;
}

function provider(service: KmsV1Service, cacheSize = 1000) {
  const p = createKmsV1Provider({ name: 'old-kms', service, cacheSize, random: seededRandom('v1') });
  return createPrefixTransformer([p.entry], () => new TransformError('no-matching-prefix', 'no matching prefix found'));
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

test('format: prefix, uint16 length of the wrapped DEK, wrapped DEK, AES-GCM(nonce ‖ ct ‖ tag)', async () => {
  const kms = fakeV1();
  const stored = await provider(kms).transformToStorage(utf8('hello'), at);
  assert.is(toText(stored.subarray(0, PREFIX.length)), PREFIX);
  const body = stored.subarray(PREFIX.length);
  assert.is((body[0]! << 8) | body[1]!, 33);
  assert.is(body.length, 2 + 33 + 12 + 5 + 16);
});

test('a new DEK and one Encrypt per write; reads are served from the DEK cache, or Decrypt once per DEK', async () => {
  const kms = fakeV1();
  const t = provider(kms);
  const values = [await t.transformToStorage(utf8('a'), at), await t.transformToStorage(utf8('b'), at)];
  assert.is(kms.calls.encrypt, 2);
  for (const v of values) await t.transformFromStorage(v, at);
  assert.is(kms.calls.decrypt, 0);
  const restarted = provider(kms);
  for (const v of [...values, ...values]) await restarted.transformFromStorage(v, at);
  assert.is(kms.calls.decrypt, 2);
  const uncached = provider(kms, -1);
  for (const v of [...values, ...values]) await uncached.transformFromStorage(v, at);
  assert.is(kms.calls.decrypt, 6);
});

test('legacy AES-CBC data under the DEK still reads, as stale', async () => {
  const kms = fakeV1();
  const dek = new Uint8Array(32).fill(3);
  const wrapped = await kms.encrypt(dek);
  const cbc = await createAesCbcTransformer(dek, seededRandom('iv')).transformToStorage(utf8('from 2019'), at);
  const stored = concatBytes(textBytes(PREFIX), Uint8Array.of(0, wrapped.length), wrapped, cbc);
  const read = await provider(kms).transformFromStorage(stored, at);
  assert.equal({ text: toText(read.data), stale: read.stale }, { text: 'from 2019', stale: true });
});

test('errors name the provider: unreachable plugin, malformed value, failed authentication', async () => {
  const kms = fakeV1();
  const stored = await provider(kms).transformToStorage(utf8('x'), at);
  kms.down = true;
  const down = await failure(provider(kms).transformFromStorage(stored, at));
  assert.equal(
    [down.reason, down.message],
    ['kms-unavailable', 'kms provider "old-kms": failed to decrypt DEK: rpc error: code = Unavailable desc = connection refused'],
  );
  assert.is((await failure(provider(kms).transformToStorage(utf8('x'), at))).reason, 'kms-unavailable');
  kms.down = false;
  const short = await failure(provider(kms).transformFromStorage(concatBytes(textBytes(PREFIX), Uint8Array.of(0, 40, 1)), at));
  assert.is(short.message, 'kms provider "old-kms": invalid data encountered by envelope transformer: failed to read uint16 length prefixed data');
  const moved = await failure(provider(kms).transformFromStorage(stored, { key: '/registry/other' }));
  assert.match(moved.message, /^kms provider "old-kms": \[cipher: message authentication failed, /);
});

test.run();
