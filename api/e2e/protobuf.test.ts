// End to end: Kubernetes protobuf against `fairway serve`, as client-go speaks it. The bodies sent
// are Kubernetes' own bytes where Kubernetes wrote them (kubernetes/api's round-trip fixtures, and
// kubectl's protobuf SelfSubjectAccessReview), otherwise the encoder those fixtures pin down; the
// answers are read with the same decoder and checked against the JSON answers to the same requests.
import { readFileSync } from 'node:fs';
import { request as httpsRequest } from 'node:https';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { startServerProcess, type ServerProcess } from '../commands/testing/server-process.ts';
import { kubectlFor } from '../data-dir/testing/kubectl.ts';
import { decodeBody, encodeObject } from '../../engine/protobuf/objects.ts';
import { decodeMessage, encodeMessage } from '../../engine/protobuf/codec.ts';
import { encodeEnvelope } from '../../engine/protobuf/envelope.ts';

const PROTOBUF = 'application/vnd.kubernetes.protobuf';
const GROUP = 'flowcontrol.apiserver.k8s.io';
const PLCS = `/apis/${GROUP}/v1/prioritylevelconfigurations`;
const FSS = `/apis/${GROUP}/v1/flowschemas`;
const fixture = (name: string) => readFileSync(new URL(`../../engine/protobuf/testdata/${GROUP}.v1.${name}`, import.meta.url));
let server: ServerProcess;

const plc = (name: string, shares = 7) => ({
  kind: 'PriorityLevelConfiguration',
  apiVersion: `${GROUP}/v1`,
  metadata: { name, labels: { suite: 'protobuf' } },
  spec: { type: 'Limited', limited: { nominalConcurrencyShares: shares, limitResponse: { type: 'Reject' } } },
});

const send = (method: string, path: string, body?: Buffer, accept = PROTOBUF) =>
  server.client.request(method, path, {
    body,
    headers: { Accept: accept, ...(body !== undefined ? { 'Content-Type': PROTOBUF } : {}) },
  });

function decoded(bytes: Buffer, kind: string): Record<string, any> {
  const result = decodeBody(bytes, kind);
  if (!result.ok) throw new Error(`not a ${kind} in protobuf: ${result.error} (${bytes.subarray(0, 40).toString('hex')})`);
  return result.decoded.value;
}

/** A watch in protobuf: length-prefixed WatchEvent frames, each object in its own envelope. */
function protobufWatch(path: string) {
  const events: { type: string; object: Record<string, any> }[] = [];
  let contentType = '';
  let buffer = Buffer.alloc(0);
  let wake: () => void = () => undefined;
  const req = httpsRequest(new URL(path, server.url), { headers: { Authorization: `Bearer ${server.token}`, Accept: PROTOBUF }, ca: server.caPem }, (res) => {
    contentType = String(res.headers['content-type']);
    res.on('data', (chunk: Buffer) => {
      buffer = Buffer.concat([buffer, chunk]);
      while (buffer.length >= 4 && buffer.length >= 4 + buffer.readUInt32BE(0)) {
        const frame = buffer.subarray(4, 4 + buffer.readUInt32BE(0));
        buffer = buffer.subarray(4 + frame.length);
        const event = decodeMessage('k8s.io.apimachinery.pkg.apis.meta.v1.WatchEvent', frame) as { type: string; object: { raw: Buffer } };
        const raw = event.object.raw;
        events.push({ type: event.type, object: decoded(raw, '') });
      }
      wake();
    });
    res.on('error', () => undefined);
  });
  req.on('error', () => undefined);
  req.end();
  return {
    events,
    get contentType() {
      return contentType;
    },
    async until(predicate: () => boolean): Promise<void> {
      const deadline = Date.now() + 10_000;
      while (!predicate()) {
        if (Date.now() > deadline) throw new Error(`watch: timed out; events so far ${JSON.stringify(events.map((e) => e.type))}`);
        await new Promise<void>((resolve) => {
          wake = resolve;
          setTimeout(resolve, 100);
        });
      }
    },
    close: () => req.destroy(),
  };
}

test.before(async () => {
  server = await startServerProcess({ storageBackend: 'leveldb' });
});

test.after(async () => {
  assert.is(await server.stop(), 0, server.stderr());
});

