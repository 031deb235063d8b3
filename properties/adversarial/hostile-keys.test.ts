// Hostile keys: the names of Object.prototype's members (`__proto__`, `constructor`, `prototype`,
// `toString`...) sent as field names at every depth of every body the API takes: create and update
// (JSON and YAML), /status, and the four patch types, with and without dryRun, in patches that
// succeed and in patches that fail with 422. Properties:
//   - a hostile key behaves exactly as an ordinary key in its place does (the same answer, word for
//     word, with the one name swapped): unknown where the schema declares no such field, a label or
//     annotation key like any other inside those maps;
//   - the server answers (no 5xx, every error a Status) and is intact afterwards (harness.ts);
//   - nothing stored carries a prototype name except as a label or annotation key.
// Selectors and query parameters naming them are answered too.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import fc from 'fast-check';
import YAML from 'yaml';
import { isRecord, setOwn } from '../../engine/own-property.ts';
import type { KubeObject } from '../../engine/resources/types.ts';
import type { FlowcontrolKind } from '../../engine/resources/types.ts';
import { validObject } from '../support/api-objects.ts';
import { collectionPath } from '../support/api-requests.ts';
import type { FuzzResponse } from '../support/fuzz-client.ts';
import { checkAsyncProperty } from '../support/runner.ts';
import { startAdversary, type Adversary, type Request } from './harness.ts';

/** Every member name of Object.prototype, plus the one that reaches it from a constructor. */
export const HOSTILE_KEYS = [...Object.getOwnPropertyNames(Object.prototype), 'prototype'];

/** The same key made ordinary: one more letter keeps its sort position, its validity as a label key and its message shape. */
const controlKey = (key: string): string => `${key}x`;

const HOSTILE_VALUES: unknown[] = [
  { polluted: 'yes' },
  { hasOwnProperty: null },
  { error: 'x' },
  { toString: 1 },
  { prototype: { polluted: 'yes' } },
  null,
  'x',
  1,
  [],
  [{ polluted: 'yes' }],
];

type Path = readonly (string | number)[];

/** Paths of every object node in `value`, the root included. */
function objectPaths(value: unknown, at: Path = []): Path[] {
  if (Array.isArray(value)) return value.flatMap((item, i) => objectPaths(item, [...at, i]));
  if (!isRecord(value)) return [];
  return [at, ...Object.keys(value).flatMap((key) => objectPaths(value[key], [...at, key]))];
}

/** A copy of `document` with `key: value` set as an own member of the object at `at`. */
function inject(document: unknown, at: Path, key: string, value: unknown): unknown {
  const copy = structuredClone(document);
  let node: unknown = copy;
  for (const step of at) node = (node as Record<string | number, unknown>)[step];
  setOwn(node as Record<string, unknown>, key, structuredClone(value));
  return copy;
}

const pointer = (path: Path): string => path.map((step) => `/${String(step).replace(/~/g, '~0').replace(/\//g, '~1')}`).join('');

type Form = 'create' | 'update' | 'json-patch' | 'merge-patch' | 'strategic-patch' | 'apply';
const PATCH_TYPE: Partial<Record<Form, string>> = {
  'json-patch': 'application/json-patch+json',
  'merge-patch': 'application/merge-patch+json',
  'strategic-patch': 'application/strategic-merge-patch+json',
  apply: 'application/apply-patch+yaml',
};

interface Attack {
  kind: FlowcontrolKind;
  /** The object the run creates first, and the document the attack is made of. */
  base: KubeObject;
  form: Form;
  yaml: boolean;
  subresource: '' | 'status';
  /** The request also breaks a rule, so it fails (422) after the hostile key was read. */
  failing: boolean;
  key: string;
  value: unknown;
  /** Picks the node the key goes into, among the document's object nodes. */
  where: number;
  /** JSON patch: which operation carries the key. */
  op: 'add' | 'replace' | 'test' | 'copy' | 'move' | 'remove' | 'through' | 'nested';
}

const DANGLING = { type: 'Dangling', status: 'False', reason: 'Found', message: 'adversarial', lastTransitionTime: '2026-11-25T00:00:00Z' };

