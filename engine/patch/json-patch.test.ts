import { test } from 'uvu';
import * as assert from 'uvu/assert';
import fc from 'fast-check';
import jsonpatch from 'fast-json-patch';
import { errorCodeOf } from '../status/errors.ts';
import { alpha } from './fixtures.ts';
import { applyJsonPatch, JSON_PATCH_MAX_COPY_BYTES } from './json-patch.ts';

const apply = (document: unknown, ops: unknown, fieldValidation?: 'Ignore' | 'Warn' | 'Strict') =>
  applyJsonPatch(document, typeof ops === 'string' ? ops : JSON.stringify(ops), fieldValidation);

function value(result: ReturnType<typeof apply>): any {
  if ('status' in result) throw new Error(`unexpected status: ${result.status.message}`);
  return result.value;
}

function failure(result: ReturnType<typeof apply>) {
  if (!('status' in result)) throw new Error('expected a failure');
  return result.status;
}

test('kubectl patch --type=json from A.5 sets the shares and leaves the input alone', () => {
  const stored = alpha();
  const before = structuredClone(stored);
  const out = value(apply(stored, [{ op: 'replace', path: '/spec/limited/nominalConcurrencyShares', value: 11 }]));
  assert.is(out.spec.limited.nominalConcurrencyShares, 11);
  assert.equal(stored, before, 'the stored object is not mutated');
});

test('a failing test op is 422 Invalid with the library text and empty details', () => {
  const status = failure(apply(alpha(), [{ op: 'test', path: '/spec/type', value: 'Exempt' }]));
  assert.is(
    JSON.stringify(status),
    '{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"testing value /spec/type failed: test failed","reason":"Invalid",' +
      '"details":{},"code":422}',
  );
  assert.is(errorCodeOf(status), 'FW_ERR_PATCH_FAILED');
});

test('a value written 5e3 keeps that spelling through the operations (Go moves raw JSON), reported by path', () => {
  const result = apply(
    alpha(),
    '[{"op":"replace","path":"/spec/limited/nominalConcurrencyShares","value":5e3},' +
      '{"op":"add","path":"/spec/extra","value":{"n":[1.0e1,7],"m":2}},' +
      '{"op":"copy","from":"/spec/extra","path":"/spec/copied"},' +
      '{"op":"move","from":"/spec/extra/n","path":"/spec/moved"},' +
      '{"op":"test","path":"/spec/limited/nominalConcurrencyShares","value":5000},' +
      '{"op":"add","path":"/spec/limited/lendablePercent","value":1.5}]',
  );
  if ('status' in result) throw new Error(result.status.message);
  assert.equal([...result.numberLiterals].sort(), [
    ['spec.copied.n[0]', '1.0e1'],
    ['spec.limited.nominalConcurrencyShares', '5e3'],
    ['spec.moved[0]', '1.0e1'],
  ]);
  const out = result.value as any;
  assert.is(out.spec.limited.nominalConcurrencyShares, 5000);
  assert.equal(out.spec.moved, [10, 7]);
  assert.equal(out.spec.copied, { n: [10, 7], m: 2 });
  assert.is(out.spec.limited.lendablePercent, 1.5, 'a fraction JS prints as written needs no record');
  assert.is(value(apply(alpha(), [{ op: 'replace', path: '/spec/limited/nominalConcurrencyShares', value: 5 }])).spec.limited.nominalConcurrencyShares, 5);
});

/** The reported amplification: a 1,000-character value, then `copies` copies of the growing subtree into itself. */
function doublingPatch(copies: number): unknown[] {
  const ops: unknown[] = [{ op: 'add', path: '/x', value: { a: 'x'.repeat(1000) } }];
  for (let i = 0; i < copies; i++) ops.push({ op: 'copy', from: '/x', path: `/x/${i}` });
  return ops;
}

const COPY_LIMIT = /^Unable to complete the copy, the accumulated size increase of copy is (\d+), exceeding the limit 3145728$/;

