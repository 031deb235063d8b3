// `fairway config check` on EncryptionConfiguration files: the lines it prints and its exit status.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runConfigCheck } from './config-check.ts';

const dir = mkdtempSync(join(tmpdir(), 'fw-config-check-enc-'));
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

test.after(() => rmSync(dir, { recursive: true, force: true }));

test.run();
