// One passing and one failing case per EncryptionConfiguration rule, asserting kube-apiserver's
// field path and message exactly.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { formatFieldError } from '../resources/field-errors.ts';
import type { EncryptionConfigOptions } from './encryption-config.ts';
import { checkEncryptionDocument } from './encryption-kind.ts';
import { validateEncryptionConfiguration } from './encryption-validation.ts';

const K16 = Buffer.alloc(16, 7).toString('base64');
const K24 = Buffer.alloc(24, 7).toString('base64');
const K32 = Buffer.alloc(32, 7).toString('base64');
const K9 = Buffer.alloc(9, 7).toString('base64');

type Provider = Record<string, unknown>;
const aescbc = (secret = K32, name = 'key1'): Provider => ({ aescbc: { keys: [{ name, secret }] } });
const kms = (fields: Record<string, unknown>): Provider => ({ kms: { apiVersion: 'v2', name: 'vault', endpoint: 'unix:///tmp/kms.sock', ...fields } });

function doc(entries: { resources?: string[]; providers?: Provider[] }[]): Record<string, unknown> {
  return { apiVersion: 'apiserver.config.k8s.io/v1', kind: 'EncryptionConfiguration', resources: entries };
}

/** The formatted findings for a one-entry configuration. */
function check(resources: string[], providers: Provider[], options: EncryptionConfigOptions = {}): string[] {
  return checkEncryptionDocument(doc([{ resources, providers }]), options).map(formatFieldError);
}

function rule(name: string, pass: () => string[], fail: () => string[], expected: string[]): void {
  test(`${name}: accepted when met`, () => assert.equal(pass(), []));
  test(`${name}: rejected with kube-apiserver's field and message`, () => assert.equal(fail(), expected));
}

// ---------------------------------------------------------------------------------------------
// The configuration and its entries

test('a missing configuration is a Required error on resources', () => {
  assert.equal(validateEncryptionConfiguration(undefined).map(formatFieldError), ["resources: Required value: EncryptionConfiguration can't be nil"]);
});

rule(
  'at least one resources entry',
  () => checkEncryptionDocument(doc([{ resources: ['secrets'], providers: [{ identity: {} }] }])).map(formatFieldError),
  () => checkEncryptionDocument(doc([])).map(formatFieldError),
  ['resources: Required value: at least one resources is required'],
);

rule(
  'an entry names at least one resource',
  () => check(['secrets'], [{ identity: {} }]),
  () => check([], [{ identity: {} }]),
  ['resources[0].resources: Required value: at least one resources[0].resources is required'],
);

rule(
  'an entry has at least one provider',
  () => check(['secrets'], [{ identity: {} }]),
  () => check(['secrets'], []),
  ['resources[0].providers: Required value: at least one resources[0].providers is required'],
);

// ---------------------------------------------------------------------------------------------
// Resource strings

rule(
  'no resource twice in one list',
  () => check(['secrets', 'configmaps'], [{ identity: {} }]),
  () => check(['secrets', 'secrets'], [{ identity: {} }]),
  ['resources[0].resources: Invalid value: ["secrets","secrets"]: the same resource cannot be specified multiple times'],
);

rule(
  'no group wildcard beside a resource of the same group',
  () => check(['secrets', '*.apps'], [{ identity: {} }]),
  () => check(['secrets', '*.'], [{ identity: {} }]),
  [
    'resources[0].resources: Invalid value: ["secrets","*."]: using overlapping resources such as \'secrets\' and \'*.\' in the same resource list ' +
      'is not allowed as they will be masked',
  ],
);

rule(
  'no *.* beside anything',
  () => check(['*.*'], [{ identity: {} }]),
  () => check(['*.*', 'deployments.apps'], [{ identity: {} }]),
  [
    'resources[0].resources: Invalid value: ["*.*","deployments.apps"]: using overlapping resources such as \'secrets\' and \'*.\' in the same ' +
      'resource list is not allowed as they will be masked',
  ],
);

rule(
  'resource names are lower case',
  () => check(['flowschemas.flowcontrol.apiserver.k8s.io'], [{ identity: {} }]),
  () => check(['FlowSchemas.flowcontrol.apiserver.k8s.io'], [{ identity: {} }]),
  ['resources[0].resources[0]: Invalid value: "FlowSchemas.flowcontrol.apiserver.k8s.io": resource name should not contain capital letters'],
);

rule(
  'a bare * is refused in favour of *. or *.*',
  () => check(['*.'], [{ identity: {} }]),
  () => check(['*'], [{ identity: {} }]),
  ['resources[0].resources[0]: Invalid value: "*": use \'*.\' to encrypt all the resources from core API group or *.* to encrypt all resources'],
);

