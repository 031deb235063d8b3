import { test } from 'uvu';
import * as assert from 'uvu/assert';
import fc from 'fast-check';
import { FieldSet, fieldElement as f, keyElement, pathToString } from './field-set.ts';
import { alpha, danglingFlowSchema } from './fixtures.ts';
import { schemaFor } from './schema.ts';
import { compareTyped, ensureNamedFieldsAreMembers, mergeTyped, removeItems, toFieldSet, withGoZeroValues } from './typed-value.ts';

const PLC = schemaFor('PriorityLevelConfiguration');
const FS = schemaFor('FlowSchema');
const strings = (set: FieldSet): string[] => set.paths().map(pathToString);

test('an applied configuration owns leaves and list items, not the structs around them', () => {
  const set = toFieldSet(FS, {
    metadata: { name: 'probes', labels: { a: 'b' }, annotations: {} },
    spec: { distinguisherMethod: null, rules: [{ subjects: [] }] },
    status: { conditions: [{ type: 'Dangling', status: 'True' }] },
  });
  assert.equal(set.toFieldsV1(), {
    'f:metadata': { 'f:annotations': {}, 'f:labels': { 'f:a': {} }, 'f:name': {} },
    'f:spec': { 'f:distinguisherMethod': {}, 'f:rules': {} },
    'f:status': { 'f:conditions': { 'k:{"type":"Dangling"}': { '.': {}, 'f:status': {}, 'f:type': {} } } },
  });
});

test('compare: a struct that exists on one side only is added or removed itself, with its leaves', () => {
  const before = withGoZeroValues(PLC, { spec: { type: 'Exempt', exempt: { nominalConcurrencyShares: 0 } } });
  const after = withGoZeroValues(PLC, { spec: { type: 'Limited', limited: { nominalConcurrencyShares: 5, limitResponse: { type: 'Reject' } } } });
  const { added, modified, removed } = compareTyped(PLC, before, after);
  assert.equal(strings(added), ['.spec.limited', '.spec.limited.limitResponse', '.spec.limited.nominalConcurrencyShares', '.spec.limited.limitResponse.type']);
  assert.equal(strings(modified), ['.spec.type']);
  assert.equal(strings(removed), ['.spec.exempt', '.spec.exempt.nominalConcurrencyShares']);
});

test('compare: keyed list items by key, atomic lists as one leaf, empty on both sides as a leaf', () => {
  const fs = danglingFlowSchema();
  const next = structuredClone(fs) as any;
  next.status.conditions = [{ ...next.status.conditions[1], status: 'True' }, { type: 'New' }];
  next.spec.rules[0].subjects.push({ kind: 'User', user: { name: 'x' } });
  const { added, modified, removed } = compareTyped(FS, fs, next);
  assert.equal(strings(added), ['.status.conditions[type="New"]', '.status.conditions[type="New"].type']);
  assert.equal(strings(modified), ['.spec.rules', '.status.conditions[type="Other"].status']);
  assert.ok(removed.has([f('status'), f('conditions'), keyElement({ type: 'Dangling' })]));
  assert.equal(strings(compareTyped(FS, { status: {} }, { status: { conditions: [] } }).added), ['.status.conditions']);
});

test("Go's zero values: non-pointer structs and non-omitempty fields appear, nulls of pointers go", () => {
  assert.equal(withGoZeroValues(FS, { spec: { distinguisherMethod: null } }), {
    metadata: {},
    // matchingPrecedence is a plain int32 without omitempty in Go: its zero is written out.
    spec: { priorityLevelConfiguration: { name: '' }, matchingPrecedence: 0 },
    status: {},
  });
  assert.equal((withGoZeroValues(PLC, { spec: { limited: {} } }) as any).spec, { type: '', limited: { limitResponse: { type: '' } } });
  assert.equal(
    (withGoZeroValues(FS, { metadata: { labels: {}, finalizers: [], name: 'x' } }) as any).metadata,
    { name: 'x' },
    'omitempty drops empty maps and lists',
  );
});

