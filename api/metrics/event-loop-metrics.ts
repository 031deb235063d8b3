// The main thread as an operator sees it: APF isolates priority levels only while no single piece of
// admitted work holds the one event loop for long (docs/execution-plane.md), so /metrics shows how
// long the loop was held and how busy it was.
//
//   fairway_event_loop_delay_max_seconds   worst delay of the loop since the previous scrape
//   fairway_event_loop_delay_p99_seconds   its 99th percentile over the same window
//   fairway_event_loop_utilization         share of the window the loop was busy (0–1)
//   fairway_event_loop_busy_seconds_total  busy time since start (rate() it when several scrapers share the gauges' windows)
//
// Delays come from perf_hooks.monitorEventLoopDelay (a 10 ms sampling timer: a delay shows once it
// exceeds about that resolution), utilisation from performance.eventLoopUtilization. Node-level
// measurement of the real clock: it lives in the API layer, never in engine/.

import { monitorEventLoopDelay, performance, type EventLoopUtilization } from 'node:perf_hooks';
import { Counter, Gauge, type Registry } from 'prom-client';

/** The sampling timer's period. */
const RESOLUTION_MS = 10;

export interface EventLoopMetrics {
  /** Stops the sampling timer. */
  stop(): void;
}

export function registerEventLoopMetrics(registry: Registry): EventLoopMetrics {
  const delay = monitorEventLoopDelay({ resolution: RESOLUTION_MS });
  delay.enable();
  let windowStart: EventLoopUtilization = performance.eventLoopUtilization();
  let countedActiveMs = windowStart.active;
  // One window per scrape: the first gauge (registration order is collection order) closes the
  // window and resets the histogram; the other two report the same window.
  let window = { maxSeconds: 0, p99Seconds: 0, utilization: 0 };
  const closeWindow = (): void => {
    const now = performance.eventLoopUtilization();
    const since = performance.eventLoopUtilization(now, windowStart);
    windowStart = now;
    // Each sample is the time between two ticks of the sampling timer: the delay plus its period.
    const sampled = delay.count > 0;
    window = {
      maxSeconds: sampled ? Math.max(0, delay.max / 1e9 - RESOLUTION_MS / 1000) : 0,
      p99Seconds: sampled ? Math.max(0, delay.percentile(99) / 1e9 - RESOLUTION_MS / 1000) : 0,
      utilization: since.utilization,
    };
    delay.reset();
  };
  new Gauge({
    name: 'fairway_event_loop_delay_max_seconds',
    help: 'Longest delay of the main event loop since the previous scrape: the longest the main thread was held by one piece of work.',
    registers: [registry],
    collect() {
      closeWindow();
      this.set(window.maxSeconds);
    },
  });
  new Gauge({
    name: 'fairway_event_loop_delay_p99_seconds',
    help: '99th percentile of the main event loop delay since the previous scrape.',
    registers: [registry],
    collect() {
      this.set(window.p99Seconds);
    },
  });
  new Gauge({
    name: 'fairway_event_loop_utilization',
    help: 'Share of the time since the previous scrape that the main event loop was busy (0 to 1).',
    registers: [registry],
    collect() {
      this.set(window.utilization);
    },
  });
  new Counter({
    name: 'fairway_event_loop_busy_seconds_total',
    help: 'Time the main event loop has been busy since the server started.',
    registers: [registry],
    collect() {
      const active = performance.eventLoopUtilization().active;
      this.inc(Math.max(0, active - countedActiveMs) / 1000);
      countedActiveMs = active;
    },
  });
  return { stop: () => delay.disable() };
}
