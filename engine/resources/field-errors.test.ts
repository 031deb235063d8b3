import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { FieldPath, formatFieldError, formatFieldErrors, forbidden, invalid, notSupported, required, duplicate } from './field-errors.ts';

test('messages read as apimachinery prints them', () => {
  const limited = FieldPath.root('spec').child('limited');
  assert.is(
    formatFieldError(invalid(limited.child('nominalConcurrencyShares'), -1, 'must be a non-negative integer')),
    'spec.limited.nominalConcurrencyShares: Invalid value: -1: must be a non-negative integer',
  );
  assert.is(
    formatFieldError(required('spec.priorityLevelConfiguration.name', 'must reference a priority level')),
    'spec.priorityLevelConfiguration.name: Required value: must reference a priority level',
  );
  assert.is(
    formatFieldError(notSupported('spec.type', 'Foo', ['Exempt', 'Limited'])),
    'spec.type: Unsupported value: "Foo": supported values: "Exempt", "Limited"',
  );
  assert.is(formatFieldError(forbidden('spec.exempt', 'must be nil if the type is Limited')), 'spec.exempt: Forbidden: must be nil if the type is Limited');
  assert.is(
    formatFieldError(duplicate(FieldPath.root('status').child('conditions').index(1).child('type'), 'A')),
    'status.conditions[1].type: Duplicate value: "A"',
  );
});

test('an aggregate of several errors is bracketed; one is bare', () => {
  const a = invalid('a', 1, 'x');
  const b = invalid('b', 2, 'y');
  assert.is(formatFieldErrors([a]), 'a: Invalid value: 1: x');
  assert.is(formatFieldErrors([a, b]), '[a: Invalid value: 1: x, b: Invalid value: 2: y]');
});

test('a bad value nested a million levels deep is rendered cut off, without overflowing the stack', () => {
  let deep: unknown = [];
  for (let i = 0; i < 1_000_000; i++) deep = [deep];
  const text = formatFieldError(invalid('spec', deep, 'must be an object'));
  assert.is(text, `spec: Invalid value: ${'['.repeat(32)}"..."${']'.repeat(32)}: must be an object`);
  const shared = { a: 1 };
  const twice = formatFieldError(invalid('spec', [shared, { b: shared }], 'x'));
  assert.is(twice, 'spec: Invalid value: [{"a":1},{"b":{"a":1}}]: x', 'a value seen twice renders twice');
});

test.run();
