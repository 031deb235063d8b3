// Keys that name Object.prototype's members are field names like any other to every patch type:
// unknown where the schema has no such field, ordinary keys inside maps, never a way into the
// process's prototypes.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import type { KubeObject } from '../resources/types.ts';
import { alpha, T1 } from './fixtures.ts';
import { applyPatch, type ApplyPatchInput, type FieldValidation } from './index.ts';

const MERGE = 'application/merge-patch+json';
const STRATEGIC = 'application/strategic-merge-patch+json';
const JSON_PATCH = 'application/json-patch+json';
const APPLY = 'application/apply-patch+yaml';

const prototypeNames = (): string[] => Object.getOwnPropertyNames(Object.prototype).sort();
const BUILT_INS = prototypeNames();

function patch(contentType: string, body: unknown, fieldValidation: FieldValidation = 'Warn', extra: Partial<ApplyPatchInput> = {}) {
  const patchBody = typeof body === 'string' ? body : JSON.stringify(body);
  return applyPatch({
    contentType,
    patchBody,
    current: alpha() as KubeObject,
    kind: 'PriorityLevelConfiguration',
    nowTime: T1,
    name: 'alpha',
    fieldValidation,
    ...extra,
  });
}

/** Object.prototype has exactly its built-in members, all still functions or accessors. */
function assertPrototypeUntouched(): void {
  assert.equal(prototypeNames(), BUILT_INS, 'Object.prototype gained or lost a member');
  assert.type(Object.prototype.hasOwnProperty, 'function');
  assert.type(Object.prototype.toString, 'function');
  assert.is(({} as Record<string, unknown>)['polluted'], undefined);
}

/** The JSON text of `{"<key>": value}`: an object literal would treat `__proto__` as the prototype. */
const member = (key: string, value: unknown): string => `{${JSON.stringify(key)}:${JSON.stringify(value)}}`;

test('merge and strategic patches with __proto__ reach no prototype: unknown field, warned or refused', () => {
  for (const type of [MERGE, STRATEGIC]) {
    for (const body of [
      member('__proto__', { polluted: 'yes' }),
      member('__proto__', { hasOwnProperty: null }),
      `{"spec":${member('__proto__', { error: 'x' })}}`,
    ]) {
      const warned = patch(type, body);
      assertPrototypeUntouched();
      if ('status' in warned) throw new Error(`${type} ${body}: ${warned.status.message}`);
      assert.ok(
        warned.warnings.some((w) => /unknown field "(spec\.)?__proto__"/.test(w)),
        `${type} ${body}: ${warned.warnings.join('; ')}`,
      );
      assert.not.ok(JSON.stringify(warned.object).includes('__proto__'), 'dropped like any unknown field');
      assert.type(warned.object.spec, 'object');

      const strict = patch(type, body, 'Strict');
      assertPrototypeUntouched();
      if (!('status' in strict)) throw new Error(`${type} ${body}: Strict accepted an unknown field`);
      assert.is(strict.status.code, 422);
      assert.match(strict.status.message ?? '', /strict decoding error: unknown field "(spec\.)?__proto__"/);
    }
  }
});

test('a patch that fails with 422 pollutes nothing either', () => {
  const body = `{"metadata":{"ownerReferences":[${member('__proto__', { polluted: 'yes' })}]}}`;
  const result = patch(STRATEGIC, body);
  assertPrototypeUntouched();
  assert.ok('status' in result);
  const failing = patch(JSON_PATCH, [
    { op: 'add', path: '/__proto__', value: { polluted: 'yes' } },
    { op: 'test', path: '/spec/type', value: 'Exempt' },
  ]);
  assertPrototypeUntouched();
  assert.ok('status' in failing && failing.status.code === 422);
});

