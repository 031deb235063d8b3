import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { SimClock } from '../engine/sim-clock.ts';
import { isExecutorErrorCode, type ExecutorError } from './executor-errors.ts';
import type { Executor, Work } from './executor.ts';
import { runClock } from './testing/run-clock.ts';
import { createVirtualExecutor } from './virtual-executor.ts';
import { withTimeout } from './with-timeout.ts';

const sleep = (ms: number): Work => ({ stage: 'noop', payload: ms });
const virtual = (clock: SimClock): Executor => createVirtualExecutor({ clock, serviceTimeMs: (work) => work.payload as number });

test('work slower than the limit is rejected at exactly the limit, with a coded error naming the stage', async () => {
  const clock = new SimClock(500);
  const executor = withTimeout(virtual(clock), 100, clock);
  let rejectedAt = -1;
  let reason: ExecutorError | undefined;
  void executor.execute(sleep(250)).catch((error: ExecutorError) => {
    rejectedAt = clock.now();
    reason = error;
  });
  await runClock(clock, 599);
  assert.is(rejectedAt, -1);
  await runClock(clock, 600);
  assert.is(rejectedAt, 600);
  assert.ok(isExecutorErrorCode(reason, 'FW_ERR_EXECUTOR_TIMEOUT'));
  assert.is(reason?.stage, 'noop');
  assert.is(reason?.message, 'stage "noop" did not finish within 100 ms');

  // The abandoned work still holds its thread until it really ends: workSettled says when.
  let settledAt = -1;
  void reason?.workSettled?.then(() => (settledAt = clock.now()));
  await runClock(clock, 749);
  assert.is(settledAt, -1);
  await runClock(clock, 1000);
  assert.is(settledAt, 750);
});

test('work within the limit resolves normally and its timer is cancelled', async () => {
  const clock = new SimClock(0);
  const executor = withTimeout(virtual(clock), 100, clock);
  let value: unknown;
  void executor.execute(sleep(40)).then((v) => (value = v));
  await runClock(clock, 40);
  assert.is(value, 40);
  assert.is(clock.pending, 0, 'no timeout event left behind');
});

test('errors from the wrapped executor pass through untouched', async () => {
  const clock = new SimClock(0);
  const executor = withTimeout(virtual(clock), 100, clock);
  const error = await executor.execute({ stage: 'missing', payload: 1 }).catch((e: unknown) => e);
  assert.ok(isExecutorErrorCode(error, 'FW_ERR_EXECUTOR_UNKNOWN_STAGE'));
  assert.is(clock.pending, 0);
});

test('the limit must be a positive number; Infinity means no limit', async () => {
  const clock = new SimClock(0);
  const inner = virtual(clock);
  for (const bad of [0, -1, Number.NaN]) assert.throws(() => withTimeout(inner, bad, clock), /timeoutMs must be a positive number/);
  assert.is(withTimeout(inner, Number.POSITIVE_INFINITY, clock), inner);
});

test('closing the wrapper closes the wrapped executor', async () => {
  const clock = new SimClock(0);
  const executor = withTimeout(virtual(clock), 100, clock);
  await executor.close();
  const error = await executor.execute(sleep(1)).catch((e: unknown) => e);
  assert.ok(isExecutorErrorCode(error, 'FW_ERR_EXECUTOR_CLOSED'));
});

test.run();
