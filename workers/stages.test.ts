import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { encodeObject } from '../engine/store/codec.ts';
import type { KubeObject } from '../engine/resources/types.ts';
import { findStage, SLEEP_CPU_ITERATIONS_MAX, sleepCpu, stageNames, STAGES } from './stages.ts';
import { storedListWork, withResourceVersion } from './stored-list-encoding.ts';

const run = (name: string, payload: unknown): unknown => {
  const stage = findStage(name);
  if (stage === undefined) throw new Error(`test setup: no stage ${name}`);
  return stage.run(payload);
};

const ownsWholeBuffer = (bytes: Uint8Array): boolean => bytes.byteOffset === 0 && bytes.byteLength === bytes.buffer.byteLength;

test('the registry holds the serving and diagnostic stages, keyed by their own names', () => {
  for (const name of ['encode-json', 'encode-json-lines', 'encode-stored-list', 'sleep-cpu', 'noop', 'thread-id']) {
    assert.is(findStage(name)?.name, name);
  }
  assert.is(findStage('gzip'), undefined);
  assert.equal(stageNames().sort(), [...STAGES.keys()].sort());
  assert.is(findStage('sleep-cpu')?.purpose, 'diagnostic');
  assert.is(findStage('encode-json')?.purpose, 'serving');
});

test('encode-json writes the bytes Go\'s json.Encoder writes: HTML and line separators escaped, newline at the end', () => {
  const bytes = run('encode-json', { kind: 'List', note: '<a href="x">&amp;</a>', sep: 'a\u2028b\u2029c', é: 'ü', items: [1, null] }) as Buffer;
  assert.ok(Buffer.isBuffer(bytes));
  assert.is(
    bytes.toString('utf8'),
    '{"kind":"List","note":"\\u003ca href=\\"x\\"\\u003e\\u0026amp;\\u003c/a\\u003e","sep":"a\\u2028b\\u2029c","é":"ü","items":[1,null]}\n',
  );
  // Still valid JSON meaning the same thing.
  assert.equal(JSON.parse(bytes.toString('utf8')).note, '<a href="x">&amp;</a>');
  assert.ok(ownsWholeBuffer(bytes), 'result can be transferred without detaching unrelated Buffers');
});

test('encode-json rejects values JSON cannot represent with a clear message', () => {
  assert.throws(() => run('encode-json', undefined), /an undefined value has no JSON encoding/);
  assert.throws(() => run('encode-json', { n: 10n }), /BigInt/);
  const cyclic: Record<string, unknown> = {};
  cyclic['self'] = cyclic;
  assert.throws(() => run('encode-json', cyclic), /circular/i);
});

test('encode-json-lines writes one document per line and names the item that failed', () => {
  const bytes = run('encode-json-lines', [{ type: 'ADDED', object: { a: '>' } }, { type: 'DELETED' }]) as Buffer;
  assert.is(bytes.toString('utf8'), '{"type":"ADDED","object":{"a":"\\u003e"}}\n{"type":"DELETED"}\n');
  assert.is((run('encode-json-lines', []) as Buffer).byteLength, 0);
  assert.throws(() => run('encode-json-lines', { items: [] }), /payload must be an array of values, got object/);
  assert.throws(() => run('encode-json-lines', [1, undefined]), /item 1: an undefined value has no JSON encoding/);
});

const pl = (name: string, extra: Record<string, unknown> = {}): KubeObject => ({
  apiVersion: 'flowcontrol.apiserver.k8s.io/v1',
  kind: 'PriorityLevelConfiguration',
  metadata: { name, uid: `uid-${name}`, generation: 1, creationTimestamp: '2026-11-21T05:11:26Z', ...extra },
  spec: { type: 'Limited', limited: { nominalConcurrencyShares: 30, lendablePercent: 0 } },
});

test('encode-stored-list decodes stored values into a List body with each item\'s mod revision', () => {
  const head = { kind: 'PriorityLevelConfigurationList', apiVersion: 'flowcontrol.apiserver.k8s.io/v1', metadata: { resourceVersion: '42' } };
  const records = [
    { value: encodeObject(pl('a', { labels: { x: '<y>' } })), modRevision: 7 },
    { value: encodeObject(pl('b')), modRevision: 41 },
  ];
  const work = storedListWork(head, records);
  assert.is(work.stage, 'encode-stored-list');
  const bytes = run(work.stage, work.payload) as Buffer;
  const text = bytes.toString('utf8');
  assert.ok(text.endsWith('}\n'));
  assert.ok(text.includes('"x":"\\u003cy\\u003e"'), 'Go escaping applies to decoded items too');
  const body = JSON.parse(text);
  assert.equal(Object.keys(body), ['kind', 'apiVersion', 'metadata', 'items']);
  assert.equal(
    body.items.map((i: KubeObject) => [i.metadata?.name, i.metadata?.resourceVersion]),
    [
      ['a', '7'],
      ['b', '41'],
    ],
  );
  // resourceVersion sits where Go's ObjectMeta puts it: after uid, before generation.
  assert.equal(Object.keys(body.items[0].metadata), ['name', 'uid', 'resourceVersion', 'generation', 'creationTimestamp', 'labels']);
  assert.is(body.items[0].kind, 'PriorityLevelConfiguration');
});

