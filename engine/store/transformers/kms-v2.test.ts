// KMS v2 envelope behaviour against an in-memory plugin and a virtual clock: format, caching,
// rotation (stale), write-key expiry, health. The real-process gRPC path is kms-v2-plugin.test.ts.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { SimClock } from '../../sim-clock.ts';
import type { KmsV2Provider } from './kms-v2.ts';
import { KMS_V2_PREFIX, startKmsV2Provider } from './kms-v2.ts';
import { decodeEncryptedObject } from './encrypted-object.ts';
import { STATUS_POLL_HEALTHY_MS, STATUS_POLL_UNHEALTHY_MS, WRITE_STATE_TTL_MS, keyIdHash } from './kms-v2-state.ts';
import { createPrefixTransformer } from './prefix-transformer.ts';
import { TransformError, isTransformError } from './transform-error.ts';
import type { Transformer } from './transformer.ts';
import { createFakeKms } from './testing/fake-kms.ts';
import { seededRandom, toText, utf8 } from './testing/fixed-random.ts';

const at = { key: '/registry/flowcontrol.apiserver.k8s.io/prioritylevelconfigurations/workload-low' };
const START_MS = Date.UTC(2026, 0, 2, 3, 4, 5);

async function setup(options: { keyId?: string; down?: boolean; realm?: string } = {}) {
  const random = seededRandom('kms-v2');
  const clock = new SimClock(START_MS);
  const kms = createFakeKms(random, options.keyId, options.realm);
  if (options.down) kms.failWith = 'Unavailable';
  const provider = await startKmsV2Provider({ name: 'fake', service: kms, clock, random });
  return { clock, kms, provider, random, transformer: transformerOf(provider) };
}

