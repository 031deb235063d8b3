import { test } from 'uvu';
import * as assert from 'uvu/assert';
import type { FlowController } from '../../engine/flowcontrol/controller.ts';
import type { Admission } from '../../engine/flowcontrol/queue-set.ts';
import { SimClock } from '../../engine/sim-clock.ts';
import { createFairwayMetrics, type FairwayMetrics } from './fairway-metrics.ts';
import { KUBE_FLOWCONTROL_FAMILIES, KUBE_HIDDEN_FLOWCONTROL_FAMILIES } from './kube-flowcontrol-families.ts';
import { AUTHENTICATED, defaultApfConfig, digestOf, MASTERS, newTestController, podsInfo, tinyApfConfig } from '../filters/testing/apf-fixtures.ts';
import { byLabel, parseExposition, sampleValue } from './testing/exposition.ts';
import { PRIORITY_LEVEL_SEAT_UTILIZATION_BUCKETS } from './buckets.ts';
import { bucketIndex } from './metric-family.ts';

// Each test's metrics stop after it: their event-loop monitor and GC observer would outlive it.
const started: FairwayMetrics[] = [];
test.after.each(() => {
  for (const metrics of started.splice(0)) metrics.stop();
});

function setup(serverConcurrencyLimit: number, config = defaultApfConfig(), showHidden = false) {
  const clock = new SimClock(1_000_000);
  const metrics = createFairwayMetrics(undefined, { now: () => clock.now(), showHidden });
  started.push(metrics);
  const controller = newTestController({ clock, serverConcurrencyLimit, config, observer: metrics.flowControl.observer });
  metrics.flowControl.attach(controller);
  const scrape = async () => parseExposition(await metrics.registry.metrics());
  return { clock, metrics, controller, scrape };
}

const NS = 'apiserver_flowcontrol_';

