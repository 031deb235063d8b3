import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { openStream } from '../testing/http-client.ts';
import { startInProcessServer, type InProcessServer } from './testing/in-process.ts';

const P = '/apis/flowcontrol.apiserver.k8s.io/v1/prioritylevelconfigurations';
let server: InProcessServer;

const plc = (name: string, shares = 5, labels: Record<string, string> = {}) => ({
  apiVersion: 'flowcontrol.apiserver.k8s.io/v1',
  kind: 'PriorityLevelConfiguration',
  metadata: { name, labels },
  spec: { type: 'Limited', limited: { nominalConcurrencyShares: shares, limitResponse: { type: 'Reject' } } },
});
const stream = (path: string, headers?: Record<string, string>) => openStream(server.baseUrl, path, { token: server.token, headers });
const summary = (events: any[]) => events.map((e) => `${e.type} ${e.object.metadata?.name ?? ''}`.trim());

test.before(async () => {
  // A small watch-cache window, so a watch from an old resourceVersion can be made to expire.
  server = await startInProcessServer({ windowCapacity: 8 });
  await server.ready();
});
test.after(async () => server.close());

test('a watch from the list resourceVersion streams ADDED, MODIFIED and DELETED, one JSON line each', async () => {
  const list = (await server.client.get(`${P}?labelSelector=w%3D1`)).json();
  const watch = stream(`${P}?watch=true&labelSelector=w%3D1&resourceVersion=${list.metadata.resourceVersion}&timeoutSeconds=30`);
  await server.client.request('POST', P, { body: plc('w-one', 5, { w: '1' }) });
  await server.client.request('PATCH', `${P}/w-one`, {
    body: { spec: { limited: { nominalConcurrencyShares: 6 } } },
    headers: { 'Content-Type': 'application/merge-patch+json' },
  });
  await server.client.request('DELETE', `${P}/w-one`);
  await watch.until((events) => events.length >= 3);
  watch.close();
  assert.is(watch.status, 200);
  assert.equal(summary(watch.events), ['ADDED w-one', 'MODIFIED w-one', 'DELETED w-one']);
  assert.is(watch.events[1].object.spec.limited.nominalConcurrencyShares, 6);
  const versions: number[] = watch.events.map((e) => Number(e.object.metadata.resourceVersion));
  assert.ok(versions[0]! < versions[1]! && versions[1]! < versions[2]!, 'DELETED carries a newer resourceVersion');
});

test('without a resourceVersion the watch starts with the current objects; an object leaving the selector is DELETED', async () => {
  await server.client.request('POST', P, { body: plc('w-sel', 5, { sel: 'a' }) });
  const watch = stream(`${P}?watch=1&labelSelector=sel%3Da&timeoutSeconds=30`);
  await watch.until((events) => events.length >= 1);
  await server.client.request('PATCH', `${P}/w-sel`, {
    body: { metadata: { labels: { sel: 'b' } } },
    headers: { 'Content-Type': 'application/merge-patch+json' },
  });
  await watch.until((events) => events.length >= 2);
  watch.close();
  assert.equal(summary(watch.events), ['ADDED w-sel', 'DELETED w-sel']);
});

test('timeoutSeconds ends the stream cleanly; sendInitialEvents ends its initial state with a bookmark', async () => {
  const watch = stream(`${P}?watch=true&sendInitialEvents=true&resourceVersionMatch=NotOlderThan&allowWatchBookmarks=true&timeoutSeconds=1`);
  await watch.until(() => false);
  assert.ok(watch.ended);
  const bookmark = watch.events.find((e) => e.type === 'BOOKMARK' && e.object.metadata.annotations?.['k8s.io/initial-events-end'] === 'true');
  assert.ok(bookmark, 'the initial-events-end bookmark');
  assert.is(bookmark.object.kind, 'PriorityLevelConfiguration');
  const added = watch.events.filter((e) => e.type === 'ADDED').map((e) => e.object.metadata.name);
  assert.ok(added.includes('exempt') && added.includes('catch-all'));
  assert.ok(watch.events.indexOf(bookmark) >= added.length, 'after every ADDED');
});

