// Patch amplification: small requests that ask for a lot of work or a large result. JSON patches that
// copy a growing subtree into itself or copy one large value many times, strategic merge patches
// over long merged lists (with delete directives and $setElementOrder), JSON patches inserting at
// the head of a long list, and merge patches that grow an object towards the store's limit.
// Properties:
//   - the answer is the one a model of the limits predicts: a copy past 3 MiB is kube's 422 with the
//     exact accumulated byte count; an object past the store limit is 413; anything else applies;
//   - a refused patch changes nothing, and no stored object is ever over the limit;
//   - the server answers (no 5xx, no hang) and is intact afterwards (harness.ts).
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import fc from 'fast-check';
import type { KubeObject } from '../../engine/resources/types.ts';
import { encodeObject } from '../../engine/store/codec.ts';
import { collectionPath } from '../support/api-requests.ts';
import { checkAsyncProperty } from '../support/runner.ts';
import { sized, startAdversary, type Adversary, type Request } from './harness.ts';

const COPY_LIMIT_BYTES = 3 * 1024 * 1024;
/** Small, so growing an object to it stays cheap in a brief run; the rule is the same at 1.5 MiB. */
const STORE_LIMIT_BYTES = 256 * 1024;
const PLC = collectionPath('PriorityLevelConfiguration');

let adversary: Adversary;
let serial = 0;

test.before(async () => {
  adversary = await startAdversary({ maxRequestBytes: STORE_LIMIT_BYTES });
});
test.after(async () => {
  await adversary?.close();
});

const plcBody = (name: string, extra: Record<string, unknown> = {}) =>
  JSON.stringify({ metadata: { name }, spec: { type: 'Limited', limited: { limitResponse: { type: 'Reject' } } }, ...extra });

async function freshObject(body: (name: string) => string = plcBody): Promise<string> {
  const name = `adv-amp-${++serial}`;
  const created = await adversary.send({ method: 'POST', path: PLC, headers: { 'Content-Type': 'application/json' }, body: body(name) });
  assert.is(created.status, 201, created.text.slice(0, 300));
  return name;
}

async function patch(name: string, contentType: string, body: string, subresource = ''): Promise<{ status: number; json: any; text: string }> {
  const request: Request = { method: 'PATCH', path: `${PLC}/${name}${subresource}`, headers: { 'Content-Type': contentType }, body };
  const response = await adversary.send(request);
  await adversary.assertAnswered(response, request);
  return { status: response.status, json: response.text === '' ? undefined : JSON.parse(response.text), text: response.text };
}

const copyLimitMessage = (accumulated: number) =>
  `Unable to complete the copy, the accumulated size increase of copy is ${accumulated}, exceeding the limit ${COPY_LIMIT_BYTES}`;

/**
 * The bytes each copy of `/x` into `/x/<i>` adds, as Go counts them: `/x` starts as `{"a":"<s>"}`
 * and each copy nests the whole of it under one more key. Undefined when no copy crosses the limit.
 */
function doublingCrossing(valueLength: number, copies: number): number | undefined {
  let size = `{"a":""}`.length + valueLength;
  let accumulated = 0;
  for (let i = 0; i < copies; i++) {
    accumulated += size;
    if (accumulated > COPY_LIMIT_BYTES) return accumulated;
    size = size + `,"${i}":`.length + size;
  }
  return undefined;
}

