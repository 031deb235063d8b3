import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { isExecutorErrorCode } from './executor-errors.ts';
import type { Work } from './executor.ts';
import { createInlineExecutor } from './inline-executor.ts';
import { sleepCpu } from './stages.ts';

test('runs the stage on the calling thread and resolves with its result', async () => {
  const executor = createInlineExecutor();
  assert.is(await executor.execute<number>({ stage: 'sleep-cpu', payload: { iterations: 77 } }), sleepCpu({ iterations: 77 }));
  const bytes = await executor.execute<Buffer>({ stage: 'encode-json', payload: [1] });
  assert.is(bytes.toString('utf8'), '[1]\n');
});

test('every failure is a rejected promise with a code, never a synchronous throw', async () => {
  const executor = createInlineExecutor();
  const cases: [unknown, string, RegExp][] = [
    [{ stage: 'sleep-cpu', payload: {} }, 'FW_ERR_EXECUTOR_STAGE_FAILED', /^stage "sleep-cpu" failed: payload\.iterations/],
    [{ stage: 'zip', payload: 1 }, 'FW_ERR_EXECUTOR_UNKNOWN_STAGE', /unknown stage "zip"/],
    ['encode-json', 'FW_ERR_EXECUTOR_BAD_WORK', /work must be an object \{stage, payload\}, got the string "encode-json"/],
    [{ stage: '' }, 'FW_ERR_EXECUTOR_BAD_WORK', /work\.stage must be a non-empty string/],
    [{ stage: 'noop', transferList: 'x' }, 'FW_ERR_EXECUTOR_BAD_WORK', /work\.transferList must be an array/],
  ];
  for (const [work, code, message] of cases) {
    let promise: Promise<unknown> | undefined;
    assert.not.throws(() => (promise = executor.execute(work as Work)));
    const error = await promise!.catch((e: unknown) => e);
    assert.ok(isExecutorErrorCode(error, code as never), `${JSON.stringify(work)} → ${String(error)}`);
    assert.match((error as Error).message, message);
  }
});

test('after close() every call is refused', async () => {
  const executor = createInlineExecutor();
  const closing = executor.close();
  assert.is(executor.close(), closing);
  await closing;
  const error = await executor.execute({ stage: 'noop', payload: 1 }).catch((e: unknown) => e);
  assert.ok(isExecutorErrorCode(error, 'FW_ERR_EXECUTOR_CLOSED'));
  assert.is((error as { stage: string }).stage, 'noop');
});

test.run();
