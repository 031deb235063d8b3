import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { formatFieldError } from '../resources/field-errors.ts';
import { checkManifests, createManifestRegistry, parseManifests } from './manifests.ts';
import { encryptionManifestKinds } from './encryption-kind.ts';

const K32 = Buffer.alloc(32, 9).toString('base64');

/** Each document's kind, name and findings, as the manifest check reports them. */
function check(text: string): { errors: unknown[]; checked: { kind: string; name: string; findings: string[] }[] } {
  const { checked, errors } = checkManifests(parseManifests(text, 'f.yaml'), createManifestRegistry(encryptionManifestKinds()));
  return { errors, checked: checked.map((c) => ({ kind: c.kind.kind, name: c.name, findings: c.errors.map(formatFieldError) })) };
}

test('a valid EncryptionConfiguration has no findings', () => {
  const result = check(
    'apiVersion: apiserver.config.k8s.io/v1\nkind: EncryptionConfiguration\nresources:\n  - resources: ["*.flowcontrol.apiserver.k8s.io"]\n    ' +
      `providers: [{secretbox: {keys: [{name: k, secret: ${K32}}]}}, {identity: {}}]\n`,
  );
  assert.equal(result, { errors: [], checked: [{ kind: 'EncryptionConfiguration', name: '', findings: [] }] });
});

test('each finding has its field path and kube-apiserver words', () => {
  const result = check(
    'apiVersion: apiserver.config.k8s.io/v1\nkind: EncryptionConfiguration\nresources:\n  - resources: [Secrets]\n    providers: [{kms: {apiVersion: ' +
      'v2, name: "a:b", endpoint: "tcp://x"}}]\n',
  );
  assert.equal(result.errors, []);
  assert.equal(result.checked[0]!.findings, [
    'resources[0].resources[0]: Invalid value: "Secrets": resource name should not contain capital letters',
    'resources[0].providers[0].kms.name: Invalid value: "a:b": invalid KMS provider name a:b, must not contain \':\'',
    'resources[0].providers[0].kms.endpoint: Invalid value: "tcp://x": unsupported scheme "tcp" for KMS provider, only unix is supported',
  ]);
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

test.run();
