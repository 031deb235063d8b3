// KMS v2 end to end: the resource transformers built from a configuration file, talking gRPC to
// the test plugin as a real child process — round trip, outage, recovery, key rotation, tamper.
// Deadlines and polling run on a virtual clock; only the plugin's I/O is real.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { SimClock } from '../../sim-clock.ts';
import { parseEncryptionConfig } from '../../config/encryption-config.ts';
import type { KmsConfiguration } from '../../config/encryption-types.ts';
import type { KmsPluginProcess } from '../../kms/testing/plugin-process.ts';
import { startKmsPlugin } from '../../kms/testing/plugin-process.ts';
import { createGrpcKmsV2Client } from '../../kms/grpc-kms-client.ts';
import type { ResourceTransformers } from './resource-transformers.ts';
import { createResourceTransformers } from './resource-transformers.ts';
import { decodeEncryptedObject } from './encrypted-object.ts';
import { isTransformError } from './transform-error.ts';
import type { TransformError } from './transform-error.ts';
import { STATUS_POLL_UNHEALTHY_MS } from './kms-v2-state.ts';
import { seededRandom, toText, utf8 } from './testing/fixed-random.ts';

const PLCS = 'prioritylevelconfigurations.flowcontrol.apiserver.k8s.io';
const at = { key: '/registry/flowcontrol.apiserver.k8s.io/prioritylevelconfigurations/global-default' };
const TIMEOUT_MS = 2000;
const PREFIX = 'k8s:enc:kms:v2:test-kms:';

let plugin: KmsPluginProcess;

/** A hang guard (not a timing assertion): a broken socket must fail the test, not stall the suite. */
function guard<T>(promise: Promise<T>, label: string): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const limit = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`guard: ${label} did not settle`)), 30_000);
  });
  return Promise.race([promise, limit]).finally(() => clearTimeout(timer));
}

/** A server's worth of transformers for the configuration, on its own virtual clock. */
async function server(clock = new SimClock(0)): Promise<{ clock: SimClock; transformers: ResourceTransformers }> {
  const text = `apiVersion: apiserver.config.k8s.io/v1
kind: EncryptionConfiguration
resources:
  - resources: ["*.flowcontrol.apiserver.k8s.io"]
    providers:
      - kms: {apiVersion: v2, name: test-kms, endpoint: "${plugin.endpoint}", timeout: 2s}
      - identity: {}
`;
  const loaded = parseEncryptionConfig(utf8(text), 'enc.yaml');
  if (!loaded.ok) throw new Error(loaded.error.message);
  const connectKmsV2 = (kms: KmsConfiguration) =>
    createGrpcKmsV2Client({
      endpoint: kms.endpoint,
      timeoutMs: kms.timeoutMs,
      clock,
      channelOptions: { 'grpc.initial_reconnect_backoff_ms': 50, 'grpc.max_reconnect_backoff_ms': 200 },
    });
  const starting = createResourceTransformers(loaded.value, { clock, random: seededRandom('plugin'), connectKmsV2 });
  return { clock, transformers: await guard(starting, 'first status probe') };
}

async function failure(promise: Promise<unknown>): Promise<TransformError> {
  try {
    await guard(promise, 'transform');
  } catch (error) {
    if (isTransformError(error)) return error;
    throw error;
  }
  throw new Error('expected a failure');
}

const keyIdOf = (stored: Uint8Array): string => decodeEncryptedObject(stored.subarray(PREFIX.length)).keyId;

test.before(async () => {
  plugin = await startKmsPlugin({ keyId: 'key-1' });
});

test.after(async () => {
  await plugin.stop();
});

test('round trip through the plugin: the kube-apiserver envelope; a second server unwraps the seed with Decrypt', async () => {
  plugin.control({ keyId: 'key-1' });
  const a = await server();
  const b = await server();
  try {
    const stored = await a.transformers.transformerFor(PLCS).transformToStorage(utf8('{"kind":"PriorityLevelConfiguration"}'), at);
    assert.is(toText(stored.subarray(0, PREFIX.length)), PREFIX);
    assert.is(keyIdOf(stored), 'key-1');
    const read = await guard(b.transformers.transformerFor(PLCS).transformFromStorage(stored, at), 'read');
    assert.equal({ text: toText(read.data), stale: read.stale }, { text: '{"kind":"PriorityLevelConfiguration"}', stale: false });
    assert.is(plugin.calls().filter((c) => c.startsWith('Decrypt')).length, 1);
    assert.equal(await a.transformers.health(), [{ name: 'test-kms', path: 'resources[0].providers[0]', health: { healthy: true } }]);
  } finally {
    a.transformers.close();
    b.transformers.close();
  }
});