test('JSON patches that copy a growing subtree into itself: the 422 the copy limit predicts, nothing stored', async () => {
  await checkAsyncProperty(
    'adversarial: copy doubling',
    fc.asyncProperty(fc.integer({ min: 0, max: sized(2000, 100_000) }), fc.integer({ min: 1, max: 30 }), async (valueLength, copies) => {
      const name = await freshObject();
      const before = await adversary.send({ method: 'GET', path: `${PLC}/${name}` });
      const ops: unknown[] = [{ op: 'add', path: '/x', value: { a: 'x'.repeat(valueLength) } }];
      for (let i = 0; i < copies; i++) ops.push({ op: 'copy', from: '/x', path: `/x/${i}` });
      const answer = await patch(name, 'application/json-patch+json', JSON.stringify(ops));
      const crossing = doublingCrossing(valueLength, copies);
      if (crossing === undefined) {
        // `/x` is an unknown field: warned about and dropped, the object unchanged but for managedFields.
        assert.is(answer.status, 200, answer.text.slice(0, 300));
      } else {
        assert.equal([answer.status, answer.json.reason, answer.json.message], [422, 'Invalid', copyLimitMessage(crossing)]);
        assert.is((await adversary.send({ method: 'GET', path: `${PLC}/${name}` })).text, before.text);
      }
      await adversary.assertHealthy();
      await adversary.send({ method: 'DELETE', path: `${PLC}/${name}` });
    }),
    { runs: 6 },
  );
});

test('JSON patches that copy one large value many times: stopped at the copy that crosses 3 MiB', async () => {
  await checkAsyncProperty(
    'adversarial: many copies',
    fc.asyncProperty(fc.integer({ min: 1, max: sized(64 * 1024, 300 * 1024) }), fc.integer({ min: 1, max: 9_999 }), async (valueLength, copies) => {
      const name = await freshObject();
      const ops: unknown[] = [{ op: 'add', path: '/x', value: { big: 'v'.repeat(valueLength) } }];
      for (let i = 0; i < copies; i++) ops.push({ op: 'copy', from: '/x/big', path: `/x/c${i}` });
      const answer = await patch(name, 'application/json-patch+json', JSON.stringify(ops));
      const each = valueLength + 2;
      const crossingCopy = Math.floor(COPY_LIMIT_BYTES / each) + 1;
      if (copies >= crossingCopy) assert.equal([answer.status, answer.json.message], [422, copyLimitMessage(crossingCopy * each)]);
      else assert.is(answer.status, 200, answer.text.slice(0, 300));
      await adversary.assertHealthy();
      await adversary.send({ method: 'DELETE', path: `${PLC}/${name}` });
    }),
    { runs: 6 },
  );
});

test('strategic merge patches over long merged lists, and JSON patches inserting at the head of one, are answered', async () => {
  const sizeArb = fc.integer({ min: 1, max: sized(1500, 30_000) });
  await checkAsyncProperty(
    'adversarial: long merged lists',
    fc.asyncProperty(
      sizeArb,
      sizeArb,
      fc.constantFrom('conditions', 'finalizers', 'ownerReferences', 'insert-at-head'),
      fc.boolean(),
      fc.boolean(),
      async (stored, patched, list, deletes, ordered) => {
        const name = await freshObject();
        const path = `${PLC}/${name}`;
        const item = (i: number, prefix: string): unknown =>
          list === 'conditions'
            ? { type: `${prefix}${i}`, status: 'True' }
            : list === 'ownerReferences'
              ? { apiVersion: 'v1', kind: 'ConfigMap', name: `${prefix}${i}`, uid: `${prefix}-${i}` }
              : `example.com/${prefix}${i}`;
        const field = list === 'insert-at-head' ? 'finalizers' : list;
        const holder = field === 'conditions' ? 'status' : 'metadata';
        const subresource = field === 'conditions' ? '/status' : '';
        const seed = await patch(
          name,
          'application/merge-patch+json',
          JSON.stringify({ [holder]: { [field]: Array.from({ length: stored }, (_, i) => item(i, 's')) } }),
          subresource,
        );
        assert.ok([200, 413].includes(seed.status), seed.text.slice(0, 300));
        let answer: { status: number; text: string };
        if (list === 'insert-at-head') {
          const ops = Array.from({ length: Math.min(patched, 9_999) }, (_, i) => ({ op: 'add', path: '/metadata/finalizers/0', value: `example.com/p${i}` }));
          answer = await patch(name, 'application/json-patch+json', JSON.stringify(ops));
        } else {
          const items: unknown[] = Array.from({ length: patched }, (_, i) => item(i, 'p'));
          if (deletes) {
            const key = field === 'conditions' ? 'type' : 'uid';
            for (let i = 0; i < stored; i += 2)
              items.push(field === 'finalizers' ? undefined : { $patch: 'delete', [key]: field === 'conditions' ? `s${i}` : `s-${i}` });
          }
          const body: Record<string, unknown> = { [field]: items.filter((x) => x !== undefined) };
          if (deletes && field === 'finalizers')
            body['$deleteFromPrimitiveList/finalizers'] = Array.from({ length: stored }, (_, i) => item(i, 's')).filter((_, i) => i % 2 === 0);
          if (ordered && field !== 'finalizers')
            body[`$setElementOrder/${field}`] = [...items.filter((x): x is Record<string, unknown> => typeof x === 'object' && x !== null && !('$patch' in x))]
              .reverse()
              .map((x) => (field === 'conditions' ? { type: x['type'] } : { uid: x['uid'] }));
          answer = await patch(name, 'application/strategic-merge-patch+json', JSON.stringify({ [holder]: body }), subresource);
        }
        assert.ok(answer.status < 500, answer.text.slice(0, 300));
        const stored_ = await adversary.send({ method: 'GET', path });
        assert.is(stored_.status, 200);
        await adversary.assertHealthy();
        await adversary.send({ method: 'PATCH', path, body: '{"metadata":{"finalizers":null}}', headers: { 'Content-Type': 'application/merge-patch+json' } });
        await adversary.send({ method: 'DELETE', path });
      },
    ),
    { runs: 6 },
  );
});

