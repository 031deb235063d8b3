import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { CODEC_STRUCTURES_V1 } from './codec-structures.ts';
import { CodecError, decodeFrozenObject, decodeObject, encodeObject } from './codec.ts';

const sample = {
  apiVersion: 'flowcontrol.apiserver.k8s.io/v1',
  kind: 'PriorityLevelConfiguration',
  metadata: { name: 'global-default', uid: 'u1', resourceVersion: '77', generation: 1, creationTimestamp: '2026-11-21T05:00:00Z' },
  spec: {
    type: 'Limited',
    limited: {
      nominalConcurrencyShares: 20,
      limitResponse: { type: 'Queue', queuing: { queues: 128, handSize: 6, queueLengthLimit: 50 } },
      lendablePercent: 50,
    },
  },
  status: { conditions: [] },
};

test('round-trips objects, drops resourceVersion, keeps unknown fields', () => {
  const odd = { ...sample, 'x-unknown': { nested: [1, -2, 3.25, 'four', null, true, { deep: {} }], big: 2 ** 52 + 1 }, '': 'empty key' };
  const back = decodeObject(encodeObject(odd));
  const { resourceVersion: _rv, ...meta } = sample.metadata;
  assert.equal(back, { ...odd, metadata: meta });
});

test('encoding is a pure function of the object: same bytes every time, format byte first', () => {
  const a = encodeObject(sample);
  encodeObject({ some: { other: ['shape'] } });
  const b = encodeObject(JSON.parse(JSON.stringify(sample)));
  assert.equal(Buffer.from(a).toString('hex'), Buffer.from(b).toString('hex'));
  assert.is(a[0], 1);
  // The known structures make the value far smaller than its JSON.
  assert.ok(a.length < JSON.stringify(sample).length * 0.6, `${a.length} bytes`);
});

test('the structure set is the documented, fixed one', () => {
  assert.is(CODEC_STRUCTURES_V1.length, 32);
  assert.equal(CODEC_STRUCTURES_V1[0], ['kind', 'apiVersion', 'metadata', 'spec', 'status']);
  assert.equal(CODEC_STRUCTURES_V1[31], ['verbs', 'apiGroups', 'resources', 'clusterScope', 'namespaces']);
  // Packing must not teach the set new structures.
  encodeObject({ brand: { new: 1, shape: 2 } });
  assert.is(CODEC_STRUCTURES_V1.length, 32);
});

test('a large value owns its bytes: it pins no block of msgpackr shared with other values', () => {
  const large = { ...sample, metadata: { ...sample.metadata, annotations: { fill: 'x'.repeat(100_000) } } };
  for (let i = 0; i < 3; i++) {
    const bytes = encodeObject(large);
    assert.is(bytes.buffer.byteLength, bytes.byteLength, `value ${i}`);
    assert.is(decodeObject(bytes).metadata?.annotations?.fill, large.metadata.annotations.fill);
  }
  const small = encodeObject(sample);
  assert.ok(small.buffer.byteLength > small.byteLength, 'a small value stays a view (no copy per write)');
});

test('frozen decoding freezes everything', () => {
  const frozen = decodeFrozenObject(encodeObject(sample));
  assert.ok(Object.isFrozen(frozen));
  assert.ok(Object.isFrozen((frozen.spec as { limited: object }).limited));
  assert.ok(Object.isFrozen((frozen.status as { conditions: object }).conditions));
});

test('garbage is a CodecError, never a crash', () => {
  for (const bad of [
    new Uint8Array([]),
    new Uint8Array([2, 0x80]),
    new Uint8Array([1, 0x42]),
    new Uint8Array([1, 0x92, 1]),
    new Uint8Array([1, 0xc1, 0xff]),
    new Uint8Array([1, 5]),
  ]) {
    assert.throws(
      () => decodeObject(bad),
      (e: unknown) => e instanceof CodecError,
    );
  }
});

test.run();
