// Known answers from Kubernetes itself: the round-trip fixtures of kubernetes/api (testdata/, see
// proto/README.md) were written by Go's generated code; each kind's JSON, YAML and protobuf files
// must give one object, and that object must encode back to the very bytes of the .pb file.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { readFileSync } from 'node:fs';
import { parse as parseYaml } from 'yaml';
import { SimClock } from '../sim-clock.ts';
import { ensureBootstrapObjects } from '../flowcontrol/bootstrap-ensurer.ts';
import { FLOW_SCHEMA, PRIORITY_LEVEL, storeResourceInfo } from '../resources/kinds.ts';
import { createMemoryBackend, createMemoryVolume } from '../store/memory/memory-backend.ts';
import { createStore } from '../store/store.ts';
import { decodeBody, encodeList, encodeObject, watchFrame } from './objects.ts';

const fixture = (name: string) => readFileSync(new URL(`./testdata/flowcontrol.apiserver.k8s.io.v1.${name}`, import.meta.url));

for (const kind of ['PriorityLevelConfiguration', 'FlowSchema']) {
  test(`${kind}: the JSON, YAML and protobuf fixtures decode to one object, which encodes to the fixture's bytes`, () => {
    const fromJson = JSON.parse(fixture(`${kind}.json`).toString('utf8'));
    const fromYaml = parseYaml(fixture(`${kind}.yaml`).toString('utf8'));
    const pb = fixture(`${kind}.pb`);
    const decoded = decodeBody(pb, kind);
    assert.ok(decoded.ok, decoded.ok ? '' : decoded.error);
    if (!decoded.ok) return;
    assert.equal(fromYaml, fromJson);
    assert.equal(decoded.decoded.value, fromJson);
    assert.is(encodeObject(fromJson).toString('hex'), pb.toString('hex'));
    assert.is(encodeObject(decoded.decoded.value).toString('hex'), pb.toString('hex'));
  });
}

const hex = (text: string) => text.replace(/[^0-9a-f]/g, '');

test('zero values: Go writes every non-pointer field, even empty, and no unset pointer', () => {
  const plc = {
    kind: 'PriorityLevelConfiguration',
    apiVersion: 'flowcontrol.apiserver.k8s.io/v1',
    metadata: { name: 'a' },
    spec: { type: 'Exempt', exempt: { nominalConcurrencyShares: 0 } },
  };
  const objectMeta = '0a0161 1200 1a00 2200 2a00 3200 3800 4200';
  const spec = `0a06${Buffer.from('Exempt').toString('hex')}1a02 0800`;
  const raw = `0a11 ${objectMeta} 120c ${spec} 1a00`;
  const typeMeta = `0a1f${Buffer.from('flowcontrol.apiserver.k8s.io/v1').toString('hex')} 121a${Buffer.from('PriorityLevelConfiguration').toString('hex')}`;
  const expected = `6b387300 0a3d ${typeMeta} 1223 ${raw} 1a00 2200`;
  assert.is(encodeObject(plc).toString('hex'), hex(expected));
  const decoded = decodeBody(encodeObject(plc), 'PriorityLevelConfiguration');
  assert.ok(decoded.ok);
  // The pointer set to 0 survives; the empty strings and the zero time do not; status is an empty object.
  if (decoded.ok) assert.equal(decoded.decoded.value, { ...plc, status: {} });
});

test('map entries are sorted by key bytes, and both key and value are written', () => {
  const object = { kind: 'FlowSchema', apiVersion: 'v', metadata: { labels: { b: '', a: 'x', '10': 'y', '9': 'z' } } };
  const decoded = decodeBody(encodeObject(object), 'FlowSchema');
  assert.ok(decoded.ok);
  const bytes = encodeObject(object).toString('hex');
  const entry = (k: string, v: string) =>
    `5a${(4 + k.length + v.length).toString(16).padStart(2, '0')}0a0${k.length}${Buffer.from(k).toString('hex')}120${v.length}` +
    `${Buffer.from(v).toString('hex')}`;
  assert.ok(bytes.includes([entry('10', 'y'), entry('9', 'z'), entry('a', 'x'), entry('b', '')].join('')), bytes);
});

