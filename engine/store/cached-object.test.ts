import { test } from 'uvu';
import * as assert from 'uvu/assert';
import type { KubeObject } from '../resources/types.ts';
import {
  adoptWrittenObject,
  cachedAtRevision,
  makeCachedObject,
  objectFromCodec,
  objectJsonBytes,
  objectJsonLine,
  storedFormOf,
  withResourceVersion,
} from './cached-object.ts';
import { decodeFrozenObject, encodeObject } from './codec.ts';

const plc = (metadata: Record<string, unknown>): KubeObject => ({
  kind: 'PriorityLevelConfiguration',
  apiVersion: 'flowcontrol.apiserver.k8s.io/v1',
  metadata,
  spec: { type: 'Exempt' },
});

test('withResourceVersion places the field by Go order whatever metadata holds', () => {
  const keys = (meta: Record<string, unknown>): string[] => Object.keys(withResourceVersion({ metadata: meta } as KubeObject, '5').metadata ?? {});
  assert.equal(keys({}), ['resourceVersion']);
  assert.equal(keys({ name: 'a', namespace: 'n' }), ['name', 'namespace', 'resourceVersion']);
  assert.equal(keys({ labels: {}, name: 'a' }), ['resourceVersion', 'labels', 'name']);
  assert.equal(keys({ name: 'a', generation: 2, resourceVersion: '1' }), ['name', 'resourceVersion', 'generation']);
  assert.is(withResourceVersion({ metadata: { resourceVersion: '1' } } as KubeObject, '9').metadata?.resourceVersion, '9');
  const hostile = JSON.parse('{"metadata":{"__proto__":{"x":1},"name":"a"}}') as KubeObject;
  const placed = withResourceVersion(hostile, '3').metadata as Record<string, unknown>;
  assert.equal(Object.keys(placed), ['resourceVersion', '__proto__', 'name']);
  assert.is(Object.getPrototypeOf(placed), Object.prototype);
});

test('a written object, the same object decoded from storage and one rebuilt in a worker encode to the same JSON', () => {
  // An update that carried its resourceVersion somewhere else, and a create without one.
  for (const metadata of [
    { name: 'a', generation: 1, resourceVersion: '3', uid: 'u' },
    { name: 'b', uid: 'u', labels: { x: '<&>' } },
  ]) {
    const written = plc({ ...metadata });
    const codec = encodeObject(written);
    const adopted = adoptWrittenObject('/r/x', 'x', written, 12, codec);
    const decoded = makeCachedObject('/r/x', 'x', decodeFrozenObject(codec), 12, codec, false);
    const rebuilt = objectFromCodec(codec, 12);
    assert.is(objectJsonBytes(adopted).toString(), objectJsonBytes(decoded).toString());
    assert.is(JSON.stringify(rebuilt), JSON.stringify(decoded.object));
    assert.is(adopted.object.metadata?.resourceVersion, '12');
    assert.ok(Object.isFrozen(adopted.object.metadata), 'adopted metadata is frozen');
    if (adopted.object.metadata?.labels !== undefined) assert.ok(Object.isFrozen(adopted.object.metadata.labels), 'all the way down');
  }
  const withHtml = makeCachedObject(
    '/r/y',
    'y',
    decodeFrozenObject(encodeObject(plc({ name: 'y', annotations: { a: '<b>' } }))),
    2,
    encodeObject(plc({ name: 'y' })),
    false,
  );
  assert.match(objectJsonBytes(withHtml).toString(), /"a":"\\u003cb\\u003e"/);
});

test('every version the store hands out leads back to its stored form; other objects do not', () => {
  const codec = encodeObject(plc({ name: 'a' }));
  const cached = makeCachedObject('/r/a', 'a', decodeFrozenObject(codec), 5, codec, false);
  assert.is(storedFormOf(cached.object), cached);
  const deleted = cachedAtRevision(cached, 9);
  assert.is(storedFormOf(deleted.object), deleted);
  assert.is(deleted.revision, 9);
  assert.is(deleted.modRevision, 5);
  assert.is(deleted.object.metadata?.resourceVersion, '9');
  assert.is(JSON.stringify(objectFromCodec(deleted.codecBytes, deleted.revision)), JSON.stringify(deleted.object));
  assert.is(storedFormOf(plc({ name: 'a' })), undefined);
  const bytes = objectJsonBytes(cached);
  assert.is(objectJsonBytes(cached), bytes, 'encoded once');
});

test("a version's JSON line is its JSON and a newline, made once; the JSON then views the same bytes", () => {
  const codec = encodeObject(plc({ name: 'a' }));
  const cached = makeCachedObject('/r/a', 'a', decodeFrozenObject(codec), 5, codec, false);
  const json = objectJsonBytes(cached);
  const text = json.toString();
  const line = objectJsonLine(cached);
  assert.is(line.toString(), `${text}\n`);
  assert.is(objectJsonLine(cached), line, 'made once per version');
  assert.is(objectJsonBytes(cached).toString(), text);
  assert.is(objectJsonBytes(cached).buffer, line.buffer, 'one copy of the bytes');
  const later = cachedAtRevision(cached, 9);
  assert.is(later.jsonLine, undefined, 'another revision has JSON of its own');
  assert.match(objectJsonLine(later).toString(), /"resourceVersion":"9"[^\n]*\n$/);
});

test.run();
