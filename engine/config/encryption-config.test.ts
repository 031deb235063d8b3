import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createHash } from 'node:crypto';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { EncryptionConfigResult, LoadedEncryptionConfig } from './encryption-config.ts';
import { formatEncryptionConfigError, loadEncryptionConfig, parseEncryptionConfig, parseGroupResource } from './encryption-config.ts';

const dir = mkdtempSync(join(tmpdir(), 'fw-enc-config-'));
const write = (name: string, text: string): string => {
  const file = join(dir, name);
  writeFileSync(file, text);
  return file;
};
const bytes = (text: string): Uint8Array => new TextEncoder().encode(text);
const K32 = Buffer.alloc(32, 1).toString('base64');
const K16 = 'c2VjcmV0IGlzIHNlY3VyZQ==';

const FLOWSCHEMAS = 'flowschemas.flowcontrol.apiserver.k8s.io';
const PLCS = 'prioritylevelconfigurations.flowcontrol.apiserver.k8s.io';

const YAML = `apiVersion: apiserver.config.k8s.io/v1
kind: EncryptionConfiguration
resources:
  - resources:
      - ${FLOWSCHEMAS}
    providers:
      - aesgcm:
          keys:
            - name: new
              secret: ${K32}
      - aescbc:
          keys:
            - name: old
              secret: ${K16}
  - resources: ["${FLOWSCHEMAS}"]
    providers:
      - identity: {}
  - resources: ["*.flowcontrol.apiserver.k8s.io"]
    providers:
      - secretbox: {keys: [{name: sb, secret: ${K32}}]}
      - identity: {}
`;

function ok(result: EncryptionConfigResult): LoadedEncryptionConfig {
  if (!result.ok) throw new Error(formatEncryptionConfigError(result.error));
  return result.value;
}

function errorLine(result: EncryptionConfigResult): string {
  if (result.ok) throw new Error('expected the configuration to be refused');
  return formatEncryptionConfigError(result.error);
}

test('loads YAML and resolves a resource to its providers: exact rule, then the group wildcard, entries in order', async () => {
  const file = write('config.yaml', YAML);
  const loaded = ok(await loadEncryptionConfig(file));
  const kinds = (target: string) => loaded.rules.providersFor(target)?.map((ref) => `${Object.keys(ref.provider)[0]}@${ref.path}`);
  // The exact resource appears in two entries: the provider lists are concatenated, earlier first.
  assert.equal(kinds(FLOWSCHEMAS), ['aesgcm@resources[0].providers[0]', 'aescbc@resources[0].providers[1]', 'identity@resources[1].providers[0]']);
  assert.equal(kinds(PLCS), ['secretbox@resources[2].providers[0]', 'identity@resources[2].providers[1]']);
  assert.is(kinds('secrets'), undefined);
  assert.equal(loaded.rules.ruleKeys, [FLOWSCHEMAS, '*.flowcontrol.apiserver.k8s.io']);
  assert.is(loaded.contentHash, `sha256:${createHash('sha256').update(YAML).digest('hex')}`);
});

test('*.* catches every resource no earlier rule names, and *. only the core group', () => {
  const text = `{"apiVersion":"apiserver.config.k8s.io/v1","kind":"EncryptionConfiguration","resources":[
    {"resources":["*."],"providers":[{"aescbc":{"keys":[{"name":"core","secret":"${K32}"}]}}]},
    {"resources":["*.*"],"providers":[{"identity":{}}]}]}`;
  const loaded = ok(parseEncryptionConfig(bytes(text), 'c.json'));
  const first = (target: string) => Object.keys(loaded.rules.providersFor(target)![0]!.provider)[0];
  assert.is(first('secrets'), 'aescbc');
  assert.is(first(PLCS), 'identity');
  assert.is(first('widgets.example.com'), 'identity');
});

