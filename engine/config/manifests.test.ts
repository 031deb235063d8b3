import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { stringify } from 'yaml';
import { formatFieldError } from '../resources/field-errors.ts';
import { invalid } from '../resources/field-errors.ts';
import { mandatoryFlowSchemas, mandatoryPriorityLevels, suggestedFlowSchemas, suggestedPriorityLevels } from '../resources/bootstrap.ts';
import type { ManifestKind } from './manifests.ts';
import { checkManifests, createManifestRegistry, formatManifestError, parseManifests, readManifestFile } from './manifests.ts';
import { flowcontrolManifestKinds } from './flowcontrol-kinds.ts';

const FC = 'flowcontrol.apiserver.k8s.io/v1';

const plcYaml = (name: string, extra = '') => `apiVersion: ${FC}
kind: PriorityLevelConfiguration
metadata:
  name: ${name}
spec:
  type: Limited
  limited:
    nominalConcurrencyShares: 10${extra}
    limitResponse:
      type: Reject
`;

// ---------------------------------------------------------------------------------------------
// Parsing

test('YAML: several documents, empty ones skipped, each with its start line and stream position', () => {
  const text = `# leading comment\n${plcYaml('a')}---\n---\n# only a comment\n---\n${plcYaml('b')}---\n`;
  const { documents, errors } = parseManifests(text, 'f.yaml');
  assert.equal(errors, []);
  assert.equal(
    documents.map((d) => [d.index, d.line, (d.object.metadata as { name: string }).name]),
    [
      [0, 2, 'a'],
      [3, 16, 'b'],
    ],
  );
  assert.is(documents[0]!.file, 'f.yaml');
});

test('YAML is read with the 1.1 rules of go-yaml v2: yes is a boolean, 0755 octal, timestamps stay strings', () => {
  const { documents } = parseManifests('a: yes\nb: 0755\nc: 2024-01-02T03:04:05Z\nd: "yes"\n', 'f.yaml');
  assert.equal(documents[0]!.object, { a: true, b: 493, c: '2024-01-02T03:04:05Z', d: 'yes' });
});

test('bad YAML: one error per broken document, with line and column', () => {
  const { documents, errors } = parseManifests(`${plcYaml('ok')}---\nkind: x\nmetadata: {name: [\n`, 'bad.yaml');
  assert.is(documents.length, 1);
  assert.is(errors.length, 1);
  assert.is(errors[0]!.problem, 'invalid-yaml');
  assert.is(errors[0]!.index, 1);
  assert.ok(errors[0]!.line! >= 13, `line ${errors[0]!.line}`);
  assert.match(formatManifestError(errors[0]!), /^bad\.yaml:\d+:\d+: invalid YAML: \S/);
  assert.not.match(formatManifestError(errors[0]!), /\n/);
});

test('bad YAML: a mapping value where none is allowed points at the line and column', () => {
  const [error] = parseManifests('a: 1\nb: c: d\n', 'x.yaml').errors;
  assert.equal([error!.line, error!.column], [2, 4]);
  assert.is(formatManifestError(error!), `x.yaml:2:4: ${error!.message}`);
});

test('JSON: one object, or several in a stream; errors carry line and column when V8 gives a position', () => {
  const one = parseManifests('  {"apiVersion": "v1", "kind": "X"}\n', 'a.json');
  assert.equal(
    one.documents.map((d) => d.object),
    [{ apiVersion: 'v1', kind: 'X' }],
  );
  const stream = parseManifests('{"kind": "A"}\n{"kind": "B"}\n', 'b.json');
  assert.equal(
    stream.documents.map((d) => [d.index, d.line, d.object.kind]),
    [
      [0, 1, 'A'],
      [1, 2, 'B'],
    ],
  );
  const bad = parseManifests('{\n  "kind": "A",\n}\n', 'c.json');
  assert.is(bad.errors[0]!.problem, 'invalid-json');
  assert.equal([bad.errors[0]!.line, bad.errors[0]!.column], [3, 1]);
  const unclosed = parseManifests('{"kind": "A"', 'd.json').errors[0]!;
  assert.is(formatManifestError(unclosed), "d.json:1:13: invalid JSON: Expected ',' or '}' after property value");
  const truncated = parseManifests('{\n"kind":\n', 'd.json').errors[0]!;
  assert.is(formatManifestError(truncated), 'd.json:2:8: invalid JSON: unexpected end of input');
  const token = parseManifests('{"kind": }', 'e.json').errors[0]!;
  assert.match(formatManifestError(token), /^e\.json: document 1: invalid JSON: Unexpected token/);
});