rule(
  'resources without a REST API cannot be encrypted',
  () => check(['services'], [{ identity: {} }]),
  () => check(['serviceipallocations'], [{ identity: {} }]),
  ['resources[0].resources[0]: Invalid value: "serviceipallocations": resources which do not have REST API/s cannot be encrypted'],
);

rule(
  'events.k8s.io is stored as events',
  () => check(['events'], [{ identity: {} }]),
  () => check(['*.events.k8s.io'], [{ identity: {} }]),
  [
    "resources[0].resources[0]: Invalid value: \"*.events.k8s.io\": '*.events.k8s.io' objects are stored using the 'events' API group in etcd. Use " +
      "'events' instead in the config file",
  ],
);

rule(
  'the extensions group is gone',
  () => check(['ingresses.networking.k8s.io'], [{ identity: {} }]),
  () => check(['ingresses.extensions'], [{ identity: {} }]),
  ['resources[0].resources[0]: Invalid value: "ingresses.extensions": \'extensions\' group has been removed and cannot be used for encryption'],
);

rule(
  'no resource across all groups',
  () => check(['*.flowcontrol.apiserver.k8s.io'], [{ identity: {} }]),
  () => check(['flowschemas.*'], [{ identity: {} }]),
  ['resources[0].resources[0]: Invalid value: "flowschemas.*": encrypting the same resource across groups is not supported'],
);

// ---------------------------------------------------------------------------------------------
// Provider elements

rule(
  'a provider element sets a provider',
  () => check(['secrets'], [{ identity: {} }]),
  () => check(['secrets'], [{}]),
  ['resources[0].providers[0]: Invalid value: {}: provider does not contain any of the expected providers: KMS, AESGCM, AESCBC, Secretbox, Identity'],
);

rule(
  'a provider element sets only one provider (secrets redacted in the message)',
  () => check(['secrets'], [aescbc(), { identity: {} }]),
  () => check(['secrets'], [{ ...aescbc(), identity: {} }]),
  [
    'resources[0].providers[0]: Invalid value: {"aescbc":{"keys":[{"name":"key1","secret":"REDACTED"}]},"identity":{}}: more than one provider ' +
      'specified in a single element, should split into different list elements',
  ],
);

test('`identity:` with no value is null in YAML terms, so the element sets no provider (as in Go)', () => {
  assert.equal(check(['secrets'], [{ identity: null }]), [
    'resources[0].providers[0]: Invalid value: {}: provider does not contain any of the expected providers: KMS, AESGCM, AESCBC, Secretbox, Identity',
  ]);
});

// ---------------------------------------------------------------------------------------------
// Keys

rule(
  'a key provider has at least one key',
  () => check(['secrets'], [{ aesgcm: { keys: [{ name: 'k', secret: K16 }] } }]),
  () => check(['secrets'], [{ aesgcm: { keys: [] } }]),
  ['resources[0].providers[0].aesgcm.keys: Required value: at least one keys is required'],
);

rule(
  'a key has a name',
  () => check(['secrets'], [aescbc(K32, 'key1')]),
  () => check(['secrets'], [aescbc(K32, '')]),
  ['resources[0].providers[0].aescbc.keys[0].name: Required value: name is a mandatory field for a key'],
);

rule(
  'a key has a secret',
  () => check(['secrets'], [aescbc(K32)]),
  () => check(['secrets'], [aescbc('')]),
  ['resources[0].providers[0].aescbc.keys[0].secret: Required value: secret is a mandatory field for a key'],
);

rule(
  'a secret is standard base64 (padding required, no URL alphabet)',
  () => check(['secrets'], [aescbc(`${K32.slice(0, 20)}\n${K32.slice(20)}`)]),
  () => check(['secrets'], [aescbc(K32.replace(/=+$/, ''))]),
  ['resources[0].providers[0].aescbc.keys[0].secret: Invalid value: "REDACTED": secrets must be base64 encoded'],
);

rule(
  'aesgcm keys are 16, 24 or 32 bytes',
  () => [K16, K24, K32].flatMap((secret) => check(['secrets'], [{ aesgcm: { keys: [{ name: 'k', secret }] } }])),
  () => check(['secrets'], [{ aesgcm: { keys: [{ name: 'k', secret: K9 }] } }]),
  ['resources[0].providers[0].aesgcm.keys[0].secret: Invalid value: "REDACTED": secret is not of the expected length, got 9, expected one of [16 24 32]'],
);

