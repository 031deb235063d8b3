// The execution plane on the serving path, with real servers: work sent to the worker pool gives
// the very bytes the main thread gives, and a request holds its APF seats until its body is on the
// socket, whichever thread built the body.
//
// Two servers start on copies of one prefilled data directory (400 FlowSchemas, every timestamp
// fixed), so they hold the same objects at the same resourceVersions: one with
// `--execution-threads=0`, one with the default pool. Every response of the first must equal the
// second's byte for byte, in every representation the server speaks (JSON, pretty JSON, YAML,
// protobuf, Tables, partial object metadata). A third server with a large collection and a
// one-seat level checks the seats.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { cp, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { KubeObject } from '../../engine/resources/types.ts';
import { bulkFlowSchema, prefillFlowSchemas } from '../testing/prefill.ts';
import { startServerProcess, type ServerProcess } from '../commands/testing/server-process.ts';
import { sleep, timedRequest, type Endpoint, type TimedResponse } from '../testing/load.ts';
import { sampleValue, series } from '../testing/metrics.ts';

const GROUP = 'flowcontrol.apiserver.k8s.io';
const FS = `/apis/${GROUP}/v1/flowschemas`;
const PLC = `/apis/${GROUP}/v1/prioritylevelconfigurations`;
const TABLE = 'application/json;as=Table;v=v1;g=meta.k8s.io,application/json;as=Table;v=v1beta1;g=meta.k8s.io,application/json';
const PARTIAL = 'application/json;as=PartialObjectMetadataList;v=v1;g=meta.k8s.io,application/json';
const JSON_TYPE = 'application/json';
const YAML_TYPE = 'application/yaml';
const PROTOBUF = 'application/vnd.kubernetes.protobuf';
const PROTOBUF_PARTIAL = `${PROTOBUF};as=PartialObjectMetadataList;v=v1;g=meta.k8s.io`;
const SLOW_TOKEN = 'execution-plane-slow-user-token';

let dir = '';
let inline: ServerProcess | undefined;
let pooled: ServerProcess | undefined;

const endpoint = (server: ServerProcess): Endpoint => ({ url: server.url, caPem: server.caPem });
const get = (server: ServerProcess, path: string, accept: string, token = server.token): Promise<TimedResponse> =>
  timedRequest(endpoint(server), path, { token, headers: { Accept: accept }, timeoutMs: 120_000 });

test.before(async () => {
  dir = await mkdtemp(join(tmpdir(), 'fairway-execution-plane-'));
  const template = join(dir, 'template');
  const large = bulkFlowSchema(99_999, 70_000);
  await prefillFlowSchemas(template, { count: 400, extra: [{ ...large, metadata: { ...large.metadata, name: 'large-one' } } as KubeObject] });
  await cp(template, join(dir, 'inline'), { recursive: true });
  await cp(template, join(dir, 'pool'), { recursive: true });
  [inline, pooled] = await Promise.all([
    startServerProcess({ dataDir: join(dir, 'inline'), storageBackend: 'leveldb', args: ['--execution-threads=0'] }),
    startServerProcess({ dataDir: join(dir, 'pool'), storageBackend: 'leveldb' }),
  ]);
});

test.after(async () => {
  await Promise.all([inline?.stop(), pooled?.stop()]);
  await rm(dir, { recursive: true, force: true });
});

/** Fetches the same request from both servers and asserts byte-identical answers. */
async function same(path: string, accept: string): Promise<TimedResponse> {
  const [a, b] = await Promise.all([get(inline!, path, accept), get(pooled!, path, accept)]);
  assert.is(a.status, 200, `${path} (${accept}) inline: ${a.status} ${a.text.slice(0, 300)}`);
  assert.is(b.status, a.status, `${path} (${accept}): status`);
  assert.is(b.headers['content-type'], a.headers['content-type'], `${path} (${accept}): content type`);
  assert.ok(
    a.body.equals(b.body),
    `${path} (${accept}): ${a.bytes} bytes inline vs ${b.bytes} on the pool, first difference at ${a.body.findIndex((c, i) => c !== b.body[i])}`,
  );
  return a;
}

