import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { adoptWrittenObject } from '../engine/store/cached-object.ts';
import { encodeObject } from '../engine/store/codec.ts';
import { isStoreErrorCode } from '../engine/store/store-errors.ts';
import type { KubeObject } from '../engine/resources/types.ts';
import type { Executor, Work } from './executor.ts';
import { createInlineExecutor } from './inline-executor.ts';
import { findStage } from './stages.ts';
import { packPayload } from './stored-objects.ts';
import { isApiError } from '../engine/status/errors.ts';
import { executorPatchApplier } from './patch-stage.ts';
import type { PatchRequest } from '../engine/patch/patch-applier.ts';

const GROUP = 'flowcontrol.apiserver.k8s.io';

const stored = (): KubeObject => {
  const object: KubeObject = {
    kind: 'FlowSchema',
    apiVersion: `${GROUP}/v1`,
    metadata: { name: 'fs', uid: 'u-1', generation: 1, creationTimestamp: '2026-01-01T00:00:00Z' },
    spec: { priorityLevelConfiguration: { name: 'global-default' }, matchingPrecedence: 500, distinguisherMethod: { type: 'ByUser' }, rules: [] },
  };
  return adoptWrittenObject('/r/fs', 'fs', object, 7, encodeObject(object)).object;
};

const request = (contentType: PatchRequest['contentType'], body: string, current: KubeObject | undefined = stored()): PatchRequest => ({
  contentType,
  body,
  current,
  kind: 'FlowSchema',
  apiVersion: `${GROUP}/v1`,
  name: 'fs',
  fieldManager: 'kubectl',
  force: false,
  fieldValidation: 'Strict',
  subresource: '',
  nowTime: '2026-01-02T00:00:00Z',
});

/** Runs the stage as the pool would: the payload packed (codec bytes), run, and its result packed to cross back. */
const packedExecutor: Executor = {
  async execute<R>(work: Work): Promise<R> {
    const stage = findStage(work.stage)!;
    const result = stage.run(packPayload(work.payload)!.payload);
    return (stage.packResult === undefined ? result : stage.packResult(result)) as R;
  },
  close: async () => undefined,
};

const APPLY = `apiVersion: ${GROUP}/v1
kind: FlowSchema
metadata: {name: fs}
spec:
  priorityLevelConfiguration: {name: workload-low}
  matchingPrecedence: 600
  rules:
  - subjects: [{kind: User, user: {name: "a<b>"}}]
    resourceRules: [{verbs: [get], apiGroups: [""], resources: [pods], clusterScope: true}]
`;

test('a patch gives the same result on the main thread and from packed codec bytes', async () => {
  const here = executorPatchApplier(createInlineExecutor(), GROUP);
  const there = executorPatchApplier(packedExecutor, GROUP);
  for (const [type, body] of [
    ['application/apply-patch+yaml', APPLY],
    ['application/strategic-merge-patch+json', '{"spec":{"matchingPrecedence":700}}'],
    ['application/merge-patch+json', '{"metadata":{"labels":{"a":"b"}}}'],
    ['application/json-patch+json', '[{"op":"replace","path":"/spec/matchingPrecedence","value":800}]'],
  ] as const) {
    const a = await here(request(type, body));
    const b = await there(request(type, body));
    assert.is(JSON.stringify(b), JSON.stringify(a), type);
  }
  const applied = await here(request('application/apply-patch+yaml', APPLY));
  assert.is((applied.object.spec as { matchingPrecedence: number }).matchingPrecedence, 600);
  assert.equal(
    applied.object.metadata?.managedFields?.map((entry) => [entry.manager, entry.operation]),
    [['kubectl', 'Apply']],
  );
  // Server-side apply of an object that does not exist yet.
  const created = await there(request('application/apply-patch+yaml', APPLY, undefined));
  assert.is(created.object.metadata?.name, 'fs');
});

test('on the main thread the patched object is handed over as it is, not as JSON text parsed again', () => {
  const stage = findStage('merge-patch')!;
  const { current, ...rest } = request('application/merge-patch+json', '{"spec":{"matchingPrecedence":900}}');
  const payload = { objects: [{ object: current, codecBytes: new Uint8Array(0) }], request: rest, group: GROUP };
  const outcome = stage.run(payload) as Record<string, unknown>;
  assert.ok(Object.hasOwn(outcome, 'object'), `keys: ${Object.keys(outcome).join(', ')}`);
  assert.not.ok(Object.hasOwn(outcome, 'json'));
  const crossed = stage.packResult?.(outcome) as { json?: Uint8Array } | undefined;
  assert.ok(crossed?.json instanceof Uint8Array, 'from a worker it crosses as bytes');
  assert.equal(JSON.parse(Buffer.from(crossed.json).toString('utf8')), JSON.parse(JSON.stringify(outcome.object)));
});

test('refusals cross the thread as the errors the write path expects', async () => {
  const there = executorPatchApplier(packedExecutor, GROUP);
  const invalid = await Promise.resolve(there(request('application/merge-patch+json', '{"spec":{"matchingPrecedence":"high"}}'))).then(
    () => undefined,
    (error: unknown) => error,
  );
  assert.ok(isApiError(invalid), String(invalid));
  assert.is(invalid.status.code, 422);
  const conflict = await Promise.resolve(there(request('application/merge-patch+json', '{"metadata":{"resourceVersion":"1"}}'))).then(
    () => undefined,
    (error: unknown) => error,
  );
  assert.ok(isStoreErrorCode(conflict, 'FW_ERR_STORE_CONFLICT'), String(conflict));
});

test('a JSON patch value written 5e3 for an integer is refused (422) on the pool as on the main thread', async () => {
  const body = '[{"op":"replace","path":"/spec/matchingPrecedence","value":5e3}]';
  const refusal = (applier: ReturnType<typeof executorPatchApplier>) =>
    Promise.resolve(applier(request('application/json-patch+json', body))).then(
      () => undefined,
      (error: unknown) => error,
    );
  const here = await refusal(executorPatchApplier(createInlineExecutor(), GROUP));
  const there = await refusal(executorPatchApplier(packedExecutor, GROUP));
  assert.ok(isApiError(there), String(there));
  assert.is(there.status.code, 422);
  assert.match(there.status.message ?? '', /5e3/);
  assert.ok(isApiError(here), String(here));
  assert.equal(there.status, here.status);
});

test('keys named like Object.prototype members come back from the pool as own fields', async () => {
  const there = executorPatchApplier(packedExecutor, GROUP);
  const patched = await there(request('application/merge-patch+json', '{"metadata":{"labels":{"__proto__":"x","constructor":"y"}}}'));
  const labels = patched.object.metadata?.labels as Record<string, string>;
  assert.ok(Object.hasOwn(labels, '__proto__'));
  assert.is(Object.getPrototypeOf(labels), Object.prototype);
  assert.equal(Object.entries(labels), [
    ['__proto__', 'x'],
    ['constructor', 'y'],
  ]);
});

test('the patch stages are sized by the stored bytes and the patch body', () => {
  assert.is(findStage('merge-patch')?.run, findStage('apply-patch')?.run, 'one applier, two cost classes');
  const stage = findStage('merge-patch')!;
  const current = stored();
  const size = stage.sizeOf({ objects: [{ object: current, codecBytes: new Uint8Array(100) }], request: { body: 'x'.repeat(50) } });
  assert.is(size, 150);
  assert.is(stage.sizeOf(null), 0);
});

test.run();
