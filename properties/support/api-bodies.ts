// Request bodies for the API fuzz: objects (valid, in JSON and in YAML 1.1; one rule broken), the
// four patch types with good and malformed patches, broken JSON and YAML, deep nesting, and
// DeleteOptions of the wrong shape.

import fc from 'fast-check';
import { stringify as yamlStringify } from 'yaml';
import type { FlowcontrolKind } from '../../engine/resources/types.ts';
import { FUZZ_LABEL, invalidObject, validObject } from './api-objects.ts';

export interface Body {
  contentType: string;
  body: string;
}

/** YAML that means the same under YAML 1.1, as the server (like sigs.k8s.io/yaml) reads it: `yes` quoted. */
const yaml11 = (value: unknown) => yamlStringify(value, { version: '1.1' });

const nest = (depth: number, open: string, close: string, inner = '1') => open.repeat(depth) + inner + close.repeat(depth);

const MALFORMED = [
  '{"metadata":',
  '[1,2',
  'null',
  '"str"',
  '123',
  'true',
  '{}',
  '',
  '   ',
  '{"apiVersion":"v1","kind":"Pod","metadata":{"name":"fz-a"}}',
  '{"apiVersion":"flowcontrol.apiserver.k8s.io/v2","kind":"FlowSchema"}',
  '{"apiVersion":5,"kind":["x"]}',
  '{"metadata":{"name":"fz-a"},"metadata":{"name":"fz-b"}}',
  '{"metadata":{"name":"fz-a","labels":{"a":1}}}',
  '\u0000\u0001\u0002',
  '\uFEFF{"metadata":{"name":"fz-a"}}',
];
const MALFORMED_YAML = [
  'metadata: [unclosed',
  ': : :',
  '\tkind: FlowSchema',
  'metadata: *undefined_alias',
  'a: &x [*x]',
  `a: &a [x,x,x,x,x,x,x,x,x,x]\n${Array.from(
    { length: 8 },
    (_, i) =>
      `${String.fromCharCode(98 + i)}: &${String.fromCharCode(98 + i)} [${Array(10)
        .fill(`*${String.fromCharCode(97 + i)}`)
        .join(',')}]`,
  ).join('\n')}`,
  '---\nkind: FlowSchema\n---\nkind: PriorityLevelConfiguration\n',
  '%YAML 9.9\n---\na: 1',
  'metadata:\n  name: fz-a\n  name: fz-b\n',
  '!!binary aGVsbG8=',
  'spec: !!python/object:os.system ls',
  'kind: PriorityLevelConfiguration\nmetadata: {name: fz-a}\nspec: {type: Limited, limited: {nominalConcurrencyShares: .inf}}',
];

const deep = fc
  .constantFrom(100, 2_000, 20_000)
  .chain((depth) =>
    fc.constantFrom(
      `{"apiVersion":"flowcontrol.apiserver.k8s.io/v1","metadata":{"name":"fz-deep"},"spec":${nest(depth, '{"a":', '}')}}`,
      `{"metadata":{"name":"fz-deep","annotations":${nest(depth, '[', ']')}}}`,
      `{"metadata":{"name":"fz-deep"},"spec":{"limited":${nest(depth, '[', ']')}}}`,
      nest(depth, '[', ']'),
      `metadata: {name: fz-deep}\nspec: ${nest(depth, '[', ']')}`,
      `[{"op":"add","path":"/metadata/annotations","value":${nest(depth, '{"a":', '}')}}]`,
    ),
  );

export const PATCH_TYPES = [
  'application/json-patch+json',
  'application/merge-patch+json',
  'application/strategic-merge-patch+json',
  'application/apply-patch+yaml',
];

