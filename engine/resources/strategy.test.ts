import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { FLOW_SCHEMA, PRIORITY_LEVEL } from './kinds.ts';
import { prepareForCreate, prepareForStatusUpdate, prepareForUpdate } from './strategy.ts';
import type { FlowSchema, FlowSchemaSpec, PriorityLevelConfiguration } from './types.ts';

const plc = (ncs: number, extra: Partial<PriorityLevelConfiguration> = {}): PriorityLevelConfiguration => ({
  apiVersion: 'flowcontrol.apiserver.k8s.io/v1',
  kind: 'PriorityLevelConfiguration',
  metadata: { name: 'team', namespace: 'ignored', resourceVersion: '7', labels: { a: 'b' } },
  spec: { type: 'Limited', limited: { nominalConcurrencyShares: ncs, lendablePercent: 0, limitResponse: { type: 'Reject' } } },
  status: { conditions: [{ type: 'X', status: 'True' }] },
  ...extra,
});

test('create sets uid, time and generation 1, clears status and namespace, drops the resourceVersion', () => {
  const input = plc(5);
  const created = prepareForCreate(input, { uid: 'u-1', nowMs: Date.UTC(2026, 10, 21, 5, 0, 0) });
  assert.equal(created.metadata, { name: 'team', labels: { a: 'b' }, uid: 'u-1', creationTimestamp: '2026-11-21T05:00:00Z', generation: 1 });
  assert.equal(created.status, {});
  assert.is(input.metadata?.namespace, 'ignored', 'the input is not changed');
});

test('update keeps identity and status, bumps generation only when the spec changed', () => {
  const stored = prepareForCreate(plc(5), { uid: 'u-1', nowMs: 0 });
  stored.status = { conditions: [{ type: 'Kept', status: 'True' }] };
  const sameSpec = prepareForUpdate(PRIORITY_LEVEL, { ...plc(5), metadata: { name: 'team', uid: 'forged', labels: { c: 'd' } } }, stored);
  assert.is(sameSpec.metadata?.generation, 1);
  assert.is(sameSpec.metadata?.uid, 'u-1');
  assert.equal(sameSpec.metadata?.labels, { c: 'd' });
  assert.equal(sameSpec.status, { conditions: [{ type: 'Kept', status: 'True' }] });
  const newSpec = prepareForUpdate(PRIORITY_LEVEL, plc(6), stored);
  assert.is(newSpec.metadata?.generation, 2);
});

test('a FlowSchema spec change is detected semantically (absent and default-equal lists are the same)', () => {
  const fs = (rules: FlowSchemaSpec): FlowSchema => ({ metadata: { name: 'f', generation: 3 }, spec: rules });
  const stored = fs({ priorityLevelConfiguration: { name: 'a' }, matchingPrecedence: 100, rules: [] });
  assert.is(prepareForUpdate(FLOW_SCHEMA, fs({ priorityLevelConfiguration: { name: 'a' }, matchingPrecedence: 100 }), stored).metadata?.generation, 3);
  assert.is(prepareForUpdate(FLOW_SCHEMA, fs({ priorityLevelConfiguration: { name: 'b' }, matchingPrecedence: 100 }), stored).metadata?.generation, 4);
});

test('status update takes only the status (and managedFields) from the request', () => {
  const stored = prepareForCreate(plc(5), { uid: 'u-1', nowMs: 0 });
  const request: PriorityLevelConfiguration = {
    ...plc(99),
    metadata: { name: 'team', labels: { x: 'y' }, managedFields: [{ manager: 'm' }] },
    status: { conditions: [{ type: 'New', status: 'False' }] },
  };
  const next = prepareForStatusUpdate(request, stored);
  assert.is(next.spec?.limited?.nominalConcurrencyShares, 5);
  assert.equal(next.metadata?.labels, { a: 'b' });
  assert.equal(next.metadata?.managedFields, [{ manager: 'm' }]);
  assert.equal(next.status, { conditions: [{ type: 'New', status: 'False' }] });
});

test.run();