rule(
  'aescbc keys are 16, 24 or 32 bytes (as kube-apiserver code accepts, whatever its type comment says)',
  () => [K16, K24, K32].flatMap((secret) => check(['secrets'], [aescbc(secret)])),
  () => check(['secrets'], [aescbc(K9)]),
  ['resources[0].providers[0].aescbc.keys[0].secret: Invalid value: "REDACTED": secret is not of the expected length, got 9, expected one of [16 24 32]'],
);

rule(
  'secretbox keys are 32 bytes',
  () => check(['secrets'], [{ secretbox: { keys: [{ name: 'k', secret: K32 }] } }]),
  () => check(['secrets'], [{ secretbox: { keys: [{ name: 'k', secret: K16 }] } }]),
  ['resources[0].providers[0].secretbox.keys[0].secret: Invalid value: "REDACTED": secret is not of the expected length, got 16, expected one of [32]'],
);

// ---------------------------------------------------------------------------------------------
// KMS

rule(
  'a KMS provider has a name',
  () => check(['secrets'], [kms({})]),
  () => check(['secrets'], [kms({ name: '' })]),
  ['resources[0].providers[0].kms.name: Required value: name is a mandatory field for a provider'],
);

rule(
  'a KMS v2 name has no colon (it is part of the stored prefix)',
  () => check(['secrets'], [kms({ name: 'a:b', apiVersion: 'v1' })], { kmsV1Enabled: true }),
  () => check(['secrets'], [kms({ name: 'a:b' })]),
  ['resources[0].providers[0].kms.name: Invalid value: "a:b": invalid KMS provider name a:b, must not contain \':\''],
);

rule(
  'KMS v2 names are unique across the file',
  () =>
    checkEncryptionDocument(
      doc([
        { resources: ['secrets'], providers: [kms({ name: 'a' })] },
        { resources: ['configmaps'], providers: [kms({ name: 'b' })] },
      ]),
    ).map(formatFieldError),
  () =>
    checkEncryptionDocument(
      doc([
        { resources: ['secrets'], providers: [kms({ name: 'a' })] },
        { resources: ['configmaps'], providers: [kms({ name: 'a' })] },
      ]),
    ).map(formatFieldError),
  ['resources[1].providers[0].kms.name: Invalid value: "a": duplicate KMS provider name a, names must be unique'],
);

rule(
  'KMS v1 names must be unique only with automatic reload',
  () => check(['secrets'], [kms({ apiVersion: 'v1', name: 'a' }), kms({ apiVersion: 'v1', name: 'a' })], { kmsV1Enabled: true }),
  () => check(['secrets'], [kms({ apiVersion: 'v1', name: 'a' }), kms({ apiVersion: 'v1', name: 'a' })], { kmsV1Enabled: true, reload: true }),
  ['resources[0].providers[1].kms.name: Invalid value: "a": duplicate KMS provider name a, names must be unique'],
);

rule(
  'a KMS timeout is positive',
  () => check(['secrets'], [kms({ timeout: '250ms' })]),
  () => check(['secrets'], [kms({ timeout: '0s' })]),
  ['resources[0].providers[0].kms.timeout: Invalid value: "0s": timeout should be a positive value'],
);

test('a negative timeout is shown in Go duration form', () => {
  assert.equal(check(['secrets'], [kms({ timeout: '-1500ms' })]), [
    'resources[0].providers[0].kms.timeout: Invalid value: "-1.5s": timeout should be a positive value',
  ]);
});

rule(
  'a KMS endpoint is set',
  () => check(['secrets'], [kms({ endpoint: 'unix:///var/run/kms.sock' })]),
  () => check(['secrets'], [kms({ endpoint: '' })]),
  ['resources[0].providers[0].kms.endpoint: Invalid value: "": endpoint is a mandatory field for a kms'],
);

rule(
  'a KMS endpoint parses as a URL',
  () => check(['secrets'], [kms({ endpoint: 'unix:///@abstract-kms' })]),
  () => check(['secrets'], [kms({ endpoint: 'unix:///tmp/%zz' })]),
  [
    'resources[0].providers[0].kms.endpoint: Invalid value: "unix:///tmp/%zz": invalid endpoint for kms provider, error: parse "unix:///tmp/%zz": ' +
      'invalid URL escape "%zz"',
  ],
);

rule(
  'a KMS endpoint is a unix socket',
  () => check(['secrets'], [kms({ endpoint: 'UNIX:///tmp/kms.sock' })]),
  () => check(['secrets'], [kms({ endpoint: 'tcp://127.0.0.1:9000' })]),
  ['resources[0].providers[0].kms.endpoint: Invalid value: "tcp://127.0.0.1:9000": unsupported scheme "tcp" for KMS provider, only unix is supported'],
);