test('merge patches growing one object: 413 at the limit, never a stored object past it', async () => {
  await checkAsyncProperty(
    'adversarial: growing object',
    fc.asyncProperty(fc.array(fc.integer({ min: 1, max: 400 }), { minLength: 1, maxLength: sized(6, 16) }), async (ruleCounts) => {
      const name = `adv-amp-fs-${++serial}`;
      const fsPath = collectionPath('FlowSchema');
      const created = await adversary.send({
        method: 'POST',
        path: fsPath,
        headers: { 'Content-Type': 'application/json' },
        body: JSON.stringify({ metadata: { name }, spec: { priorityLevelConfiguration: { name: 'global-default' }, matchingPrecedence: 9000 } }),
      });
      assert.is(created.status, 201, created.text);
      let rules: unknown[] = [];
      for (const [step, count] of ruleCounts.entries()) {
        const more = Array.from({ length: count }, (_, i) => ({
          subjects: [{ kind: 'User', user: { name: `u-${step}-${i}-${'n'.repeat(60)}` } }],
          nonResourceRules: [{ verbs: ['get'], nonResourceURLs: ['/healthz'] }],
        }));
        const before = await adversary.send({ method: 'GET', path: `${fsPath}/${name}` });
        const request: Request = {
          method: 'PATCH',
          path: `${fsPath}/${name}`,
          headers: { 'Content-Type': 'application/merge-patch+json' },
          body: JSON.stringify({ spec: { rules: [...rules, ...more] } }),
        };
        const answer = await adversary.send(request);
        await adversary.assertAnswered(answer, request);
        assert.ok([200, 413].includes(answer.status), answer.text.slice(0, 300));
        const after = await adversary.send({ method: 'GET', path: `${fsPath}/${name}` });
        if (answer.status === 413) {
          assert.equal(JSON.parse(answer.text).message, 'etcdserver: request is too large');
          assert.is(after.text, before.text, 'a refused patch changes nothing');
        } else {
          rules = [...rules, ...more];
        }
        const storedBytes = encodeObject(JSON.parse(after.text) as KubeObject).byteLength;
        assert.ok(storedBytes <= STORE_LIMIT_BYTES, `a stored object of ${storedBytes} bytes`);
      }
      await adversary.assertHealthy();
      await adversary.send({ method: 'DELETE', path: `${fsPath}/${name}` });
    }),
    { runs: 4 },
  );
});

test.run();