test('copies are capped at 3 MiB per patch (JSONPatchMaxCopyBytes): a 2 KB doubling patch is a 422, not 4 GB', () => {
  const body = JSON.stringify(doublingPatch(22));
  assert.ok(body.length < 2048, `the reported payload is small (${body.length} bytes)`);
  const status = failure(apply(alpha(), body));
  assert.equal([status.code, status.reason, errorCodeOf(status)], [422, 'Invalid', 'FW_ERR_PATCH_FAILED']);
  const accumulated = Number(COPY_LIMIT.exec(status.message ?? '')?.[1]);
  // The copy that crossed the limit copied at most what was there before it.
  assert.ok(accumulated > JSON_PATCH_MAX_COPY_BYTES && accumulated <= 2 * JSON_PATCH_MAX_COPY_BYTES, status.message);
  // Under the cap the same patch applies: 11 doublings of the annotations copy 2 MiB.
  const fine = value(apply(alpha(), doublingPatch(11)));
  assert.is(Object.keys(fine.x).length, 12);
});

test('copies are counted as Go encodes them: HTML characters escaped, UTF-8 bytes', () => {
  const ops = (text: string, copies: number) => [
    { op: 'add', path: '/metadata/annotations', value: { a: text } },
    ...Array.from({ length: copies }, (_, i) => ({ op: 'copy', from: '/metadata/annotations/a', path: `/metadata/annotations/c${i}` })),
  ];
  // '<' is \u003c, 6 bytes, as Go writes it: 1 MiB of them in quotes is 6 MiB + 2, over the cap at once.
  assert.match(failure(apply(alpha(), ops('<'.repeat(1 << 20), 1))).message!, /increase of copy is 6291458, exceeding/);
  // 'é' is 2 UTF-8 bytes: 1 MiB and its quotes, twice, is under the cap; the third copy is over it.
  assert.ok(!('status' in apply(alpha(), ops('é'.repeat(1 << 19), 2))));
  assert.match(failure(apply(alpha(), ops('é'.repeat(1 << 19), 3))).message!, /increase of copy is 3145734, exceeding/);
});

test('many copies of one large value stop at the cap', () => {
  const big = 'v'.repeat(200 * 1024);
  const ops: unknown[] = [{ op: 'add', path: '/metadata/annotations', value: { big } }];
  for (let i = 0; i < 9_999; i++) ops.push({ op: 'copy', from: '/metadata/annotations/big', path: `/metadata/annotations/c${i}` });
  const status = failure(apply(alpha(), ops));
  // 200 KiB + 2 quotes per copy: the 16th crosses 3 MiB.
  assert.is(status.message, `Unable to complete the copy, the accumulated size increase of copy is ${16 * (200 * 1024 + 2)}, exceeding the limit 3145728`);
});

test("kubectl's migration patch replaces managedFields and resourceVersion together", () => {
  const stored = alpha();
  const entries = [
    { manager: 'kubectl', operation: 'Apply', apiVersion: 'flowcontrol.apiserver.k8s.io/v1', fieldsType: 'FieldsV1', fieldsV1: { 'f:spec': { 'f:type': {} } } },
  ];
  const out = value(
    apply(stored, [
      { op: 'replace', path: '/metadata/managedFields', value: entries },
      { op: 'replace', path: '/metadata/resourceVersion', value: '108' },
    ]),
  );
  assert.equal(out.metadata.managedFields, entries);
  assert.is(out.metadata.resourceVersion, '108', 'kept for the caller to use as a precondition');
});

