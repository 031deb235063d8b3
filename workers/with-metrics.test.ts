import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { SimClock } from '../engine/sim-clock.ts';
import type { Executor, Work } from './executor.ts';
import { runClock } from './testing/run-clock.ts';
import { createVirtualExecutor } from './testing/virtual-executor.ts';
import { createExecutorMetrics, withMetrics, type ExecutionOutcome } from './with-metrics.ts';

const sleep = (ms: number): Work => ({ stage: 'noop', payload: ms });

test('the observer sees each start and each outcome with its virtual duration', async () => {
  const clock = new SimClock(0);
  const inner = createVirtualExecutor({ clock, serviceTimeMs: (w) => (w.stage === 'noop' ? (w.payload as number) : 5) });
  const events: string[] = [];
  const executor = withMetrics(
    inner,
    {
      onStart: (stage) => events.push(`start ${stage}@${clock.now()}`),
      onSettle: (stage, outcome: ExecutionOutcome, ms) => events.push(`${outcome} ${stage} ${ms}ms@${clock.now()}`),
    },
    clock,
  );
  void executor.execute(sleep(30));
  void executor.execute({ stage: 'sleep-cpu', payload: { iterations: -1 } }).catch(() => undefined);
  void executor.execute({ stage: 'nope', payload: null }).catch(() => undefined);
  await runClock(clock, 100);
  assert.equal(events, [
    'start noop@0',
    'start sleep-cpu@0',
    'start nope@0',
    'FW_ERR_EXECUTOR_UNKNOWN_STAGE nope 0ms@0',
    'FW_ERR_EXECUTOR_STAGE_FAILED sleep-cpu 5ms@5',
    'ok noop 30ms@30',
  ]);
});

test('createExecutorMetrics keeps per-stage counters: in flight, outcomes by code, durations', async () => {
  const clock = new SimClock(0);
  const metrics = createExecutorMetrics();
  const inner: Executor = createVirtualExecutor({ clock, serviceTimeMs: (w) => (w.stage === 'noop' ? (w.payload as number) : 50) });
  const executor = withMetrics(inner, metrics, clock);
  void executor.execute(sleep(10));
  void executor.execute(sleep(20));
  void executor.execute({ stage: 'sleep-cpu', payload: { iterations: -1 } }).catch(() => undefined);
  await runClock(clock, 30);
  assert.equal(metrics.dump(), {
    noop: { started: 2, inFlight: 0, outcomes: { ok: 2 }, durationMsSum: 30, durationMsMax: 20 },
    'sleep-cpu': { started: 1, inFlight: 1, outcomes: {}, durationMsSum: 0, durationMsMax: 0 },
  });
  await runClock(clock, 200);
  assert.equal(metrics.dump()['sleep-cpu'], {
    started: 1,
    inFlight: 0,
    outcomes: { FW_ERR_EXECUTOR_STAGE_FAILED: 1 },
    durationMsSum: 50,
    durationMsMax: 50,
  });
  // dump() is a copy: changing it changes nothing inside.
  const copy = metrics.dump();
  copy['noop']!.started = 99;
  assert.is(metrics.dump()['noop']!.started, 2);
});

test('non-executor errors count as "error" and still reject the caller', async () => {
  const failing: Executor = { execute: () => Promise.reject(new Error('boom')), close: () => Promise.resolve() };
  const metrics = createExecutorMetrics();
  const error = await withMetrics(failing, metrics)
    .execute(sleep(1))
    .catch((e: unknown) => e);
  assert.match((error as Error).message, 'boom');
  assert.equal(metrics.dump()['noop']?.outcomes, { error: 1 });
});

test.run();
