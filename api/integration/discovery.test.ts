import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { startInProcessServer, type InProcessServer } from './testing/in-process.ts';

const AGGREGATED =
  'application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList,application/json;g=apidiscovery.k8s.io;v=v2beta1;as=APIGroupDiscoveryList,' +
  'application/json';
let server: InProcessServer;

test.before(async () => {
  server = await startInProcessServer();
  await server.ready();
});
test.after(async () => server.close());

test('/version reports 1.32 (the kubectl dispatcher picks its kubectl by the minor)', async () => {
  const version = (await server.client.get('/version?timeout=5s')).json();
  assert.is(version.major, '1');
  assert.is(version.minor, '32');
});

test('/apis: aggregated v2 with its exact Content-Type when asked, else the legacy APIGroupList', async () => {
  const aggregated = await server.client.get('/apis?timeout=32s', { headers: { Accept: AGGREGATED } });
  assert.is(aggregated.headers['content-type'], 'application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList');
  const body = aggregated.json();
  assert.is(body.kind, 'APIGroupDiscoveryList');
  const flowcontrol = body.items.find((g: { metadata: { name: string } }) => g.metadata.name === 'flowcontrol.apiserver.k8s.io');
  assert.equal(
    flowcontrol.versions[0].resources.map((r: { resource: string }) => r.resource),
    ['flowschemas', 'prioritylevelconfigurations'],
  );
  const legacy = await server.client.get('/apis', { headers: { Accept: 'application/json' } });
  assert.is(legacy.headers['content-type'], 'application/json');
  assert.is(legacy.json().kind, 'APIGroupList');
  const core = await server.client.get('/api', { headers: { Accept: AGGREGATED } });
  assert.equal(core.json().items, []);
});

test('/apis/<group> and /apis/<group>/v1 (client-node maps kinds with the latter)', async () => {
  const group = (await server.client.get('/apis/flowcontrol.apiserver.k8s.io')).json();
  assert.is(group.kind, 'APIGroup');
  assert.is(group.preferredVersion.groupVersion, 'flowcontrol.apiserver.k8s.io/v1');
  const resources = (await server.client.get('/apis/flowcontrol.apiserver.k8s.io/v1')).json();
  assert.is(resources.kind, 'APIResourceList');
  assert.equal(
    resources.resources.map((r: { name: string }) => r.name),
    ['flowschemas', 'flowschemas/status', 'prioritylevelconfigurations', 'prioritylevelconfigurations/status'],
  );
  assert.is((await server.client.get('/apis/nosuch.k8s.io/v1')).status, 404);
  assert.is((await server.client.get('/api/v1')).status, 404);
});

test('OpenAPI v3: the index points at the group document by hash', async () => {
  const index = (await server.client.get('/openapi/v3?timeout=32s')).json();
  const entry = index.paths['apis/flowcontrol.apiserver.k8s.io/v1'];
  assert.match(entry.serverRelativeURL, /^\/openapi\/v3\/apis\/flowcontrol\.apiserver\.k8s\.io\/v1\?hash=[0-9A-F]+$/);
  const document = await server.client.get(entry.serverRelativeURL);
  assert.is(document.status, 200);
  assert.is(document.headers['cache-control'], 'public, immutable');
  const spec = document.json();
  assert.ok(spec.components.schemas['io.k8s.api.flowcontrol.v1.PriorityLevelConfiguration']);
  assert.is((await server.client.request('POST', '/openapi/v3')).status, 405);
});

test('health endpoints need no credentials; verbose lists the checks', async () => {
  for (const path of ['/healthz', '/livez', '/readyz']) {
    const response = await server.client.get(path, { token: null });
    assert.is(response.status, 200, path);
    assert.is(response.text, 'ok');
  }
  const verbose = await server.client.get('/readyz?verbose', { token: null });
  assert.match(verbose.text, /^\[\+\]ping ok$/m);
  assert.match(verbose.text, /^\[\+\]shutdown ok$/m);
  assert.match(verbose.text, /readyz check passed\n$/);
  assert.is((await server.client.get('/readyz/ping', { token: null })).text, 'ok');
  assert.is((await server.client.get('/readyz/nosuch', { token: null })).status, 404);
});

test('/metrics and the APF debug dumps are served', async () => {
  const metrics = await server.client.get('/metrics');
  assert.is(metrics.status, 200);
  assert.match(metrics.text, /apiserver_flowcontrol_/);
  const levels = await server.client.get('/debug/api_priority_and_fairness/dump_priority_levels');
  assert.is(levels.status, 200);
  assert.match(levels.text, /^PriorityLevelName,/);
  assert.is((await server.client.get('/nosuch')).status, 404);
});

test('responses to APF-classified requests name the FlowSchema and priority level by uid', async () => {
  const response = await server.client.get('/apis/flowcontrol.apiserver.k8s.io/v1/flowschemas/exempt');
  const exempt = response.json();
  assert.is(response.headers['x-kubernetes-pf-flowschema-uid'], exempt.metadata.uid, 'system:masters match the exempt FlowSchema');
});

test('a shutting-down server fails /readyz', async () => {
  const own = await startInProcessServer();
  await own.ready();
  own.fairway.beginShutdown();
  const response = await own.client.get('/readyz', { token: null });
  assert.is(response.status, 500);
  assert.match(response.text, /^\[-\]shutdown failed: reason withheld$/m);
  await own.close();
});

test.run();