test('Lists: kind List and typed lists are expanded item by item; typed items may omit apiVersion and kind', () => {
  const text = `apiVersion: v1
kind: List
items:
- apiVersion: ${FC}
  kind: FlowSchema
  metadata: {name: one}
- apiVersion: v1
  kind: ConfigMap
---
apiVersion: ${FC}
kind: PriorityLevelConfigurationList
items:
- metadata: {name: two}
- 42
`;
  const { documents, errors } = parseManifests(text, 'l.yaml');
  assert.equal(
    documents.map((d) => [d.index, d.item, d.line, d.object.apiVersion, d.object.kind]),
    [
      [0, 0, 4, FC, 'FlowSchema'],
      [0, 1, 7, 'v1', 'ConfigMap'],
      [1, 0, 13, FC, 'PriorityLevelConfiguration'],
    ],
  );
  assert.equal(
    errors.map((e) => [e.problem, e.index, e.item, e.line]),
    [['not-an-object', 1, 1, 14]],
  );
  assert.is(formatManifestError(errors[0]!), 'l.yaml:14: document 2, item 2: expected an object, got a number');
  const notAList = parseManifests('kind: List\nitems: {a: 1}\n', 'm.yaml').errors[0]!;
  assert.is(notAList.problem, 'invalid-list');
});

test('documents that are not objects, and files without any object, are errors', () => {
  const scalar = parseManifests('just a string\n', 's.yaml').errors[0]!;
  assert.is(formatManifestError(scalar), 's.yaml:1: document 1: expected an object with apiVersion and kind, got a string ("just a string")');
  assert.is(parseManifests('- a\n- b\n', 'l.yaml').errors[0]!.message, 'expected an object with apiVersion and kind, got a list');
  for (const text of ['', '\n\n', '# nothing\n', '---\n---\n']) {
    assert.equal(
      parseManifests(text, 'e.yaml').errors.map((e) => formatManifestError(e)),
      ['e.yaml: no objects found'],
      JSON.stringify(text),
    );
  }
});

test('a byte-order mark is ignored; a __proto__ key stays an ordinary key', () => {
  const { documents } = parseManifests('\uFEFF{"kind": "A", "__proto__": {"polluted": true}}', 'p.json');
  assert.is(documents[0]!.object.kind, 'A');
  assert.is(({} as Record<string, unknown>).polluted, undefined);
});