test('the apiVersion follows the API domain; the legacy v1 EncryptionConfig spelling still loads', () => {
  const body = `resources:\n  - resources: [secrets]\n    providers: [{identity: {}}]\n`;
  assert.ok(
    parseEncryptionConfig(bytes(`apiVersion: apiserver.config.example.org/v1\nkind: EncryptionConfiguration\n${body}`), 'f', { apiDomain: 'example.org' }).ok,
  );
  assert.ok(parseEncryptionConfig(bytes(`apiVersion: v1\nkind: EncryptionConfig\n${body}`), 'f').ok);
  assert.is(
    errorLine(
      parseEncryptionConfig(bytes(`apiVersion: apiserver.config.k8s.io/v1\nkind: EncryptionConfiguration\n${body}`), 'f', { apiDomain: 'example.org' }),
    ),
    'f: error while parsing file: error decoding encryption provider configuration file "f": no kind "EncryptionConfiguration" is registered for ' +
      'version "apiserver.config.k8s.io/v1"',
  );
});

test('KMS fields are defaulted: apiVersion v1, cachesize 1000 (v1 only), timeout 3s', () => {
  const text = `apiVersion: apiserver.config.k8s.io/v1
kind: EncryptionConfiguration
resources:
  - resources: [secrets]
    providers:
      - kms: {name: legacy, endpoint: "unix:///tmp/a.sock"}
      - kms: {apiVersion: v2, name: current, endpoint: "unix:///tmp/b.sock", timeout: 1m30s}
`;
  const loaded = ok(parseEncryptionConfig(bytes(text), 'f', { kmsV1Enabled: true }));
  const [legacy, current] = loaded.config.resources[0]!.providers.map((p) => p.kms!);
  assert.equal(
    { ...legacy!, timeoutNanoseconds: String(legacy!.timeoutNanoseconds) },
    {
      apiVersion: 'v1',
      name: 'legacy',
      endpoint: 'unix:///tmp/a.sock',
      cachesize: 1000,
      timeoutNanoseconds: '3000000000',
      timeoutMs: 3000,
    },
  );
  assert.is(current!.cachesize, undefined);
  assert.is(current!.timeoutMs, 90_000);
});

test('load errors name the file and keep kube-apiserver wording', async () => {
  assert.is(
    errorLine(await loadEncryptionConfig(write('empty.yaml', ''))),
    `${join(dir, 'empty.yaml')}: error while parsing file: encryption provider configuration file "${join(dir, 'empty.yaml')}" is empty`,
  );
  assert.match(
    errorLine(await loadEncryptionConfig(join(dir, 'missing.yaml'))),
    /missing\.yaml: error while parsing file: error opening encryption provider configuration file ".*missing\.yaml": ENOENT/,
  );
  assert.is(
    errorLine(parseEncryptionConfig(bytes('resources: []\n'), 'f.yaml')),
    `f.yaml: error while parsing file: error decoding encryption provider configuration file "f.yaml": Object 'Kind' is missing`,
  );
  assert.match(
    errorLine(parseEncryptionConfig(bytes('kind: [\n'), 'bad.yaml')),
    /^bad\.yaml: error while parsing file: error decoding encryption provider configuration file "bad\.yaml": invalid YAML: /,
  );
});

test('decoding is strict: unknown fields, wrong types and bad durations never reach validation', () => {
  const head = 'apiVersion: apiserver.config.k8s.io/v1\nkind: EncryptionConfiguration\n';
  const refuse = (body: string) =>
    errorLine(parseEncryptionConfig(bytes(head + body), 'f')).replace(
      'f: error while parsing file: error decoding encryption provider configuration file "f": ',
      '',
    );
  assert.is(
    refuse('resources:\n  - resources: [secrets]\n    providers: [{aescbc: {keys: [], rotate: true}, identity: {}}]\n    extra: 1\n'),
    'strict decoding error: unknown field "resources[0].providers[0].aescbc.rotate", unknown field "resources[0].extra"',
  );
  assert.is(refuse('resources:\n  - resources: secrets\n    providers: []\n'), 'resources[0].resources: Invalid value: "secrets": must be of type array');
  assert.is(
    refuse('resources:\n  - resources: [secrets]\n    providers: [{kms: {apiVersion: v2, name: a, endpoint: "unix:///x", timeout: 3}}]\n'),
    'resources[0].providers[0].kms.timeout: Invalid value: 3: must be of type string',
  );
  assert.is(
    refuse('resources:\n  - resources: [secrets]\n    providers: [{kms: {apiVersion: v2, name: a, endpoint: "unix:///x", timeout: soon}}]\n'),
    'time: invalid duration "soon"',
  );
});

