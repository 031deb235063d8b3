import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, truncateSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { runConfigCheck } from './config-check.ts';
import { MAX_CONFIG_FILE_BYTES } from '../../engine/config/config-file.ts';
import { MAX_NESTING_DEPTH } from '../../engine/nesting-depth.ts';
import { MAX_FIELD_ERRORS } from '../../engine/resources/field-errors.ts';

const FC = 'flowcontrol.apiserver.k8s.io/v1';
const root = fileURLToPath(new URL('../..', import.meta.url));

const dir = mkdtempSync(join(tmpdir(), 'fairway-config-check-'));
function file(name: string, text: string): string {
  const path = join(dir, name);
  writeFileSync(path, text);
  return path;
}

const plc = (name: string, limited = 'nominalConcurrencyShares: 10', apiVersion = FC) => `apiVersion: ${apiVersion}
kind: PriorityLevelConfiguration
metadata:
  name: ${name}
spec:
  type: Limited
  limited:
    ${limited}
    limitResponse:
      type: Queue
      queuing: {queues: 16, handSize: 4}
`;

const flowSchema = (name: string, level: string) => `apiVersion: ${FC}
kind: FlowSchema
metadata:
  name: ${name}
spec:
  priorityLevelConfiguration: {name: ${level}}
  matchingPrecedence: 500
  rules:
  - subjects: [{kind: Group, group: {name: system:authenticated}}]
    nonResourceRules: [{verbs: [get], nonResourceURLs: [/version]}]
`;

async function run(...args: string[]): Promise<{ code: number; stdout: string[]; stderr: string }> {
  let out = '';
  let err = '';
  const code = await runConfigCheck(args, { stdout: (t) => (out += t), stderr: (t) => (err += t) });
  return { code, stdout: out.split('\n').filter((l) => l !== ''), stderr: err };
}

test('valid objects: one "valid" line each, exit 0', async () => {
  const path = file('good.yaml', `${plc('tenants')}---\n${flowSchema('tenants', 'tenants')}`);
  const result = await run(path);
  assert.is(result.code, 0);
  assert.equal(result.stdout, [`${path}: PriorityLevelConfiguration/tenants: valid`, `${path}: FlowSchema/tenants: valid`]);
  assert.is(result.stderr, '');
});

test('an invalid object: one line per field error, exit 1', async () => {
  const path = file('bad.yaml', plc('foo', 'lendablePercent: 101'));
  const result = await run(path);
  assert.is(result.code, 1);
  assert.equal(result.stdout, [
    `${path}: PriorityLevelConfiguration/foo: spec.limited.lendablePercent: Invalid value: 101: must be between 0 and 100, inclusive`,
  ]);
});

test('an object with thousands of field errors: the first 100 lines, then how many more', async () => {
  const finalizers = Array.from({ length: 5_000 }, (_, i) => `-bad${i}`);
  const path = file(
    'many.json',
    JSON.stringify({
      apiVersion: FC,
      kind: 'PriorityLevelConfiguration',
      metadata: { name: 'many', finalizers },
      spec: { type: 'Limited', limited: { limitResponse: { type: 'Reject' } } },
    }),
  );
  const result = await run(path);
  assert.is(result.code, 1);
  // Each bad finalizer is reported on the list and on its item: 10,000 errors.
  assert.is(result.stdout.length, MAX_FIELD_ERRORS + 1);
  assert.match(result.stdout[0]!, `${path}: PriorityLevelConfiguration/many: metadata.finalizers: Invalid value: "-bad0": name part must consist of`);
  assert.is(result.stdout.at(-1), `${path}: PriorityLevelConfiguration/many: and ${10_000 - MAX_FIELD_ERRORS} more errors`);
});

test('mandatory objects must keep their fixed spec', async () => {
  const path = file('catch-all.yaml', plc('catch-all'));
  const result = await run(path);
  assert.is(result.code, 1);
  assert.ok(
    result.stdout.some((l) => l.startsWith(`${path}: PriorityLevelConfiguration/catch-all: spec: Invalid value:`)),
    result.stdout.join('\n'),
  );
});

test('unreadable file, bad YAML, unknown kind and non-object documents: clear one-line messages, exit 1', async () => {
  const missing = join(dir, 'missing.yaml');
  const badYaml = file('syntax.yaml', 'apiVersion: v1\nkind: b: c\n');
  const mixed = file('mixed.yaml', `${plc('ok')}---\napiVersion: v1\nkind: ConfigMap\nmetadata: {name: x}\n---\n- not\n- an object\n`);
  const result = await run(missing, badYaml, mixed);
  assert.is(result.code, 1);
  assert.equal(result.stdout, [
    `${missing}: cannot read: no such file or directory`,
    result.stdout[1]!,
    `${mixed}: PriorityLevelConfiguration/ok: valid`,
    `${mixed}:13: document 2: unknown kind: apiVersion "v1", kind "ConfigMap" (known: ${FC} PriorityLevelConfiguration, ${FC} FlowSchema, ` +
      'apiserver.config.k8s.io/v1 EncryptionConfiguration, v1 EncryptionConfig, apiserver.config.k8s.io/v1 AuthorizationConfiguration, ' +
      'apiserver.config.k8s.io/v1beta1 AuthorizationConfiguration, apiserver.config.k8s.io/v1alpha1 AuthorizationConfiguration, ' +
      'apiserver.config.k8s.io/v1 AdmissionConfiguration, apiserver.k8s.io/v1alpha1 AdmissionConfiguration)',
    `${mixed}:17: document 3: expected an object with apiVersion and kind, got a list`,
  ]);
  assert.match(result.stdout[1]!, new RegExp(`^${escapeRegExp(badYaml)}:2:7: invalid YAML: \\S`));
});

