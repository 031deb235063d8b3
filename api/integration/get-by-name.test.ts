// GET by name from the watch cache: answered before the handler returns (no promise on the way
// back through the chain) when nothing must be waited for, and the same answers, later, when the
// read must wait for a resourceVersion.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import type { Filter } from '../request/http-context.ts';
import { PLC as P, validPlc as plc } from '../testing/bad-input-corpus.ts';
import { startInProcessServer, type InProcessServer } from './testing/in-process.ts';

/** What the rest of the chain (the handler) returned for each GET, and the response right then. */
interface Seen {
  name: string;
  promise: boolean;
  complete: boolean;
  status: number;
}
const seen: Seen[] = [];
const probe: Filter = (context, next) => {
  const answered = next();
  if (context.requestInfo.isResourceRequest && context.requestInfo.verb === 'get') {
    seen.push({ name: context.requestInfo.name, promise: answered !== undefined, complete: context.res.writableEnded, status: context.res.statusCode });
  }
  return answered;
};
const lastSeen = (name: string): Seen | undefined => seen.filter((s) => s.name === name).pop();

let server: InProcessServer;
test.before(async () => {
  server = await startInProcessServer({ extraFilters: [probe] });
  await server.ready();
});
test.after(async () => server.close());

const revisionOf = (object: { metadata: { resourceVersion: string } }) => Number(object.metadata.resourceVersion);

test('a GET of a cached object is complete when the handler returns, with no promise', async () => {
  assert.is((await server.client.request('POST', P, { body: plc('now') })).status, 201);
  const first = await server.client.get(`${P}/now`, { headers: { Accept: 'application/json' } });
  assert.is(first.status, 200);
  const again = await server.client.get(`${P}/now`, { headers: { Accept: 'application/json' } });
  assert.equal(lastSeen('now'), { name: 'now', promise: false, complete: true, status: 200 });
  assert.is(again.text, first.text);
  assert.is(again.headers['content-type'], 'application/json');
  // At a resourceVersion the cache has reached: the same.
  const atVersion = await server.client.get(`${P}/now?resourceVersion=${revisionOf(first.json())}`);
  assert.equal(lastSeen('now'), { name: 'now', promise: false, complete: true, status: 200 });
  assert.is(atVersion.text, first.text);
});

test('a GET at a resourceVersion the cache has not reached waits for it, then answers', async () => {
  const created = (await server.client.request('POST', P, { body: plc('later') })).json();
  const ahead = revisionOf(created) + 1;
  const reply = server.client.get(`${P}/later?resourceVersion=${ahead}`);
  for (let i = 0; i < 400 && lastSeen('later') === undefined; i++) await new Promise((r) => setTimeout(r, 5));
  assert.equal(lastSeen('later'), { name: 'later', promise: true, complete: false, status: 200 }, 'still waiting');
  // The next write takes the cache to `ahead`.
  assert.is((await server.client.request('POST', P, { body: plc('later-2') })).status, 201);
  const answer = await reply;
  assert.is(answer.status, 200);
  assert.equal(answer.json(), created);
});

test('not found: the same 404 Status (and its representation) whether answered at once or after a wait', async () => {
  for (const accept of ['application/json', 'application/yaml']) {
    const suffix = accept.slice('application/'.length);
    const atOnce = await server.client.get(`${P}/nosuch`, { headers: { Accept: accept } });
    assert.equal(lastSeen('nosuch'), { name: 'nosuch', promise: false, complete: true, status: 404 });
    assert.is(atOnce.status, 404);
    assert.is(atOnce.headers['content-type'], accept);
    const revision = revisionOf((await server.client.request('POST', P, { body: plc(`other-${suffix}`) })).json());
    const waited = server.client.get(`${P}/nosuch?resourceVersion=${revision + 1}`, { headers: { Accept: accept } });
    for (let i = 0; i < 400 && lastSeen('nosuch')?.promise !== true; i++) await new Promise((r) => setTimeout(r, 5));
    assert.is(lastSeen('nosuch')?.promise, true, 'waiting');
    await server.client.request('POST', P, { body: plc(`another-${suffix}`) });
    const late = await waited;
    assert.is(late.status, 404);
    assert.is(late.headers['content-type'], accept);
    assert.is(late.text, atOnce.text);
  }
  const json = await server.client.get(`${P}/nosuch`, { headers: { Accept: 'application/json' } });
  assert.equal(json.json(), {
    kind: 'Status',
    apiVersion: 'v1',
    metadata: {},
    status: 'Failure',
    message: 'prioritylevelconfigurations.flowcontrol.apiserver.k8s.io "nosuch" not found',
    reason: 'NotFound',
    details: { name: 'nosuch', group: 'flowcontrol.apiserver.k8s.io', kind: 'prioritylevelconfigurations' },
    code: 404,
  });
});

test('a bad resourceVersion or an unacceptable Accept header is answered at once, as before', async () => {
  const bad = await server.client.get(`${P}/now?resourceVersion=abc`);
  assert.equal(lastSeen('now'), { name: 'now', promise: false, complete: true, status: 400 });
  assert.is(bad.json().message, 'resourceVersion: Invalid value: "abc": strconv.ParseUint: parsing "abc": invalid syntax');
  const notAcceptable = await server.client.get(`${P}/now`, { headers: { Accept: 'text/html' } });
  assert.is(notAcceptable.status, 406);
  assert.equal(lastSeen('now'), { name: 'now', promise: false, complete: true, status: 406 });
});

test.run();
