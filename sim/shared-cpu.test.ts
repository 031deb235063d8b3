// Processor sharing on virtual time: requests stretch only while the demand exceeds the cores, a
// completion is re-timed when the rate changes, and ties finish in the order they started.

import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { SimClock } from '../engine/sim-clock.ts';
import { SharedCpu } from './shared-cpu.ts';

function harness(cpus: number) {
  const clock = new SimClock(0);
  const finished: [string, number][] = [];
  const observed: number[] = [];
  const cpu = new SharedCpu(clock, cpus, (demand) => observed.push(demand));
  const start = (name: string, serviceMs: number, cpuDemand = 1, memoryBytes = 0) =>
    cpu.start({ serviceMs, cpuDemand, memoryBytes, fire: () => finished.push([name, clock.now()]) });
  return { clock, cpu, finished, observed, start };
}

test('within the cores every request runs at its own pace', () => {
  const h = harness(2);
  h.start('a', 100);
  h.start('b', 50);
  h.clock.runUntil(1000);
  assert.equal(h.finished, [
    ['b', 50],
    ['a', 100],
  ]);
});

test('above the cores every running request slows by cores ÷ demand, and speeds up when one ends', () => {
  const h = harness(1);
  h.start('a', 100);
  h.start('b', 50);
  h.clock.runUntil(1000);
  // Both at half speed: b's 50 ms take 100 ms; a has 50 ms left, alone at full speed.
  assert.equal(h.finished, [
    ['b', 100],
    ['a', 150],
  ]);
  assert.is(h.cpu.demand, 0);
});

test('a request arriving later re-times the running one; partial demands add up', () => {
  const h = harness(1);
  h.start('a', 100, 0.5);
  h.clock.runUntil(40);
  h.start('b', 100, 1);
  h.clock.runUntil(1000);
  // From 40 ms the demand is 1.5 on one core: both progress at 2/3. a has 60 ms left → 90 ms more.
  assert.is(h.finished[0]![0], 'a');
  assert.ok(Math.abs(h.finished[0]![1] - 130) < 1e-6, String(h.finished[0]![1]));
  // b did 60 ms by then and runs its last 40 ms alone.
  assert.ok(Math.abs(h.finished[1]![1] - 170) < 1e-6, String(h.finished[1]![1]));
  assert.equal(h.observed, [0.5, 1.5, 1, 0]);
});

test('equal finishes complete in the order they started', () => {
  const h = harness(4);
  for (const name of ['x', 'y', 'z']) h.start(name, 10);
  h.clock.runUntil(100);
  assert.equal(
    h.finished.map(([n]) => n),
    ['x', 'y', 'z'],
  );
});

test.run();