test('a label key `__proto__` decodes to an own property, never a prototype', () => {
  const object = { kind: 'FlowSchema', apiVersion: 'v', metadata: { labels: JSON.parse('{"__proto__":"x"}') } };
  const decoded = decodeBody(encodeObject(object), 'FlowSchema');
  assert.ok(decoded.ok);
  if (!decoded.ok) return;
  const labels = (decoded.decoded.value.metadata as { labels: Record<string, unknown> }).labels;
  assert.ok(Object.hasOwn(labels, '__proto__'));
  assert.is(Object.getPrototypeOf(labels), Object.prototype);
});

test('malformed bodies are errors with Go’s words, never exceptions', () => {
  const cases: [Uint8Array, string][] = [
    [new Uint8Array(), 'empty data'],
    [Buffer.from('{"kind":"FlowSchema"}'), 'provided value is not protobuf'],
    [Buffer.from([0x6b, 0x38, 0x73, 0x00]), 'empty body'],
    [Buffer.from([0x6b, 0x38, 0x73, 0x00, 0x0a, 0x05, 0x0a]), 'unexpected EOF'],
    [Buffer.from([0x6b, 0x38, 0x73, 0x00, 0x12, 0x02, 0x0a, 0x05]), 'unexpected EOF'],
    [Buffer.from([0x6b, 0x38, 0x73, 0x00, 0x12, 0x02, 0x08, 0x01]), 'proto: wrong wireType = 0 for field Metadata'],
  ];
  for (const [body, error] of cases) {
    const result = decodeBody(body, 'FlowSchema');
    assert.is(result.ok ? 'decoded' : result.error, error);
  }
});

test('a kind without a message comes back as its type meta alone, for the caller to refuse', () => {
  const pod = Buffer.from([0x6b, 0x38, 0x73, 0x00, 0x0a, 0x08, 0x0a, 0x02, 0x76, 0x31, 0x12, 0x02, 0x50, 0x6f, 0x12, 0x02, 0x08, 0x01]);
  assert.equal(decodeBody(pod, 'FlowSchema'), { ok: true, decoded: { apiVersion: 'v1', kind: 'Po', value: { apiVersion: 'v1', kind: 'Po' } } });
});

test('a list is its ListMeta and its items; a watch frame is length-prefixed WatchEvent{type, object{raw}}', () => {
  const item = { kind: 'FlowSchema', apiVersion: 'flowcontrol.apiserver.k8s.io/v1', metadata: { name: 'x' } };
  const list = encodeList('FlowSchemaList', 'flowcontrol.apiserver.k8s.io/v1', { resourceVersion: '5', remainingItemCount: 0 }, [item, item]);
  const decoded = decodeBody(list, 'FlowSchemaList');
  assert.ok(decoded.ok);
  if (decoded.ok) {
    assert.equal(decoded.decoded.value.metadata, { resourceVersion: '5', remainingItemCount: 0 });
    assert.equal((decoded.decoded.value.items as unknown[]).length, 2);
  }
  const body = encodeObject(item);
  const frame = watchFrame('ADDED', body);
  assert.is(frame.readUInt32BE(0), frame.length - 4);
  const inner = Buffer.concat([Buffer.from([0x0a, body.length]), body]);
  assert.is(frame.subarray(4).toString('hex'), `0a05${Buffer.from('ADDED').toString('hex')}12${inner.length.toString(16)}${inner.toString('hex')}`);
});

test('every bootstrap object, as the ensurer stores it, round-trips: decode(encode(x)) is x and encodes to the same bytes', async () => {
  const store = createStore({ backend: createMemoryBackend({ volume: createMemoryVolume() }), clock: new SimClock() });
  await store.open();
  let uid = 0;
  const priorityLevels = store.for(storeResourceInfo(PRIORITY_LEVEL));
  const flowSchemas = store.for(storeResourceInfo(FLOW_SCHEMA));
  await ensureBootstrapObjects({ priorityLevels, flowSchemas, clock: new SimClock(), newUid: () => `uid-${++uid}` });
  const objects = [...(await priorityLevels.list()).items, ...(await flowSchemas.list()).items];
  assert.ok(objects.length >= 20, `${objects.length} bootstrap objects`);
  for (const object of objects) {
    const bytes = encodeObject(object);
    const decoded = decodeBody(bytes, String(object.kind));
    assert.ok(decoded.ok);
    if (!decoded.ok) continue;
    assert.equal(decoded.decoded.value, JSON.parse(JSON.stringify(object)), object.metadata?.name);
    assert.is(encodeObject(decoded.decoded.value).toString('hex'), bytes.toString('hex'));
  }
  await store.close();
});

test.run();
