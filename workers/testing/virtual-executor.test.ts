import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { SimClock } from '../../engine/sim-clock.ts';
import { isExecutorErrorCode } from '../executor-errors.ts';
import type { Work } from '../executor.ts';
import { sleepCpu } from '../stages.ts';
import { runClock } from './run-clock.ts';
import { createVirtualExecutor } from './virtual-executor.ts';

const cpu = (iterations: number, label: string): Work => ({ stage: 'sleep-cpu', payload: { iterations, label } });
const serviceFromPayload = (work: Work): number => (work.payload as { iterations: number }).iterations;

test('with unlimited threads each item completes exactly its service time after submission', async () => {
  const clock = new SimClock(1000);
  const executor = createVirtualExecutor({ clock, serviceTimeMs: serviceFromPayload });
  const seen: [string, number, unknown][] = [];
  const submit = (iterations: number, label: string): void => {
    void executor.execute<number>(cpu(iterations, label)).then((value) => seen.push([label, clock.now(), value]));
  };
  submit(30, 'a');
  submit(10, 'b');
  clock.advance(5);
  submit(10, 'c');
  await runClock(clock, 2000);
  assert.equal(seen, [
    ['b', 1010, sleepCpu({ iterations: 10 })],
    ['c', 1015, sleepCpu({ iterations: 10 })],
    ['a', 1030, sleepCpu({ iterations: 30 })],
  ]);
});

test('limited threads queue first-in-first-out; a freed thread starts the next item at that instant', async () => {
  const clock = new SimClock(0);
  const completions: [string, number][] = [];
  const executor = createVirtualExecutor({
    clock,
    threads: 2,
    compute: 'skip',
    serviceTimeMs: serviceFromPayload,
    onComplete: (work, atMs) => completions.push([(work.payload as { label: string }).label, atMs]),
  });
  const results = ['a', 'b', 'c', 'd'].map((label, i) => executor.execute(cpu([40, 10, 5, 5][i]!, label)));
  assert.is(executor.running, 2);
  assert.is(executor.queued, 2);
  await runClock(clock, 100);
  // a: 0→40; b: 0→10; c starts when b ends: 10→15; d starts when c ends: 15→20.
  assert.equal(completions, [
    ['b', 10],
    ['c', 15],
    ['d', 20],
    ['a', 40],
  ]);
  assert.equal(await Promise.all(results), [undefined, undefined, undefined, undefined], "'skip' computes nothing");
  assert.is(executor.running, 0);
  assert.is(executor.queued, 0);
});

test('the same submissions give the same history every time', async () => {
  const history = async (): Promise<string[]> => {
    const clock = new SimClock(0);
    const log: string[] = [];
    const executor = createVirtualExecutor({
      clock,
      threads: 3,
      serviceTimeMs: (work) => serviceFromPayload(work) % 7,
      onComplete: (work, at) => log.push(`${(work.payload as { label: string }).label}@${at}`),
    });
    for (let i = 0; i < 40; i++) void executor.execute(cpu((i * 13) % 50, `w${i}`));
    await runClock(clock, 1000);
    return log;
  };
  const first = await history();
  assert.is(first.length, 40);
  assert.equal(await history(), first);
});

test('stage failures reject at the completion instant with the stage named', async () => {
  const clock = new SimClock(0);
  const executor = createVirtualExecutor({ clock, serviceTimeMs: () => 25 });
  let rejectedAt = -1;
  let reason: unknown;
  void executor.execute({ stage: 'sleep-cpu', payload: { iterations: -1 } }).catch((error: unknown) => {
    rejectedAt = clock.now();
    reason = error;
  });
  await runClock(clock, 24);
  assert.is(rejectedAt, -1);
  await runClock(clock, 100);
  assert.is(rejectedAt, 25);
  assert.ok(isExecutorErrorCode(reason, 'FW_ERR_EXECUTOR_STAGE_FAILED'));
  assert.match((reason as Error).message, /stage "sleep-cpu" failed/);
});

test('bad work and bad service times reject at once without using a thread', async () => {
  const clock = new SimClock(0);
  const executor = createVirtualExecutor({ clock, threads: 1, serviceTimeMs: (work) => work.payload as number });
  const unknown = await executor.execute({ stage: 'nope', payload: 1 }).catch((e: unknown) => e);
  assert.ok(isExecutorErrorCode(unknown, 'FW_ERR_EXECUTOR_UNKNOWN_STAGE'));
  for (const bad of [-1, Number.NaN, Number.POSITIVE_INFINITY]) {
    const error = await executor.execute({ stage: 'noop', payload: bad }).catch((e: unknown) => e);
    assert.ok(isExecutorErrorCode(error, 'FW_ERR_EXECUTOR_BAD_WORK'));
    assert.match((error as Error).message, /virtual service time must be a finite number/);
  }
  assert.is(executor.running, 0);
  assert.is(clock.pending, 0);
  assert.throws(() => createVirtualExecutor({ clock, threads: 0, serviceTimeMs: () => 1 }), /threads must be a positive integer/);
});

test('close() resolves when accepted work completes in virtual time and refuses new work', async () => {
  const clock = new SimClock(0);
  const executor = createVirtualExecutor({ clock, threads: 1, serviceTimeMs: () => 10 });
  const first = executor.execute<number>({ stage: 'noop', payload: 1 });
  const second = executor.execute<number>({ stage: 'noop', payload: 2 });
  let closedAt = -1;
  const closing = executor.close();
  assert.is(executor.close(), closing);
  void closing.then(() => (closedAt = clock.now()));
  const refused = await executor.execute({ stage: 'noop', payload: 3 }).catch((e: unknown) => e);
  assert.ok(isExecutorErrorCode(refused, 'FW_ERR_EXECUTOR_CLOSED'));
  await runClock(clock, 15);
  assert.is(closedAt, -1);
  await runClock(clock, 50);
  assert.is(closedAt, 20);
  assert.equal(await Promise.all([first, second]), [1, 2]);
  // An idle executor closes at once.
  await createVirtualExecutor({ clock, serviceTimeMs: () => 1 }).close();
});

test.run();
