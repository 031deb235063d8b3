import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { isStoreError } from './store-errors.ts';
import { parseFieldSelector } from './field-selector.ts';

function errorOf(text: string): string {
  try {
    parseFieldSelector(text);
  } catch (error) {
    assert.ok(isStoreError(error));
    assert.is(error.code, 'FW_ERR_STORE_BAD_FIELD_SELECTOR');
    return error.message;
  }
  return 'parsed';
}

test('parses =, == and != on metadata.name and metadata.namespace', () => {
  const s = parseFieldSelector('metadata.name==a,metadata.namespace=');
  assert.ok(s.matches({ name: 'a', namespace: '' }));
  assert.not.ok(s.matches({ name: 'b', namespace: '' }));
  assert.is(s.requiredName, 'a');
  const not = parseFieldSelector('metadata.name!=a');
  assert.ok(not.matches({ name: 'b', namespace: '' }));
  assert.not.ok(not.matches({ name: 'a', namespace: '' }));
  assert.is(not.requiredName, undefined);
  assert.ok(parseFieldSelector('').empty);
  assert.ok(parseFieldSelector(',,').empty);
});

test('escaped values are unescaped', () => {
  assert.ok(parseFieldSelector('metadata.name=a\\,b\\=c\\\\').matches({ name: 'a,b=c\\', namespace: '' }));
});

test('unknown fields and malformed terms are BadRequest with the apiserver text', () => {
  assert.is(errorOf('spec.type=Limited'), '"spec.type" is not a known field selector: only "metadata.name", "metadata.namespace"');
  assert.is(errorOf('=a'), '"" is not a known field selector: only "metadata.name", "metadata.namespace"');
  assert.is(errorOf('metadata.name'), "invalid selector: 'metadata.name'; can't understand 'metadata.name'");
  assert.is(errorOf('metadata.name=a=b'), 'invalid field selector: unescaped character in value: 61');
  assert.is(errorOf('metadata.name=a\\x'), 'invalid field selector: invalid escape sequence: \\x');
  assert.is(errorOf('metadata.name=a\\'), 'invalid field selector: invalid escape sequence: \\');
});

test.run();