const attackArb: fc.Arbitrary<Attack> = fc
  .constantFrom<FlowcontrolKind>('PriorityLevelConfiguration', 'FlowSchema')
  .chain((kind) =>
    fc.record({
      kind: fc.constant(kind),
      base: validObject(kind, 'placeholder') as fc.Arbitrary<KubeObject>,
      form: fc.constantFrom<Form>('create', 'update', 'json-patch', 'merge-patch', 'strategic-patch', 'apply'),
      yaml: fc.boolean(),
      subresource: fc.constantFrom<'' | 'status'>('', '', 'status'),
      failing: fc.boolean(),
      // The three the issue names most often; every other member name too.
      key: fc.oneof(
        { arbitrary: fc.constant('__proto__'), weight: 4 },
        { arbitrary: fc.constantFrom('constructor', 'prototype'), weight: 3 },
        { arbitrary: fc.constantFrom(...HOSTILE_KEYS), weight: 3 },
      ),
      value: fc.constantFrom(...HOSTILE_VALUES),
      where: fc.nat(),
      op: fc.constantFrom<Attack['op']>('add', 'add', 'replace', 'test', 'copy', 'move', 'remove', 'through', 'nested'),
    }),
  )
  .map((attack) => (attack.form === 'create' ? { ...attack, subresource: '' as const } : attack));

/** The document an attack starts from: the object, with a status for /status writes. */
function documentFor(attack: Attack, name: string): Record<string, unknown> {
  const document = structuredClone({ ...attack.base, metadata: { ...attack.base.metadata, name } }) as Record<string, any>;
  if (attack.subresource === 'status') document.status = { conditions: [{ ...DANGLING }] };
  if (attack.failing) {
    // Invalid on the main resource (a label key with a space); /status ignores metadata, so there a
    // condition without a type breaks the rule instead.
    if (attack.subresource === 'status') document.status.conditions[0].type = '';
    else document.metadata.labels = { ...document.metadata.labels, 'bad key': 'x' };
  }
  return document;
}

/** The JSON patch of an attack, with `key` in the place the attack puts it. */
function jsonPatchFor(attack: Attack, document: Record<string, unknown>, key: string): unknown[] {
  const nodes = objectPaths(document).filter((path) => path.length > 0 || attack.op !== 'nested');
  const at = nodes[attack.where % nodes.length]!;
  const target = `${pointer(at)}/${key.replace(/~/g, '~0').replace(/\//g, '~1')}`;
  const existing = attack.subresource === 'status' ? '/status/conditions/0/reason' : '/spec';
  const ops: unknown[] = [];
  switch (attack.op) {
    case 'add':
    case 'replace':
      ops.push({ op: attack.op, path: target, value: attack.value });
      break;
    case 'test':
      ops.push({ op: 'test', path: target, value: attack.value });
      break;
    case 'copy':
    case 'move':
      ops.push({ op: attack.op, from: target, path: `${existing}x` }, { op: attack.op, from: existing, path: target });
      break;
    case 'remove':
      ops.push({ op: 'remove', path: target });
      break;
    case 'through':
      ops.push({ op: 'add', path: `${target}/polluted`, value: 'yes' });
      break;
    case 'nested': {
      const [top] = at as [string];
      const whole = inject(document, at, key, attack.value) as Record<string, unknown>;
      ops.push({ op: 'replace', path: `/${top}`, value: whole[top] });
      break;
    }
  }
  if (attack.failing) ops.push({ op: 'test', path: '/metadata/name', value: 'not-this-one' });
  return ops;
}

