import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { decodeFrozenObject, encodeObject } from '../engine/store/codec.ts';
import { adoptWrittenObject, makeCachedObject } from '../engine/store/cached-object.ts';
import type { StoredForm } from '../engine/store/store-types.ts';
import type { KubeObject } from '../engine/resources/types.ts';
import { renderBody, type RenderSpec } from '../engine/render/render-body.ts';
import { renderStageFor, renderWork } from './render-stages.ts';
import { PROTOBUF_MEDIA_TYPE } from '../engine/render/serializer.ts';
import { encodeObject as encodeProtobuf } from '../engine/protobuf/objects.ts';
import { encodeObjectsWork, splitEncodedObjects } from './objects-json.ts';
import { findStage, SLEEP_CPU_ITERATIONS_MAX, sleepCpu, stageNames, STAGES } from './stages.ts';
import { packPayload } from './stored-objects.ts';

const run = (name: string, payload: unknown): unknown => {
  const stage = findStage(name);
  if (stage === undefined) throw new Error(`test setup: no stage ${name}`);
  return stage.run(payload);
};

const ownsWholeBuffer = (bytes: Uint8Array): boolean => bytes.byteOffset === 0 && bytes.byteLength === bytes.buffer.byteLength;

test('the registry holds the serving and diagnostic stages, keyed by their own names', () => {
  for (const name of [
    'encode-json',
    'encode-json-lines',
    'encode-objects',
    'render-json',
    'render-table',
    'render-yaml',
    'render-protobuf',
    'decode-yaml',
    'sleep-cpu',
    'noop',
    'thread-id',
  ]) {
    assert.is(findStage(name)?.name, name);
  }
  assert.is(findStage('gzip'), undefined);
  assert.equal(stageNames().sort(), [...STAGES.keys()].sort());
  assert.is(findStage('sleep-cpu')?.purpose, 'diagnostic');
  assert.is(findStage('encode-json')?.purpose, 'serving');
});

