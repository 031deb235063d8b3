import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { SimClock } from '../sim-clock.ts';
import type { LoadedEncryptionConfig } from './encryption-config.ts';
import { parseEncryptionConfig } from './encryption-config.ts';
import type { ReloadOutcome } from './encryption-reload.ts';
import { createEncryptionConfigWatcher, RELOAD_POLL_INTERVAL_MS } from './encryption-reload.ts';

const K32 = Buffer.alloc(32, 3).toString('base64');
const config = (keyName: string) => `apiVersion: apiserver.config.k8s.io/v1
kind: EncryptionConfiguration
resources:
  - resources: [flowschemas.flowcontrol.apiserver.k8s.io]
    providers:
      - aesgcm: {keys: [{name: ${keyName}, secret: ${K32}}]}
`;
const INVALID = config('').replace('aesgcm', 'aescbc');

/** A file held in memory: the watcher reads it through the injected reader. */
function harness(initialText: string) {
  let text: string | undefined = initialText;
  const clock = new SimClock(1_000_000);
  const parsed = parseEncryptionConfig(new TextEncoder().encode(initialText), 'enc.yaml');
  if (!parsed.ok) throw new Error(parsed.error.message);
  const outcomes: Exclude<ReloadOutcome, { kind: 'unchanged' }>[] = [];
  let prepareResult: { ok: true } | { ok: false; message: string } = { ok: true };
  const watcher = createEncryptionConfigWatcher({
    file: 'enc.yaml',
    clock,
    initial: parsed.value,
    readFile: async () => {
      if (text === undefined) throw new Error('ENOENT: no such file or directory');
      return new TextEncoder().encode(text);
    },
    prepare: async () => prepareResult,
    onOutcome: (outcome) => outcomes.push(outcome),
  });
  return {
    clock,
    watcher,
    outcomes,
    setText: (next: string | undefined) => (text = next),
    setPrepare: (result: typeof prepareResult) => (prepareResult = result),
  };
}

const firstKeyName = (loaded: LoadedEncryptionConfig) => loaded.config.resources[0]!.providers[0]!.aesgcm!.keys[0]!.name;

test('unchanged bytes: nothing happens', async () => {
  const h = harness(config('k1'));
  assert.equal(await h.watcher.poll(), { kind: 'unchanged' });
  assert.equal(h.outcomes, []);
});

test('a valid edit becomes current and is reported with the hash it replaced', async () => {
  const h = harness(config('k1'));
  const before = h.watcher.current().contentHash;
  h.setText(config('k2'));
  const outcome = await h.watcher.poll();
  assert.is(outcome.kind, 'reloaded');
  assert.is(firstKeyName(h.watcher.current()), 'k2');
  assert.is(outcome.kind === 'reloaded' ? outcome.previousHash : '', before);
  assert.is(h.outcomes.length, 1);
});

test('an invalid edit keeps the last good config and is reported once, as a value naming the field', async () => {
  const h = harness(config('k1'));
  h.setText(INVALID);
  const outcome = await h.watcher.poll();
  assert.is(outcome.kind, 'rejected');
  assert.is(firstKeyName(h.watcher.current()), 'k1');
  assert.equal(
    h.watcher.lastRejection()?.error.fieldErrors.map((e) => e.field),
    ['resources[0].providers[0].aescbc.keys[0].name'],
  );
  assert.equal(await h.watcher.poll(), { kind: 'unchanged' });
  assert.is(h.outcomes.length, 1);
  // Fixing the file clears the rejection.
  h.setText(config('k3'));
  assert.is((await h.watcher.poll()).kind, 'reloaded');
  assert.is(h.watcher.lastRejection(), undefined);
});

test('a vanished file is a rejection, and reverting to the content in force clears it', async () => {
  const h = harness(config('k1'));
  h.setText(undefined);
  const outcome = await h.watcher.poll();
  assert.is(outcome.kind === 'rejected' ? outcome.error.stage : '', 'read');
  assert.match(outcome.kind === 'rejected' ? outcome.error.message : '', /error opening encryption provider configuration file "enc\.yaml": ENOENT/);
  h.setText(config('k1'));
  assert.equal(await h.watcher.poll(), { kind: 'unchanged' });
  assert.is(h.watcher.lastRejection(), undefined);
});

test('reload rules apply: KMS v1 names must be unique', async () => {
  const h = harness(config('k1'));
  const kms = (n: number) => `      - kms: {name: same, endpoint: "unix:///tmp/k${n}.sock"}\n`;
  h.setText(config('k1') + kms(1) + kms(2));
  const outcome = await h.watcher.poll();
  assert.match(
    outcome.kind === 'rejected' ? outcome.error.message : '',
    /resources\[0\]\.providers\[2\]\.kms\.name: Invalid value: "same": duplicate KMS provider name same/,
  );
});

test('a failed prepare keeps the old config and is retried on the next poll', async () => {
  const h = harness(config('k1'));
  h.setText(config('k2'));
  h.setPrepare({ ok: false, message: 'kms-providers not healthy' });
  assert.is((await h.watcher.poll()).kind, 'rejected');
  assert.equal(await h.watcher.poll(), { kind: 'unchanged' });
  assert.is(firstKeyName(h.watcher.current()), 'k1');
  h.setPrepare({ ok: true });
  assert.is((await h.watcher.poll()).kind, 'reloaded');
  assert.is(firstKeyName(h.watcher.current()), 'k2');
});

test('the poll runs on the injected clock, every minute, until stopped', async () => {
  const h = harness(config('k1'));
  h.watcher.start();
  h.setText(config('k2'));
  h.clock.advance(RELOAD_POLL_INTERVAL_MS - 1);
  await h.watcher.poll().then(() => undefined); // flush: the timer has not fired, this poll reloads
  assert.is(h.outcomes.length, 1);
  h.setText(config('k4'));
  h.clock.advance(1);
  // The timer's poll is in flight; poll() joins it rather than starting another.
  const joined = await h.watcher.poll();
  assert.is(joined.kind, 'reloaded');
  assert.is(firstKeyName(h.watcher.current()), 'k4');
  h.watcher.stop();
  assert.is(h.clock.pending, 0);
});

test.run();