test('JSON patch: /__proto__ is an own member, never the prototype', () => {
  const added = patch(JSON_PATCH, [{ op: 'add', path: '/__proto__', value: { polluted: 'yes' } }]);
  assertPrototypeUntouched();
  if ('status' in added) throw new Error(added.status.message);
  assert.equal(added.warnings, ['unknown field "__proto__"']);
  for (const op of [
    { op: 'add', path: '/__proto__/polluted', value: 'yes' },
    { op: 'add', path: '/spec/constructor/prototype/polluted', value: 'yes' },
    { op: 'move', from: '/constructor', path: '/spec/x' },
    { op: 'remove', path: '/toString' },
  ]) {
    const result = patch(JSON_PATCH, [op]);
    assertPrototypeUntouched();
    if (!('status' in result)) throw new Error(`${JSON.stringify(op)} found a member the object does not have`);
    assert.is(result.status.code, 422, JSON.stringify(op));
  }
  // evanphx/json-patch v4 copies a missing member as null; the prototype is not that member.
  const copied = patch(JSON_PATCH, [{ op: 'copy', from: '/__proto__', path: '/metadata/annotations' }]);
  assertPrototypeUntouched();
  if ('status' in copied) throw new Error(copied.status.message);
  assert.ok(copied.object.metadata?.annotations == null, 'null, not Object.prototype');
  const tested = patch(JSON_PATCH, [{ op: 'test', path: '/constructor', value: null }]);
  assert.ok('object' in tested, 'a missing member tests equal to null, as in evanphx/json-patch v4');
});

test('server-side apply: __proto__ and constructor are fields the schema does not declare', () => {
  const body =
    '{"apiVersion":"flowcontrol.apiserver.k8s.io/v1","kind":"PriorityLevelConfiguration","metadata":{"name":"alpha"},"spec":{"type":"Limited",' +
    '"constructor":{"prototype":{"polluted":"yes"}}},"__proto__":{"polluted":"yes"}}';
  const result = patch(APPLY, body, 'Strict', { fieldManager: 'm' });
  assertPrototypeUntouched();
  if (!('status' in result)) throw new Error('applied fields the schema does not declare');
  assert.is(result.status.code, 400);
  assert.match(result.status.message ?? '', /\.__proto__: field not declared in schema/);
  assert.match(result.status.message ?? '', /\.spec\.constructor: field not declared in schema/);
});

test('inside labels, prototype names are keys like any other', () => {
  for (const type of [MERGE, STRATEGIC]) {
    const result = patch(type, { metadata: { labels: { constructor: 'a', toString: 'b', prototype: 'c' } } }, 'Strict');
    assertPrototypeUntouched();
    if ('status' in result) throw new Error(result.status.message);
    assert.equal(result.object.metadata?.labels, { constructor: 'a', toString: 'b', prototype: 'c' });
    assert.equal(result.warnings, []);
    const entry = result.managedFields.find((e) => e.operation === 'Update');
    assert.equal((entry!.fieldsV1 as Record<string, any>)['f:metadata']['f:labels'], { '.': {}, 'f:constructor': {}, 'f:prototype': {}, 'f:toString': {} });
  }
  const applied = patch(
    APPLY,
    { apiVersion: 'flowcontrol.apiserver.k8s.io/v1', kind: 'PriorityLevelConfiguration', metadata: { name: 'alpha', labels: { constructor: 'a' } } },
    'Strict',
    { fieldManager: 'm' },
  );
  if ('status' in applied) throw new Error(applied.status.message);
  assert.equal(applied.object.metadata?.labels, { constructor: 'a' });
  const removed = patch(JSON_PATCH, [
    { op: 'add', path: '/metadata/labels', value: { hasOwnProperty: 'x' } },
    { op: 'remove', path: '/metadata/labels/hasOwnProperty' },
  ]);
  if ('status' in removed) throw new Error(removed.status.message);
  assert.equal(removed.object.metadata?.labels, {});
});

test('strategic directives naming prototype members find nothing to merge', () => {
  const result = patch(STRATEGIC, { metadata: { '$setElementOrder/__proto__': [], '$deleteFromPrimitiveList/constructor': ['x'] } });
  assertPrototypeUntouched();
  if ('status' in result) throw new Error(result.status.message);
  assert.equal(result.object.metadata?.name, 'alpha');
});

test.run();
