import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { canonicalOrder } from './canonical-order.ts';
import { PRIORITY_LEVEL } from './kinds.ts';
import { decodingShape } from './schema/decoding-shape.ts';

const PRIORITY_LEVEL_SHAPE = decodingShape(PRIORITY_LEVEL.table.struct);

test('kind and apiVersion first, struct fields in Go order, map keys sorted', () => {
  const ordered = canonicalOrder(
    {
      status: {},
      spec: { limited: { limitResponse: { type: 'Reject' }, nominalConcurrencyShares: 1 }, type: 'Limited' },
      metadata: { uid: 'u', labels: { z: '1', a: '2' }, name: 'n' },
      apiVersion: 'v',
      kind: 'K',
    },
    PRIORITY_LEVEL_SHAPE,
  );
  assert.equal(Object.keys(ordered), ['kind', 'apiVersion', 'metadata', 'spec', 'status']);
  assert.equal(Object.keys(ordered.metadata!), ['name', 'uid', 'labels']);
  assert.equal(Object.keys(ordered.metadata!.labels!), ['a', 'z']);
  assert.equal(Object.keys(ordered.spec as Record<string, unknown>), ['type', 'limited']);
});

test('equal content in any key order serialises to the same text', () => {
  const a = canonicalOrder({ kind: 'K', metadata: { name: 'n', annotations: { b: '1', a: '2' } }, spec: { type: 'Exempt' } }, PRIORITY_LEVEL_SHAPE);
  const b = canonicalOrder({ spec: { type: 'Exempt' }, metadata: { annotations: { a: '2', b: '1' }, name: 'n' }, kind: 'K' }, PRIORITY_LEVEL_SHAPE);
  assert.is(JSON.stringify(a), JSON.stringify(b));
});

test.run();