test('no error ever prints key material, whatever shape it was written in', () => {
  const head = 'apiVersion: apiserver.config.k8s.io/v1\nkind: EncryptionConfiguration\n';
  const provider = (keys: string) => `resources:\n  - resources: [secrets]\n    providers:\n      - aescbc:\n          keys: ${keys}\n`;
  const cases: [string, string][] = [
    [
      provider(`[{name: k, secret: {part: ${K32}}}]`),
      'resources[0].providers[0].aescbc.keys[0].secret: Invalid value: "REDACTED": must be of type string, not a map',
    ],
    [
      provider(`[{name: k, secret: [${K32}]}]`),
      'resources[0].providers[0].aescbc.keys[0].secret: Invalid value: "REDACTED": must be of type string, not a list',
    ],
    [
      provider(`[{name: k, secret: 12345678}]`),
      'resources[0].providers[0].aescbc.keys[0].secret: Invalid value: "REDACTED": must be of type string, not a number',
    ],
    [provider(`"${K32}"`), 'resources[0].providers[0].aescbc.keys: Invalid value: "REDACTED": must be of type array, not a string'],
    [provider(`[${K32}]`), 'resources[0].providers[0].aescbc.keys[0]: Invalid value: "REDACTED": must be of type object, not a string'],
    [`resources: {providers: [{aescbc: {keys: [{name: k, secret: ${K32}}]}}]}\n`, 'resources: Invalid value: "REDACTED": must be of type array, not a map'],
    [
      `resources:\n  - resources: [secrets]\n    providers: [{secretbox: ${K32}}]\n`,
      'resources[0].providers[0].secretbox: Invalid value: "REDACTED": must be of type object, not a string',
    ],
  ];
  for (const [body, expected] of cases) {
    const line = errorLine(parseEncryptionConfig(bytes(head + body), 'f'));
    assert.not.ok(line.includes(K32) || line.includes('12345678'), line);
    assert.is(line.replace('f: error while parsing file: error decoding encryption provider configuration file "f": ', ''), expected);
  }
});

test('validation and build failures carry the field errors and the exact one-line message', () => {
  const text = `apiVersion: apiserver.config.k8s.io/v1
kind: EncryptionConfiguration
resources:
  - resources: ["*."]
    providers: [{identity: {}}]
  - resources: [secrets]
    providers: [{secretbox: {keys: [{name: k, secret: ${K16}}]}}, {}]
`;
  const invalid = parseEncryptionConfig(bytes(text), 'c.yaml');
  assert.is(
    errorLine(invalid),
    'c.yaml: error while parsing file: [resources[1].providers[0].secretbox.keys[0].secret: Invalid value: "REDACTED": secret is not of the expected ' +
      'length, got 16, expected one of [32], resources[1].providers[1]: Invalid value: {}: provider does not contain any of the expected providers: ' +
      'KMS, AESGCM, AESCBC, Secretbox, Identity]',
  );
  assert.is(invalid.ok ? undefined : invalid.error.stage, 'validate');
  assert.equal(invalid.ok ? [] : invalid.error.fieldErrors.map((e) => e.field), [
    'resources[1].providers[0].secretbox.keys[0].secret',
    'resources[1].providers[1]',
  ]);

  const masked = parseEncryptionConfig(bytes(text.replace(`${K16}}]}}, {}]`, `${K32}}]}}]`)), 'c.yaml');
  assert.is(errorLine(masked), 'c.yaml: error while building transformers: resource "secrets" is masked by earlier rule "*."');
  assert.is(masked.ok ? undefined : masked.error.stage, 'build');
});

test('resource strings split at the first dot', () => {
  assert.equal(parseGroupResource('pandas.awesome.bears.example'), { group: 'awesome.bears.example', resource: 'pandas' });
  assert.equal(parseGroupResource('*.'), { group: '', resource: '*' });
  assert.equal(parseGroupResource('secrets'), { group: '', resource: 'secrets' });
});

test.after(() => rmSync(dir, { recursive: true, force: true }));

test.run();
