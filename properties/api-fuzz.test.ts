// The API server under random input, in-process over loopback HTTP with the
// memory store, APF on. Properties:
// - any request (support/api-requests.ts: methods, paths, query strings, headers, bodies and
//   patches, valid and not) gets no 5xx, and every error is a Status with a reason (APF's 429 is
//   plain text with Retry-After);
// - a valid PLC or FlowSchema (generated on the real types) is created, and GET returns exactly
//   what the create returned: its labels, annotations and every spec field it was given, defaults
//   added, passing the server's own validation;
// - the same objects with one rule broken are refused with the documented 400 or 422 Status;
// - a random patch of any of the four types on an existing object never fails the server, and
//   when it succeeds GET returns what the patch returned;
// and at the end the server still answers /healthz, /readyz and a list.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import fc from 'fast-check';
import { validateFlowSchema } from '../engine/resources/flow-schema-validation.ts';
import { validatePriorityLevelConfiguration } from '../engine/resources/priority-level-validation.ts';
import type { FlowSchema, KubeObject, PriorityLevelConfiguration } from '../engine/resources/types.ts';
import { startInProcessServer, type InProcessServer } from '../api/integration/testing/in-process.ts';
import { checkAsyncProperty } from './support/runner.ts';
import type { FlowcontrolKind } from '../engine/resources/types.ts';
import { mutationsFor, validObject } from './support/api-objects.ts';
import { collectionPath, describeRequest, fuzzRequest, FUZZ_NAMES, patchRequest, type FuzzRequest } from './support/api-requests.ts';
import { trapCrashes } from './support/crash-trap.ts';
import { assertWellFormed, send, type FuzzResponse } from './support/fuzz-client.ts';

let server: InProcessServer;

const crashes = trapCrashes();
const assertServerUp = (): Promise<void> => crashes.assertNone();

test.before(async () => {
  server = await startInProcessServer();
  await server.ready();
  // Objects for the fuzz's PUTs, PATCHes and DELETEs to find (it creates and deletes more itself).
  for (const kind of ['PriorityLevelConfiguration', 'FlowSchema'] as const) {
    for (const [i, name] of FUZZ_NAMES.entries()) {
      const [object] = fc.sample(validObject(kind, name), { seed: i, numRuns: 1 });
      assert.is((await request({ method: 'POST', path: collectionPath(kind), ...json(object) })).status, 201);
    }
  }
});
test.after(async () => {
  await server.close();
  crashes.release();
});

const request = (r: Pick<FuzzRequest, 'method' | 'path'> & Partial<FuzzRequest>): Promise<FuzzResponse> =>
  send(server.baseUrl, server.token, { query: [], headers: {}, authorized: true, body: undefined, ...r });

const json = (body: unknown) => ({ body: JSON.stringify(body), headers: { 'Content-Type': 'application/json' } });

const kindArb = fc.constantFrom<FlowcontrolKind>('PriorityLevelConfiguration', 'FlowSchema');
let serial = 0;

/** The object minus what a status write changes: status, resourceVersion, managedFields. */
function withoutStatus(object: KubeObject | undefined): unknown {
  if (object === undefined) return undefined;
  const { status: _status, metadata = {}, ...rest } = object;
  const { resourceVersion: _rv, managedFields: _mf, ...meta } = metadata;
  return { ...rest, metadata: meta };
}

/** `given` with every key it sets (recursively, arrays element by element) equal in `actual`. */
function assertContains(actual: unknown, given: unknown, path: string): void {
  if (given !== null && typeof given === 'object') {
    assert.ok(actual !== null && typeof actual === 'object', `${path}: expected an object, got ${JSON.stringify(actual)}`);
    if (Array.isArray(given)) assert.is((actual as unknown[]).length, given.length, `${path}: length`);
    for (const [key, value] of Object.entries(given)) assertContains((actual as Record<string, unknown>)[key], value, `${path}.${key}`);
    return;
  }
  assert.is(actual, given, path);
}

test('any request: no 5xx, every error a Status with a reason', async () => {
  await checkAsyncProperty(
    'api-fuzz: no 5xx, errors are Statuses',
    fc.asyncProperty(fuzzRequest, async (r) => {
      const response = await send(server.baseUrl, server.token, r);
      try {
        await assertServerUp();
        assertWellFormed(response, r);
      } catch (error) {
        (error as Error).message = `${(error as Error).message}\n    request: ${describeRequest(r)}`;
        throw error;
      }
    }),
    { runs: 400 },
  );
});

