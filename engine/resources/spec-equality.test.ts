import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { deepEqual, flowSchemaSpecsEqual, priorityLevelSpecsEqual } from './spec-equality.ts';

test('missing scalars are their zero value; missing or null lists equal empty ones', () => {
  assert.ok(flowSchemaSpecsEqual({}, { matchingPrecedence: 0, priorityLevelConfiguration: { name: '' }, rules: [] }));
  assert.ok(flowSchemaSpecsEqual(undefined, { rules: null as unknown as [] }));
  const rule = {
    subjects: [{ kind: 'Group', group: { name: 'g' } }],
    resourceRules: [{ verbs: ['*'], apiGroups: ['*'], resources: ['*'], namespaces: ['*'] }],
  };
  const explicit = { ...rule, resourceRules: [{ ...rule.resourceRules[0]!, clusterScope: false }], nonResourceRules: [] };
  assert.ok(flowSchemaSpecsEqual({ rules: [rule] }, { rules: [explicit] }));
  assert.not.ok(flowSchemaSpecsEqual({ rules: [rule] }, { rules: [{ ...rule, resourceRules: [{ ...rule.resourceRules[0]!, clusterScope: true }] }] }));
});

test('pointers: null equals missing, but a pointer to zero does not', () => {
  assert.ok(flowSchemaSpecsEqual({ distinguisherMethod: null }, {}));
  assert.not.ok(flowSchemaSpecsEqual({ distinguisherMethod: {} }, {}));
  assert.ok(priorityLevelSpecsEqual({ type: 'Exempt', limited: null }, { type: 'Exempt' }));
  const base = { type: 'Limited', limited: { nominalConcurrencyShares: 5, limitResponse: { type: 'Reject' } } };
  assert.ok(priorityLevelSpecsEqual(base, { ...base, limited: { ...base.limited, borrowingLimitPercent: null } }));
  assert.not.ok(priorityLevelSpecsEqual(base, { ...base, limited: { ...base.limited, borrowingLimitPercent: 0 } }));
  const { nominalConcurrencyShares: _shares, ...withoutShares } = base.limited;
  assert.not.ok(priorityLevelSpecsEqual(base, { ...base, limited: withoutShares }));
});

test('unknown fields and key order do not matter; list order does', () => {
  assert.ok(priorityLevelSpecsEqual({ type: 'Exempt', extra: 1 } as object, { type: 'Exempt' }));
  assert.ok(
    flowSchemaSpecsEqual(
      { matchingPrecedence: 3, priorityLevelConfiguration: { name: 'p' } },
      { priorityLevelConfiguration: { name: 'p' }, matchingPrecedence: 3 },
    ),
  );
  const verbs = (v: string[]) => ({ rules: [{ nonResourceRules: [{ verbs: v, nonResourceURLs: ['/'] }] }] });
  assert.not.ok(flowSchemaSpecsEqual(verbs(['get', 'list']), verbs(['list', 'get'])));
});

test('deepEqual on plain data', () => {
  assert.ok(deepEqual({ a: [1, { b: null }] }, { a: [1, { b: null }] }));
  assert.not.ok(deepEqual({ a: 1 }, { a: 1, b: undefined }));
  assert.not.ok(deepEqual([1], { 0: 1 }));
  assert.not.ok(deepEqual(null, {}));
});

test.run();
