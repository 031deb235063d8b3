// One real pool for the whole file (thread startup with tsx costs a few hundred ms); the close test
// runs last.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { threadId } from 'node:worker_threads';
import { encodeObject } from '../engine/store/codec.ts';
import type { KubeObject } from '../engine/resources/types.ts';
import { isExecutorErrorCode, type ExecutorErrorCode } from './executor-errors.ts';
import { ownedBytes, type Work } from './executor.ts';
import { createInlineExecutor } from './inline-executor.ts';
import { createPiscinaExecutor } from './piscina-executor.ts';
import { sleepCpu } from './stages.ts';
import { adoptWrittenObject } from '../engine/store/cached-object.ts';
import type { RenderSpec } from '../engine/render/render-body.ts';
import { renderWork } from './render-stages.ts';
import { encodeObjectsWork } from './objects-json.ts';

const pool = createPiscinaExecutor({ threads: 1 });
const inline = createInlineExecutor();

async function rejection(promise: Promise<unknown>): Promise<unknown> {
  try {
    await promise;
  } catch (error) {
    return error;
  }
  throw new assert.Assertion({ message: 'expected the promise to reject', operator: 'rejects', expects: 'rejection', actual: 'resolution' });
}

async function assertRejectsWith(promise: Promise<unknown>, code: ExecutorErrorCode, message: RegExp): Promise<unknown> {
  const error = await rejection(promise);
  assert.ok(isExecutorErrorCode(error, code), `expected ${code}, got ${String(error)}`);
  assert.match((error as Error).message, message);
  return error;
}

const pl = (name: string): KubeObject => ({
  apiVersion: 'flowcontrol.apiserver.k8s.io/v1',
  kind: 'PriorityLevelConfiguration',
  metadata: { name, uid: `uid-${name}`, generation: 1 },
  spec: { type: 'Exempt', exempt: {} },
});

test("work runs on a worker thread, not the caller's", async () => {
  await pool.ready();
  const workerThread = await pool.execute<number>({ stage: 'thread-id', payload: null });
  assert.type(workerThread, 'number');
  assert.is.not(workerThread, threadId);
  assert.is(await inline.execute<number>({ stage: 'thread-id', payload: null }), threadId);
  assert.is(pool.threads, 1);
});

test('results match the inline executor, and bytes arrive as Buffers', async () => {
  const list = { kind: 'List', items: [{ a: '<b>' }, { c: [1, 2] }] };
  const pooled = await pool.execute<Buffer>({ stage: 'encode-json', payload: list });
  const here = await inline.execute<Buffer>({ stage: 'encode-json', payload: list });
  assert.ok(Buffer.isBuffer(pooled));
  assert.ok(pooled.equals(here));
  assert.is(await pool.execute<number>({ stage: 'sleep-cpu', payload: { iterations: 5000 } }), sleepCpu({ iterations: 5000 }));
});

test('stored objects cross as moved codec bytes and render the same bytes as inline', async () => {
  const forms = [pl('a'), pl('b')].map((object, i) => adoptWrittenObject(`/r/${i}`, object.metadata!.name!, object, 10 + i, encodeObject(object)));
  const spec: RenderSpec = {
    list: { kind: 'L', apiVersion: 'v1', metadata: { resourceVersion: '12' } },
    metaGroup: 'meta.k8s.io',
    mediaType: 'application/yaml',
    pretty: false,
  };
  const expected = await inline.execute<Buffer>(renderWork(forms, spec));
  const body = await pool.execute<Buffer>(renderWork(forms, spec));
  assert.ok(body.equals(expected));
  assert.match(body.toString('utf8'), /resourceVersion: "11"/);
  const json = await pool.execute<Buffer>(encodeObjectsWork(forms));
  assert.ok(json.equals(await inline.execute<Buffer>(encodeObjectsWork(forms))));

  const { bytes, transferList } = ownedBytes(Buffer.from('hello, worker'));
  const echoed = await pool.execute<Uint8Array>({ stage: 'noop', payload: bytes, transferList });
  assert.is(bytes.buffer.byteLength, 0);
  assert.is(Buffer.from(echoed).toString('utf8'), 'hello, worker');
});