test('a device, a FIFO, a directory or an oversized file is refused by name, never read', async () => {
  const fifo = join(dir, 'fifo.yaml');
  execFileSync('mkfifo', [fifo]);
  const oversized = file('oversized.yaml', '');
  truncateSync(oversized, MAX_CONFIG_FILE_BYTES + 1);
  const result = await run('/dev/urandom', fifo, dir, oversized);
  assert.is(result.code, 1);
  assert.equal(result.stdout, [
    '/dev/urandom: cannot read: /dev/urandom is not a regular file (a character device)',
    `${fifo}: cannot read: ${fifo} is not a regular file (a named pipe)`,
    `${dir}: cannot read: is a directory`,
    `${oversized}: cannot read: ${oversized} is larger than ${MAX_CONFIG_FILE_BYTES} bytes`,
  ]);
});

test("an admission plugin's path to /dev/urandom or a FIFO is an error on that field, not a read", async () => {
  const fifo = join(dir, 'plugin-fifo.yaml');
  execFileSync('mkfifo', [fifo]);
  const config = file(
    'admission-hostile.yaml',
    'apiVersion: apiserver.config.k8s.io/v1\nkind: AdmissionConfiguration\n' +
      `plugins: [{name: EventRateLimit, path: /dev/urandom}, {name: ValidatingAdmissionPolicy, path: ${fifo}}]\n`,
  );
  const result = await run(config);
  assert.is(result.code, 1);
  const prefix = `${config}: AdmissionConfiguration/(document 1)`;
  assert.equal(result.stdout, [
    `${prefix}: plugins[0].path: Invalid value: "/dev/urandom": Couldn't open admission plugin configuration /dev/urandom: ` +
      '/dev/urandom is not a regular file (a character device)',
    `${prefix}: plugins[1].path: Invalid value: ${JSON.stringify(fifo)}: Couldn't open admission plugin configuration ${fifo}: ` +
      `${fifo} is not a regular file (a named pipe)`,
  ]);
});

test('a million levels of JSON or YAML nesting: one line naming the file, exit 1, no stack overflow', async () => {
  const levels = 1_000_000;
  const deepJson = file('deep.json', `{"apiVersion":"${FC}","kind":"FlowSchema","metadata":{"name":"x"},"spec":${'['.repeat(levels)}${']'.repeat(levels)}}`);
  const deepYaml = file('deep.yaml', `apiVersion: ${FC}\nkind: FlowSchema\nmetadata: {name: x}\nspec: ${'['.repeat(levels)}${']'.repeat(levels)}\n`);
  const result = await run(deepJson, deepYaml);
  assert.is(result.code, 1);
  assert.equal(result.stdout, [
    `${deepJson}: nests objects and lists more than ${MAX_NESTING_DEPTH} levels deep`,
    `${deepYaml}: nests objects and lists more than ${MAX_NESTING_DEPTH} levels deep`,
  ]);
});

test('a YAML file whose anchors and aliases would take minutes to compose is refused at once, naming the file', async () => {
  // 200k anchors, each aliased once: resolving the aliases walked every anchor before each (> 200 s).
  let annotations = '';
  for (let i = 0; i < 200_000; i++) annotations += `    a${i}: &a${i} v\n    b${i}: *a${i}\n`;
  const anchors = file('anchors.yaml', `apiVersion: ${FC}\nkind: FlowSchema\nmetadata:\n  name: x\n  annotations:\n${annotations}`);
  let laughs = 'a: &a [lol, lol, lol, lol, lol, lol, lol, lol, lol]\n';
  for (let level = 1; level < 9; level++)
    laughs += `l${level}: &l${level} [${Array(9)
      .fill(level === 1 ? '*a' : `*l${level - 1}`)
      .join(', ')}]\n`;
  const bomb = file('laughs.yaml', `apiVersion: ${FC}\nkind: FlowSchema\nmetadata:\n  name: x\n${laughs}`);
  const result = await run(anchors, bomb);
  assert.is(result.code, 1);
  assert.equal(result.stdout, [
    `${anchors}: refused before parsing: the YAML document has more than 1000 anchors`,
    `${bomb}:1: document 1: invalid YAML: document contains excessive aliasing`,
  ]);
});