test('valid objects round-trip through create and GET', async () => {
  await checkAsyncProperty(
    'api-fuzz: valid objects round-trip',
    fc.asyncProperty(
      kindArb.chain((kind) => validObject(kind, `fz-rt-${serial}`).map((object) => ({ kind, object }))),
      async ({ kind, object }) => {
        const name = `fz-rt-${++serial}`;
        const given = { ...object, metadata: { ...object.metadata, name } };
        // The generator's own claim, checked with the server's validator: these objects are valid.
        const generatorErrors =
          kind === 'FlowSchema' ? validateFlowSchema(given as FlowSchema) : validatePriorityLevelConfiguration(given as PriorityLevelConfiguration);
        assert.equal(generatorErrors, [], 'generator produced an invalid object');
        const created = await request({ method: 'POST', path: collectionPath(kind), ...json(given) });
        await assertServerUp();
        assert.is(created.status, 201, created.text);
        const stored = await request({ method: 'GET', path: `${collectionPath(kind)}/${name}` });
        assert.is(stored.status, 200, stored.text);
        const back = stored.text === '' ? undefined : (JSON.parse(stored.text) as KubeObject);
        // The controller may have written the status meanwhile (a FlowSchema's Dangling condition).
        assert.equal(withoutStatus(back), withoutStatus(JSON.parse(created.text)), 'GET returns what the create returned');
        assertContains(back?.spec, given.spec, 'spec');
        assert.equal(back?.metadata?.labels, given.metadata.labels, 'labels');
        assert.equal(back?.metadata?.annotations, given.metadata.annotations, 'annotations');
        const serverErrors =
          kind === 'FlowSchema' ? validateFlowSchema(back as FlowSchema) : validatePriorityLevelConfiguration(back as PriorityLevelConfiguration);
        assert.equal(serverErrors, [], 'the stored object passes validation');
        assert.is((await request({ method: 'DELETE', path: `${collectionPath(kind)}/${name}` })).status, 200);
      },
    ),
    { runs: 40 },
  );
});

test('objects with one rule broken are refused with 400 or 422', async () => {
  await checkAsyncProperty(
    'api-fuzz: invalid objects refused',
    fc.asyncProperty(
      kindArb.chain((kind) =>
        fc.tuple(validObject(kind, 'fz-invalid'), fc.constantFrom(...mutationsFor(kind))).map(([valid, mutation]) => ({ kind, valid, mutation })),
      ),
      async ({ kind, valid, mutation }) => {
        // A fresh name per run, so that one wrongly accepted object cannot explain later failures.
        const name = `fz-invalid-${++serial}`;
        const body = structuredClone({ ...valid, metadata: { ...valid.metadata, name } }) as Record<string, any>;
        mutation.apply(body);
        const response = await request({ method: 'POST', path: collectionPath(kind), ...json(body) });
        if (response.status === 201) await request({ method: 'DELETE', path: `${collectionPath(kind)}/${name}` });
        await assertServerUp();
        assertWellFormed(response, { method: 'POST', headers: {} });
        assert.is(response.status, mutation.status, `${mutation.label}: ${response.text}`);
        assert.is(JSON.parse(response.text).reason, mutation.status === 422 ? 'Invalid' : 'BadRequest', mutation.label);
      },
    ),
    { runs: 60 },
  );
});

test('a patch of any type on an existing object: never a 5xx; a success is what GET returns', async () => {
  await checkAsyncProperty(
    'api-fuzz: patches',
    fc.asyncProperty(
      kindArb.chain((kind) => fc.tuple(validObject(kind, 'fz-patch'), patchRequest(kind, 'fz-patch')).map(([object, patch]) => ({ kind, object, patch }))),
      async ({ kind, object, patch }) => {
        const path = `${collectionPath(kind)}/fz-patch`;
        // Start from `object` alone: earlier runs may have left finalizers that hold a delete.
        await request({ method: 'PATCH', path, body: '{"metadata":{"finalizers":null}}', headers: { 'Content-Type': 'application/merge-patch+json' } });
        await request({ method: 'DELETE', path });
        const created = await request({ method: 'POST', path: collectionPath(kind), ...json(object) });
        assert.is(created.status, 201, created.text);
        const response = await send(server.baseUrl, server.token, patch);
        try {
          await assertServerUp();
          assertWellFormed(response, patch);
        } catch (error) {
          (error as Error).message = `${(error as Error).message}\n    request: ${describeRequest(patch)}`;
          throw error;
        }
        if (response.status === 200 && String(response.headers['content-type']).startsWith('application/json')) {
          const stored = await request({ method: 'GET', path });
          assert.equal(withoutStatus(JSON.parse(stored.text)), withoutStatus(JSON.parse(response.text)), `GET after ${describeRequest(patch)}`);
        }
      },
    ),
    { runs: 80 },
  );
});

test('the server is still up: /healthz, /readyz, and a list', async () => {
  await assertServerUp();
  const health = await request({ method: 'GET', path: '/healthz' });
  assert.is(health.status, 200);
  assert.is(health.text, 'ok');
  assert.is((await request({ method: 'GET', path: '/readyz' })).status, 200);
  const list = await request({ method: 'GET', path: collectionPath('PriorityLevelConfiguration') });
  assert.is(list.status, 200);
  assert.ok(JSON.parse(list.text).items.some((item: KubeObject) => item.metadata?.name === 'global-default'));
  for (const name of FUZZ_NAMES) assert.ok([200, 404].includes((await request({ method: 'GET', path: `${collectionPath('FlowSchema')}/${name}` })).status));
});

test.run();
