import { test } from 'uvu';
import * as assert from 'uvu/assert';
import type { FlowController } from '../../engine/flowcontrol/controller.ts';
import type { Admission } from '../../engine/flowcontrol/queue-set.ts';
import { SimClock } from '../../sim/sim-clock.ts';
import { createFairwayMetrics } from './fairway-metrics.ts';
import { AUTHENTICATED, defaultApfConfig, digestOf, MASTERS, newTestController, tinyApfConfig } from './testing/apf-fixtures.ts';
import { byLabel, parseExposition, sampleValue } from './testing/exposition.ts';

function setup(serverConcurrencyLimit: number, config = defaultApfConfig()) {
  const clock = new SimClock(1_000_000);
  const metrics = createFairwayMetrics();
  const controller = newTestController({ clock, serverConcurrencyLimit, config, observer: metrics.flowControl.observer });
  metrics.flowControl.attach(controller);
  const scrape = async () => parseExposition(await metrics.registry.metrics());
  return { clock, metrics, controller, scrape };
}

const NS = 'apiserver_flowcontrol_';

test('at the default configuration and ServerCL 600 the limit gauges equal the reference vectors (apf-semantics 11.2)', async () => {
  const { scrape } = setup(600);
  const samples = await scrape();
  const nominal = { exempt: 0, 'catch-all': 13, system: 74, 'node-high': 98, 'leader-election': 25, 'workload-high': 98, 'workload-low': 245, 'global-default': 49 };
  assert.equal(byLabel(samples, `${NS}nominal_limit_seats`, 'priority_level'), nominal);
  assert.equal(byLabel(samples, `${NS}request_concurrency_limit`, 'priority_level'), nominal);
  assert.equal(byLabel(samples, `${NS}lower_limit_seats`, 'priority_level'), {
    exempt: 0, 'catch-all': 13, system: 50, 'node-high': 73, 'leader-election': 25, 'workload-high': 49, 'workload-low': 24, 'global-default': 24,
  });
  assert.equal(byLabel(samples, `${NS}upper_limit_seats`, 'priority_level'), {
    exempt: 600, 'catch-all': 613, system: 674, 'node-high': 698, 'leader-election': 625, 'workload-high': 698, 'workload-low': 845, 'global-default': 649,
  });
  // Idle borrowing hands seats out in proportion to MinCL.
  assert.equal(byLabel(samples, `${NS}current_limit_seats`, 'priority_level'), {
    exempt: 0, 'catch-all': 30, system: 117, 'node-high': 170, 'leader-election': 58, 'workload-high': 114, 'workload-low': 56, 'global-default': 56,
  });
  // With no demand each limited level aims at its MinCL.
  assert.is(sampleValue(samples, `${NS}target_seats`, { priority_level: 'global-default' }), 24);
  const fairFrac = sampleValue(samples, `${NS}seat_fair_frac`, {});
  assert.ok(fairFrac !== undefined && Math.abs(fairFrac - 602 / 258) < 1e-9, `seat_fair_frac ${fairFrac}`);
});

