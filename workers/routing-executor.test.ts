import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { isExecutorErrorCode } from './executor-errors.ts';
import type { Executor, Work } from './executor.ts';
import { createInlineExecutor } from './inline-executor.ts';
import { createRoutingExecutor, DEFAULT_POOL_THRESHOLDS } from './routing-executor.ts';

/** An executor that runs inline but records which stages it was given and whether it was closed. */
function recording(): Executor & { stages: string[]; closed: boolean } {
  const inner = createInlineExecutor();
  const self = {
    stages: [] as string[],
    closed: false,
    execute<R>(work: Work): Promise<R> {
      self.stages.push(work.stage);
      return inner.execute<R>(work);
    },
    close() {
      self.closed = true;
      return inner.close();
    },
  };
  return self;
}

const cpu = (iterations: number): Work => ({ stage: 'sleep-cpu', payload: { iterations } });

test('work at or above its stage threshold goes to the pool, smaller work stays inline', async () => {
  const inline = recording();
  const pool = recording();
  const router = createRoutingExecutor({ inline, pool, poolThresholds: { 'sleep-cpu': 1000, 'encode-json': 3 } });
  await router.execute(cpu(999));
  await router.execute(cpu(1000));
  await router.execute({ stage: 'encode-json', payload: { items: [1, 2] } });
  await router.execute({ stage: 'encode-json', payload: [1, 2, 3] });
  await router.execute({ stage: 'noop', payload: 1e9 }); // no threshold: inline
  assert.equal(inline.stages, ['sleep-cpu', 'encode-json', 'noop']);
  assert.equal(pool.stages, ['sleep-cpu', 'encode-json']);
  assert.is(router.route(cpu(5000)), 'pool');
  assert.is(router.route({ stage: 'unknown', payload: 1 }), 'inline');
});

test('bad work is routed inline, which rejects it with its code', async () => {
  const inline = recording();
  const pool = recording();
  const router = createRoutingExecutor({ inline, pool, poolThresholds: { 'sleep-cpu': 0 } });
  const error = await router.execute({ stage: 'nope', payload: null }).catch((e: unknown) => e);
  assert.ok(isExecutorErrorCode(error, 'FW_ERR_EXECUTOR_UNKNOWN_STAGE'));
  assert.equal(pool.stages, []);
});

test('thresholds must name registered stages and be non-negative numbers', () => {
  const inline = recording();
  const pool = recording();
  assert.throws(() => createRoutingExecutor({ inline, pool, poolThresholds: { gzip: 1 } }), /unknown stage "gzip"/);
  assert.throws(() => createRoutingExecutor({ inline, pool, poolThresholds: { noop: -1 } }), /must be a number ≥ 0, got -1/);
  assert.not.throws(() => createRoutingExecutor({ inline, pool }));
  assert.ok(Object.keys(DEFAULT_POOL_THRESHOLDS).length > 0);
});

test('the default thresholds never send object encoding to the pool', () => {
  const router = createRoutingExecutor({ inline: recording(), pool: recording() });
  const huge = { items: new Array(1_000_000).fill(0) };
  assert.is(router.route({ stage: 'encode-json', payload: huge }), 'inline');
  assert.is(router.route({ stage: 'encode-json-lines', payload: huge.items }), 'inline');
});

test('close() closes both executors and refuses new work', async () => {
  const inline = recording();
  const pool = recording();
  const router = createRoutingExecutor({ inline, pool });
  const closing = router.close();
  assert.is(router.close(), closing);
  await closing;
  assert.ok(inline.closed && pool.closed);
  const error = await router.execute(cpu(1)).catch((e: unknown) => e);
  assert.ok(isExecutorErrorCode(error, 'FW_ERR_EXECUTOR_CLOSED'));
});

test.run();