test('EncryptionConfiguration: a key written in the wrong shape is never printed', async () => {
  const key = Buffer.alloc(32, 7).toString('base64');
  const path = file(
    'enc-shape.yaml',
    'apiVersion: apiserver.config.k8s.io/v1\nkind: EncryptionConfiguration\nresources:\n  - resources: [secrets]\n    providers:\n      - ' +
      `secretbox:\n          keys:\n            - name: k\n              secret: {key: ${key}}\n            - name: k2\n              secret: [${key}` +
      ']\n',
  );
  const result = await run(path);
  assert.is(result.code, 1);
  assert.equal(result.stdout, [
    `${path}: EncryptionConfiguration/(document 1): resources[0].providers[0].secretbox.keys[0].secret: Invalid value: "REDACTED": must be of type ` +
      'string, not a map',
    `${path}: EncryptionConfiguration/(document 1): resources[0].providers[0].secretbox.keys[1].secret: Invalid value: "REDACTED": must be of type ` +
      'string, not a list',
  ]);
  assert.not.ok((result.stdout.join('') + result.stderr).includes(key));
});

test('an object without a name is shown by its position', async () => {
  const path = file('anon.yaml', `${plc('a')}---\n${plc('a').replace('  name: a\n', '  labels: {x: z}\n')}`);
  const result = await run(path);
  assert.is(result.code, 1);
  assert.ok(result.stdout.length >= 2);
  assert.is(result.stdout[0], `${path}: PriorityLevelConfiguration/a: valid`);
  for (const line of result.stdout.slice(1)) assert.ok(line.startsWith(`${path}: PriorityLevelConfiguration/(document 2): metadata.name: `), line);
});

test('List documents are checked item by item', async () => {
  const list = JSON.stringify({
    apiVersion: FC,
    kind: 'PriorityLevelConfigurationList',
    items: [
      { metadata: { name: 'l1' }, spec: { type: 'Limited', limited: { limitResponse: { type: 'Reject' } } } },
      { metadata: { name: 'l2' }, spec: { type: 'Bogus' } },
    ],
  });
  const path = file('list.json', list);
  const result = await run(path);
  assert.is(result.code, 1);
  assert.is(result.stdout[0], `${path}: PriorityLevelConfiguration/l1: valid`);
  assert.match(result.stdout[1]!, /PriorityLevelConfiguration\/l2: spec\.type: Unsupported value: "Bogus"/);
});

test('--api-domain changes the apiVersion objects must carry', async () => {
  const path = file('domain.yaml', plc('p', 'nominalConcurrencyShares: 1', 'flowcontrol.apiserver.example.com/v1'));
  assert.equal((await run('--api-domain', 'example.com', path)).stdout, [`${path}: PriorityLevelConfiguration/p: valid`]);
  assert.is((await run(`--api-domain=example.com`, path)).code, 0);
  const wrong = await run(path);
  assert.is(wrong.code, 1);
  assert.match(wrong.stdout[0]!, /unknown kind: apiVersion "flowcontrol\.apiserver\.example\.com\/v1"/);
});

test('usage errors exit 2 with a message on stderr; --help exits 0', async () => {
  for (const args of [[], ['--api-domain'], ['--api-domain='], ['--frobnicate', 'x.yaml'], ['--api-domain', 'example.com']]) {
    const result = await run(...args);
    assert.is(result.code, 2, args.join(' '));
    assert.equal(result.stdout, []);
    assert.match(result.stderr, /^Error: .+\nRun 'fairway config check --help' for usage\.\n$/);
  }
  const help = await run('--help');
  assert.is(help.code, 0);
  assert.ok(help.stdout[0]!.startsWith('Usage: fairway config check'));
  assert.ok(help.stdout.some((l) => l.includes('Exit status')));
});

test('end to end: `node api/fairway.mjs config check FILE`', () => {
  const good = file('e2e-good.yaml', plc('e2e'));
  const bad = file('e2e-bad.yaml', plc('foo', 'lendablePercent: 101'));
  const fairway = join(root, 'api', 'fairway.mjs');
  const ok = spawnSync(process.execPath, [fairway, 'config', 'check', good], { cwd: root, encoding: 'utf8' });
  assert.is(ok.status, 0, ok.stderr);
  assert.is(ok.stdout, `${good}: PriorityLevelConfiguration/e2e: valid\n`);
  const failed = spawnSync(process.execPath, [fairway, 'config', 'check', good, bad], { cwd: root, encoding: 'utf8' });
  assert.is(failed.status, 1, failed.stderr);
  assert.is(
    failed.stdout,
    `${good}: PriorityLevelConfiguration/e2e: valid\n${bad}: PriorityLevelConfiguration/foo: spec.limited.lendablePercent: Invalid value: 101: must ` +
      'be between 0 and 100, inclusive\n',
  );
  const usage = spawnSync(process.execPath, [fairway, 'config', 'check'], { cwd: root, encoding: 'utf8' });
  assert.is(usage.status, 2);
  assert.match(usage.stderr, /no files given/);
});

test.after(() => rmSync(dir, { recursive: true, force: true }));

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

test.run();
