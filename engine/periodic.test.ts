import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { every, repeat } from './periodic.ts';
import { SimClock } from './sim-clock.ts';

test('every runs one period apart, the first a period from now, until cancelled', () => {
  const clock = new SimClock();
  const runs: number[] = [];
  const cancel = every(clock, 10, () => runs.push(clock.now()));
  clock.advance(35);
  assert.equal(runs, [10, 20, 30]);
  cancel();
  clock.advance(100);
  assert.equal(runs, [10, 20, 30]);
});

test('what the work schedules for the next period instant runs before the next period', () => {
  const clock = new SimClock();
  const order: string[] = [];
  every(clock, 10, () => {
    order.push(`tick ${clock.now()}`);
    clock.after(10, () => order.push(`own ${clock.now()}`));
  });
  clock.advance(20);
  assert.equal(order, ['tick 10', 'own 20', 'tick 20']);
});

test('repeat waits for the delay the work returns, or its promise resolves to', async () => {
  const clock = new SimClock();
  const runs: number[] = [];
  let resolveRound: (delay: number) => void = () => {};
  const cancel = repeat(clock, 0, () => {
    runs.push(clock.now());
    return new Promise<number>((resolve) => (resolveRound = resolve));
  });
  clock.advance(0);
  assert.equal(runs, [0]);
  clock.advance(100);
  assert.equal(runs, [0]);
  resolveRound(5);
  await Promise.resolve();
  clock.advance(5);
  assert.equal(runs, [0, 105]);
  cancel();
  resolveRound(5);
  await Promise.resolve();
  clock.advance(100);
  assert.equal(runs, [0, 105]);
});

test.run();
