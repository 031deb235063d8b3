import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runConfigCheck } from '../../api/commands/config-check.ts';
import { checkManifests, createManifestRegistry, parseManifests } from './manifests.ts';
import { encryptionManifestKinds } from './encryption-kind.ts';

const dir = mkdtempSync(join(tmpdir(), 'fw-enc-kind-'));
const K32 = Buffer.alloc(32, 9).toString('base64');

async function configCheck(name: string, text: string): Promise<{ code: number; lines: string[] }> {
  const file = join(dir, name);
  writeFileSync(file, text);
  let out = '';
  const code = await runConfigCheck([file], { stdout: (t) => (out += t), stderr: (t) => (out += t) });
  return {
    code,
    lines: out
      .split('\n')
      .filter((l) => l !== '')
      .map((l) => l.replace(`${dir}/`, '')),
  };
}

test('fairway config check accepts a valid EncryptionConfiguration', async () => {
  const result = await configCheck(
    'ok.yaml',
    'apiVersion: apiserver.config.k8s.io/v1\nkind: EncryptionConfiguration\nresources:\n  - resources: ["*.flowcontrol.apiserver.k8s.io"]\n    ' +
      `providers: [{secretbox: {keys: [{name: k, secret: ${K32}}]}}, {identity: {}}]\n`,
  );
  assert.equal(result, { code: 0, lines: ['ok.yaml: EncryptionConfiguration/(document 1): valid'] });
});

test('fairway config check reports each finding with its field path, exit status 1', async () => {
  const result = await configCheck(
    'bad.yaml',
    'apiVersion: apiserver.config.k8s.io/v1\nkind: EncryptionConfiguration\nresources:\n  - resources: [Secrets]\n    providers: [{kms: {apiVersion: ' +
      'v2, name: "a:b", endpoint: "tcp://x"}}]\n',
  );
  assert.equal(result, {
    code: 1,
    lines: [
      'bad.yaml: EncryptionConfiguration/(document 1): resources[0].resources[0]: Invalid value: "Secrets": resource name should not contain capital letters',
      'bad.yaml: EncryptionConfiguration/(document 1): resources[0].providers[0].kms.name: Invalid value: "a:b": invalid KMS provider name a:b, must ' +
        "not contain ':'",
      'bad.yaml: EncryptionConfiguration/(document 1): resources[0].providers[0].kms.endpoint: Invalid value: "tcp://x": unsupported scheme "tcp" ' +
        'for KMS provider, only unix is supported',
    ],
  });
});

test('the legacy v1 EncryptionConfig kind is registered; unknown fields are reported as the flowcontrol kinds report them', () => {
  const registry = createManifestRegistry(encryptionManifestKinds());
  const manifest = parseManifests(
    'apiVersion: v1\nkind: EncryptionConfig\nresources:\n  - resources: [secrets]\n    providers: [{identity: {}}]\n    extra: true\n',
    'f.yaml',
  );
  const { checked, errors } = checkManifests(manifest, registry);
  assert.equal(errors, []);
  assert.equal(
    checked[0]!.errors.map((e) => `${e.field}: ${e.detail}`),
    ['resources[0].extra: unknown field'],
  );
});

test.after(() => rmSync(dir, { recursive: true, force: true }));

test.run();