test("Kubernetes' own fixture bytes are decoded: the fixture's metadata reaches the create path", async () => {
  // The fixtures carry every field, resourceVersion included, which a create refuses.
  for (const [kind, path] of [
    ['PriorityLevelConfiguration', PLCS],
    ['FlowSchema', FSS],
  ] as const) {
    const response = await send('POST', path, fixture(`${kind}.pb`), 'application/json');
    assert.is(response.status, 400, response.text);
    assert.is(response.json().message, 'resourceVersion should not be set on objects to be created');
  }
  // Through a PUT, the fixture's name is compared with the URL's: the decoded name is "nameValue".
  const put = await send('PUT', `${PLCS}/other`, fixture('PriorityLevelConfiguration.pb'), 'application/json');
  assert.is(put.status, 400, put.text);
  assert.is(put.json().message, 'the name of the object (nameValue) does not match the name on the URL (other)');
});

test('create, get, update and list in protobuf; every answer is the JSON answer in protobuf', async () => {
  const created = await send('POST', PLCS, encodeObject(plc('pb-one')));
  assert.is(created.status, 201, created.text);
  assert.is(created.headers['content-type'], PROTOBUF);
  const object = decoded(created.bytes, 'PriorityLevelConfiguration');
  assert.is(object.metadata.name, 'pb-one');
  assert.ok(object.metadata.uid.length > 0 && object.metadata.creationTimestamp.endsWith('Z'));
  assert.is(object.spec.limited.nominalConcurrencyShares, 7);
  assert.is(object.metadata.managedFields[0].operation, 'Update');

  const asProtobuf = await send('GET', `${PLCS}/pb-one`);
  const asJson = await send('GET', `${PLCS}/pb-one`, undefined, 'application/json');
  assert.equal(decoded(asProtobuf.bytes, 'PriorityLevelConfiguration'), asJson.json());
  assert.is(encodeObject(asJson.json()).toString('hex'), asProtobuf.bytes.toString('hex'));

  const changed = { ...asJson.json(), spec: { type: 'Limited', limited: { nominalConcurrencyShares: 9, limitResponse: { type: 'Reject' } } } };
  const updated = await send('PUT', `${PLCS}/pb-one`, encodeObject(changed));
  assert.is(updated.status, 200, updated.text);
  assert.is(decoded(updated.bytes, 'PriorityLevelConfiguration').metadata.generation, 2);

  for (const path of [PLCS, FSS]) {
    const listKind = path === PLCS ? 'PriorityLevelConfigurationList' : 'FlowSchemaList';
    const protobufList = decoded((await send('GET', path)).bytes, listKind);
    const jsonList = (await send('GET', path, undefined, 'application/json')).json();
    // A protobuf list item has no type meta (as Kubernetes' JSON items have none; Fairway's JSON items do).
    assert.equal(protobufList, { ...jsonList, items: jsonList.items.map(({ kind: _k, apiVersion: _v, ...item }: Record<string, unknown>) => item) });
    assert.ok(jsonList.items.length >= 8, 'the bootstrap objects are listed');
  }
  const page = decoded((await send('GET', `${FSS}?limit=2`)).bytes, 'FlowSchemaList');
  assert.is(page.items.length, 2);
  assert.ok(page.metadata.continue.length > 0 && page.metadata.remainingItemCount > 0);
});

test('every bootstrap object round-trips: decode(protobuf GET) = JSON GET, re-encoded to the same bytes', async () => {
  let count = 0;
  for (const [kind, path] of [
    ['PriorityLevelConfiguration', PLCS],
    ['FlowSchema', FSS],
  ] as const) {
    for (const item of (await send('GET', path, undefined, 'application/json')).json().items) {
      if (item.metadata.annotations?.['apf.kubernetes.io/autoupdate-spec'] === undefined) continue;
      const bytes = (await send('GET', `${path}/${item.metadata.name}`)).bytes;
      const json = (await send('GET', `${path}/${item.metadata.name}`, undefined, 'application/json')).json();
      assert.equal(decoded(bytes, kind), json, item.metadata.name);
      assert.is(encodeObject(json).toString('hex'), bytes.toString('hex'), item.metadata.name);
      count++;
    }
  }
  assert.ok(count >= 20, `${count} bootstrap objects`);
});

