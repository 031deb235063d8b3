// A failed write through the whole server (in-process, LevelDB with an injected fault): the write
// that failed gets kube-apiserver's 500 Status naming the storage error, later writes a 503 with
// Retry-After, reads and /livez go on, /readyz fails its etcd check; once the disk takes writes
// again the server does too, with every acknowledged write there. The same with a real full disk:
// api/e2e/reliability-storage-outage.test.ts.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { createLevelDbBackend } from '../../engine/store/leveldb/leveldb-backend.ts';
import { startInProcessServer } from './testing/in-process.ts';

const FS_PATH = '/apis/flowcontrol.apiserver.k8s.io/v1/flowschemas';
const flowSchema = (name: string) => ({
  apiVersion: 'flowcontrol.apiserver.k8s.io/v1',
  kind: 'FlowSchema',
  metadata: { name },
  spec: { priorityLevelConfiguration: { name: 'global-default' }, matchingPrecedence: 9000 },
});

test('a write failure (EACCES): 500 then 503 with Retry-After, reads and /livez go on, then it recovers by itself', async () => {
  const dir = await mkdtemp(join(tmpdir(), 'fairway-outage-'));
  let failing: Error | undefined;
  const backend = createLevelDbBackend({ location: join(dir, 'store'), faults: { beforeWrite: () => failing } });
  const server = await startInProcessServer({ backend, writeRetryMs: 50 });
  try {
    await server.ready();
    const acknowledged: string[] = [];
    const create = async (name: string) => {
      const response = await server.client.request('POST', FS_PATH, { body: flowSchema(name) });
      if (response.status === 201) acknowledged.push(name);
      return response;
    };
    for (const name of ['a', 'b', 'c']) assert.is((await create(name)).status, 201);
    // The server writes each new FlowSchema's Dangling condition: let it, so the next write is ours.
    const settled = async () => {
      const items: { status?: { conditions?: unknown[] } }[] = (await server.client.get(FS_PATH)).json().items;
      return items.every((o) => (o.status?.conditions?.length ?? 0) > 0);
    };
    for (let i = 0; i < 200 && !(await settled()); i++) await new Promise((resolve) => setTimeout(resolve, 10));

    failing = Object.assign(new Error("EACCES: permission denied, open '/data/store/000005.log'"), { code: 'EACCES' });
    const failed = await create('d');
    assert.is(failed.status, 500);
    assert.equal(
      { kind: failed.json().kind, status: failed.json().status, reason: failed.json().reason, code: failed.json().code },
      { kind: 'Status', status: 'Failure', reason: 'InternalError', code: 500 },
    );
    assert.match(failed.json().message, /^Internal error occurred: writing to .*store failed: EACCES: permission denied/);
    const refused = await create('e');
    assert.is(refused.status, 503);
    assert.is(refused.json().reason, 'ServiceUnavailable');
    assert.is(refused.headers['retry-after'], '1');
    assert.is(refused.json().details.retryAfterSeconds, 1);
    assert.match(refused.json().message, /EACCES: permission denied/);
    assert.equal(
      (await server.client.get(`${FS_PATH}?labelSelector=`))
        .json()
        .items.map((o: { metadata: { name: string } }) => o.metadata.name)
        .filter((n: string) => acknowledged.includes(n)),
      acknowledged,
    );
    assert.is((await server.client.get(`${FS_PATH}/a`)).status, 200);
    assert.is((await server.client.get(`${FS_PATH}/d`)).status, 404, 'the failed create left nothing');
    assert.is((await server.client.get('/livez')).status, 200);
    assert.is((await server.client.get('/readyz')).status, 500);

    failing = undefined;
    let recovered = false;
    for (let i = 0; i < 200 && !recovered; i++) {
      recovered = (await create(`f${i}`)).status === 201;
      if (!recovered) await new Promise((resolve) => setTimeout(resolve, 20));
    }
    assert.ok(recovered, 'writes are taken again');
    assert.is((await server.client.get('/readyz')).status, 200);
    const names = new Set((await server.client.get(FS_PATH)).json().items.map((o: { metadata: { name: string } }) => o.metadata.name));
    for (const name of acknowledged) assert.ok(names.has(name), `${name} is there`);
  } finally {
    await server.close();
    await rm(dir, { recursive: true, force: true });
  }
});

test.run();
