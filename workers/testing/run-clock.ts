// Test helper: advances a SimClock one event at a time, letting promise continuations run after
// each, so code awaiting an executor observes the virtual instant its work completed.
import type { SimClock } from '../../engine/sim-clock.ts';

export const flushMicrotasks = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

export async function runClock(clock: SimClock, untilMs: number): Promise<void> {
  await flushMicrotasks();
  for (;;) {
    const due = clock.nextDueMs();
    if (due === undefined || due > untilMs) break;
    clock.step();
    await flushMicrotasks();
  }
  clock.runUntil(untilMs);
  await flushMicrotasks();
}