test('encode-stored-list can drop item apiVersion/kind, as typed lists do, and lists nothing for no records', () => {
  const work = storedListWork({ kind: 'L' }, [{ value: encodeObject(pl('a')), modRevision: 3 }], { dropItemTypeMeta: true });
  const body = JSON.parse((run(work.stage, work.payload) as Buffer).toString('utf8'));
  assert.equal(Object.keys(body.items[0]), ['metadata', 'spec']);
  const empty = storedListWork({ kind: 'L' }, []);
  assert.is((run(empty.stage, empty.payload) as Buffer).toString('utf8'), '{"kind":"L","items":[]}\n');
});

test('storedListWork packs owned buffers for transfer and sizes by stored bytes', () => {
  const records = [
    { value: encodeObject(pl('a')), modRevision: 1 },
    { value: encodeObject(pl('b')), modRevision: 2 },
  ];
  const work = storedListWork({ kind: 'L' }, records);
  const payload = work.payload as { values: Uint8Array; ends: Uint32Array; modRevisions: Float64Array };
  assert.is(work.transferList?.length, 3);
  for (const view of [payload.values, payload.ends, payload.modRevisions]) {
    assert.ok(work.transferList?.includes(view.buffer as ArrayBuffer));
    assert.ok(ownsWholeBuffer(new Uint8Array(view.buffer)));
  }
  const total = records[0]!.value.byteLength + records[1]!.value.byteLength;
  assert.equal([...payload.ends], [records[0]!.value.byteLength, total]);
  assert.is(findStage('encode-stored-list')?.sizeOf(work.payload), total);
});

test('encode-stored-list rejects malformed payloads with the field at fault', () => {
  const good = storedListWork({ kind: 'L' }, [{ value: encodeObject(pl('a')), modRevision: 1 }]).payload as Record<string, unknown>;
  assert.throws(() => run('encode-stored-list', null), /payload must be an object/);
  assert.throws(() => run('encode-stored-list', { ...good, list: [] }), /payload\.list must be an object/);
  assert.throws(() => run('encode-stored-list', { ...good, values: 'x' }), /payload\.values must be a Uint8Array/);
  assert.throws(() => run('encode-stored-list', { ...good, modRevisions: [] }), /0 entries for 1 items/);
  assert.throws(() => run('encode-stored-list', { ...good, ends: [99_999] }), /ends\[0\] = 99999 is outside the values/);
  assert.throws(() => run('encode-stored-list', { ...good, values: new Uint8Array([0x09, 0x00]), ends: [2] }), /unknown codec format byte/);
});

test('withResourceVersion places the field by Go order whatever metadata holds', () => {
  const keys = (meta: Record<string, unknown>): string[] => Object.keys(withResourceVersion({ metadata: meta } as KubeObject, '5').metadata ?? {});
  assert.equal(keys({}), ['resourceVersion']);
  assert.equal(keys({ name: 'a', namespace: 'n' }), ['name', 'namespace', 'resourceVersion']);
  assert.equal(keys({ labels: {}, name: 'a' }), ['resourceVersion', 'labels', 'name']);
  assert.equal(keys({ name: 'a', resourceVersion: '1', generation: 2 }), ['name', 'resourceVersion', 'generation']);
  assert.is(withResourceVersion({ metadata: { resourceVersion: '1' } } as KubeObject, '9').metadata?.resourceVersion, '9');
});

test('sleep-cpu is deterministic in its iteration count and bounded', () => {
  assert.is(sleepCpu({ iterations: 1000 }), sleepCpu({ iterations: 1000 }));
  assert.is.not(sleepCpu({ iterations: 1000 }), sleepCpu({ iterations: 1001 }));
  assert.is(run('sleep-cpu', { iterations: 0 }), 0x9e3779b9);
  assert.is(findStage('sleep-cpu')?.sizeOf({ iterations: 5000 }), 5000);
  for (const bad of [-1, 1.5, SLEEP_CPU_ITERATIONS_MAX + 1, '10', undefined]) {
    assert.throws(() => run('sleep-cpu', { iterations: bad }), /payload\.iterations must be an integer from 0 to/);
  }
  assert.throws(() => run('sleep-cpu', null), /payload\.iterations/);
});

test('sizeOf counts list items for encode-json and never throws on odd payloads', () => {
  const size = (name: string, payload: unknown): number | undefined => findStage(name)?.sizeOf(payload);
  assert.is(size('encode-json', { items: [1, 2, 3] }), 3);
  assert.is(size('encode-json', [1, 2]), 2);
  assert.is(size('encode-json', { kind: 'Pod' }), 1);
  assert.is(size('encode-json', null), 1);
  assert.is(size('encode-json-lines', 'x'), 0);
  assert.is(size('encode-stored-list', 7), 0);
  assert.is(size('sleep-cpu', { iterations: 'many' }), 0);
});

test('thread-id says 0 on the main thread; noop returns its payload', () => {
  assert.is(run('thread-id', null), 0);
  const payload = { a: [1] };
  assert.is(run('noop', payload), payload);
});

test.run();
