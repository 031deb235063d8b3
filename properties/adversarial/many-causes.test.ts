// Many causes: objects with thousands (in long runs, 150,000) of field errors, as lists of bad
// items of every kind validation reports one by one (empty rules, bad non-resource URLs, bad label
// keys, bad finalizers, owner references without kind or name, empty conditions), through every
// way a body reaches validation: JSON and protobuf creates, server-side apply, a strategic merge
// patch of a stored object, and a /status PUT. Properties:
//   - the answer is kube's 422 Invalid, never a 500 (the old code's spread pushes overflowed the
//     stack at ~125,000 errors) and never a Status of megabytes (150,000 empty conditions were 52 MB);
//   - its causes hold at most MAX_FIELD_ERRORS_TEXT characters, the message lists the same errors
//     and says exactly how many it left out (the count of errors is the object's);
//   - nothing is stored, and the server is intact afterwards (harness.ts).
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import fc from 'fast-check';
import { MAX_FIELD_ERRORS_TEXT } from '../../engine/resources/field-errors.ts';
import { encodeObject } from '../../engine/protobuf/objects.ts';
import type { TestResponse } from '../../api/testing/http-client.ts';
import { collectionPath } from '../support/api-requests.ts';
import { checkAsyncProperty } from '../support/runner.ts';
import { sized, startAdversary, type Adversary } from './harness.ts';

const GROUP = 'flowcontrol.apiserver.k8s.io';
const FS = collectionPath('FlowSchema');
const PLC = collectionPath('PriorityLevelConfiguration');
const MAX_STATUS_BYTES = 2 * MAX_FIELD_ERRORS_TEXT + 8 * 1024;
const PROTOBUF = 'application/vnd.kubernetes.protobuf';

let adversary: Adversary;
let serial = 0;

test.before(async () => {
  // The store's limit is etcd's; the request limit (3 MiB) is what bounds a list.
  adversary = await startAdversary();
});
test.after(async () => {
  await adversary?.close();
});

const GOOD_RULE = { subjects: [{ kind: 'Group', group: { name: 'g' } }], nonResourceRules: [{ verbs: ['get'], nonResourceURLs: ['/x'] }] };

type Explosion = 'rules' | 'urls' | 'labels' | 'finalizers' | 'ownerReferences';

/** A FlowSchema's metadata and rules with `n` bad items, and the number of errors they make. */
function explode(explosion: Explosion, n: number): { metadata: Record<string, unknown>; rules: unknown[]; errors: number } {
  const items = <T>(make: (i: number) => T): T[] => Array.from({ length: n }, (_, i) => make(i));
  switch (explosion) {
    case 'rules': // no subjects (F7), no rules (F8)
      return { metadata: {}, rules: items(() => ({})), errors: 2 * n };
    case 'urls': // must start with slash
      return { metadata: {}, rules: [{ ...GOOD_RULE, nonResourceRules: [{ verbs: ['get'], nonResourceURLs: items((i) => `x${i}`) }] }], errors: n };
    case 'labels': // not a qualified name
      return { metadata: { labels: Object.fromEntries(items((i) => [`-bad${i}`, 'v'])) }, rules: [GOOD_RULE], errors: n };
    case 'finalizers': // on the list and on the item
      return { metadata: { finalizers: items((i) => `-bad${i}`) }, rules: [GOOD_RULE], errors: 2 * n };
    case 'ownerReferences': // no apiVersion, kind or name
      return { metadata: { ownerReferences: items((i) => ({ uid: `u${i}` })) }, rules: [GOOD_RULE], errors: 3 * n };
  }
}

const schema = (name: string, metadata: Record<string, unknown>, rules: unknown[]) => ({
  apiVersion: `${GROUP}/v1`,
  kind: 'FlowSchema',
  metadata: { name, ...metadata },
  spec: { matchingPrecedence: 500, priorityLevelConfiguration: { name: 'global-default' }, rules },
});

async function request(method: string, path: string, body: string | Buffer, contentType: string): Promise<TestResponse> {
  const response = await adversary.server.client.request(method, path, { body, headers: { 'Content-Type': contentType } });
  await adversary.assertAnswered({ ...response, streamed: false }, { method, path, headers: { 'Content-Type': contentType } });
  return response;
}