test('at the default configuration and ServerCL 600 the limit gauges equal the reference vectors (apf-semantics 11.2)', async () => {
  const { scrape } = setup(600);
  const samples = await scrape();
  const nominal = {
    exempt: 0,
    'catch-all': 13,
    system: 74,
    'node-high': 98,
    'leader-election': 25,
    'workload-high': 98,
    'workload-low': 245,
    'global-default': 49,
  };
  assert.equal(byLabel(samples, `${NS}nominal_limit_seats`, 'priority_level'), nominal);
  // Deprecated in 1.30.0, so hidden by component-base in 1.32.
  assert.not.ok(samples.some((s) => s.name === `${NS}request_concurrency_limit`));
  assert.equal(byLabel(samples, `${NS}lower_limit_seats`, 'priority_level'), {
    exempt: 0,
    'catch-all': 13,
    system: 50,
    'node-high': 73,
    'leader-election': 25,
    'workload-high': 49,
    'workload-low': 24,
    'global-default': 24,
  });
  assert.equal(byLabel(samples, `${NS}upper_limit_seats`, 'priority_level'), {
    exempt: 600,
    'catch-all': 613,
    system: 674,
    'node-high': 698,
    'leader-election': 625,
    'workload-high': 698,
    'workload-low': 845,
    'global-default': 649,
  });
  // Idle borrowing hands seats out in proportion to MinCL.
  assert.equal(byLabel(samples, `${NS}current_limit_seats`, 'priority_level'), {
    exempt: 0,
    'catch-all': 30,
    system: 117,
    'node-high': 170,
    'leader-election': 58,
    'workload-high': 114,
    'workload-low': 56,
    'global-default': 56,
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
    entry.admission = c.admit(
      { digest: digestOf(user, groups), query: {} },
      (o) => (entry.outcome = o.decision.kind === 'reject' ? o.decision.reason : 'execute'),
    );
    return entry;
  };
  const flood = Array.from({ length: 8 }, () => admit(controller, 'mallory', AUTHENTICATED));
  const root = admit(controller, 'root', MASTERS);
  assert.equal(
    flood.map((f) => f.outcome),
    ['execute', 'execute', 'pending', 'pending', 'queue-full', 'queue-full', 'queue-full', 'queue-full'],
  );

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
  assert.is(wait('false', '+Inf'), 4);
  assert.is(sampleValue(samples, `${NS}request_execution_seconds_count`, { ...pair, type: 'regular' }), 1);
  assert.is(sampleValue(samples, `${NS}request_execution_seconds_sum`, { ...pair, type: 'regular' }), 0.03);
  assert.not.ok(
    samples.some((s) => s.name.startsWith(`${NS}request_wait_duration_seconds`) && s.labels.priority_level === 'exempt'),
    'exempt requests never wait',
  );

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
  assert.ok(
    text.includes(`${NS}request_wait_duration_seconds_bucket{execute="true",flow_schema="global-default",priority_level="global-default",le="0.005"} 1\n`),
  );
  assert.ok(text.includes(`# TYPE ${NS}dispatched_requests_total counter\n`));
  const seatsBounds = parseExposition(text)
    .filter((s) => s.name === `${NS}work_estimated_seats_bucket`)
    .map((s) => s.labels.le);
  assert.equal(seatsBounds, ['1', '2', '4', '10', '+Inf']);
});

// util/flowcontrol/apf_filter.go Handle: a request that was enqueued and then left its queue
// unexecuted (time-out or cancel) has a non-nil req, so its wait is observed with execute="true";
// only a rejection on arrival is execute="false".
test('a request that times out of its queue is observed in request_wait_duration_seconds with execute="true"', async () => {
  const { clock, controller, scrape } = setup(10, tinyApfConfig());
  const held = Array.from({ length: 4 }, () => controller.admit({ digest: digestOf('mallory', AUTHENTICATED), query: {}, waitLimitMs: 100 }, () => {}));
  clock.advance(100);
  const samples = await scrape();
  const pair = { flow_schema: 'flood', priority_level: 'tiny' };
  const wait = (execute: string, le: string) => sampleValue(samples, `${NS}request_wait_duration_seconds_bucket`, { ...pair, execute, le });
  assert.is(sampleValue(samples, `${NS}rejected_requests_total`, { ...pair, reason: 'time-out' }), 2);
  assert.is(wait('true', '0.05'), 2, 'the two dispatched at once');
  assert.is(wait('true', '0.1'), 4, 'and the two that waited 100 ms and timed out');
  assert.is(wait('false', '+Inf'), undefined, 'nothing was rejected on arrival');
  held[0]!.finish();
  held[1]!.finish();
});

// fairqueuing/queueset/queueset.go: AddSeatConcurrencyInUse(-seats) runs in releaseSeatsLocked,
// after the additional latency, while the executing-requests gauge drops at finish.
test('current_executing_seats counts the seats a finished request still holds for its additional latency', async () => {
  const { clock, controller, scrape } = setup(10, tinyApfConfig());
  const admission = controller.admit(
    { digest: digestOf('mallory', AUTHENTICATED), query: {}, workEstimate: { initialSeats: 1, finalSeats: 2, additionalLatencyMs: 50 } },
    () => {},
  );
  const pair = { flow_schema: 'flood', priority_level: 'tiny' };
  let samples = await scrape();
  assert.is(sampleValue(samples, `${NS}current_executing_seats`, pair), 2);
  admission.finish();
  samples = await scrape();
  assert.is(sampleValue(samples, `${NS}current_executing_requests`, pair), 0, 'the request is done');
  assert.is(sampleValue(samples, `${NS}current_executing_seats`, pair), 2, 'its seats are not, for 50 ms');
  clock.advance(50);
  samples = await scrape();
  assert.is(sampleValue(samples, `${NS}current_executing_seats`, pair), 0);
});

// The families, types, labels and buckets kube-apiserver 1.32 shows, from
// util/flowcontrol/metrics/metrics.go (kube-flowcontrol-families.ts keeps the list as data).
test('every apiserver_flowcontrol_* family kube-apiserver 1.32 shows, with its type, label names and buckets', async () => {
  const { clock, controller, metrics } = setup(10, tinyApfConfig());
  const admit = (verb: string, initialSeats = 1) =>
    controller.admit(
      {
        digest: digestOf('mallory', AUTHENTICATED, podsInfo(verb)),
        query: {},
        workEstimate: verb === 'create' ? undefined : { initialSeats, finalSeats: 0, additionalLatencyMs: 0 },
      },
      () => {},
    );
  const a = admit('create'); // estimated: a watch count is sampled
  admit('create');
  admit('list', 2); // two seats: waits
  admit('list'); // waits
  admit('list'); // the queue is full: rejected
  controller.admit({ digest: digestOf('root', MASTERS), query: {} }, () => {});
  clock.advance(10);
  a.finish(); // one seat frees, the two-seat head does not fit: no accommodation
  // Long enough, at this level's one busy seat, for R to reach Kubernetes' epoch threshold (the
  // first scrape's dump brings R up to date; the second shows what that did).
  clock.advance(5000 * 365 * 24 * 3600 * 1000);
  await metrics.registry.metrics();
  const text = await metrics.registry.metrics();
  const types = new Map([...text.matchAll(/^# TYPE (apiserver_flowcontrol_\S+) (\S+)$/gm)].map((m) => [m[1]!, m[2]!]));
  assert.equal([...types.keys()].sort(), KUBE_FLOWCONTROL_FAMILIES.map((f) => f.name).sort(), 'the same families');
  const samples = parseExposition(text);
  for (const family of KUBE_FLOWCONTROL_FAMILIES) {
    assert.is(types.get(family.name), family.type, family.name);
    const own = samples.filter(
      (x) =>
        x.name === family.name || (family.type === 'histogram' && [`${family.name}_bucket`, `${family.name}_sum`, `${family.name}_count`].includes(x.name)),
    );
    assert.ok(own.length > 0, `${family.name} has samples`);
    for (const sample of own) {
      const names = Object.keys(sample.labels)
        .filter((l) => l !== 'le')
        .sort();
      assert.equal(names, [...family.labels].sort(), `${family.name} labels`);
    }
    if (family.buckets !== undefined) {
      const first = own.find((x) => x.name === `${family.name}_bucket`)!;
      const les = own
        .filter((x) => x.name === `${family.name}_bucket` && JSON.stringify({ ...x.labels, le: '' }) === JSON.stringify({ ...first.labels, le: '' }))
        .map((x) => x.labels.le);
      assert.equal(les, [...family.buckets.map(String), '+Inf'], `${family.name} buckets`);
    }
  }
});

// component-base: with --show-hidden-metrics-for-version the families deprecated before 1.32 come
// back, each equal to the family that replaced it, its help saying since when it is deprecated.
test('--show-hidden-metrics-for-version: request_concurrency_limit and request_concurrency_in_use, equal to their successors', async () => {
  const hidden = KUBE_HIDDEN_FLOWCONTROL_FAMILIES.map((f) => f.name);
  const { controller, metrics, scrape } = setup(10, tinyApfConfig(), true);
  controller.admit(
    { digest: digestOf('mallory', AUTHENTICATED, podsInfo('list')), query: {}, workEstimate: { initialSeats: 2, finalSeats: 0, additionalLatencyMs: 0 } },
    () => {},
  );
  const text = await metrics.registry.metrics();
  const types = new Map([...text.matchAll(/^# TYPE (apiserver_flowcontrol_\S+) (\S+)$/gm)].map((m) => [m[1]!, m[2]!]));
  assert.equal([...types.keys()].sort(), [...KUBE_FLOWCONTROL_FAMILIES, ...KUBE_HIDDEN_FLOWCONTROL_FAMILIES].map((f) => f.name).sort());
  assert.match(text, /^# HELP apiserver_flowcontrol_request_concurrency_limit \[ALPHA\] \(Deprecated since 1\.30\.0\) /m);
  assert.match(text, /^# HELP apiserver_flowcontrol_request_concurrency_in_use \[ALPHA\] \(Deprecated since 1\.31\.0\) /m);
  const samples = await scrape();
  const values = (name: string) =>
    samples
      .filter((x) => x.name === name)
      .map((x) => `${JSON.stringify(x.labels)}=${x.value}`)
      .sort();
  assert.equal(values(hidden[0]!), values(`${NS}nominal_limit_seats`));
  assert.equal(values(hidden[1]!), values(`${NS}current_executing_seats`));
  assert.ok(
    values(hidden[1]!).some((v) => v.endsWith('=2')),
    'the two seats in use',
  );
  // Without the flag they stay hidden.
  const plain = await setup(10, tinyApfConfig()).metrics.registry.metrics();
  for (const name of hidden) assert.not.match(plain, name);
});

// metrics/timing_ratio_histogram.go over component-base's TimingHistogram: each bucket holds the
// nanoseconds the ratio spent at or below its bound; the seat and request ratios of a level are
// over its CurrentCL (queueset.go setConfiguration), the waiting one over queues × queueLengthLimit.
test('timing-ratio histograms weigh each ratio by how long it lasted', async () => {
  const { clock, controller, scrape } = setup(10, tinyApfConfig());
  const ms = 1e6;
  const start = (verb: string) =>
    controller.admit(
      { digest: digestOf('mallory', AUTHENTICATED, podsInfo(verb)), query: {}, workEstimate: { initialSeats: 1, finalSeats: 0, additionalLatencyMs: 0 } },
      () => {},
    );
  let samples = await scrape();
  const level = { priority_level: 'tiny' };
  const seatCount = () => sampleValue(samples, `${NS}priority_level_seat_utilization_count`, { ...level, phase: 'executing' })!;
  const before = seatCount();
  const a = start('list');
  clock.advance(100); // 1 of 2 seats for 100 ms
  const b = start('create');
  clock.advance(100); // 2 of 2 for 100 ms
  const c = start('list'); // waits: 1 of 2 queue places
  clock.advance(100);
  samples = await scrape();
  const seat = (le: string) => sampleValue(samples, `${NS}priority_level_seat_utilization_bucket`, { ...level, phase: 'executing', le })!;
  assert.is(seatCount() - before, 300 * ms);
  assert.is(seat('0.5') - seat('0.4'), 100 * ms, '100 ms at 1/2');
  assert.is(seat('1') - seat('0.99'), 200 * ms, '200 ms at 2/2');
  const waiting = (le: string) => sampleValue(samples, `${NS}priority_level_request_utilization_bucket`, { ...level, phase: 'waiting', le })!;
  assert.is(waiting('0.75') - waiting('0.25'), 100 * ms, '100 ms with 1 of 2 queue places taken');
  const demand = (le: string) => sampleValue(samples, `${NS}demand_seats_bucket`, { ...level, le })!;
  assert.is(demand('+Inf') - demand('1.4'), 100 * ms, '3 seats wanted over 2 for 100 ms');
  // read_vs_write: over Σ queues × queueLengthLimit (2) waiting and Σ NominalCL executing.
  const rw = (phase: string, kind: string) => sampleValue(samples, `${NS}read_vs_write_current_requests_sum`, { phase, request_kind: kind })!;
  const nominalSum = controller.dump().levels.reduce((sum, l) => sum + l.limits.nominalCL, 0);
  assert.ok(Math.abs(rw('waiting', 'readOnly') - (100 * ms) / 2) < 1, 'one read waiting of 2 places, 100 ms');
  assert.ok(Math.abs(rw('executing', 'mutating') - (200 * ms) / nominalSum) < 1, 'one write executing for 200 ms');
  assert.ok(Math.abs(rw('executing', 'readOnly') - (300 * ms) / nominalSum) < 1);
  for (const r of [a, b]) r.finish();
  c.finish();
});

test('shadow-mode would-be rejections have their own counter', async () => {
  const { controller, metrics, scrape } = setup(10, tinyApfConfig());
  for (let i = 0; i < 5; i++) {
    controller.admit({ digest: digestOf('mallory', AUTHENTICATED), query: {} }, (outcome) =>
      metrics.apfFilterObserver.unenforcedRejection?.(undefined as never, outcome),
    );
  }
  const samples = await scrape();
  assert.is(sampleValue(samples, 'fairway_flowcontrol_unenforced_rejections_total', { flow_schema: 'flood', priority_level: 'tiny', reason: 'queue-full' }), 1);
});

/** Per-bucket (not cumulative) values of a histogram series, in bound order, +Inf last. */
function bucketWeights(samples: ReturnType<typeof parseExposition>, name: string, labels: Record<string, string>, bounds: readonly number[]): number[] {
  const cumulative = [...bounds.map(String), '+Inf'].map((le) => sampleValue(samples, `${name}_bucket`, { ...labels, le })!);
  return cumulative.map((c, i) => c - (i === 0 ? 0 : cumulative[i - 1]!));
}

test('timing-ratio series follow an exempt and a limited level through starts, finishes, a new limit and a level made again', async () => {
  const { clock, controller, scrape } = setup(10, tinyApfConfig());
  const ms = 1e6;
  const seatName = `${NS}priority_level_seat_utilization`;
  const seatBounds = PRIORITY_LEVEL_SEAT_UTILIZATION_BUCKETS;
  const level = (name: string) => controller.dump().levels.find((l) => l.name === name)!;
  // apf_controller.go: CurrentCL, or max(1, round(ServerCL / 10)) when that is 0.
  const denominator = (name: string) => level(name).currentCL || Math.max(1, Math.round(10 / 10));
  const start = (user: string, groups: string[]) => controller.admit({ digest: digestOf(user, groups, podsInfo('get', 'default', 'p')), query: {} }, () => {});
  /** What the series must have gained: 100 ms at each ratio in turn. */
  const expected = (bounds: readonly number[], ratios: number[]) => {
    const weights = new Array<number>(bounds.length + 1).fill(0);
    for (const r of ratios) weights[bucketIndex(bounds, r)]! += 100 * ms;
    return weights;
  };
  const gained = (before: number[], after: number[]) => after.map((w, i) => w - before[i]!);

  // The exempt level (its admin requests take the path the served GET bench measures).
  const exemptSeries = { priority_level: 'exempt', phase: 'executing' };
  let before = bucketWeights(await scrape(), seatName, exemptSeries, seatBounds);
  const rwBefore = sampleValue(await scrape(), `${NS}read_vs_write_current_requests_sum`, { phase: 'executing', request_kind: 'readOnly' })!;
  const exemptDen = denominator('exempt');
  const a = start('root', MASTERS);
  const b = start('root', MASTERS);
  clock.advance(100);
  a.finish();
  clock.advance(100);
  b.finish();
  clock.advance(100);
  let samples = await scrape();
  assert.equal(gained(before, bucketWeights(samples, seatName, exemptSeries, seatBounds)), expected(seatBounds, [2 / exemptDen, 1 / exemptDen, 0]));
  assert.is(level('exempt').queueSet.seatsInUse, 0);
  const nominalSum = controller.dump().levels.reduce((sum, l) => sum + l.limits.nominalCL, 0);
  const rw = sampleValue(samples, `${NS}read_vs_write_current_requests_sum`, { phase: 'executing', request_kind: 'readOnly' })! - rwBefore;
  assert.ok(Math.abs(rw - (300 * ms) / nominalSum) < 1e-3, `read_vs_write executing readOnly gained ${rw}`);

  // A limited level whose limit changes while a request executes: the ratio's denominator moves.
  const tinySeries = { priority_level: 'tiny', phase: 'executing' };
  before = bucketWeights(samples, seatName, tinySeries, seatBounds);
  const firstDen = denominator('tiny');
  const c = start('mallory', AUTHENTICATED);
  clock.advance(100);
  const wider = tinyApfConfig();
  const tinyPlc = wider.priorityLevels.find((p) => p.metadata?.name === 'tiny')!;
  tinyPlc.spec!.limited!.nominalConcurrencyShares = 4;
  controller.configure(wider);
  const secondDen = denominator('tiny');
  assert.is.not(bucketIndex(seatBounds, 1 / secondDen), bucketIndex(seatBounds, 1 / firstDen), 'the new limit moves the ratio to another bucket');
  clock.advance(100);
  c.finish();
  samples = await scrape();
  assert.equal(gained(before, bucketWeights(samples, seatName, tinySeries, seatBounds)), expected(seatBounds, [1 / firstDen, 1 / secondDen]));

  // Dropped (idle, so at once) and made again with the first limit: the series goes on, over the new level's limit.
  const withoutTiny = tinyApfConfig();
  withoutTiny.priorityLevels = withoutTiny.priorityLevels.filter((p) => p.metadata?.name !== 'tiny');
  withoutTiny.flowSchemas = withoutTiny.flowSchemas.filter((f) => f.metadata?.name !== 'flood');
  controller.configure(withoutTiny);
  assert.is(
    controller.dump().levels.find((l) => l.name === 'tiny'),
    undefined,
  );
  controller.configure(tinyApfConfig());
  assert.is(denominator('tiny'), firstDen);
  before = bucketWeights(await scrape(), seatName, tinySeries, seatBounds);
  const d = start('mallory', AUTHENTICATED);
  clock.advance(100);
  d.finish();
  clock.advance(100);
  samples = await scrape();
  assert.equal(gained(before, bucketWeights(samples, seatName, tinySeries, seatBounds)), expected(seatBounds, [1 / firstDen, 0]));
});

test.run();