test('outage: plugin killed → a read that needs the plugin fails at the deadline naming the provider; restarted → works', async () => {
  plugin.control({ keyId: 'key-1' });
  const writer = await server();
  const reader = await server();
  try {
    const stored = await writer.transformers.transformerFor(PLCS).transformToStorage(utf8('value'), at);
    await plugin.kill();
    const pending = failure(reader.transformers.transformerFor(PLCS).transformFromStorage(stored, at));
    reader.clock.advance(TIMEOUT_MS);
    const error = await pending;
    assert.is(error.reason, 'kms-unavailable');
    assert.is(error.message, 'kms provider "test-kms": failed to decrypt DEK, error: rpc error: code = DeadlineExceeded desc = context deadline exceeded');
    // The writer holds its seed: writes keep working while the plugin is briefly away.
    await writer.transformers.transformerFor(PLCS).transformToStorage(utf8('during outage'), at);

    await plugin.restart();
    const read = await guard(reader.transformers.transformerFor(PLCS).transformFromStorage(stored, at), 'read after restart');
    assert.is(toText(read.data), 'value');
  } finally {
    writer.transformers.close();
    reader.transformers.close();
  }
});

test('a server started during an outage refuses writes with the reason, then recovers on the next poll', async () => {
  await plugin.kill();
  const clock = new SimClock(0);
  const starting = server(clock);
  await new Promise((resolve) => setImmediate(resolve));
  clock.advance(TIMEOUT_MS);
  const { transformers } = await starting;
  try {
    const error = await failure(transformers.transformerFor(PLCS).transformToStorage(utf8('x'), at));
    assert.is(error.reason, 'kms-not-ready');
    assert.is(
      error.message,
      'kms provider "test-kms": got unexpected nil transformer: no DEK seed from the plugin yet (failed to perform status section of the healthz ' +
        'check for KMS Provider test-kms, error: rpc error: code = DeadlineExceeded desc = context deadline exceeded)',
    );
    const [health] = await transformers.health();
    assert.ok(health !== undefined && !health.health.healthy);

    await plugin.restart();
    clock.advance(STATUS_POLL_UNHEALTHY_MS);
    const [after] = await guard(transformers.health(), 'health after restart');
    assert.equal(after?.health, { healthy: true });
    const stored = await transformers.transformerFor(PLCS).transformToStorage(utf8('x'), at);
    assert.is(toText((await transformers.transformerFor(PLCS).transformFromStorage(stored, at)).data), 'x');
  } finally {
    transformers.close();
  }
});

test('key rotation in the plugin: the next status gives a new seed; older values read as stale and rewrite under the new key', async () => {
  plugin.control({ keyId: 'key-1' });
  const { clock, transformers } = await server();
  try {
    const t = transformers.transformerFor(PLCS);
    const old = await t.transformToStorage(utf8('v1'), at);
    plugin.control({ keyId: 'key-2' });
    clock.advance(60_000);
    await guard(transformers.health(), 'poll after rotation');
    const read = await t.transformFromStorage(old, at);
    assert.equal({ text: toText(read.data), stale: read.stale }, { text: 'v1', stale: true });
    const rewritten = await t.transformToStorage(read.data, at);
    assert.is(keyIdOf(rewritten), 'key-2');
    assert.is((await t.transformFromStorage(rewritten, at)).stale, false);
  } finally {
    transformers.close();
  }
});

test('tampering with a stored KMS value is detected for every byte after the prefix', async () => {
  plugin.control({ keyId: 'key-1' });
  const { transformers } = await server();
  try {
    const t = transformers.transformerFor(PLCS);
    const stored = await t.transformToStorage(utf8('{"spec":{"type":"Limited"}}'), at);
    let detected = 0;
    for (let i = PREFIX.length; i < stored.length; i++) {
      const tampered = Uint8Array.from(stored);
      tampered[i] = tampered[i]! ^ 0x10;
      await failure(t.transformFromStorage(tampered, at));
      detected++;
    }
    assert.is(detected, stored.length - PREFIX.length);
  } finally {
    transformers.close();
  }
});

test.run();
