// The limits on what one write may do, through the whole server: the bytes a JSON patch may copy
// (kube's JSONPatchMaxCopyBytes), the size of a stored object (etcd's request limit) on every write
// path, and concurrent patches of one object, each applied once.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import type { KubeObject } from '../../engine/resources/types.ts';
import { startInProcessServer, type InProcessServer } from './testing/in-process.ts';

const PLC = '/apis/flowcontrol.apiserver.k8s.io/v1/prioritylevelconfigurations';
const JSON_PATCH = { 'Content-Type': 'application/json-patch+json' };
const MERGE = { 'Content-Type': 'application/merge-patch+json' };
const STRATEGIC = { 'Content-Type': 'application/strategic-merge-patch+json' };
const APPLY = { 'Content-Type': 'application/apply-patch+yaml' };

const plc = (name: string, metadata: Record<string, unknown> = {}): KubeObject => ({
  apiVersion: 'flowcontrol.apiserver.k8s.io/v1',
  kind: 'PriorityLevelConfiguration',
  metadata: { name, ...metadata },
  spec: { type: 'Limited', limited: { nominalConcurrencyShares: 1, limitResponse: { type: 'Reject' } } },
});

const TOO_LARGE = {
  kind: 'Status',
  apiVersion: 'v1',
  metadata: {},
  status: 'Failure',
  message: 'etcdserver: request is too large',
  reason: 'RequestEntityTooLarge',
  code: 413,
};
const COPY_LIMIT = /^Unable to complete the copy, the accumulated size increase of copy is \d+, exceeding the limit 3145728$/;

async function withServer(options: Parameters<typeof startInProcessServer>[0], body: (server: InProcessServer) => Promise<void>): Promise<void> {
  const server = await startInProcessServer(options);
  try {
    await server.ready();
    await body(server);
  } finally {
    await server.close();
  }
}

test('the reported JSON-patch amplifications answer 422 with the copy limit, and the object is unchanged', async () => {
  await withServer({}, async (server) => {
    const { client } = server;
    const big = 'v'.repeat(200 * 1024);
    assert.is((await client.request('POST', PLC, { body: plc('amp', { annotations: { big } }) })).status, 201);
    const before = (await client.get(`${PLC}/amp`)).json();

    // 2 KB: a 1,000-character value, then 22 copies of the growing subtree into itself.
    const doubling: unknown[] = [{ op: 'add', path: '/x', value: { a: 'x'.repeat(1000) } }];
    for (let i = 0; i < 22; i++) doubling.push({ op: 'copy', from: '/x', path: `/x/${i}` });
    assert.ok(JSON.stringify(doubling).length < 2048);
    // 10,000 copies of a 200 KB value.
    const many: unknown[] = [];
    for (let i = 0; i < 10_000; i++) many.push({ op: 'copy', from: '/metadata/annotations/big', path: `/metadata/annotations/c${i}` });

    for (const ops of [doubling, many]) {
      const response = await client.request('PATCH', `${PLC}/amp`, { body: JSON.stringify(ops), headers: JSON_PATCH });
      assert.is(response.status, 422, response.text.slice(0, 300));
      const status = response.json();
      assert.equal([status.reason, status.details], ['Invalid', {}]);
      assert.match(status.message, COPY_LIMIT);
    }
    assert.equal((await client.get(`${PLC}/amp`)).json(), before);
  });
});

