// The server's encryption wiring on a virtual clock with real files: an invalid file is refused
// naming the file and field; automatic reload swaps in a valid edit (new writes use it, old values
// still read) and keeps the configuration in force on an invalid one, logging it once; replaced
// KMS connections close after the grace period; KMS health is offered under kube-apiserver's names.
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { SimClock } from '../../engine/sim-clock.ts';
import { createFakeKms, type FakeKms } from '../../engine/store/transformers/testing/fake-kms.ts';
import { seededRandom } from '../../engine/store/transformers/testing/fixed-random.ts';
import { createLogger } from '../log.ts';
import { reloadIntervalFromEnv, startEncryptionAtRest, storedResources, type EncryptionAtRestOptions } from './encryption-at-rest.ts';

const K1 = Buffer.alloc(32, 1).toString('base64');
const K2 = Buffer.alloc(32, 2).toString('base64');
const at = { key: '/registry/flowcontrol.apiserver.k8s.io/flowschemas/catch-all' };
const utf8 = new TextEncoder();
const prefix = (bytes: Uint8Array) => new TextDecoder().decode(bytes.subarray(0, 40)).split(':').slice(0, 5).join(':');

const config = (providers: string) => `apiVersion: apiserver.config.k8s.io/v1
kind: EncryptionConfiguration
resources:
  - resources: ["*.flowcontrol.apiserver.k8s.io"]
    providers:
${providers}`;
const aescbc = (name: string, secret: string) => `      - aescbc:\n          keys: [{name: ${name}, secret: ${secret}}]\n`;
const aesgcm = (name: string, secret: string) => `      - aesgcm:\n          keys: [{name: ${name}, secret: ${secret}}]\n`;
const kms = (name: string) => `      - kms: {apiVersion: v2, name: ${name}, endpoint: unix:///tmp/unused-${name}.sock, timeout: 1s}\n`;

let dir: string;
test.before(async () => {
  dir = await mkdtemp(join(tmpdir(), 'fw-enc-at-rest-'));
});
test.after(async () => {
  await rm(dir, { recursive: true, force: true });
});

function setup(file: string, extra: Partial<EncryptionAtRestOptions> = {}) {
  const lines: string[] = [];
  const clock = new SimClock(1_000_000);
  const options: EncryptionAtRestOptions = {
    file,
    automaticReload: true,
    clock,
    logger: createLogger('serve.ts', (line) => lines.push(line)),
    resources: storedResources(),
    reloadIntervalMs: 60_000,
    ...extra,
  };
  return { clock, lines, options };
}

test('an invalid file is refused with the file, the field and the reason', async () => {
  const file = join(dir, 'invalid.yaml');
  await writeFile(file, config(aescbc('k1', 'c2hvcnQ=')));
  const started = await startEncryptionAtRest(setup(file).options);
  assert.ok(!started.ok);
  assert.is(
    started.error,
    `${file}: error while parsing file: resources[0].providers[0].aescbc.keys[0].secret: Invalid value: "REDACTED": secret is not of the expected ` +
      'length, got 5, expected one of [16 24 32]',
  );
});

test('automatic reload: a valid edit takes over new writes, an invalid one is logged once and changes nothing', async () => {
  const file = join(dir, 'reload.yaml');
  await writeFile(file, config(aescbc('k1', K1)));
  const { clock, lines, options } = setup(file);
  const started = await startEncryptionAtRest(options);
  assert.ok(started.ok);
  const at_ = started.value;
  assert.match(
    lines.join(''),
    /encryption at rest from .*reload\.yaml \(sha256:[0-9a-f]{64}\): prioritylevelconfigurations\.flowcontrol\.apiserver\.k8s\.io: aescbc key "k1"/,
  );
  const before = await at_.holder.current.transformToStorage(utf8.encode('x'), at);
  assert.is(prefix(before), 'k8s:enc:aescbc:v1:k1');

  await writeFile(file, config(aesgcm('k2', K2) + aescbc('k1', K1)));
  clock.advance(60_000);
  // The timer started this poll; asking again shares it.
  assert.is((await at_.watcher!.poll()).kind, 'reloaded');
  assert.is(at_.holder.generation, 1);
  assert.is(prefix(await at_.holder.current.transformToStorage(utf8.encode('x'), at)), 'k8s:enc:aesgcm:v1:k2');
  const old = await at_.holder.current.transformFromStorage(before, at);
  assert.equal([new TextDecoder().decode(old.data), old.stale], ['x', true]);
  assert.match(lines.join(''), /I\d{4} .* serve\.ts\] encryption provider configuration reloaded from .*: .*aesgcm key "k2"/);

  const good = at_.current().contentHash;
  await writeFile(file, config(aesgcm('k2', 'c2hvcnQ=')));
  assert.is((await at_.watcher!.poll()).kind, 'rejected');
  assert.is((await at_.watcher!.poll()).kind, 'unchanged');
  const errors = lines.filter((l) => l.startsWith('E'));
  assert.is(errors.length, 1, 'one log line per bad content');
  assert.match(
    errors[0]!,
    new RegExp(`not reloaded, keeping ${good}: .*reload\\.yaml: error while parsing file: resources\\[0\\]\\.providers\\[0\\]\\.aesgcm\\.keys\\[0\\]\\.secret`),
  );
  assert.is(at_.holder.generation, 1);
  assert.is(prefix(await at_.holder.current.transformToStorage(utf8.encode('x'), at)), 'k8s:enc:aesgcm:v1:k2');
  at_.stop();
});