test('v4 quirks: replace of a missing key in an existing object sets it; a missing parent fails', () => {
  assert.equal(value(apply({ metadata: {} }, [{ op: 'replace', path: '/metadata/labels', value: { x: 'y' } }])).metadata.labels, { x: 'y' });
  assert.is(
    failure(apply({ metadata: {} }, [{ op: 'replace', path: '/metadata/labels/x', value: 'y' }])).message,
    'replace operation does not apply: doc is missing path: /metadata/labels/x: missing value',
  );
  assert.is(
    failure(apply({ a: [1] }, [{ op: 'replace', path: '/a/3', value: 2 }])).message,
    'replace operation does not apply: doc is missing key: /a/3: missing value',
  );
});

test('test ops: null matches a missing member; arrays compare deeply; the root compares the document', () => {
  const doc = { spec: { rules: [{ verbs: ['get'] }] } };
  assert.ok('value' in apply(doc, [{ op: 'test', path: '/spec/missing', value: null }]));
  assert.ok('value' in apply(doc, [{ op: 'test', path: '/spec/rules', value: [{ verbs: ['get'] }] }]));
  assert.ok('status' in apply(doc, [{ op: 'test', path: '/spec/rules', value: [{ verbs: ['list'] }] }]));
  assert.ok('value' in apply(doc, [{ op: 'test', path: '', value: doc }]));
  assert.is(failure(apply(doc, [{ op: 'test', path: '/nope/x', value: 1 }])).message, 'test operation does not apply: is missing path: /nope/x: missing value');
});

test('array indexes: "-" appends, negatives count from the end, out of range fails with Go text', () => {
  const doc = { list: ['a', 'b', 'c'] };
  assert.equal(value(apply(doc, [{ op: 'add', path: '/list/-', value: 'd' }])).list, ['a', 'b', 'c', 'd']);
  assert.equal(value(apply(doc, [{ op: 'add', path: '/list/0', value: 'z' }])).list, ['z', 'a', 'b', 'c']);
  assert.equal(value(apply(doc, [{ op: 'remove', path: '/list/-1' }])).list, ['a', 'b']);
  assert.is(
    failure(apply(doc, [{ op: 'add', path: '/list/9', value: 'x' }])).message,
    "error in add for path: '/list/9': Unable to access invalid index: 9: invalid index referenced",
  );
  assert.is(failure(apply(doc, [{ op: 'remove', path: '/list/x' }])).message, `error in remove for path: '/list/x': strconv.Atoi: parsing "x": invalid syntax`);
});

test('remove of a missing key, move and copy, escaped tokens', () => {
  assert.is(
    failure(apply({ a: {} }, [{ op: 'remove', path: '/a/b' }])).message,
    "error in remove for path: '/a/b': Unable to remove nonexistent key: b: missing value",
  );
  assert.is(failure(apply({}, [{ op: 'add', path: '/a/b', value: 1 }])).message, 'add operation does not apply: doc is missing path: "/a/b": missing value');
  assert.equal(value(apply({ a: { x: 1 }, b: {} }, [{ op: 'move', from: '/a/x', path: '/b/y' }])), { a: {}, b: { y: 1 } });
  assert.equal(value(apply({ a: { x: [1] } }, [{ op: 'copy', from: '/a/x', path: '/a/y' }])), { a: { x: [1], y: [1] } });
  assert.equal(value(apply({ 'a/b': { '~': 1 } }, [{ op: 'replace', path: '/a~1b/~0', value: 2 }])), { 'a/b': { '~': 2 } });
  const labels = value(apply({ labels: {} }, [{ op: 'add', path: '/labels/__proto__', value: 'x' }])).labels;
  assert.ok(Object.hasOwn(labels, '__proto__'), 'a __proto__ key is an ordinary member');
});

test('unknown ops and missing paths fail the way evanphx/json-patch says', () => {
  assert.is(failure(apply({}, [{ op: 'frobnicate', path: '/a' }])).message, 'Unexpected kind: frobnicate');
  assert.is(failure(apply({}, [{ path: '/a' }])).message, 'Unexpected kind: unknown');
  assert.is(failure(apply({}, [{ op: 'replace', value: 1 }])).message, 'replace operation failed to decode path: operation missing path field: missing value');
  assert.is(failure(apply({}, [{ op: 'move', path: '/a' }])).message, 'move operation failed to decode from: operation missing from field: missing value');
});