test('an object over the store limit is refused on every write path with 413, and nothing changes', async () => {
  await withServer({ maxRequestBytes: 64 * 1024 }, async ({ client }) => {
    const big = 'x'.repeat(70 * 1024);
    const created = await client.request('POST', PLC, { body: plc('huge', { annotations: { big } }) });
    assert.equal([created.status, created.json()], [413, TOO_LARGE]);
    assert.is((await client.get(`${PLC}/huge`)).status, 404);
    // A dry run never reaches storage, in kube-apiserver as here.
    assert.is((await client.request('POST', `${PLC}?dryRun=All`, { body: plc('huge', { annotations: { big } }) })).status, 201);

    assert.is((await client.request('POST', PLC, { body: plc('small') })).status, 201);
    const before = (await client.get(`${PLC}/small`)).json();
    const conditions = Array.from({ length: 800 }, (_, i) => ({
      type: `T${i}`,
      status: 'True',
      reason: 'R',
      message: 'm'.repeat(80),
      lastTransitionTime: '2026-11-25T00:00:00Z',
    }));
    const writes: [string, string, string | object, Record<string, string>?][] = [
      ['PUT', `${PLC}/small`, plc('small', { annotations: { big } })],
      ['PATCH', `${PLC}/small`, { metadata: { annotations: { big } } }, MERGE],
      ['PATCH', `${PLC}/small`, { metadata: { annotations: { big } } }, STRATEGIC],
      ['PATCH', `${PLC}/small`, JSON.stringify([{ op: 'add', path: '/metadata/annotations', value: { big } }]), JSON_PATCH],
      ['PATCH', `${PLC}/small?fieldManager=m&force=true`, JSON.stringify(plc('small', { annotations: { big } })), APPLY],
      ['PUT', `${PLC}/small/status`, { ...plc('small'), status: { conditions } }],
      ['PATCH', `${PLC}/small/status`, { status: { conditions } }, MERGE],
    ];
    for (const [method, path, body, headers] of writes) {
      const response = await client.request(method, path, { body, headers });
      assert.equal([response.status, response.json()], [413, TOO_LARGE], `${method} ${path} ${JSON.stringify(headers ?? {})}`);
    }
    assert.equal((await client.get(`${PLC}/small`)).json(), before);
  });
});

test('an object too large only with its managedFields is stored without them, except by server-side apply', async () => {
  // Many labels: each also costs a `f:<key>` in managedFields, so the two together pass the limit.
  const labels = Object.fromEntries(Array.from({ length: 400 }, (_, i) => [`example.com/label-with-a-long-name-${String(i).padStart(4, '0')}`, 'v']));
  await withServer({ maxRequestBytes: 32 * 1024 }, async ({ client }) => {
    const created = await client.request('POST', PLC, { body: plc('labelled', { labels }) });
    assert.is(created.status, 201, created.text.slice(0, 300));
    assert.is(created.json().metadata.managedFields, undefined);
    assert.equal(created.json().metadata.labels, labels);
    const patched = await client.request('PATCH', `${PLC}/labelled`, { body: { spec: { limited: { nominalConcurrencyShares: 2 } } }, headers: MERGE });
    // The stored object has no entry owning the labels any more, so this one fits with its own entry.
    assert.is(patched.status, 200, patched.text.slice(0, 300));
    assert.equal(patched.json().metadata.labels, labels);
    assert.equal(
      patched.json().metadata.managedFields.map((e: { manager?: string }) => e.manager),
      [undefined],
    );
    // Apply's managedFields are what it is for: no second try without them.
    const applied = await client.request('PATCH', `${PLC}/applied?fieldManager=m`, { body: JSON.stringify(plc('applied', { labels })), headers: APPLY });
    assert.equal([applied.status, applied.json()], [413, TOO_LARGE]);
  });
});

test('50 concurrent patches of one object: each is applied once, on the version the one before left', async () => {
  await withServer({}, async (server) => {
    const { client } = server;
    assert.is((await client.request('POST', PLC, { body: plc('contended') })).status, 201);
    const responses = await Promise.all(
      Array.from({ length: 50 }, (_, i) => client.request('PATCH', `${PLC}/contended`, { body: { metadata: { labels: { [`p${i}`]: 'v' } } }, headers: MERGE })),
    );
    const applied = new Set<string>();
    const versions = new Set<string>();
    responses.forEach((response, i) => {
      if (response.status === 200) {
        applied.add(`p${i}`);
        versions.add(response.json().metadata.resourceVersion);
        assert.is(response.json().metadata.labels[`p${i}`], 'v');
        return;
      }
      // The only acceptable failure is kube's optimistic-lock Conflict.
      assert.equal([response.status, response.json().reason], [409, 'Conflict'], response.text);
    });
    const final = (await client.get(`${PLC}/contended`)).json();
    assert.equal(new Set(Object.keys(final.metadata.labels ?? {})), applied, 'exactly the patches that answered 200 are in the object');
    assert.is(versions.size, applied.size, 'each applied patch wrote its own version');
    assert.is(applied.size, 50, 'in one process, patches take turns instead of conflicting');
  });
});

test.run();