test('merge: the applied order places new keyed items among the shared ones', () => {
  const live = { status: { conditions: [{ type: 'A', status: 'x' }, { type: 'B' }, { type: 'C' }] } };
  const merged = mergeTyped(FS, live, { status: { conditions: [{ type: 'N' }, { type: 'C' }, { type: 'A', status: 'y' }] } }) as any;
  assert.equal(merged.status.conditions, [{ type: 'B' }, { type: 'N' }, { type: 'C' }, { type: 'A', status: 'y' }]);
  assert.equal(mergeTyped(FS, { spec: { rules: [1, 2] } }, { spec: { rules: [3] } }), { spec: { rules: [3] } }, 'atomic lists are replaced');
  assert.equal(
    mergeTyped(PLC, { spec: { limited: { lendablePercent: 1 } } }, { spec: { limited: null } }),
    { spec: { limited: { lendablePercent: 1 } } },
    'null does not wipe a map',
  );
});

test('removeItems drops a path and what is under it, and a container it empties', () => {
  const fs = danglingFlowSchema();
  const out = removeItems(
    FS,
    fs,
    FieldSet.of([
      [f('spec'), f('distinguisherMethod')],
      [f('metadata'), f('finalizers')],
      [f('status'), f('conditions'), keyElement({ type: 'Dangling' })],
      [f('status'), f('conditions'), keyElement({ type: 'Other' })],
    ]),
  ) as any;
  assert.not.ok('distinguisherMethod' in out.spec);
  assert.not.ok('finalizers' in out.metadata);
  assert.not.ok('conditions' in (out.status ?? {}), 'all items gone: the list goes too');
  assert.equal(out.spec.rules, fs.spec!.rules);
});

test('ensureNamedFieldsAreMembers adds struct fields, not map keys', () => {
  const set = ensureNamedFieldsAreMembers(FieldSet.of([[f('metadata'), f('labels'), f('a')]]), FS);
  assert.ok(set.has([f('metadata')]) && set.has([f('metadata'), f('labels')]) && set.has([f('metadata'), f('labels'), f('a')]));
  const keyed = ensureNamedFieldsAreMembers(FieldSet.of([[f('status'), f('conditions'), keyElement({ type: 'A' }), f('status')]]), FS);
  assert.not.ok(keyed.has([f('status'), f('conditions'), keyElement({ type: 'A' })]), 'list items are not named fields');
});

// ---------------------------------------------------------------------------------------------

const labelMaps = fc.dictionary(fc.constantFrom('a', 'b', 'c'), fc.constantFrom('1', '2'), { maxKeys: 3 }).map((labels) => ({ ...labels }));

test('property: compare partitions changes: added, modified and removed never overlap and explain the difference', () => {
  fc.assert(
    fc.property(labelMaps, labelMaps, (before, after) => {
      const { added, modified, removed } = compareTyped(PLC, { ...alpha(), metadata: { labels: before } }, { ...alpha(), metadata: { labels: after } });
      const leaf = (set: FieldSet) =>
        set
          .paths()
          .filter((p) => p.length === 3)
          .map((p) => p[2]!.slice(2));
      assert.equal(
        leaf(added).sort(),
        Object.keys(after)
          .filter((k) => !(k in before))
          .sort(),
      );
      assert.equal(
        leaf(removed).sort(),
        Object.keys(before)
          .filter((k) => !(k in after))
          .sort(),
      );
      assert.equal(
        leaf(modified).sort(),
        Object.keys(after)
          .filter((k) => k in before && before[k] !== after[k])
          .sort(),
      );
    }),
  );
});

test('property: merging a configuration then removing its own fields gives back no more than the live object had', () => {
  fc.assert(
    // A non-empty config: an empty `labels: {}` would own (and so remove) the labels map itself.
    fc.property(
      labelMaps,
      labelMaps.filter((labels) => Object.keys(labels).length > 0),
      (live, config) => {
        const merged = mergeTyped(FS, { metadata: { labels: live } }, { metadata: { labels: config } }) as any;
        assert.equal(merged.metadata.labels, { ...live, ...config });
        const stripped = removeItems(FS, merged, toFieldSet(FS, { metadata: { labels: config } })) as any;
        const rest = Object.fromEntries(Object.entries(live).filter(([k]) => !(k in config)));
        assert.equal(stripped?.metadata?.labels ?? {}, rest);
      },
    ),
  );
});

test.run();