test("encode-json writes the bytes Go's json.Encoder writes: HTML and line separators escaped, newline at the end", () => {
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

const RENDER_CASES: [string, RenderSpec][] = [
  [
    'pretty JSON list',
    {
      list: { kind: 'PriorityLevelConfigurationList', apiVersion: 'flowcontrol.apiserver.k8s.io/v1', metadata: { resourceVersion: '42' } },
      metaGroup: 'meta.k8s.io',
      mediaType: 'application/json',
      pretty: true,
    },
  ],
  [
    'YAML list',
    {
      list: { kind: 'PriorityLevelConfigurationList', apiVersion: 'flowcontrol.apiserver.k8s.io/v1', metadata: { resourceVersion: '42', continue: 'abc' } },
      metaGroup: 'meta.k8s.io',
      mediaType: 'application/yaml',
      pretty: false,
    },
  ],
  [
    'Table list',
    {
      list: { kind: 'PriorityLevelConfigurationList', apiVersion: 'flowcontrol.apiserver.k8s.io/v1', metadata: { resourceVersion: '42' } },
      conversion: 'Table',
      table: { kind: 'PriorityLevelConfiguration', nowMs: Date.parse('2026-11-22T05:11:26Z'), includeObject: 'Object' },
      metaGroup: 'meta.k8s.io',
      mediaType: 'application/json',
      pretty: false,
    },
  ],
  [
    'partial metadata list',
    {
      list: { kind: 'L', apiVersion: 'v', metadata: {} },
      conversion: 'PartialObjectMetadataList',
      metaGroup: 'meta.k8s.io',
      mediaType: 'application/json',
      pretty: false,
    },
  ],
  [
    'protobuf list',
    {
      list: { kind: 'PriorityLevelConfigurationList', apiVersion: 'flowcontrol.apiserver.k8s.io/v1', metadata: { resourceVersion: '42', continue: 'abc' } },
      metaGroup: 'meta.k8s.io',
      mediaType: PROTOBUF_MEDIA_TYPE,
      pretty: false,
    },
  ],
  [
    'protobuf partial metadata list',
    {
      list: { kind: 'L', apiVersion: 'v', metadata: { resourceVersion: '42' } },
      conversion: 'PartialObjectMetadataList',
      metaGroup: 'meta.k8s.io',
      mediaType: PROTOBUF_MEDIA_TYPE,
      pretty: false,
    },
  ],
];

// The watch cache's two ways of making a form: adopting a written object, and decoding stored bytes.
const forms = (): StoredForm[] => [
  adoptWrittenObject('/r/a', 'a', pl('a', { labels: { x: '<y>' } }), 7, encodeObject(pl('a', { labels: { x: '<y>' } }))),
  makeCachedObject('/r/b', 'b', decodeFrozenObject(encodeObject(pl('b'))), 41, encodeObject(pl('b')), false),
];

const packedPayload = (payload: object): unknown => {
  const packed = packPayload(payload);
  if (packed === undefined) throw new Error('test setup: nothing packed');
  return packed.payload;
};

test('encode-objects gives each object its cached JSON, from the objects or from their packed codec bytes alike', () => {
  const work = encodeObjectsWork(forms());
  assert.is(work.stage, 'encode-objects');
  const here = run(work.stage, work.payload) as Buffer;
  const there = run(work.stage, packedPayload(work.payload as object)) as Buffer;
  assert.ok(here.equals(there), 'same bytes whichever thread decodes');
  assert.ok(ownsWholeBuffer(here));
  const parts = splitEncodedObjects(here);
  assert.equal(
    parts.map((p) => p.toString('utf8')),
    forms().map((f) => JSON.stringify(f.object).replace(/</g, '\\u003c').replace(/>/g, '\\u003e')),
  );
  // resourceVersion sits where Go's ObjectMeta puts it: after uid, before generation.
  assert.equal(Object.keys(JSON.parse(parts[0]!.toString()).metadata), ['name', 'uid', 'resourceVersion', 'generation', 'creationTimestamp', 'labels']);
  assert.equal(splitEncodedObjects(run('encode-objects', { objects: [] }) as Buffer), []);
});

for (const [name, spec] of RENDER_CASES) {
  test(`${renderStageFor(spec)} renders a ${name} identically from the cache's objects and from packed bytes`, () => {
    const work = renderWork(forms(), spec);
    const here = run(work.stage, work.payload) as Buffer;
    const there = run(work.stage, packedPayload(work.payload as object)) as Buffer;
    assert.ok(here.byteLength > 0);
    assert.is(there.toString('utf8'), here.toString('utf8'));
    assert.ok(there.equals(here), 'byte for byte');
    assert.ok(
      here.equals(
        renderBody(
          forms().map((f) => f.object),
          spec,
        ),
      ),
      'the stage is renderBody',
    );
  });
}

test("a protobuf list body from the items' messages is the bytes of the list encoded whole, on either thread", () => {
  const spec = RENDER_CASES.find(([name]) => name === 'protobuf list')![1];
  assert.is(renderStageFor(spec), 'render-protobuf');
  const list = spec.list!;
  const whole = encodeProtobuf({ kind: list.kind, apiVersion: list.apiVersion, metadata: list.metadata, items: forms().map((f) => f.object) });
  const work = renderWork(forms(), spec);
  assert.ok((run(work.stage, work.payload) as Buffer).equals(whole));
  assert.ok((run(work.stage, packedPayload(work.payload as object)) as Buffer).equals(whole));
  const single = renderWork(forms().slice(0, 1), { metaGroup: 'meta.k8s.io', mediaType: PROTOBUF_MEDIA_TYPE, pretty: false });
  assert.ok((run(single.stage, packedPayload(single.payload as object)) as Buffer).equals(encodeProtobuf(forms()[0]!.object)));
});

test('packing moves owned buffers and sizes the work by codec bytes', () => {
  const given = forms();
  const packed = packPayload({ objects: given, spec: {} });
  assert.ok(packed !== undefined);
  const objects = (packed.payload as { objects: { values: Uint8Array; ends: Uint32Array; revisions: Float64Array } }).objects;
  assert.is(packed.transferList.length, 3);
  for (const view of [objects.values, objects.ends, objects.revisions]) {
    assert.ok(packed.transferList.includes(view.buffer as ArrayBuffer));
    assert.ok(ownsWholeBuffer(new Uint8Array(view.buffer)));
  }
  const total = given[0]!.codecBytes.byteLength + given[1]!.codecBytes.byteLength;
  assert.equal([...objects.ends], [given[0]!.codecBytes.byteLength, total]);
  assert.equal([...objects.revisions], [7, 41]);
  for (const stage of ['encode-objects', 'render-json', 'render-table', 'render-yaml', 'render-protobuf']) {
    assert.is(findStage(stage)?.sizeOf({ objects: given }), total);
    assert.is(findStage(stage)?.sizeOf(packed.payload), total);
  }
  assert.is(packPayload({ objects: objects }), undefined, 'packed objects are not packed again');
});

test('stages over stored objects reject malformed payloads with the field at fault', () => {
  const good = packedPayload({ objects: forms().slice(0, 1) }) as { objects: Record<string, unknown> };
  const bad = (objects: Record<string, unknown>) => ({ objects: { ...good.objects, ...objects } });
  assert.throws(() => run('encode-objects', null), /payload must be an object/);
  assert.throws(() => run('encode-objects', { objects: [{}] }), /payload\.objects\[0\] is not a stored form/);
  assert.throws(() => run('encode-objects', bad({ values: 'x' })), /payload\.objects\.values must be a Uint8Array/);
  assert.throws(() => run('encode-objects', bad({ revisions: new Float64Array(0) })), /0 entries for 1 objects/);
  assert.throws(() => run('encode-objects', bad({ ends: Uint32Array.of(99_999) })), /ends\[0\] = 99999 is outside the values/);
  assert.throws(() => run('encode-objects', bad({ values: new Uint8Array([0x09, 0x00]), ends: Uint32Array.of(2) })), /unknown codec format byte/);
  assert.throws(() => run('render-json', { objects: forms() }), /payload\.spec must be a render spec/);
  assert.throws(
    () => run('render-json', { objects: forms(), spec: { metaGroup: 'm', mediaType: 'application/json', pretty: false } }),
    /one object expected, got 2/,
  );
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
  assert.is(size('encode-objects', 7), 0);
  assert.is(size('render-yaml', { objects: {} }), 0);
  assert.is(size('sleep-cpu', { iterations: 'many' }), 0);
});

test('thread-id says 0 on the main thread; noop returns its payload', () => {
  assert.is(run('thread-id', null), 0);
  const payload = { a: [1] };
  assert.is(run('noop', payload), payload);
});

test.run();
