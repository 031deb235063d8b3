// However many errors an object has, validation keeps MAX_FIELD_ERRORS of them and counts the rest:
// the counts below are each case's exact number of errors, so nothing is lost or counted twice.
// Small lists prove the bound (the old code kept them all); one list of 150,000 proves that no
// step overflows the stack (the old code's spread pushes threw a RangeError).
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import type { FlowSchema, PriorityLevelConfiguration } from './types.ts';
import { MAX_FIELD_ERRORS, omittedFieldErrors, type FieldError } from './field-errors.ts';
import { validateFlowSchema, validateFlowSchemaUpdate } from './flow-schema-validation.ts';
import { validatePriorityLevelConfiguration, validatePriorityLevelConfigurationStatusUpdate } from './priority-level-validation.ts';

const N = 1_000;

function schema(meta: Record<string, unknown> = {}, rules: unknown[] = []): FlowSchema {
  return {
    metadata: { name: 'many', ...meta },
    spec: { matchingPrecedence: 500, priorityLevelConfiguration: { name: 'global-default' }, rules },
  } as FlowSchema;
}

function level(status?: unknown): PriorityLevelConfiguration {
  return { metadata: { name: 'many' }, spec: { type: 'Limited', limited: { limitResponse: { type: 'Reject' } } }, status } as PriorityLevelConfiguration;
}

function assertBounded(errors: FieldError[], total: number, firstField: string): void {
  assert.equal([errors.length, omittedFieldErrors(errors)], [Math.min(total, MAX_FIELD_ERRORS), Math.max(0, total - MAX_FIELD_ERRORS)]);
  assert.is(errors[0]?.field, firstField);
}

const urlRule = (urls: string[]) => ({ subjects: [{ kind: 'Group', group: { name: 'g' } }], nonResourceRules: [{ verbs: ['get'], nonResourceURLs: urls }] });

test('lists of bad items: the first MAX_FIELD_ERRORS errors kept, the rest counted exactly', () => {
  // An empty rule: no subjects (F7) and no rules (F8).
  assertBounded(validateFlowSchema(schema({}, Array(N).fill({}))), 2 * N, 'spec.rules[0].subjects');
  assertBounded(validateFlowSchema(schema({}, [urlRule(Array(N).fill('x'))])), N, 'spec.rules[0].nonResourceRules[0].nonResourceURLs[0]');
  const labels = Object.fromEntries(Array.from({ length: N }, (_, i) => [`-bad${i}`, 'v']));
  assertBounded(validateFlowSchema(schema({ labels })), N, 'metadata.labels');
  // A bad finalizer is reported on the list and on its item.
  assertBounded(validateFlowSchema(schema({ finalizers: Array(N).fill('-x') })), 2 * N, 'metadata.finalizers');
  // An empty owner reference lacks apiVersion, kind, name and uid.
  assertBounded(validateFlowSchema(schema({ ownerReferences: Array(N).fill({}) })), 4 * N, 'metadata.ownerReferences.apiVersion');
  // Updates merge the ObjectMeta update rules with the create rules: the count carries across.
  const old = schema();
  assertBounded(validateFlowSchemaUpdate(schema({}, Array(N).fill({})), old), 2 * N, 'spec.rules[0].subjects');
  // Empty conditions: each lacks a type, and each after the first repeats the empty one.
  const conditions = Array(N).fill({});
  assertBounded(validatePriorityLevelConfiguration(level({ conditions })), 2 * N - 1, 'status.conditions[0].type');
  assertBounded(validatePriorityLevelConfigurationStatusUpdate(level({ conditions }), level()), 2 * N - 1, 'status.conditions[0].type');
});

test('150,000 bad items of each kind are counted without overflowing the stack', () => {
  const big = 150_000;
  assertBounded(validateFlowSchema(schema({}, Array(big).fill({}))), 2 * big, 'spec.rules[0].subjects');
  assertBounded(
    validateFlowSchema(schema({ finalizers: Array(big).fill('-x'), ownerReferences: Array(big).fill({}) })),
    6 * big,
    'metadata.ownerReferences.apiVersion',
  );
  assertBounded(validatePriorityLevelConfigurationStatusUpdate(level({ conditions: Array(big).fill({}) }), level()), 2 * big - 1, 'status.conditions[0].type');
});

test.run();