test('timeoutSeconds=0 and timeoutSeconds past what a Node timer holds both mean a long watch, not its end', async () => {
  const watches = ['0', '2147484', '9223372036854775807'].map((t) => stream(`${P}?watch=true&timeoutSeconds=${t}`));
  for (const watch of watches) await watch.until((events) => events.length > 0);
  await server.client.request('POST', P, { body: plc('w-long') });
  for (const watch of watches) await watch.until((events) => events.some((e) => e.object.metadata?.name === 'w-long'));
  await new Promise((resolve) => setTimeout(resolve, 200));
  assert.equal(
    watches.map((w) => [w.status, w.ended]),
    [
      [200, false],
      [200, false],
      [200, false],
    ],
    'all still streaming',
  );
  for (const watch of watches) watch.close();
  const negative = stream(`${P}?watch=true&timeoutSeconds=-1`);
  await negative.until(() => false);
  assert.ok(negative.ended, 'a negative timeout ends the watch at once, as in Kubernetes');
});

test('a resourceVersion older than the watch window is one ERROR 410 event, then the end', async () => {
  const old = (await server.client.get(P)).json().metadata.resourceVersion;
  for (let i = 0; i < 12; i++) await server.client.request('POST', P, { body: plc(`w-churn-${i}`) });
  const watch = stream(`${P}?watch=true&resourceVersion=${old}&timeoutSeconds=30`);
  await watch.until(() => false);
  assert.is(watch.status, 200);
  assert.is(watch.events.length, 1);
  const [event] = watch.events;
  assert.is(event.type, 'ERROR');
  assert.is(event.object.code, 410);
  assert.is(event.object.reason, 'Expired');
  assert.match(event.object.message, new RegExp(`^too old resource version: ${old} \\(\\d+\\)$`));
});

test('Table watches: the first event has column definitions, later ones null', async () => {
  const list = (await server.client.get(`${P}?labelSelector=tw%3D1`)).json();
  const watch = stream(`${P}?watch=true&labelSelector=tw%3D1&resourceVersion=${list.metadata.resourceVersion}&timeoutSeconds=30`, {
    Accept: 'application/json;as=Table;v=v1;g=meta.k8s.io,application/json',
  });
  await server.client.request('POST', P, { body: plc('w-table', 5, { tw: '1' }) });
  await server.client.request('PATCH', `${P}/w-table`, {
    body: { spec: { limited: { nominalConcurrencyShares: 9 } } },
    headers: { 'Content-Type': 'application/merge-patch+json' },
  });
  await watch.until((events) => events.length >= 2);
  watch.close();
  const [first, second] = watch.events;
  assert.is(first.object.kind, 'Table');
  assert.is(first.object.columnDefinitions[0].name, 'Name');
  assert.is(second.object.columnDefinitions, null);
  assert.equal(second.object.rows[0].cells.slice(0, 3), ['w-table', 'Limited', 9]);
});

const LIVE_EVENTS_IN_ORDER =
  'live events reach every watch in order: small ones written at once, one whose object is large (over a chunk, encoded off the main thread) between them';
test(LIVE_EVENTS_IN_ORDER, async () => {
  const list = (await server.client.get(`${P}?labelSelector=big%3D1`)).json();
  const from = `${P}?watch=true&labelSelector=big%3D1&resourceVersion=${list.metadata.resourceVersion}&timeoutSeconds=30`;
  const watches = [stream(from), stream(from), stream(`${from}&pretty=true`)];
  const padded = { ...plc('w-big-2', 5, { big: '1' }), metadata: { name: 'w-big-2', labels: { big: '1' }, annotations: { pad: 'p'.repeat(100_000) } } };
  await server.client.request('POST', P, { body: plc('w-big-1', 5, { big: '1' }) });
  assert.is((await server.client.request('POST', P, { body: padded })).status, 201);
  await server.client.request('POST', P, { body: plc('w-big-3', 5, { big: '1' }) });
  for (const watch of watches) await watch.until((events) => events.length >= 3);
  for (const watch of watches) {
    watch.close();
    assert.equal(summary(watch.events), ['ADDED w-big-1', 'ADDED w-big-2', 'ADDED w-big-3']);
    assert.is(watch.events[1].object.metadata.annotations.pad.length, 100_000);
  }
});

test('bad watch options are HTTP errors before the stream starts', async () => {
  assert.is((await server.client.get(`${P}?watch=true&resourceVersionMatch=Exact&resourceVersion=1`)).status, 422);
  assert.is((await server.client.get(`${P}?watch=true&timeoutSeconds=soon`)).status, 400);
});

test('shutdown ends open watches cleanly', async () => {
  const own = await startInProcessServer();
  await own.ready();
  const watch = openStream(own.baseUrl, `${P}?watch=true`, { token: own.token });
  await watch.until((events) => events.length > 0);
  await own.close();
  await watch.until(() => false);
  assert.ok(watch.ended);
  assert.ok(
    watch.events.every((e) => e.type === 'ADDED'),
    'no ERROR on a clean shutdown',
  );
});

test.run();
