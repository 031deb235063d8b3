import { test } from 'uvu';
import * as assert from 'uvu/assert';
import fc from 'fast-check';
import { alpha, danglingFlowSchema } from './fixtures.ts';
import { applyMergePatch } from './merge-patch.ts';

function value(result: ReturnType<typeof applyMergePatch>): any {
  if ('status' in result) throw new Error(`unexpected status: ${result.status.message}`);
  return result.value;
}

test('kubectl patch --type=merge from A.5 adds a label and changes nothing else', () => {
  const stored = alpha();
  const before = structuredClone(stored);
  const out = value(applyMergePatch(stored, '{"metadata":{"labels":{"x":"y"}}}'));
  assert.equal(out.metadata.labels, { x: 'y' });
  assert.equal({ ...out, metadata: { ...out.metadata, labels: undefined } }, { ...before, metadata: { ...before.metadata, labels: undefined } });
  assert.equal(stored, before, 'input untouched');
});

test('null deletes, objects merge, lists are replaced whole (conditions are not merged by type)', () => {
  const fs = danglingFlowSchema();
  const out = value(
    applyMergePatch(
      fs,
      JSON.stringify({ spec: { distinguisherMethod: null, matchingPrecedence: 500 }, status: { conditions: [{ type: 'Dangling', status: 'False' }] } }),
    ),
  );
  assert.not.ok('distinguisherMethod' in out.spec);
  assert.is(out.spec.matchingPrecedence, 500);
  assert.equal(out.spec.priorityLevelConfiguration, { name: 'gone' }, 'untouched siblings stay');
  assert.equal(out.status.conditions, [{ type: 'Dangling', status: 'False' }], 'the list is replaced, Other is gone');
});

test('RFC 7386 behaviours: a non-object replaces an object, nulls inside a taken value are dropped', () => {
  assert.equal(value(applyMergePatch({ a: { b: 1 } }, '{"a":"x"}')), { a: 'x' });
  assert.equal(value(applyMergePatch({ a: 'x' }, '{"a":{"b":1,"c":null}}')), { a: { b: 1 } });
  assert.equal(value(applyMergePatch({}, '{"a":[1,null,{"b":null,"c":2}]}')), { a: [1, { c: 2 }] }, 'evanphx v4 prunes nulls in lists it takes');
  assert.equal(value(applyMergePatch({ a: { b: 1 } }, '{"a":[null]}')), { a: [null] }, 'but not when it replaces an object');
  assert.equal(value(applyMergePatch({ a: 1 }, '{}')), { a: 1 });
});

test('duplicate fields in the patch are reported for fieldValidation, the last one wins', () => {
  const result = applyMergePatch({}, '{"spec":{"type":"Limited","type":"Exempt"}}');
  assert.ok('value' in result);
  assert.equal(result.duplicates, ['spec.type']);
  assert.equal((result.value as any).spec.type, 'Exempt');
});

test('malformed merge patches are 400 with the messages kube-apiserver sends', () => {
  const messages = (body: string, fieldValidation?: 'Ignore' | 'Warn' | 'Strict') => {
    const result = applyMergePatch({}, body, fieldValidation);
    assert.ok('status' in result);
    assert.is(result.status.code, 400);
    return result.status.message;
  };
  assert.is(messages('{"a":'), 'error decoding patch: unexpected end of JSON input');
  assert.is(messages('[1]'), 'error decoding patch: json: cannot unmarshal array into Go value of type map[string]interface {}');
  assert.is(messages('null'), 'Invalid JSON Patch');
  assert.is(messages('{"a":', 'Ignore'), 'Invalid JSON Patch');
});

// ---------------------------------------------------------------------------------------------
// Properties (RFC 7386 laws)

const json: fc.Arbitrary<unknown> = fc.letrec((tie) => ({
  value: fc.oneof({ depthSize: 'small' }, fc.integer(), fc.string({ maxLength: 3 }), fc.boolean(), tie('object')),
  object: fc.dictionary(fc.constantFrom('a', 'b', 'c'), tie('value'), { maxKeys: 3 }),
})).object;
const patch: fc.Arbitrary<unknown> = fc.letrec((tie) => ({
  value: fc.oneof({ depthSize: 'small' }, fc.constant(null), fc.integer(), fc.string({ maxLength: 3 }), tie('object')),
  object: fc.dictionary(fc.constantFrom('a', 'b', 'c'), tie('value'), { maxKeys: 3 }),
})).object;

test('property: applying a merge patch twice is the same as once', () => {
  fc.assert(
    fc.property(json, patch, (document, body) => {
      const text = JSON.stringify(body);
      const once = value(applyMergePatch(document, text));
      assert.equal(value(applyMergePatch(once, text)), once);
    }),
  );
});

test('property: every non-null member of the patch is in the result; every null member is absent', () => {
  fc.assert(
    fc.property(json, patch, (document, body) => {
      const out = value(applyMergePatch(document, JSON.stringify(body)));
      for (const [key, member] of Object.entries(body as Record<string, unknown>)) {
        if (member === null) assert.not.ok(Object.hasOwn(out, key));
        else if (typeof member !== 'object') assert.equal(out[key], member);
      }
    }),
  );
});

test.run();