function assertCapped(response: TestResponse, kind: string, name: string, total: number): void {
  assert.is(response.status, 422, response.text.slice(0, 300));
  assert.ok(response.bytes.length <= MAX_STATUS_BYTES, `a Status of ${response.bytes.length} bytes`);
  const status = response.json();
  assert.equal([status.reason, status.details.kind, status.details.name], ['Invalid', kind, name]);
  const causes: { field: string; message: string }[] = status.details.causes;
  const text = causes.reduce((sum, c) => sum + c.field.length + 2 + c.message.length, 0);
  assert.ok(causes.length > 0 && text <= MAX_FIELD_ERRORS_TEXT, `${causes.length} causes, ${text} characters`);
  const left = total - causes.length;
  // With nothing left out the message is kube's own (identical errors, such as a label checked twice, read once).
  if (left === 0) assert.not.match(status.message, / more errors?]$/);
  else assert.ok(status.message.endsWith(`, and ${left} more error${left === 1 ? '' : 's'}]`), `${total} errors: …${status.message.slice(-120)}`);
}

const countArb = fc.integer({ min: 1, max: sized(2_000, 150_000) });

test('a FlowSchema with many bad items, by JSON, protobuf, apply or strategic merge: a bounded 422, nothing stored', async () => {
  await checkAsyncProperty(
    'adversarial: many causes',
    fc.asyncProperty(
      fc.constantFrom<Explosion>('rules', 'urls', 'labels', 'finalizers', 'ownerReferences'),
      fc.constantFrom('json', 'protobuf', 'apply', 'strategic'),
      countArb,
      async (explosion, encoding, n) => {
        const name = `adv-causes-${++serial}`;
        const { metadata, rules, errors } = explode(explosion, n);
        const object = schema(name, metadata, rules);
        let response: TestResponse;
        if (encoding === 'json') response = await request('POST', FS, JSON.stringify(object), 'application/json');
        else if (encoding === 'protobuf') response = await request('POST', FS, encodeObject(object), PROTOBUF);
        else if (encoding === 'apply')
          response = await request('PATCH', `${FS}/${name}?fieldManager=adversary`, JSON.stringify(object), 'application/apply-patch+yaml');
        else {
          const good = schema(name, {}, [GOOD_RULE]);
          assert.is((await request('POST', FS, JSON.stringify(good), 'application/json')).status, 201);
          const patch = explosion === 'rules' || explosion === 'urls' ? { spec: { rules } } : { metadata };
          response = await request('PATCH', `${FS}/${name}`, JSON.stringify(patch), 'application/strategic-merge-patch+json');
        }
        // An update checks labels and owner references twice, by the ObjectMeta update rules and the create rules (as kube does).
        const twice = encoding === 'strategic' && (explosion === 'labels' || explosion === 'ownerReferences');
        assertCapped(response, 'FlowSchema', name, twice ? 2 * errors : errors);
        const stored = await adversary.send({ method: 'GET', path: `${FS}/${name}` });
        if (encoding === 'strategic') {
          assert.is(stored.status, 200);
          await adversary.send({ method: 'DELETE', path: `${FS}/${name}` });
        } else assert.is(stored.status, 404, 'nothing stored');
        await adversary.assertHealthy();
      },
    ),
    { runs: 8 },
  );
});

test('a /status PUT of many empty conditions, in JSON or protobuf: a bounded 422', async () => {
  const name = 'adv-causes-status';
  const level = {
    apiVersion: `${GROUP}/v1`,
    kind: 'PriorityLevelConfiguration',
    metadata: { name },
    spec: { type: 'Limited', limited: { limitResponse: { type: 'Reject' } } },
  };
  const created = await request('POST', PLC, JSON.stringify(level), 'application/json');
  assert.is(created.status, 201);
  await checkAsyncProperty(
    'adversarial: many empty conditions',
    fc.asyncProperty(fc.constantFrom('json', 'protobuf'), countArb, async (encoding, n) => {
      const object = { ...created.json(), status: { conditions: Array.from({ length: n }, () => ({})) } };
      const body = encoding === 'json' ? JSON.stringify(object) : encodeObject(object);
      const response = await request('PUT', `${PLC}/${name}/status`, body, encoding === 'json' ? 'application/json' : PROTOBUF);
      // Each lacks a type, and each after the first repeats the empty one.
      assertCapped(response, 'PriorityLevelConfiguration', name, 2 * n - 1);
      await adversary.assertHealthy();
    }),
    { runs: 4 },
  );
});

test.run();