test('LISTs and GETs served through the pool are byte-identical to the inline ones', async () => {
  const list = await same(FS, JSON_TYPE);
  assert.ok(list.bytes > 400_000, 'large enough for every stage to go to the pool');
  assert.match(list.text, /\\u003cbulk \\u0026 7\\u003e/, 'Go escaping of the stored annotation');
  await same(FS, JSON_TYPE); // now from the cached per-object JSON
  await same(FS, YAML_TYPE);
  await same(FS, TABLE);
  await same(`${FS}?includeObject=Object`, TABLE);
  await same(`${FS}?includeObject=None`, TABLE);
  await same(`${FS}?pretty=true`, JSON_TYPE);
  await same(FS, PARTIAL);
  const protobufList = await same(FS, PROTOBUF);
  assert.ok(protobufList.body.subarray(0, 4).equals(Buffer.from('k8s\u0000', 'latin1')), 'a protobuf envelope');
  await same(FS, PROTOBUF); // now from the main thread's cached messages (the pool still renders it)
  await same(FS, PROTOBUF_PARTIAL);
  for (const query of [
    'labelSelector=shard%3Ds3',
    'labelSelector=shard%20in%20(s1%2Cs2)',
    'fieldSelector=metadata.name%3Dbulk-00042',
    'fieldSelector=metadata.name!%3Dbulk-00042',
  ]) {
    await same(`${FS}?${query}`, JSON_TYPE);
    await same(`${FS}?${query}`, YAML_TYPE);
    await same(`${FS}?${query}`, PROTOBUF);
  }
  // Paging: the same continue tokens, pages and remainingItemCount.
  let token = '';
  let pages = 0;
  do {
    const page = await same(`${FS}?limit=60${token === '' ? '' : `&continue=${encodeURIComponent(token)}`}`, JSON_TYPE);
    await same(`${FS}?limit=60${token === '' ? '' : `&continue=${encodeURIComponent(token)}`}`, TABLE);
    await same(`${FS}?limit=60${token === '' ? '' : `&continue=${encodeURIComponent(token)}`}`, PROTOBUF);
    token = (JSON.parse(page.text) as { metadata: { continue?: string } }).metadata.continue ?? '';
    pages++;
  } while (token !== '');
  assert.ok(pages >= 7, `${pages} pages`);
  // One large object: its encodings go to the pool too.
  for (const accept of [JSON_TYPE, YAML_TYPE, TABLE, PROTOBUF]) await same(`${FS}/large-one`, accept);
  await same(`${FS}/large-one?pretty=1`, JSON_TYPE);
  // A watch's initial events, then its clean end.
  const watch = await same(`${FS}?watch=1&timeoutSeconds=1`, JSON_TYPE);
  assert.ok(watch.text.split('\n').filter((line) => line.startsWith('{"type":"ADDED"')).length > 400);
  const protobufWatch = await same(`${FS}?watch=1&timeoutSeconds=1`, PROTOBUF);
  assert.is(protobufWatch.headers['content-type'], `${PROTOBUF};stream=watch`);
  await same(`${FS}?watch=1&timeoutSeconds=1`, PROTOBUF_PARTIAL);

  // The pool really did the work on one server, and nothing ran there on the other.
  const [inlineMetrics, poolMetrics] = await Promise.all([get(inline!, '/metrics', 'text/plain'), get(pooled!, '/metrics', 'text/plain')]);
  for (const stage of ['encode-objects', 'render-json', 'render-table', 'render-yaml', 'render-protobuf']) {
    assert.ok(
      (sampleValue(poolMetrics.text, 'fairway_execution_stages_total', { stage, executor: 'pool', outcome: 'ok' }) ?? 0) > 0,
      `${stage} ran on the pool`,
    );
    assert.is(
      sampleValue(inlineMetrics.text, 'fairway_execution_stages_total', { stage, executor: 'pool', outcome: 'ok' }),
      undefined,
      `${stage}: no pool with 0 threads`,
    );
    assert.ok(
      (sampleValue(inlineMetrics.text, 'fairway_execution_stages_total', { stage, executor: 'inline', outcome: 'ok' }) ?? 0) > 0,
      `${stage} ran inline`,
    );
  }
  assert.match(poolMetrics.text, /^fairway_event_loop_delay_max_seconds \d/m);
  // GC pauses, as prom-client reports them; the inline server built every body above on its main thread, so it collected.
  for (const text of [inlineMetrics.text, poolMetrics.text]) assert.match(text, /^# TYPE nodejs_gc_duration_seconds histogram$/m);
  const collections = series(inlineMetrics.text, 'nodejs_gc_duration_seconds_count').reduce((sum, s) => sum + s.value, 0);
  assert.ok(collections >= 1, `${collections} collections counted`);
});

/** Polls `check` until it holds; fails naming `what` instead of hanging when it never does. */
async function until(check: () => Promise<boolean>, what: string, limitMs = 60_000): Promise<void> {
  const deadline = Date.now() + limitMs;
  while (!(await check())) {
    if (Date.now() > deadline) assert.unreachable(`${what}: not within ${limitMs / 1000} s`);
    await sleep(20);
  }
}

/** Whether the FlowSchema carries the Dangling condition `False` (its level was found). */
async function digested(server: ServerProcess, schema: string): Promise<boolean> {
  const answer = await get(server, `${FS}/${schema}`, JSON_TYPE);
  const conditions = (JSON.parse(answer.text) as { status?: { conditions?: { type: string; status: string }[] } }).status?.conditions ?? [];
  return conditions.some((condition) => condition.type === 'Dangling' && condition.status === 'False');
}

/** The ExecutingRequests column of a level in dump_priority_levels. */
async function executing(server: ServerProcess, level: string): Promise<number> {
  const dump = (await get(server, '/debug/api_priority_and_fairness/dump_priority_levels', 'text/plain')).text.split('\n');
  const header = dump[0]!.split(',').map((cell) => cell.trim());
  const row = dump
    .find((line) => line.split(',')[0]!.trim() === level)
    ?.split(',')
    .map((cell) => cell.trim());
  return row === undefined ? Number.NaN : Number(row[header.indexOf('ExecutingRequests')]);
}

test('a LIST built on the pool keeps its seat until its body is on the socket: the next request of its one-seat level is rejected', async () => {
  const own = join(dir, 'seats');
  // About 10 MB of FlowSchemas: far more than the socket buffers take while the client does not read.
  await prefillFlowSchemas(own, { count: 400, paddingBytes: 24_000 });
  const tokens = join(dir, 'seats-tokens.csv');
  await writeFile(tokens, `${SLOW_TOKEN},slow,uid-slow,"e2e"\n`);
  const server = await startServerProcess({
    dataDir: own,
    storageBackend: 'leveldb',
    args: ['--max-requests-inflight=20', '--max-mutating-requests-inflight=10', `--token-auth-file=${tokens}`],
  });
  try {
    const level = {
      kind: 'PriorityLevelConfiguration',
      apiVersion: `${GROUP}/v1`,
      metadata: { name: 'e2e-one-seat' },
      spec: { type: 'Limited', limited: { nominalConcurrencyShares: 1, lendablePercent: 0, borrowingLimitPercent: 0, limitResponse: { type: 'Reject' } } },
    };
    const schema = {
      kind: 'FlowSchema',
      apiVersion: `${GROUP}/v1`,
      metadata: { name: 'e2e-one-seat' },
      spec: {
        priorityLevelConfiguration: { name: 'e2e-one-seat' },
        matchingPrecedence: 100,
        rules: [
          { subjects: [{ kind: 'User', user: { name: 'slow' } }], resourceRules: [{ verbs: ['*'], apiGroups: ['*'], resources: ['*'], clusterScope: true }] },
        ],
      },
    };
    for (const [path, body] of [
      [PLC, level],
      [FS, schema],
    ] as const) {
      const created = await timedRequest(endpoint(server), path, { method: 'POST', token: server.token, body: JSON.stringify(body) });
      assert.is(created.status, 201, created.text);
    }
    // Wait until the server's configuration has the level (its row appears in the dump) and the
    // schema: the controller digests changes in batches, and the Dangling condition is written
    // after the digest that holds the schema and its level.
    await until(async () => !Number.isNaN(await executing(server, 'e2e-one-seat')), 'the level is in the configuration');
    await until(() => digested(server, 'e2e-one-seat'), 'the schema is in the configuration');

    // A Table of every object with the objects in it: its rows made on the pool (kept for the next
    // Table LIST, api/handlers/encoded-items.ts), then read slowly.
    const held = timedRequest(endpoint(server), `${FS}?includeObject=Object`, {
      token: SLOW_TOKEN,
      headers: { Accept: TABLE },
      holdMs: 4_000,
      discardBody: true,
      timeoutMs: 120_000,
    });
    await until(async () => (await executing(server, 'e2e-one-seat')) === 1, "the slow LIST holds the level's seat");
    // The rows are made on the pool; the body sits unread; the seat is still taken.
    await until(
      async () =>
        (sampleValue((await get(server, '/metrics', 'text/plain')).text, 'fairway_execution_stages_total', {
          stage: 'encode-table-rows',
          executor: 'pool',
          outcome: 'ok',
        }) ?? 0) >= 1,
      "the Table's rows were made on the pool",
    );
    const next = await timedRequest(endpoint(server), FS, { token: SLOW_TOKEN, discardBody: true });
    assert.is(next.status, 429, "the level's one seat is still held");
    assert.is(await executing(server, 'e2e-one-seat'), 1);

    const first = await held;
    assert.is(first.status, 200);
    assert.ok(first.bytes > 8_000_000, `${first.bytes} bytes`);
    await until(async () => (await executing(server, 'e2e-one-seat')) === 0, 'the seat is released');
    const after = await timedRequest(endpoint(server), FS, { token: SLOW_TOKEN, discardBody: true });
    assert.is(after.status, 200, 'the seat is free once the body was written');
  } finally {
    await server.stop();
  }
});

test.run();