function transformerOf(provider: KmsV2Provider): Transformer {
  return createPrefixTransformer([provider.entry], () => new TransformError('no-matching-prefix', 'no matching prefix found'));
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

/** Lets the probe started by a clock event (a promise chain) finish. */
async function settle(): Promise<void> {
  for (let i = 0; i < 20; i++) await Promise.resolve();
}

test('stored format: k8s:enc:kms:v2:<name>: + EncryptedObject with the seed type, key ID and annotations', async () => {
  const { provider, transformer } = await setup();
  const stored = await transformer.transformToStorage(utf8('{"spec":{}}'), at);
  const prefix = `${KMS_V2_PREFIX}fake:`;
  assert.is(toText(stored.subarray(0, prefix.length)), prefix);
  const envelope = decodeEncryptedObject(stored.subarray(prefix.length));
  assert.is(envelope.keyId, 'key-1');
  assert.is(envelope.encryptedDekSourceType, 1);
  assert.equal([...envelope.annotations.keys()], ['fake.kms.test']);
  assert.is(envelope.encryptedData.length, 32 + 12 + '{"spec":{}}'.length + 16);
  provider.close();
});

test('one Encrypt per seed, no Decrypt for our own writes; another server decrypts once, then caches', async () => {
  const { kms, provider, transformer, clock, random } = await setup();
  const values = await Promise.all(['a', 'b', 'c'].map((text) => transformer.transformToStorage(utf8(text), at)));
  for (const value of values) await transformer.transformFromStorage(value, at);
  assert.equal(kms.calls, { status: 1, encrypt: 1, decrypt: 0 });

  const other = await startKmsV2Provider({ name: 'fake', service: kms, clock, random });
  const reader = transformerOf(other);
  assert.equal(await Promise.all(values.map(async (v) => toText((await reader.transformFromStorage(v, at)).data))), ['a', 'b', 'c']);
  assert.is(kms.calls.decrypt, 1);
  provider.close();
  other.close();
});

test('the ciphertext is bound to its storage key', async () => {
  const { provider, transformer } = await setup();
  const stored = await transformer.transformToStorage(utf8('x'), at);
  const error = await failure(transformer.transformFromStorage(stored, { key: '/registry/elsewhere' }));
  assert.is(error.message, 'kms provider "fake": cipher: message authentication failed');
  provider.close();
});

test('key rotation: the next status poll generates a new seed; old values read as stale, new ones fresh', async () => {
  const { kms, provider, transformer, clock } = await setup();
  const old = await transformer.transformToStorage(utf8('old'), at);
  kms.keyId = 'key-2';
  clock.advance(STATUS_POLL_HEALTHY_MS);
  await settle();
  assert.is(kms.calls.encrypt, 2);
  const read = await transformer.transformFromStorage(old, at);
  assert.equal({ text: toText(read.data), stale: read.stale }, { text: 'old', stale: true });
  const fresh = await transformer.transformToStorage(read.data, at);
  assert.is(decodeEncryptedObject(fresh.subarray(`${KMS_V2_PREFIX}fake:`.length)).keyId, 'key-2');
  assert.is((await transformer.transformFromStorage(fresh, at)).stale, false);
  provider.close();
});

test('a plugin that stops answering: writes keep working for 3 minutes after the last good status, then fail with the expiry', async () => {
  const { kms, provider, transformer, clock } = await setup();
  const before = await transformer.transformToStorage(utf8('v'), at);
  kms.failWith = 'Unavailable';
  clock.advance(STATUS_POLL_HEALTHY_MS);
  await settle();
  await transformer.transformToStorage(utf8('still fine'), at);
  clock.advance(WRITE_STATE_TTL_MS - STATUS_POLL_HEALTHY_MS + 1);
  await settle();
  const error = await failure(transformer.transformToStorage(utf8('too late'), at));
  assert.is(error.reason, 'kms-not-ready');
  assert.is(
    error.message,
    `kms provider "fake": encryptedDEKSource with keyID hash "${keyIdHash('key-1')}" expired at 2026-01-02T03:07:05Z (current time is 2026-01-02T03:07:05Z)`,
  );
  // Reads of values whose seed is cached keep working.
  assert.is(toText((await transformer.transformFromStorage(before, at)).data), 'v');
  // The plugin comes back: the 10 s unhealthy poll renews the write key.
  kms.failWith = undefined;
  clock.advance(STATUS_POLL_UNHEALTHY_MS);
  await settle();
  await transformer.transformToStorage(utf8('again'), at);
  provider.close();
});

test('a plugin down at startup: reads and writes fail naming the provider and the reason', async () => {
  const { provider, transformer, kms, clock } = await setup({ down: true });
  const error = await failure(transformer.transformToStorage(utf8('x'), at));
  assert.is(error.reason, 'kms-not-ready');
  assert.match(
    error.message,
    new RegExp(
      String.raw`^kms provider "fake": got unexpected nil transformer: no DEK seed from the plugin yet \(failed to perform status section of ` +
        String.raw`the healthz check for KMS Provider fake, error: rpc error: code = Unavailable desc = fake plugin is down\)$`,
    ),
  );
  kms.failWith = undefined;
  clock.advance(STATUS_POLL_UNHEALTHY_MS);
  await settle();
  const stored = await transformer.transformToStorage(utf8('x'), at);
  assert.is(toText((await transformer.transformFromStorage(stored, at)).data), 'x');
  provider.close();
});

test('a Decrypt the plugin cannot serve is an error naming the provider (unavailable vs refused)', async () => {
  const first = await setup();
  const stored = await first.transformer.transformToStorage(utf8('x'), at);
  const second = await setup({ keyId: 'key-1' });
  second.kms.failWith = 'Unavailable';
  const down = await failure(second.transformer.transformFromStorage(stored, at));
  assert.is(down.reason, 'kms-unavailable');
  assert.is(down.message, 'kms provider "fake": failed to decrypt DEK, error: rpc error: code = Unavailable desc = fake plugin is down');
  second.kms.failWith = undefined;
  const third = await setup({ realm: 'another-kms' });
  const refused = await failure(third.transformer.transformFromStorage(stored, at));
  assert.is(refused.reason, 'kms-failed');
  assert.is(refused.message, 'kms provider "fake": failed to decrypt DEK, error: rpc error: code = InvalidArgument desc = fake plugin cannot decrypt');
  first.provider.close();
  second.provider.close();
  third.provider.close();
});

test('health: a bad healthz is reported with kube-apiserver wording and cached 3 s; a good answer 20 s', async () => {
  const { kms, provider, clock } = await setup();
  assert.equal(await provider.health(), { healthy: true });
  kms.healthz = 'degraded';
  assert.equal(await provider.health(), { healthy: true }); // cached
  clock.advance(20_000);
  assert.equal(await provider.health(), { healthy: false, error: 'kmsv2 Provider fake is not healthy, error: got unexpected healthz status: degraded' });
  const calls = kms.calls.status;
  clock.advance(2_999);
  await provider.health();
  assert.is(kms.calls.status, calls);
  clock.advance(1);
  await provider.health();
  assert.is(kms.calls.status, calls + 1);
  provider.close();
});

test('an Encrypt answering under another key ID than Status said fails the rotation', async () => {
  const random = seededRandom('mismatch');
  const clock = new SimClock(START_MS);
  const kms = createFakeKms(random);
  const status = kms.status.bind(kms);
  kms.status = async () => ({ ...(await status()), keyId: 'status-key' });
  const provider = await startKmsV2Provider({ name: 'fake', service: kms, clock, random });
  const health = await provider.keyState.probe();
  assert.ok(!health.healthy);
  assert.match(
    health.healthy ? '' : health.error,
    new RegExp(
      '^kmsv2 Provider fake is not healthy, error: failed to rotate DEK uid="[0-9a-f-]{36}", encrypt ' +
        'returned keyID hash "sha256:[0-9a-f]{64}", status said "sha256:[0-9a-f]{64}"',
    ),
  );
  assert.is(provider.keyState.current(), undefined);
  provider.close();
});

test('close stops the polling timer', async () => {
  const { provider, clock } = await setup();
  assert.is(clock.pending, 1);
  provider.close();
  assert.is(clock.pending, 0);
});

test.run();