test('readManifestFile: unreadable paths are error values naming the reason', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'fairway-manifests-'));
  try {
    const missing = await readManifestFile(join(dir, 'nope.yaml'));
    assert.equal(
      missing.errors.map((e) => formatManifestError(e)),
      [`${join(dir, 'nope.yaml')}: cannot read: no such file or directory`],
    );
    const directory = await readManifestFile(dir);
    assert.equal(
      directory.errors.map((e) => formatManifestError(e)),
      [`${dir}: cannot read: is a directory`],
    );
    writeFileSync(join(dir, 'ok.yaml'), plcYaml('a'));
    assert.is((await readManifestFile(join(dir, 'ok.yaml'))).documents.length, 1);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

// ---------------------------------------------------------------------------------------------
// Registry

const fakeKind = (check: ManifestKind['check']): ManifestKind => ({ apiVersion: 'example.com/v1', kind: 'Widget', check });

test('registry: documents go to their kind; unknown kinds name apiVersion, kind and document', () => {
  const seen: string[] = [];
  const registry = createManifestRegistry([
    fakeKind((document, file) => {
      seen.push(`${file}:${(document.metadata as { name: string }).name}`);
      return [];
    }),
  ]);
  const file = parseManifests(
    'apiVersion: example.com/v1\nkind: Widget\nmetadata: {name: w}\n---\napiVersion: example.com/v2\nkind: Widget\n---\nkind: Gadget\n',
    'w.yaml',
  );
  const { checked, errors } = checkManifests(file, registry);
  assert.equal(seen, ['w.yaml:w']);
  assert.equal(
    checked.map((c) => [c.name, c.kind.kind, c.errors]),
    [['w', 'Widget', []]],
  );
  assert.equal(
    errors.map((e) => formatManifestError(e)),
    [
      'w.yaml:5: document 2: unknown kind: apiVersion "example.com/v2", kind "Widget" (known: example.com/v1 Widget)',
      'w.yaml:8: document 3: unknown kind: apiVersion (missing), kind "Gadget" (known: example.com/v1 Widget)',
    ],
  );
});

test('registry: a kind registered twice is a programming error; a throwing check becomes an error value', () => {
  const registry = createManifestRegistry([fakeKind(() => [invalid('spec', 1, 'bad')])]);
  assert.throws(() => registry.register(fakeKind(() => [])), /registered twice/);
  const crashing = createManifestRegistry([
    fakeKind(() => {
      throw new TypeError('boom');
    }),
  ]);
  const { checked, errors } = checkManifests(parseManifests('apiVersion: example.com/v1\nkind: Widget\n', 'c.yaml'), crashing);
  assert.equal(checked, []);
  assert.is(formatManifestError(errors[0]!), 'c.yaml:1: document 1: Widget: internal error while checking: boom');
  const ok = checkManifests(parseManifests('apiVersion: example.com/v1\nkind: Widget\n', 'c.yaml'), registry);
  assert.equal(ok.checked[0]!.errors.map(formatFieldError), ['spec: Invalid value: 1: bad']);
});

// ---------------------------------------------------------------------------------------------
// The flowcontrol kinds

function checkText(text: string, apiDomain?: string): string[] {
  const registry = createManifestRegistry(flowcontrolManifestKinds(apiDomain));
  const { checked, errors } = checkManifests(parseManifests(text, 'f.yaml'), registry);
  return [
    ...errors.map(formatManifestError),
    ...checked.flatMap((c) =>
      c.errors.length === 0 ? [`${c.kind.kind}/${c.name}: valid`] : c.errors.map((e) => `${c.kind.kind}/${c.name}: ${formatFieldError(e)}`),
    ),
  ];
}

test('flowcontrol kinds: every bootstrap object, written out as YAML, checks valid', () => {
  const objects = [...mandatoryPriorityLevels(), ...suggestedPriorityLevels(), ...mandatoryFlowSchemas(), ...suggestedFlowSchemas()];
  const lines = checkText(objects.map((o) => stringify(o)).join('---\n'));
  assert.is(lines.length, objects.length);
  for (const line of lines) assert.match(line, /: valid$/);
});

test('flowcontrol kinds: objects are defaulted before validation, then validated', () => {
  // queuing {} and no nominalConcurrencyShares are fine once defaulted.
  const queued =
    `apiVersion: ${FC}\nkind: PriorityLevelConfiguration\nmetadata: {name: q}\nspec:\n  type: Limited\n  limited:\n    limitResponse: {type: Queue, ` +
    'queuing: {}}\n';
  assert.equal(checkText(queued), ['PriorityLevelConfiguration/q: valid']);
  assert.equal(checkText(plcYaml('p', '\n    lendablePercent: 101')), [
    'PriorityLevelConfiguration/p: spec.limited.lendablePercent: Invalid value: 101: must be between 0 and 100, inclusive',
  ]);
});

test('flowcontrol kinds: wrong types and unknown fields are decoding errors, reported before validation', () => {
  assert.equal(checkText(plcYaml('p', '\n    lendablePercent: "10"\n    lendable: 3')), [
    'PriorityLevelConfiguration/p: spec.limited.lendablePercent: Invalid value: "10": must be of type int32',
    'PriorityLevelConfiguration/p: spec.limited.lendable: Forbidden: unknown field',
  ]);
  const fs = `apiVersion: ${FC}\nkind: FlowSchema\nmetadata: {name: f, labels: {a: 1}}\nspec:\n  matchingPrecedence: 1.5\n  rules:\n  - subjects: yes\n`;
  assert.equal(checkText(fs), [
    'FlowSchema/f: metadata.labels[a]: Invalid value: 1: must be of type string',
    'FlowSchema/f: spec.matchingPrecedence: Invalid value: 1.5: must be of type int32',
    'FlowSchema/f: spec.rules[0].subjects: Invalid value: true: must be of type array',
  ]);
  // null is Go's zero value: absent, so the default applies.
  assert.equal(checkText(plcYaml('p', '\n    lendablePercent: null\n    borrowingLimitPercent: ~')), ['PriorityLevelConfiguration/p: valid']);
  // ObjectMeta is a Go struct like the others: a field it does not declare is unknown, whatever its name.
  assert.equal(checkText(plcYaml('p').replace('  name: p', '  name: p\n  somethingNew: 1')), [
    'PriorityLevelConfiguration/p: metadata.somethingNew: Forbidden: unknown field',
  ]);
  assert.equal(checkText(plcYaml('p').replace('  name: p', '  name: p\n  __proto__: {polluted: yes}\n  constructor: 1')), [
    'PriorityLevelConfiguration/p: metadata.__proto__: Forbidden: unknown field',
    'PriorityLevelConfiguration/p: metadata.constructor: Forbidden: unknown field',
  ]);
  assert.is(({} as Record<string, unknown>)['polluted'], undefined);
});

test('flowcontrol kinds: the apiVersion follows the API domain', () => {
  const text = plcYaml('p').replace(FC, 'flowcontrol.apiserver.example.com/v1');
  assert.equal(checkText(text, 'example.com'), ['PriorityLevelConfiguration/p: valid']);
  assert.match(checkText(text)[0]!, /unknown kind: apiVersion "flowcontrol\.apiserver\.example\.com\/v1", kind "PriorityLevelConfiguration"/);
  assert.match(checkText(plcYaml('p').replace('/v1', '/v1beta3'))[0]!, /unknown kind/);
});

test.run();