test('a YAML body composed on a thread gives the inline value, repeated keys and refusals', async () => {
  // A view into a larger buffer, as small request bodies are: only its own bytes are read.
  const slab = Buffer.from('#### a: 1\nb: [yes, "x", {c: ~}]\na: 2\n ####');
  const bytes = slab.subarray(5, slab.length - 5);
  const work = (body: Uint8Array): Work => ({ stage: 'decode-yaml', payload: { bytes: body } });
  const pooled = await pool.execute(work(bytes));
  assert.equal(pooled, await inline.execute(work(bytes)));
  assert.equal(pooled, { ok: true, value: { a: 2, b: [true, 'x', { c: null }] }, duplicateKeys: ['line 3: key "a" already set in map'] });
  const cycle = await pool.execute(work(Buffer.from('a: &a [1, *a]\n')));
  assert.equal(cycle, { ok: false, error: "yaml: anchor 'a' value contains itself", bound: 'expandedNodes' });
});

test('a stage that throws rejects with the stage name and the original error as cause', async () => {
  const error = await assertRejectsWith(
    pool.execute({ stage: 'sleep-cpu', payload: { iterations: -5 } }),
    'FW_ERR_EXECUTOR_STAGE_FAILED',
    /^stage "sleep-cpu" failed: payload\.iterations must be an integer/,
  );
  assert.is((error as { stage: string }).stage, 'sleep-cpu');
  const cause = (error as Error).cause as Error;
  assert.is(cause.name, 'RangeError');
  assert.match(cause.message, /got -5/);
  // The thread survives a failing stage.
  assert.is(await pool.execute<number>({ stage: 'noop', payload: 3 }), 3);
});

test('bad work is a coded rejection, never a synchronous throw', async () => {
  const unknown = pool.execute({ stage: 'gzip', payload: null });
  await assertRejectsWith(unknown, 'FW_ERR_EXECUTOR_UNKNOWN_STAGE', /unknown stage "gzip"; registered stages: .*encode-json/);
  await assertRejectsWith(pool.execute(null as unknown as Work), 'FW_ERR_EXECUTOR_BAD_WORK', /work must be an object/);
  await assertRejectsWith(pool.execute({ stage: 42 } as unknown as Work), 'FW_ERR_EXECUTOR_BAD_WORK', /work\.stage must be a non-empty string/);
  await assertRejectsWith(pool.execute({ stage: 'noop', payload: () => 1 }), 'FW_ERR_EXECUTOR_BAD_WORK', /payload of stage "noop" cannot be sent to a worker/);
  assert.is(await pool.execute<string>({ stage: 'noop', payload: 'still serving' }), 'still serving');
});

test('option errors are reported at construction', () => {
  assert.throws(() => createPiscinaExecutor({ threads: 0 }), /threads must be a positive integer, got 0/);
  assert.throws(() => createPiscinaExecutor({ concurrentTasksPerWorker: 1.5 }), /concurrentTasksPerWorker must be a positive integer/);
});

test('close() lets accepted work finish, then refuses new work (run last)', async () => {
  const iterations = [200_000, 300_000, 400_000];
  const accepted = iterations.map((n) => pool.execute<number>({ stage: 'sleep-cpu', payload: { iterations: n } }));
  assert.is(pool.inFlight, 3);
  const closing = pool.close();
  assert.is(pool.close(), closing, 'close is idempotent');
  await assertRejectsWith(pool.execute({ stage: 'noop', payload: 1 }), 'FW_ERR_EXECUTOR_CLOSED', /executor is closed: cannot run stage "noop"/);
  await closing;
  assert.is(pool.inFlight, 0);
  const settled = await Promise.allSettled(accepted);
  assert.equal(
    settled.map((s) => (s.status === 'fulfilled' ? s.value : s.reason)),
    iterations.map((n) => sleepCpu({ iterations: n })),
  );
  await assertRejectsWith(pool.execute({ stage: 'noop', payload: 1 }), 'FW_ERR_EXECUTOR_CLOSED', /closed/);
});

test.run();
