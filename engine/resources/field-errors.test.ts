import { test } from 'uvu';
import * as assert from 'uvu/assert';
import {
  FieldPath,
  MAX_FIELD_ERRORS,
  MAX_FIELD_ERRORS_TEXT,
  addFieldError,
  addFieldErrors,
  duplicate,
  forbidden,
  formatFieldError,
  formatFieldErrors,
  invalid,
  notSupported,
  omittedFieldErrors,
  required,
  showFieldErrors,
  type FieldErrorList,
} from './field-errors.ts';

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

test('a list keeps the first MAX_FIELD_ERRORS errors and counts the rest, also across merges', () => {
  const inner: FieldErrorList = [];
  for (let i = 0; i < 250; i++) addFieldError(inner, required(`a[${i}]`));
  assert.equal([inner.length, omittedFieldErrors(inner)], [MAX_FIELD_ERRORS, 150]);
  assert.is(inner[0]?.field, 'a[0]', 'the first errors are the ones kept');
  const outer = addFieldErrors([required('b')], inner);
  assert.equal([outer.length, omittedFieldErrors(outer)], [MAX_FIELD_ERRORS, 151]);
  assert.is(omittedFieldErrors([required('c')]), 0);
});

test('a wording shows the errors that fit in MAX_FIELD_ERRORS_TEXT and says how many it left out', () => {
  const errors: FieldErrorList = [];
  for (let i = 0; i < 1000; i++) addFieldError(errors, invalid(`spec.rules[${i}]`, 'x'.repeat(200), 'must be valid'));
  const { shown, left } = showFieldErrors(errors);
  const text = shown.reduce((sum, { error, body }) => sum + error.field.length + 2 + body.length, 0);
  assert.ok(text <= MAX_FIELD_ERRORS_TEXT, `${text} characters shown`);
  assert.ok(shown.length > 10 && shown.length < MAX_FIELD_ERRORS, `${shown.length} shown`);
  assert.is(shown.length + left, 1000);
  const message = formatFieldErrors(errors);
  assert.ok(message.endsWith(`, and ${left} more errors]`), message.slice(-80));
  assert.ok(message.length < MAX_FIELD_ERRORS_TEXT + 1000, `${message.length} characters`);
  const one = formatFieldErrors([invalid('spec', 'y'.repeat(100_000), 'too long a name')]);
  assert.ok(one.length <= MAX_FIELD_ERRORS_TEXT && one.startsWith('spec: Invalid value: "yyy'), `one error alone is cut to fit: ${one.length}`);
});

test('a long bad value is rendered cut off after its first 4 KiB, at no cost of its length', () => {
  const references = Array.from({ length: 200_000 }, (_, i) => ({ apiVersion: 'v1', kind: 'K', name: `n${i}`, uid: 'u', controller: true }));
  const text = formatFieldError(invalid('metadata.ownerReferences', references, 'Only one reference can have Controller set to true'));
  assert.ok(text.length < 4300, `${text.length} characters`);
  assert.ok(text.includes('[{"apiVersion":"v1","kind":"K","name":"n0","uid":"u","controller":true},{'), text.slice(0, 200));
  assert.ok(text.endsWith('...: Only one reference can have Controller set to true'), text.slice(-80));
  const short = { a: [1, 'two', null, true, { b: undefined, c: Number.NaN }], d: () => 1 };
  assert.is(formatFieldError(invalid('x', short, 'y')), `x: Invalid value: ${JSON.stringify(short)}: y`, 'short values render as JSON.stringify does');
});

test.run();
