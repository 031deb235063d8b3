// Encryption providers, property by property: every provider round-trips any value under any
// storage key; for the authenticated ones (aesgcm, secretbox, kms v2) any single flipped byte of
// the stored value is an error, never data; and a chain reads what any of its providers wrote,
// stale unless the first wrote it. Runs on the shared runner (support/runner.ts): the fixed seed
// and run counts of `npm test`, or `npm run properties -- --runs N --seed S`; a failure prints
// its seed and path, and `--path P --only NAME` replays it. The providers' own randomness (IVs,
// nonces, DEKs) comes from the same seed, so a whole run repeats exactly; a path replay repeats
// the inputs, with other IVs, which no property depends on.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import fc from 'fast-check';
import { checkAsyncProperty, readPropertySettings } from './support/runner.ts';
import { SimClock } from '../engine/sim-clock.ts';
import type { Transformer } from '../engine/store/transformers/transformer.ts';
import { identityTransformer } from '../engine/store/transformers/transformer.ts';
import type { PrefixEntry } from '../engine/store/transformers/prefix-transformer.ts';
import { createPrefixTransformer, prefixEntry } from '../engine/store/transformers/prefix-transformer.ts';
import { keyedProviderEntry } from '../engine/store/transformers/keyed-provider.ts';
import { startKmsV2Provider } from '../engine/store/transformers/kms-v2.ts';
import { createKmsV1Provider } from '../engine/store/transformers/kms-v1.ts';
import { TransformError, isTransformError } from '../engine/store/transformers/transform-error.ts';
import { createFakeKms } from '../engine/store/transformers/testing/fake-kms.ts';
import { seededRandom } from '../engine/store/transformers/testing/fixed-random.ts';
import type { KmsV1Service } from '../engine/kms/kms-service.ts';

const RUNS = 60;

/** Runs one named property on the shared runner (seed, runs, path and replay from the environment). */
function check<Ts>(name: string, property: fc.IAsyncProperty<Ts>, runs = RUNS): Promise<void> {
  return checkAsyncProperty(`encryption: ${name}`, property, { runs });
}

const random = seededRandom(`properties:${readPropertySettings().seed}`);
const secret = (fill: number, bytes = 32) => Buffer.alloc(bytes, fill).toString('base64');
const noMatch = () => new TransformError('no-matching-prefix', 'no matching prefix found');
const chainOf = (...entries: PrefixEntry[]): Transformer => createPrefixTransformer(entries, noMatch);

/** A KMS v1 plugin stand-in: wraps DEKs by XOR (the v1 envelope is what is under test). */
const fakeV1: KmsV1Service = {
  encrypt: async (plain) => plain.map((b) => b ^ 0xa5),
  decrypt: async (cipher) => cipher.map((b) => b ^ 0xa5),
  close() {},
};

const kmsV2 = await startKmsV2Provider({ name: 'prop', service: createFakeKms(random), clock: new SimClock(0), random });

const PROVIDERS: Record<string, { entry: PrefixEntry; authenticated: boolean }> = {
  aescbc: { entry: keyedProviderEntry('aescbc', [{ name: 'k1', secret: secret(1) }], random), authenticated: false },
  'aescbc-128': { entry: keyedProviderEntry('aescbc', [{ name: 'k1', secret: secret(1, 16) }], random), authenticated: false },
  aesgcm: { entry: keyedProviderEntry('aesgcm', [{ name: 'k1', secret: secret(2) }], random), authenticated: true },
  'aesgcm-192': { entry: keyedProviderEntry('aesgcm', [{ name: 'k1', secret: secret(2, 24) }], random), authenticated: true },
  secretbox: { entry: keyedProviderEntry('secretbox', [{ name: 'k1', secret: secret(3) }], random), authenticated: true },
  'kms-v2': { entry: kmsV2.entry, authenticated: true },
  // KMS v1 reads fall back to unauthenticated AES-CBC, as kube-apiserver's do, so it is not claimed.
  'kms-v1': { entry: createKmsV1Provider({ name: 'prop', service: fakeV1, cacheSize: 10, random }).entry, authenticated: false },
  identity: { entry: prefixEntry('', identityTransformer), authenticated: false },
};

