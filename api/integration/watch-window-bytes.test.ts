// The watch cache's byte bound (--watch-cache-history-bytes) seen from a client: once large
// versions push older events out, a watch or an exact LIST from before them is answered as after
// the time bound, kube's 410 "too old resource version", while newer ones are still served.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { openStream } from '../testing/http-client.ts';
import { startInProcessServer, type InProcessServer } from './testing/in-process.ts';

const P = '/apis/flowcontrol.apiserver.k8s.io/v1/prioritylevelconfigurations';
/** Each version of the object stores at about this many bytes (its annotation). */
const VERSION_BYTES = 100_000;
let server: InProcessServer;

const plc = (name: string, fill: string) => ({
  apiVersion: 'flowcontrol.apiserver.k8s.io/v1',
  kind: 'PriorityLevelConfiguration',
  metadata: { name, annotations: { fill: fill.repeat(VERSION_BYTES) } },
  spec: { type: 'Limited', limited: { nominalConcurrencyShares: 5, limitResponse: { type: 'Reject' } } },
});

test.before(async () => {
  // Room for two large versions, and far more events than this test writes.
  server = await startInProcessServer({ windowMaxBytes: 2.5 * VERSION_BYTES });
  await server.ready();
});
test.after(async () => server.close());

test('a watch from a resourceVersion the byte bound pushed out of the window gets 410 Gone; a newer one is served', async () => {
  const created = await server.client.request('POST', P, { body: plc('big', 'a') });
  assert.is(created.status, 201);
  const old = created.json().metadata.resourceVersion;
  let recent = old;
  for (const fill of ['b', 'c', 'd']) {
    const updated = await server.client.request('PUT', `${P}/big`, {
      body: { ...plc('big', fill), metadata: { ...plc('big', fill).metadata, resourceVersion: recent } },
    });
    assert.is(updated.status, 200);
    recent = updated.json().metadata.resourceVersion;
  }

  const gone = openStream(server.baseUrl, `${P}?watch=true&resourceVersion=${old}&timeoutSeconds=30`, { token: server.token });
  await gone.until(() => false);
  assert.is(gone.events.length, 1);
  const [error] = gone.events;
  assert.is(error.type, 'ERROR');
  assert.is(error.object.code, 410);
  assert.is(error.object.reason, 'Expired');
  assert.match(error.object.message, new RegExp(`^too old resource version: ${old} \\(\\d+\\)$`));

  const list = await server.client.get(`${P}?resourceVersion=${old}&resourceVersionMatch=Exact`);
  assert.is(list.status, 410);
  assert.is(list.json().reason, 'Expired');

  // The newest event is in the window: a watch from just before it gets it.
  const previous = Number(recent) - 1;
  const served = openStream(server.baseUrl, `${P}?watch=true&resourceVersion=${previous}&timeoutSeconds=30`, { token: server.token });
  await served.until((events) => events.length >= 1);
  served.close();
  assert.is(served.events[0].type, 'MODIFIED');
  assert.is(served.events[0].object.metadata.annotations.fill[0], 'd');
});

test.run();