/** The request of `attack` against object `name`, with `key` as its hostile (or control) key. */
function requestFor(attack: Attack, name: string, key: string, dryRun: boolean): Request {
  const document = documentFor(attack, name);
  const query: [string, string][] = dryRun ? [['dryRun', 'All']] : [];
  const objectPath = `${collectionPath(attack.kind)}/${name}${attack.subresource === '' ? '' : `/${attack.subresource}`}`;
  if (attack.form === 'json-patch') {
    return {
      method: 'PATCH',
      path: objectPath,
      query,
      headers: { 'Content-Type': PATCH_TYPE['json-patch']! },
      body: JSON.stringify(jsonPatchFor(attack, document, key)),
    };
  }
  const nodes = objectPaths(document);
  const body = inject(document, nodes[attack.where % nodes.length]!, key, attack.value);
  const text = attack.yaml && (attack.form === 'create' || attack.form === 'update' || attack.form === 'apply') ? YAML.stringify(body) : JSON.stringify(body);
  const contentType = PATCH_TYPE[attack.form] ?? (attack.yaml ? 'application/yaml' : 'application/json');
  if (attack.form === 'apply') query.push(['fieldManager', 'adversary'], ['force', 'true']);
  const method = attack.form === 'create' ? 'POST' : attack.form === 'update' ? 'PUT' : 'PATCH';
  return { method, path: attack.form === 'create' ? collectionPath(attack.kind) : objectPath, query, headers: { 'Content-Type': contentType }, body: text };
}

/** What must be equal between the hostile and the control answer, the control key swapped back. */
function comparable(response: FuzzResponse, hostile: string, control: string): unknown {
  // managedFields times are "now", which may differ by a second between the two requests.
  const swap = (text: string): string =>
    text
      .split(control)
      .join(hostile)
      .replace(/\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ/g, '<time>');
  const warnings = swap(String(response.headers['warning'] ?? ''));
  if (response.status >= 300 || !String(response.headers['content-type']).startsWith('application/json')) {
    return { status: response.status, warnings, body: swap(response.text) };
  }
  // A success: what the write keeps (times and uids of a dry-run create are fresh each time).
  const object = JSON.parse(swap(response.text)) as KubeObject;
  return {
    status: response.status,
    warnings,
    labels: object.metadata?.labels,
    annotations: object.metadata?.annotations,
    spec: object.spec,
    status_: object.status,
  };
}

/** Where two texts part, with some context on each side. */
function firstDifference(a: string, b: string): string {
  let i = 0;
  while (i < a.length && a[i] === b[i]) i++;
  const from = Math.max(0, i - 120);
  return `hostile …${a.slice(from, i + 120)}… control …${b.slice(from, i + 120)}…`;
}

/** Prototype names anywhere but as keys of labels and annotations. */
function strayKeys(value: unknown, path = ''): string[] {
  if (Array.isArray(value)) return value.flatMap((item, i) => strayKeys(item, `${path}[${i}]`));
  if (!isRecord(value)) return [];
  const inMap = path === '.metadata.labels' || path === '.metadata.annotations';
  return Object.keys(value).flatMap((key) => [...(!inMap && HOSTILE_KEYS.includes(key) ? [`${path}.${key}`] : []), ...strayKeys(value[key], `${path}.${key}`)]);
}

let adversary: Adversary;
let serial = 0;

test.before(async () => {
  adversary = await startAdversary();
});
test.after(async () => {
  await adversary?.close();
});

async function removeObject(kind: FlowcontrolKind, name: string): Promise<void> {
  const path = `${collectionPath(kind)}/${name}`;
  await adversary.send({ method: 'PATCH', path, body: '{"metadata":{"finalizers":null}}', headers: { 'Content-Type': 'application/merge-patch+json' } });
  await adversary.send({ method: 'DELETE', path });
}