test('malformed patches are 400 BadRequest with Go decoder text; too many operations is 413', () => {
  const syntax = failure(apply({}, '[{"op": "add",]'));
  assert.equal(
    [syntax.code, syntax.reason, syntax.message],
    [400, 'BadRequest', `error decoding patch: invalid character ']' looking for beginning of object key string`],
  );
  assert.is(failure(apply({}, '{"op":"add"}')).message, 'error decoding patch: json: cannot unmarshal object into Go value of type []handlers.jsonPatchOp');
  assert.is(failure(apply({}, '{"op":"add"}', 'Ignore')).message, 'json: cannot unmarshal object into Go value of type jsonpatch.Patch');
  assert.is(
    failure(apply({}, [{ op: 'add', path: 5 }])).message,
    'error decoding patch: json: cannot unmarshal number into Go struct field jsonPatchOp.path of type string',
  );
  const many = Array.from({ length: 10001 }, () => ({ op: 'test', path: '/a', value: null }));
  const tooLarge = failure(apply({}, many));
  assert.equal([tooLarge.code, tooLarge.reason], [413, 'RequestEntityTooLarge']);
  assert.equal(value(apply({ a: 1 }, 'null')), { a: 1 }, 'a null patch has no operations');
});

test('a failed operation leaves nothing applied', () => {
  const stored = { a: 1 };
  const result = apply(stored, [
    { op: 'replace', path: '/a', value: 2 },
    { op: 'test', path: '/a', value: 3 },
  ]);
  assert.ok('status' in result);
  assert.equal(stored, { a: 1 });
});

// ---------------------------------------------------------------------------------------------
// Property: where RFC 6902 and evanphx v4 agree (valid patches on existing paths), the result is
// the one fast-json-patch (an independent RFC implementation) computes.

const leaf = fc.oneof(fc.integer({ min: -5, max: 5 }), fc.constantFrom('x', 'y', true, null));
const doc = fc.dictionary(fc.constantFrom('a', 'b', 'c'), fc.oneof(leaf, fc.array(leaf, { maxLength: 3 }), fc.dictionary(fc.constantFrom('p', 'q'), leaf)), {
  minKeys: 1,
});

function validOps(document: Record<string, unknown>, picks: number[]): unknown[] {
  const ops: unknown[] = [];
  const keys = Object.keys(document);
  picks.forEach((pick, i) => {
    const key = keys[pick % keys.length]!;
    switch (pick % 4) {
      case 0:
        ops.push({ op: 'add', path: `/new${i}`, value: pick });
        break;
      case 1:
        ops.push({ op: 'copy', from: `/${key}`, path: `/copy${i}` });
        break;
      case 2:
        ops.push({ op: 'test', path: `/${key}`, value: document[key] });
        break;
      default:
        ops.push({ op: 'replace', path: `/${key}`, value: [pick] });
    }
  });
  return ops;
}

test('property: agrees with fast-json-patch on valid add/copy/test/replace sequences', () => {
  fc.assert(
    fc.property(doc, fc.array(fc.nat(50), { maxLength: 6 }), (generated, picks) => {
      const document = JSON.parse(JSON.stringify(generated)) as Record<string, unknown>; // plain prototypes, as JSON gives
      const ops = validOps(document, picks);
      // Only the first op's test is against the original; later ones may see replaced values.
      const oracle = (() => {
        try {
          return { value: jsonpatch.applyPatch(structuredClone(document), ops as jsonpatch.Operation[], true, false).newDocument };
        } catch {
          return { failed: true };
        }
      })();
      const ours = apply(document, ops);
      if ('failed' in oracle) assert.ok('status' in ours);
      else assert.equal(value(ours), oracle.value);
    }),
  );
});

test.run();