test('dispatches, rejections, waits, execution times and queue lengths are counted per level and schema', async () => {
  const { clock, controller, scrape } = setup(10, tinyApfConfig());
  const admit = (c: FlowController, user: string, groups: string[]) => {
    const entry = { admission: undefined as unknown as Admission, outcome: 'pending' };
    entry.admission = c.admit({ digest: digestOf(user, groups), query: {} }, (o) => (entry.outcome = o.decision.kind === 'reject' ? o.decision.reason : 'execute'));
    return entry;
  };
  const flood = Array.from({ length: 8 }, () => admit(controller, 'mallory', AUTHENTICATED));
  const root = admit(controller, 'root', MASTERS);
  assert.equal(flood.map((f) => f.outcome), ['execute', 'execute', 'pending', 'pending', 'queue-full', 'queue-full', 'queue-full', 'queue-full']);

  let samples = await scrape();
  const pair = { flow_schema: 'flood', priority_level: 'tiny' };
  assert.is(sampleValue(samples, `${NS}rejected_requests_total`, { ...pair, reason: 'queue-full' }), 4);
  assert.is(sampleValue(samples, `${NS}dispatched_requests_total`, pair), 2);
  assert.is(sampleValue(samples, `${NS}dispatched_requests_total`, { flow_schema: 'exempt', priority_level: 'exempt' }), 1);
  assert.is(sampleValue(samples, `${NS}current_inqueue_requests`, pair), 2);
  assert.is(sampleValue(samples, `${NS}current_inqueue_seats`, pair), 2);
  assert.is(sampleValue(samples, `${NS}current_executing_requests`, pair), 2);
  assert.is(sampleValue(samples, `${NS}current_executing_requests`, { flow_schema: 'exempt', priority_level: 'exempt' }), 1);
  // Queue lengths after enqueue: 1 and 1 (dispatched at once), then 1 and 2 (left waiting).
  assert.is(sampleValue(samples, `${NS}request_queue_length_after_enqueue_count`, pair), 4);
  assert.is(sampleValue(samples, `${NS}request_queue_length_after_enqueue_sum`, pair), 5);
  assert.is(sampleValue(samples, `${NS}work_estimated_seats_bucket`, { ...pair, le: '1' }), 8);

  clock.advance(30);
  flood[0]!.admission.finish(); // the first waiting request is dispatched after 30 ms
  root.admission.finish();
  samples = await scrape();
  const wait = (execute: string, le: string) => sampleValue(samples, `${NS}request_wait_duration_seconds_bucket`, { ...pair, execute, le });
  assert.is(wait('true', '0'), 2);
  assert.is(wait('true', '0.02'), 2);
  assert.is(wait('true', '0.05'), 3);
  assert.is(wait('true', '+Inf'), 3);
  assert.is(wait('false', '0'), 4, 'rejections on arrival waited 0 s');
  assert.is(sampleValue(samples, `${NS}request_execution_seconds_count`, { ...pair, type: 'regular' }), 1);
  assert.is(sampleValue(samples, `${NS}request_execution_seconds_sum`, { ...pair, type: 'regular' }), 0.03);
  assert.not.ok(samples.some((s) => s.name.startsWith(`${NS}request_wait_duration_seconds`) && s.labels.priority_level === 'exempt'), 'exempt requests never wait');

  flood[1]!.admission.finish(); // the last waiting request is dispatched
  samples = await scrape();
  assert.is(sampleValue(samples, `${NS}current_executing_requests`, pair), 2);
  // Drained series still report 0 rather than vanishing.
  assert.is(sampleValue(samples, `${NS}current_inqueue_requests`, pair), 0);
  assert.is(sampleValue(samples, `${NS}current_executing_requests`, { flow_schema: 'exempt', priority_level: 'exempt' }), 0);
  flood[2]!.admission.finish();
  flood[3]!.admission.finish();
  samples = await scrape();
  assert.is(sampleValue(samples, `${NS}current_executing_requests`, pair), 0);
  assert.is(sampleValue(samples, `${NS}dispatched_requests_total`, pair), 4);
});

test('histogram lines carry the exact Kubernetes buckets and labels sorted by name', async () => {
  const { controller, metrics } = setup(600);
  controller.admit({ digest: digestOf('alice', AUTHENTICATED), query: {} }, () => {});
  const text = await metrics.registry.metrics();
  const les = parseExposition(text)
    .filter((s) => s.name === `${NS}request_wait_duration_seconds_bucket`)
    .map((s) => s.labels.le);
  assert.equal(les, ['0', '0.005', '0.02', '0.05', '0.1', '0.2', '0.5', '1', '2', '5', '10', '15', '30', '+Inf']);
  assert.ok(text.includes(`${NS}request_wait_duration_seconds_bucket{execute="true",flow_schema="global-default",priority_level="global-default",le="0.005"} 1\n`));
  assert.ok(text.includes(`# TYPE ${NS}dispatched_requests_total counter\n`));
  const seatsBounds = parseExposition(text).filter((s) => s.name === `${NS}work_estimated_seats_bucket`).map((s) => s.labels.le);
  assert.equal(seatsBounds, ['1', '2', '4', '10', '+Inf']);
});

test('shadow-mode would-be rejections have their own counter', async () => {
  const { controller, metrics, scrape } = setup(10, tinyApfConfig());
  for (let i = 0; i < 5; i++) {
    controller.admit({ digest: digestOf('mallory', AUTHENTICATED), query: {} }, (outcome) => metrics.apfFilterObserver.unenforcedRejection?.(undefined as never, outcome));
  }
  const samples = await scrape();
  assert.is(sampleValue(samples, 'fairway_flowcontrol_unenforced_rejections_total', { flow_schema: 'flood', priority_level: 'tiny', reason: 'queue-full' }), 1);
});

test.run();