test('a bare path is not an endpoint: its scheme is empty', () => {
  assert.equal(check(['secrets'], [kms({ endpoint: '/tmp/kms.sock' })]), [
    'resources[0].providers[0].kms.endpoint: Invalid value: "/tmp/kms.sock": unsupported scheme "" for KMS provider, only unix is supported',
  ]);
});

rule(
  'cachesize is for KMS v1 only',
  () => check(['secrets'], [kms({ apiVersion: 'v1', cachesize: 10 })], { kmsV1Enabled: true }),
  () => check(['secrets'], [kms({ cachesize: 10 })]),
  ['resources[0].providers[0].kms.cachesize: Invalid value: 10: cachesize is not supported in v2'],
);

rule(
  'a KMS v1 cachesize is not zero (negative disables the cache)',
  () => check(['secrets'], [kms({ apiVersion: 'v1', cachesize: -1 })], { kmsV1Enabled: true }),
  () => check(['secrets'], [kms({ apiVersion: 'v1', cachesize: 0 })], { kmsV1Enabled: true }),
  ['resources[0].providers[0].kms.cachesize: Invalid value: 0: cachesize should be a positive value, or negative to disable'],
);

rule(
  'a KMS apiVersion is v1 or v2 (the message prints the word, as upstream does)',
  () => check(['secrets'], [kms({ apiVersion: 'v2' })]),
  () => check(['secrets'], [kms({ apiVersion: 'v3' })]),
  ['resources[0].providers[0].kms.apiVersion: Invalid value: "v3": unsupported apiVersion apiVersion for KMS provider, only v1 and v2 are supported'],
);

// ---------------------------------------------------------------------------------------------
// Transformer-build checks

rule(
  'KMS v1 needs the explicit opt-in (it defaults to v1 when apiVersion is omitted)',
  () => check(['secrets'], [{ kms: { name: 'old', endpoint: 'unix:///tmp/k.sock' } }], { kmsV1Enabled: true }),
  () => check(['secrets'], [{ kms: { name: 'old', endpoint: 'unix:///tmp/k.sock' } }]),
  [
    'resources[0].providers[0].kms.apiVersion: Invalid value: "v1": KMSv1 is deprecated and will only receive security updates going forward. Use ' +
      'KMSv2 instead.  Set --feature-gates=KMSv1=true to use the deprecated KMSv1 feature.',
  ],
);

rule(
  'a rule after a wildcard of its group is masked',
  () =>
    checkEncryptionDocument(
      doc([
        { resources: ['secrets'], providers: [aescbc()] },
        { resources: ['*.'], providers: [{ identity: {} }] },
      ]),
    ).map(formatFieldError),
  () =>
    checkEncryptionDocument(
      doc([
        { resources: ['*.'], providers: [aescbc()] },
        { resources: ['secrets'], providers: [{ identity: {} }] },
      ]),
    ).map(formatFieldError),
  ['resources[1].resources[0]: Invalid value: "secrets": resource "secrets" is masked by earlier rule "*."'],
);

rule(
  'any rule after *.* is masked',
  () =>
    checkEncryptionDocument(
      doc([
        { resources: ['*.apps'], providers: [aescbc()] },
        { resources: ['*.*'], providers: [{ identity: {} }] },
      ]),
    ).map(formatFieldError),
  () =>
    checkEncryptionDocument(
      doc([
        { resources: ['*.*'], providers: [aescbc()] },
        { resources: ['*.apps'], providers: [{ identity: {} }] },
      ]),
    ).map(formatFieldError),
  ['resources[1].resources[0]: Invalid value: "*.apps": resource "*.apps" is masked by earlier rule "*.*"'],
);

test('several findings are all reported, in upstream order (a bare * also overlaps a core resource)', () => {
  assert.equal(check(['Secrets', '*'], [{}, aescbc(K9, '')]), [
    'resources[0].resources: Invalid value: ["Secrets","*"]: using overlapping resources such as \'secrets\' and \'*.\' in the same resource list is ' +
      'not allowed as they will be masked',
    'resources[0].resources[0]: Invalid value: "Secrets": resource name should not contain capital letters',
    'resources[0].resources[1]: Invalid value: "*": use \'*.\' to encrypt all the resources from core API group or *.* to encrypt all resources',
    'resources[0].providers[0]: Invalid value: {}: provider does not contain any of the expected providers: KMS, AESGCM, AESCBC, Secretbox, Identity',
    'resources[0].providers[1].aescbc.keys[0].name: Required value: name is a mandatory field for a key',
    'resources[0].providers[1].aescbc.keys[0].secret: Invalid value: "REDACTED": secret is not of the expected length, got 9, expected one of [16 24 32]',
  ]);
});

test.run();