test('hostile keys at every depth of every body: answered as the same ordinary key is, server intact', async () => {
  await checkAsyncProperty(
    'adversarial: hostile keys',
    fc.asyncProperty(attackArb, async (attack) => {
      const name = `adv-keys-${++serial}`;
      const target = attack.form === 'create' ? `adv-keys-new-${serial}` : name;
      const objectPath = `${collectionPath(attack.kind)}/${target}`;
      try {
        if (attack.form !== 'create') {
          const created = await adversary.send({
            method: 'POST',
            path: collectionPath(attack.kind),
            headers: { 'Content-Type': 'application/json' },
            body: JSON.stringify(documentFor({ ...attack, subresource: '', failing: false }, name)),
          });
          assert.is(created.status, 201, created.text);
        }
        const control = controlKey(attack.key);
        const hostileDry = requestFor(attack, target, attack.key, true);
        const controlDry = requestFor(attack, target, control, true);
        let hostileAnswer: FuzzResponse;
        let controlAnswer: FuzzResponse;
        // The Dangling-condition writer may change a new FlowSchema between the two dry runs; then
        // they saw different objects and are run again.
        for (let attempt = 0; ; attempt++) {
          const before = await adversary.send({ method: 'GET', path: objectPath });
          hostileAnswer = await adversary.send(hostileDry);
          await adversary.assertAnswered(hostileAnswer, hostileDry);
          controlAnswer = await adversary.send(controlDry);
          await adversary.assertAnswered(controlAnswer, controlDry);
          const after = await adversary.send({ method: 'GET', path: objectPath });
          if (before.text === after.text || attempt === 5) break;
        }
        const [hostileView, controlView] = [
          JSON.stringify(comparable(hostileAnswer, attack.key, control)),
          JSON.stringify(comparable(controlAnswer, attack.key, control)),
        ];
        assert.ok(hostileView === controlView, `the hostile key is answered as the same ordinary key is: ${firstDifference(hostileView, controlView)}`);

        const real = requestFor(attack, target, attack.key, false);
        const answer = await adversary.send(real);
        await adversary.assertAnswered(answer, real);
        assert.is(answer.status, hostileAnswer.status, `the write answers as its dry run did: ${answer.text.slice(0, 300)}`);
        await adversary.assertHealthy();

        const stored = await adversary.send({ method: 'GET', path: objectPath });
        if (attack.form === 'create' && answer.status !== 201) {
          assert.is(stored.status, 404);
          return;
        }
        assert.is(stored.status, 200, stored.text);
        assert.equal(strayKeys(JSON.parse(stored.text)), [], 'stored fields named after prototype members');
      } finally {
        await removeObject(attack.kind, target);
      }
    }),
    { runs: 60 },
  );
});

test('selectors and query parameters naming prototype members are answered', async () => {
  const kindPath = collectionPath('PriorityLevelConfiguration');
  const created = await adversary.send({
    method: 'POST',
    path: kindPath,
    headers: { 'Content-Type': 'application/json' },
    body:
      '{"metadata":{"name":"adv-labelled","labels":{"constructor":"a","toString":"b"}},"spec":{"type":"Limited",' +
      '"limited":{"limitResponse":{"type":"Reject"}}}}',
  });
  assert.is(created.status, 201, created.text);
  await checkAsyncProperty(
    'adversarial: hostile selectors',
    fc.asyncProperty(
      fc.constantFrom(...HOSTILE_KEYS),
      fc.constantFrom('', '=a', '!=a', ' in (a,b)', ' notin (a)', '>1'),
      fc.constantFrom('labelSelector', 'fieldSelector', 'unknown'),
      async (key, operator, parameter) => {
        const name = parameter === 'labelSelector' ? key : parameter === 'fieldSelector' ? `metadata.${key}` : key;
        const request: Request = {
          method: 'GET',
          path: kindPath,
          query: [[parameter === 'unknown' ? encodeURIComponent(key) : parameter, encodeURIComponent(`${name}${operator}`)]],
        };
        const answer = await adversary.sendAsOrdinaryUser(request);
        await adversary.assertAnswered(answer, request);
        if (answer.status === 200 && parameter === 'labelSelector' && (operator === '' || operator === '=a')) {
          for (const item of JSON.parse(answer.text).items as KubeObject[]) {
            assert.ok(Object.hasOwn(item.metadata?.labels ?? {}, key), `${item.metadata?.name} matched ${key}${operator} without that label`);
          }
        }
      },
    ),
    { runs: 40 },
  );
  const selected = await adversary.send({ method: 'GET', path: kindPath, query: [['labelSelector', 'constructor%3Da']] });
  assert.equal(
    (JSON.parse(selected.text).items as KubeObject[]).map((item) => item.metadata?.name),
    ['adv-labelled'],
  );
  await adversary.assertHealthy();
});

test.run();