test('watch in protobuf: length-prefixed WatchEvent frames; a Foreground delete with a protobuf DeleteOptions body shows MODIFIED then DELETED', async () => {
  const created = decoded((await send('POST', PLCS, encodeObject(plc('pb-watched')))).bytes, 'PriorityLevelConfiguration');
  const watch = protobufWatch(`${PLCS}?watch=true&fieldSelector=metadata.name%3Dpb-watched&resourceVersion=${created.metadata.resourceVersion}`);
  try {
    const options = encodeEnvelope(
      `${GROUP}/v1`,
      'DeleteOptions',
      encodeMessage('k8s.io.apimachinery.pkg.apis.meta.v1.DeleteOptions', { propagationPolicy: 'Foreground' }),
    );
    const deleted = await send('DELETE', `${PLCS}/pb-watched`, options);
    assert.is(deleted.status, 200, deleted.text);
    const marked = decoded(deleted.bytes, 'PriorityLevelConfiguration');
    assert.equal(marked.metadata.finalizers, ['foregroundDeletion']);
    assert.ok(marked.metadata.deletionTimestamp !== undefined);
    assert.is(marked.metadata.deletionGracePeriodSeconds, 0);
    await watch.until(() => watch.events.some((e) => e.type === 'DELETED'));
    assert.is(watch.contentType, `${PROTOBUF};stream=watch`);
    assert.equal(
      watch.events.map((e) => e.type),
      ['MODIFIED', 'DELETED'],
    );
    assert.equal(watch.events[0]!.object.metadata.finalizers, ['foregroundDeletion']);
    assert.is(watch.events[0]!.object.kind, 'PriorityLevelConfiguration');
  } finally {
    watch.close();
  }
  assert.is((await send('GET', `${PLCS}/pb-watched`)).status, 404);
});

test('errors are protobuf Statuses; a DeleteOptions envelope of another kind is a 400; Table has no protobuf form', async () => {
  const missing = await send('GET', `${PLCS}/nosuch`);
  assert.is(missing.status, 404);
  assert.is(missing.headers['content-type'], PROTOBUF);
  const status = decoded(missing.bytes, 'Status');
  assert.equal([status.kind, status.apiVersion, status.reason, status.code], ['Status', 'v1', 'NotFound', 404]);
  assert.is(status.message, `prioritylevelconfigurations.${GROUP} "nosuch" not found`);

  await send('POST', PLCS, encodeObject(plc('pb-kept')));
  const pod = encodeEnvelope('v1', 'Pod', new Uint8Array());
  const refused = await send('DELETE', `${PLCS}/pb-kept`, pod, 'application/json');
  assert.is(refused.status, 400, refused.text);
  assert.is(refused.json().message, 'no kind "Pod" is registered for version "v1" in scheme "pkg/apis/meta/internalversion/scheme/register.go:27"');
  assert.is((await send('GET', `${PLCS}/pb-kept`)).status, 200);

  const garbage = await send('POST', PLCS, Buffer.from('k8s\u0000\u0012\u0005\u000a'), 'application/json');
  assert.is(garbage.status, 400);
  assert.is(garbage.json().message, 'the object provided is unrecognized (must be of type PriorityLevelConfiguration): unexpected EOF (6b38730012050a)');

  const table = await send('GET', PLCS, undefined, `${PROTOBUF};as=Table;v=v1;g=meta.k8s.io, application/json;as=Table;v=v1;g=meta.k8s.io`);
  assert.is(table.headers['content-type'], 'application/json');
  assert.is(table.json().kind, 'Table');
  const partial = await send('GET', PLCS, undefined, `${PROTOBUF};as=PartialObjectMetadataList;v=v1;g=meta.k8s.io`);
  assert.is(partial.headers['content-type'], PROTOBUF);
  const list = decoded(partial.bytes, 'PartialObjectMetadataList');
  assert.is(list.kind, 'PartialObjectMetadataList');
  assert.ok(list.items.some((item: any) => item.metadata.name === 'exempt'));
});

test('kubectl auth can-i: a Go client posting protobuf and reading the protobuf answer', async () => {
  const kubectl = kubectlFor(server.kubeconfigPath);
  const result = await kubectl(['auth', 'can-i', 'list', 'prioritylevelconfigurations.flowcontrol.apiserver.k8s.io', '-v=8']);
  assert.is(result.code, 0, result.stderr);
  assert.is(result.stdout.trim(), 'yes');
  assert.match(result.stderr, /Response Headers:[\s\S]*Content-Type: application\/vnd\.kubernetes\.protobuf/);
});

test.run();
