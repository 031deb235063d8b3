import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { Registry } from 'prom-client';
import { registerEventLoopMetrics } from './event-loop-metrics.ts';

const sample = (text: string, name: string): number => {
  const line = text.split('\n').find((l) => l.startsWith(`${name} `));
  if (line === undefined) throw new Error(`no sample of ${name} in:\n${text}`);
  return Number(line.slice(name.length + 1));
};

const spin = (ms: number): void => {
  const until = performance.now() + ms;
  while (performance.now() < until);
};

test('a main thread held for 80 ms shows as the worst loop delay of the window, with utilisation and busy time', async () => {
  const registry = new Registry();
  const metrics = registerEventLoopMetrics(registry);
  try {
    await new Promise((resolve) => setTimeout(resolve, 30));
    spin(80);
    await new Promise((resolve) => setTimeout(resolve, 30));
    const text = await registry.metrics();
    for (const family of ['fairway_event_loop_delay_max_seconds', 'fairway_event_loop_delay_p99_seconds', 'fairway_event_loop_utilization']) {
      assert.match(text, new RegExp(`# TYPE ${family} gauge`));
    }
    assert.match(text, /# TYPE fairway_event_loop_busy_seconds_total counter/);
    // The sampling timer was late by at least the 80 ms the thread was held, less its 10 ms period.
    assert.ok(sample(text, 'fairway_event_loop_delay_max_seconds') >= 0.07, text);
    assert.ok(sample(text, 'fairway_event_loop_delay_p99_seconds') <= sample(text, 'fairway_event_loop_delay_max_seconds'));
    const utilization = sample(text, 'fairway_event_loop_utilization');
    assert.ok(utilization > 0 && utilization <= 1, `utilization ${utilization}`);
    const busy = sample(text, 'fairway_event_loop_busy_seconds_total');
    assert.ok(busy >= 0.08, `busy ${busy}`);
    const later = await registry.metrics();
    assert.ok(sample(later, 'fairway_event_loop_busy_seconds_total') >= busy, 'the busy time only grows');
  } finally {
    metrics.stop();
  }
});

test.run();