const JSON_PATCHES: unknown[] = [
  [{ op: 'add', path: '/metadata/labels/x', value: 'y' }],
  [{ op: 'replace', path: '/spec/limited/nominalConcurrencyShares', value: 7 }],
  [{ op: 'replace', path: '/spec/matchingPrecedence', value: 0 }],
  [{ op: 'test', path: '/metadata/name', value: 'nope' }],
  [{ op: 'remove', path: '/spec' }],
  [{ op: 'remove', path: '/metadata' }],
  [{ op: 'move', from: '/nope', path: '/x' }],
  [{ op: 'copy', from: '/metadata/name', path: '/metadata/labels/n' }],
  [{ op: 'bogus' }],
  [{ op: 'add', path: 'no-slash', value: 1 }],
  [{ op: 'add', path: '/spec/rules/99', value: {} }],
  [{ op: 'add', path: '/spec/rules/-', value: { subjects: [] } }],
  [{ op: 'replace', path: '/metadata/name', value: 'other' }],
  [{ op: 'add', path: '/metadata/resourceVersion', value: '1' }],
  [{ op: 'add', path: '/a/b/c/d', value: 1 }],
  [{ op: 'add', path: '/metadata/labels/~1bad~2', value: 'x' }],
  [{ op: 'replace', path: '/kind', value: 'Pod' }],
  [{ op: 'add', path: '/spec/limited/limitResponse', value: { type: 'Queue', queuing: { queues: 0 } } }],
  [],
  { op: 'add', path: '/x', value: 1 },
  Array.from({ length: 10_001 }, () => ({ op: 'test', path: '/kind', value: 'x' })),
];
const MERGE_PATCHES: unknown[] = [
  { metadata: { labels: { x: 'y' } } },
  { metadata: { labels: { [FUZZ_LABEL.key]: null } } },
  { spec: null },
  { spec: { limited: { nominalConcurrencyShares: 'x' } } },
  { spec: { limited: { lendablePercent: 200 } } },
  { spec: { type: 'Exempt' } },
  { spec: { matchingPrecedence: 3, rules: null } },
  { metadata: { name: 'other' } },
  { metadata: { resourceVersion: '1' } },
  { metadata: { finalizers: ['example.com/hold'] } },
  { metadata: { uid: 'changed' } },
  { kind: 'Pod' },
  { apiVersion: 'v1' },
  { status: { conditions: [{ type: 'Dangling', status: 'True' }] } },
  { status: { conditions: 'no' } },
  [1],
  null,
  'str',
];
const STRATEGIC_PATCHES: unknown[] = [
  { metadata: { labels: { x: null } } },
  { spec: { rules: [{ $patch: 'delete' }] } },
  { $patch: 'replace' },
  { $patch: 'delete' },
  { $patch: 'bogus' },
  { spec: { $retainKeys: ['type'] } },
  { spec: { $retainKeys: 'type' } },
  { metadata: { '$setElementOrder/finalizers': ['a', 'b'], finalizers: ['b'] } },
  { metadata: { finalizers: ['a', { $patch: 'bogus' }] } },
  { spec: { $patch: 'merge' } },
  { metadata: { $deleteFromPrimitiveList: { finalizers: ['x'] } } },
  { spec: { limited: { limitResponse: { $patch: 'delete' } } } },
];

function applyBody(kind: FlowcontrolKind, name: string): fc.Arbitrary<string> {
  return fc.tuple(validObject(kind, name), fc.boolean()).map(([object, asJson]) => (asJson ? JSON.stringify(object) : yaml11(object)));
}

export function patchBody(kind: FlowcontrolKind, name: string): fc.Arbitrary<Body> {
  return fc.oneof(
    fc.constantFrom(...JSON_PATCHES).map((p) => ({ contentType: PATCH_TYPES[0]!, body: JSON.stringify(p) })),
    fc.constantFrom(...MERGE_PATCHES).map((p) => ({ contentType: PATCH_TYPES[1]!, body: JSON.stringify(p) })),
    fc.constantFrom(...STRATEGIC_PATCHES).map((p) => ({ contentType: PATCH_TYPES[2]!, body: JSON.stringify(p) })),
    applyBody(kind, name).map((body) => ({ contentType: PATCH_TYPES[3]!, body })),
    // A patch of one type sent as another, or a broken one.
    fc
      .tuple(
        fc.constantFrom(...PATCH_TYPES),
        fc.oneof(
          fc.constantFrom(...MALFORMED, ...MALFORMED_YAML),
          fc.constantFrom(...JSON_PATCHES, ...MERGE_PATCHES).map((p) => JSON.stringify(p)),
        ),
      )
      .map(([contentType, body]) => ({ contentType, body })),
  );
}

export function objectBody(kind: FlowcontrolKind, name: string): fc.Arbitrary<Body> {
  return fc.oneof(
    { weight: 3, arbitrary: validObject(kind, name).map((o) => ({ contentType: 'application/json', body: JSON.stringify(o) })) },
    { weight: 1, arbitrary: validObject(kind, name).map((o) => ({ contentType: 'application/yaml', body: yaml11(o) })) },
    { weight: 3, arbitrary: invalidObject(kind, name).map(({ object }) => ({ contentType: 'application/json', body: JSON.stringify(object) })) },
    { weight: 2, arbitrary: fc.constantFrom(...MALFORMED).map((body) => ({ contentType: 'application/json', body })) },
    { weight: 2, arbitrary: fc.constantFrom(...MALFORMED_YAML).map((body) => ({ contentType: 'application/yaml', body })) },
    { weight: 1, arbitrary: deep.map((body) => ({ contentType: body.startsWith('metadata') ? 'application/yaml' : 'application/json', body })) },
    {
      weight: 1,
      arbitrary: fc
        .constantFrom(
          '{"propagationPolicy":5}',
          '{"preconditions":"x"}',
          '{"preconditions":{"uid":"nope"}}',
          '{"gracePeriodSeconds":1.5}',
          '{"dryRun":"All"}',
          '{"dryRun":["All"],"propagationPolicy":"Orphan","orphanDependents":true}',
          '[]',
        )
        .map((body) => ({ contentType: 'application/json', body })),
    },
  );
}
