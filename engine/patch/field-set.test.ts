import { test } from 'uvu';
import * as assert from 'uvu/assert';
import fc from 'fast-check';
import { compareGoStrings, FieldSet, FieldsV1Error, fieldElement, keyElement, pathToString, valueElement, indexElement, type FieldPath } from './field-set.ts';

const f = fieldElement;
const contractFields = {
  'f:metadata': { 'f:labels': { '.': {}, 'f:a': {} } },
  'f:status': { 'f:conditions': { '.': {}, 'k:{"type":"Dangling"}': { '.': {}, 'f:status': {}, 'f:type': {} } } },
};

test('fieldsV1 round-trips byte for byte, "." marking a node that is owned itself', () => {
  const set = FieldSet.fromFieldsV1(contractFields);
  assert.ok(set.has([f('metadata'), f('labels')]), 'labels is a member (".")');
  assert.ok(set.has([f('metadata'), f('labels'), f('a')]));
  assert.not.ok(set.has([f('metadata')]), 'metadata only has children');
  assert.ok(set.has([f('status'), f('conditions'), keyElement({ type: 'Dangling' }), f('type')]));
  assert.is(JSON.stringify(set.toFieldsV1()), JSON.stringify(contractFields));
});

test('output order is Go order: field names bytewise, then keys, then values, then indexes', () => {
  const set = FieldSet.of([
    [f('x'), indexElement(10)],
    [f('x'), indexElement(9)],
    [f('x'), valueElement('b')],
    [f('x'), valueElement('a')],
    [f('x'), keyElement({ type: 'Z' })],
    [f('x'), keyElement({ type: 'A' })],
    [f('x'), f('Zeta')],
    [f('x'), f('alpha')],
  ]);
  const keys = Object.keys((set.toFieldsV1()['f:x'] ?? {}) as object);
  assert.equal(keys, ['f:Zeta', 'f:alpha', 'k:{"type":"A"}', 'k:{"type":"Z"}', 'v:"a"', 'v:"b"', 'i:9', 'i:10']);
  // Uppercase sorts before lowercase in Go, and code points (not UTF-16 units) decide.
  assert.ok(compareGoStrings('Z', 'a') < 0);
  assert.ok(compareGoStrings('\u{10000}', '\uffff') > 0, 'an astral character sorts after U+FFFF as in UTF-8');
});

test('key elements sort their fields and path strings read as structured-merge-diff prints them', () => {
  assert.is(keyElement({ type: 'Dangling' }), 'k:{"type":"Dangling"}');
  assert.is(keyElement({ z: 1, a: 'x' }), 'k:{"a":"x","z":1}');
  assert.is(pathToString([f('spec'), f('limited'), f('lendablePercent')]), '.spec.limited.lendablePercent');
  assert.is(pathToString([f('status'), f('conditions'), keyElement({ type: 'Dangling' }), f('status')]), '.status.conditions[type="Dangling"].status');
  assert.is(pathToString([f('metadata'), f('finalizers'), valueElement('x')]), '.metadata.finalizers[="x"]');
  assert.is(pathToString([f('metadata'), f('labels'), f('app.kubernetes.io/name')]), '.metadata.labels.app.kubernetes.io/name');
});

test('difference keeps the children of a removed member; recursiveDifference removes the subtree', () => {
  const owned = FieldSet.of([
    [f('spec'), f('limited')],
    [f('spec'), f('limited'), f('lendablePercent')],
  ]);
  const removeLimited = FieldSet.of([[f('spec'), f('limited')]]);
  const plain = owned.difference(removeLimited);
  assert.not.ok(plain.has([f('spec'), f('limited')]));
  assert.ok(plain.has([f('spec'), f('limited'), f('lendablePercent')]));
  assert.ok(owned.recursiveDifference(removeLimited).isEmpty());
});

test('paths() iterates members before children, each in order', () => {
  const set = FieldSet.of([[f('b'), f('x')], [f('c')], [f('a')]]);
  assert.equal(set.paths().map(pathToString), ['.a', '.c', '.b.x']);
});

test('fromFieldsV1 refuses what Kubernetes refuses', () => {
  assert.throws(
    () => FieldSet.fromFieldsV1({ 'x:bad': {} }),
    (error: unknown) => error instanceof FieldsV1Error,
  );
  assert.throws(
    () => FieldSet.fromFieldsV1({ 'k:notjson': {} }),
    (error: unknown) => error instanceof FieldsV1Error,
  );
  assert.throws(
    () => FieldSet.fromFieldsV1({ 'f:a': 3 }),
    (error: unknown) => error instanceof FieldsV1Error,
  );
  assert.throws(
    () => FieldSet.fromFieldsV1([]),
    (error: unknown) => error instanceof FieldsV1Error,
  );
  assert.ok(FieldSet.fromFieldsV1({}).isEmpty());
});

// ---------------------------------------------------------------------------------------------
// Properties: the algebra obeys set laws on the flattened paths.

const element = fc.oneof(
  fc.constantFrom('a', 'b', 'c', 'Z').map(f),
  fc.constantFrom('X', 'Y').map((type) => keyElement({ type })),
  fc.constantFrom('p', 'q').map(valueElement),
);
const paths = fc.array(fc.array(element, { minLength: 1, maxLength: 3 }), { maxLength: 8 });
const flat = (set: FieldSet): string[] =>
  set
    .paths()
    .map((path) => JSON.stringify(path))
    .sort();
const of = (list: FieldPath[]): FieldSet => FieldSet.of(list);

test('property: fieldsV1 encoding round-trips any set', () => {
  fc.assert(fc.property(paths, (list) => assert.equal(flat(FieldSet.fromFieldsV1(of(list).toFieldsV1())), flat(of(list)))));
});

test('property: union, intersection and difference match set algebra on paths', () => {
  fc.assert(
    fc.property(paths, paths, (left, right) => {
      const a = new Set(flat(of(left)));
      const b = new Set(flat(of(right)));
      assert.equal(flat(of(left).union(of(right))), [...new Set([...a, ...b])].sort());
      assert.equal(flat(of(left).intersection(of(right))), [...a].filter((p) => b.has(p)).sort());
      assert.equal(flat(of(left).difference(of(right))), [...a].filter((p) => !b.has(p)).sort());
    }),
  );
});

test.run();