test('key material written in the wrong shape never reaches an error, at startup or in the reload log line', async () => {
  const file = join(dir, 'shape.yaml');
  const secretAsMap = config(`      - aescbc:\n          keys: [{name: k1, secret: {value: ${K2}}}]\n`);
  await writeFile(file, secretAsMap);
  const refused = await startEncryptionAtRest(setup(file).options);
  assert.ok(!refused.ok);
  assert.ok(refused.error.includes('secret: Invalid value: "REDACTED": must be of type string, not a map'), refused.error);
  assert.not.ok(refused.error.includes(K2));

  await writeFile(file, config(aescbc('k1', K1)));
  const { clock, lines, options } = setup(file);
  const started = await startEncryptionAtRest(options);
  assert.ok(started.ok);
  await writeFile(file, config(`      - aescbc:\n          keys: ["${K2}", [${K2}]]\n`));
  clock.advance(60_000);
  assert.is((await started.value.watcher!.poll()).kind, 'rejected');
  const logged = lines.filter((l) => l.startsWith('E')).join('');
  assert.match(logged, /not reloaded, keeping .*keys\[0\]: Invalid value: "REDACTED": must be of type object, not a string/);
  assert.not.ok(lines.join('').includes(K2), 'the reload log never shows the key');
  started.value.stop();
});

test('KMS: health checks under kube-apiserver names; a reload closes the replaced plugin connection after the grace period', async () => {
  const file = join(dir, 'kms.yaml');
  await writeFile(file, config(kms('vault')));
  const fakes = new Map<string, FakeKms & { closed: boolean }>();
  const connectKmsV2 = (k: { name: string }) => {
    const fake = Object.assign(createFakeKms(seededRandom(k.name), 'key-1'), { closed: false });
    fake.close = () => (fake.closed = true);
    fakes.set(k.name, fake);
    return fake;
  };
  const transformerDeps = { connectKmsV2, random: seededRandom('at-rest') };

  const fixed = setup(file, { automaticReload: false, transformerDeps });
  const withoutReload = await startEncryptionAtRest(fixed.options);
  assert.ok(withoutReload.ok);
  assert.equal(
    withoutReload.value.healthChecks.map((c) => c.name),
    ['kms-provider-0'],
  );
  assert.is(withoutReload.value.healthChecks[0]!.check(), undefined);
  await new Promise((resolve) => setImmediate(resolve));
  fakes.get('vault')!.healthz = 'degraded';
  fixed.clock.advance(20_000); // past the cached good answer
  assert.is(withoutReload.value.healthChecks[0]!.check(), undefined, 'answers from the last reading while it takes a new one');
  await new Promise((resolve) => setImmediate(resolve));
  assert.match(withoutReload.value.healthChecks[0]!.check() ?? '', /kmsv2 Provider vault is not healthy, error: got unexpected healthz status: degraded/);
  withoutReload.value.stop();
  assert.ok(fakes.get('vault')!.closed);

  const { clock, options } = setup(file, { transformerDeps, closeGraceMs: 30_000 });
  const started = await startEncryptionAtRest(options);
  assert.ok(started.ok);
  assert.equal(
    started.value.healthChecks.map((c) => c.name),
    ['kms-providers'],
  );
  const first = fakes.get('vault')!;
  await writeFile(file, config(kms('vault2') + kms('vault')));
  await started.value.watcher!.poll();
  assert.is(started.value.holder.generation, 1);
  assert.is(prefix(await started.value.holder.current.transformToStorage(utf8.encode('x'), at)), 'k8s:enc:kms:v2:vault2');
  assert.not.ok(first.closed, 'operations that started with the old transformers may still use them');
  clock.advance(30_000);
  assert.ok(first.closed);
  started.value.stop();
  assert.ok(fakes.get('vault2')!.closed);
});

test('the reload interval comes from the environment as a Go duration, else one minute', () => {
  assert.is(reloadIntervalFromEnv(undefined), 60_000);
  assert.is(reloadIntervalFromEnv('250ms'), 250);
  assert.is(reloadIntervalFromEnv('nonsense'), 60_000);
  assert.is(reloadIntervalFromEnv('-1s'), 60_000);
});

test.run();