const plaintext = fc.uint8Array({ minLength: 0, maxLength: 2048 });
const storageKey = fc.string({ minLength: 1, maxLength: 120 }).map((s) => `/registry/flowcontrol.apiserver.k8s.io/flowschemas/${s}`);

for (const [name, { entry }] of Object.entries(PROVIDERS)) {
  test(`${name}: any value round-trips under any storage key, not stale`, async () => {
    const transformer = chainOf(entry);
    await check(
      `${name} round trip`,
      fc.asyncProperty(plaintext, storageKey, async (data, key) => {
        // Identity refuses values that look encrypted; any other bytes are fine.
        fc.pre(name !== 'identity' || !Buffer.from(data).toString('latin1').startsWith('k8s:enc:'));
        const stored = await transformer.transformToStorage(data, { key });
        const read = await transformer.transformFromStorage(stored, { key });
        assert.equal(Buffer.from(read.data).toString('hex'), Buffer.from(data).toString('hex'));
        assert.is(read.stale, false);
      }),
    );
  });
}

for (const [name, { entry, authenticated }] of Object.entries(PROVIDERS)) {
  if (!authenticated) continue;
  test(`${name}: any single flipped byte (prefix included) is detected`, async () => {
    const transformer = chainOf(entry);
    await check(
      `${name} tamper`,
      fc.asyncProperty(plaintext, storageKey, fc.nat(), fc.integer({ min: 1, max: 255 }), async (data, key, position, mask) => {
        const stored = await transformer.transformToStorage(data, { key });
        const index = position % stored.length;
        const tampered = Uint8Array.from(stored);
        tampered[index] = tampered[index]! ^ mask;
        try {
          await transformer.transformFromStorage(tampered, { key });
        } catch (error) {
          assert.ok(isTransformError(error), `not a TransformError: ${String(error)}`);
          return;
        }
        assert.unreachable(`byte ${index} flipped with ${mask} was not detected`);
      }),
    );
  });
}

test('aesgcm and kms v2 bind the storage key: a value moved to another key does not open', async () => {
  for (const name of ['aesgcm', 'kms-v2']) {
    const transformer = chainOf(PROVIDERS[name]!.entry);
    await check(
      `${name} key binding`,
      fc.asyncProperty(plaintext, storageKey, storageKey, async (data, from, to) => {
        fc.pre(from !== to);
        const stored = await transformer.transformToStorage(data, { key: from });
        await transformer.transformFromStorage(stored, { key: to }).then(
          () => assert.unreachable('opened under another key'),
          (error: unknown) => assert.ok(isTransformError(error)),
        );
      }),
      30,
    );
  }
});

test('a chain reads what any of its providers wrote; stale exactly when not written by the first', async () => {
  const names = Object.keys(PROVIDERS).filter((n) => n !== 'aescbc-128' && n !== 'aesgcm-192');
  await check(
    'chain',
    fc.asyncProperty(fc.shuffledSubarray(names, { minLength: 1 }), fc.nat(), plaintext, storageKey, async (order, writerIndex, data, key) => {
      fc.pre(!Buffer.from(data).toString('latin1').startsWith('k8s:enc:'));
      const writer = order[writerIndex % order.length]!;
      const stored = await chainOf(PROVIDERS[writer]!.entry).transformToStorage(data, { key });
      const read = await chainOf(...order.map((n) => PROVIDERS[n]!.entry)).transformFromStorage(stored, { key });
      assert.equal(Buffer.from(read.data).toString('hex'), Buffer.from(data).toString('hex'));
      // Identity reads plaintext only; when identity is not first, plaintext is stale.
      assert.is(read.stale, writer !== order[0]);
    }),
    40,
  );
});

test.after(() => kmsV2.close());

test.run();
