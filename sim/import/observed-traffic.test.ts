// Flows from two scrapes: rates, execution time and seats from the counters' and histograms'
// deltas, a request each flow's FlowSchema really classifies, and --merge keeping an operator's
// flows and comments while the configuration is replaced.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { parse } from 'yaml';
import { lognormalSigma } from '../distributions.ts';
import { parseDurationMs } from '../duration.ts';
import { mergeScenario } from './import-scenario.ts';
import { histogramQuantile } from '../../engine/prometheus-delta.ts';
import { observedTraffic, serviceFrom } from './observed-traffic.ts';
import { listSelectivity, returnsOf } from './list-selectivity.ts';
import { parseExposition } from '../../engine/prometheus-text.ts';

const level = (name: string) => ({
  apiVersion: 'flowcontrol.apiserver.k8s.io/v1',
  kind: 'PriorityLevelConfiguration',
  metadata: { name },
  spec: {
    type: 'Limited',
    limited: { nominalConcurrencyShares: 30, limitResponse: { type: 'Queue', queuing: { queues: 8, handSize: 2, queueLengthLimit: 20 } } },
  },
});
const schema = (name: string, levelName: string, precedence: number, rules: unknown[]) => ({
  apiVersion: 'flowcontrol.apiserver.k8s.io/v1',
  kind: 'FlowSchema',
  metadata: { name },
  spec: { priorityLevelConfiguration: { name: levelName }, matchingPrecedence: precedence, distinguisherMethod: { type: 'ByUser' }, rules },
});
const LEVELS = [level('batch'), level('global-default')];
const SCHEMAS = [
  schema('batch-lists', 'batch', 500, [
    {
      subjects: [{ kind: 'Group', group: { name: 'batch' } }],
      resourceRules: [{ verbs: ['list', 'watch'], apiGroups: [''], resources: ['pods'], namespaces: ['*'] }],
    },
  ]),
  // Shadowed: everything it matches, batch-lists (precedence 500) takes first.
  schema('batch-shadow', 'batch', 600, [
    { subjects: [{ kind: 'Group', group: { name: 'batch' } }], resourceRules: [{ verbs: ['list'], apiGroups: [''], resources: ['pods'], namespaces: ['*'] }] },
  ]),
  schema('global-default', 'global-default', 9900, [
    {
      subjects: [{ kind: 'Group', group: { name: 'system:authenticated' } }],
      resourceRules: [{ verbs: ['*'], apiGroups: ['*'], resources: ['*'], clusterScope: true, namespaces: ['*'] }],
    },
  ]),
];

function exposition(n: {
  batchDispatched: number;
  batchRejected: number;
  gdDispatched: number;
  shadow: number;
  execCount: number;
  execSum: number;
  seatsSum: number;
  /** Pods' LISTs from etcd, apiserver_storage_list_{evaluated,returned}_objects_total; none: a server without them. */
  lists?: { evaluated: number; returned: number };
}) {
  const pair = (fs: string, pl: string) => `flow_schema="${fs}",priority_level="${pl}"`;
  const b = pair('batch-lists', 'batch');
  const g = pair('global-default', 'global-default');
  return [
    '# TYPE apiserver_flowcontrol_dispatched_requests_total counter',
    `apiserver_flowcontrol_dispatched_requests_total{${b}} ${n.batchDispatched}`,
    `apiserver_flowcontrol_dispatched_requests_total{${g}} ${n.gdDispatched}`,
    `apiserver_flowcontrol_dispatched_requests_total{${pair('batch-shadow', 'batch')}} ${n.shadow}`,
    '# TYPE apiserver_flowcontrol_rejected_requests_total counter',
    `apiserver_flowcontrol_rejected_requests_total{${b},reason="queue-full"} ${n.batchRejected}`,
    '# TYPE apiserver_flowcontrol_request_execution_seconds histogram',
    // batch: all within 0.5 s, 90% within 0.2 s.
    `apiserver_flowcontrol_request_execution_seconds_bucket{${b},type="regular",le="0.2"} ${n.execCount * 0.9}`,
    `apiserver_flowcontrol_request_execution_seconds_bucket{${b},type="regular",le="0.5"} ${n.execCount}`,
    `apiserver_flowcontrol_request_execution_seconds_bucket{${b},type="regular",le="+Inf"} ${n.execCount}`,
    `apiserver_flowcontrol_request_execution_seconds_sum{${b},type="regular"} ${n.execSum}`,
    `apiserver_flowcontrol_request_execution_seconds_count{${b},type="regular"} ${n.execCount}`,
    // A watch's execution is its initial listing: not a service time.
    `apiserver_flowcontrol_request_execution_seconds_bucket{${b},type="watch",le="+Inf"} ${n.execCount * 100}`,
    `apiserver_flowcontrol_request_execution_seconds_sum{${b},type="watch"} ${n.execCount * 100}`,
    `apiserver_flowcontrol_request_execution_seconds_count{${b},type="watch"} ${n.execCount * 100}`,
    `apiserver_flowcontrol_request_execution_seconds_bucket{${g},type="regular",le="0.005"} ${n.gdDispatched}`,
    `apiserver_flowcontrol_request_execution_seconds_bucket{${g},type="regular",le="+Inf"} ${n.gdDispatched}`,
    `apiserver_flowcontrol_request_execution_seconds_sum{${g},type="regular"} ${n.gdDispatched * 0.002}`,
    `apiserver_flowcontrol_request_execution_seconds_count{${g},type="regular"} ${n.gdDispatched}`,
    `apiserver_flowcontrol_request_execution_seconds_bucket{${pair('batch-shadow', 'batch')},type="regular",le="+Inf"} ${n.shadow}`,
    `apiserver_flowcontrol_request_execution_seconds_sum{${pair('batch-shadow', 'batch')},type="regular"} ${n.shadow}`,
    `apiserver_flowcontrol_request_execution_seconds_count{${pair('batch-shadow', 'batch')},type="regular"} ${n.shadow}`,
    '# TYPE apiserver_flowcontrol_work_estimated_seats histogram',
    `apiserver_flowcontrol_work_estimated_seats_bucket{${b},le="+Inf"} ${n.batchDispatched + n.batchRejected}`,
    `apiserver_flowcontrol_work_estimated_seats_sum{${b}} ${n.seatsSum}`,
    `apiserver_flowcontrol_work_estimated_seats_count{${b}} ${n.batchDispatched + n.batchRejected}`,
    ...(n.lists === undefined
      ? []
      : [
          '# TYPE apiserver_storage_list_evaluated_objects_total counter',
          `apiserver_storage_list_evaluated_objects_total{resource="pods"} ${n.lists.evaluated}`,
          // Later releases' labels: group and resource apart, a series per storage (the watch cache's tested are
          // its fetched, its evaluated 0); every LIST returned all it tested.
          `apiserver_storage_list_evaluated_objects_total{group="apps",resource="deployments",storage="etcd"} ${n.lists.evaluated}`,
          `apiserver_storage_list_evaluated_objects_total{group="apps",resource="deployments",storage="watchcache"} 0`,
          '# TYPE apiserver_storage_list_fetched_objects_total counter',
          `apiserver_storage_list_fetched_objects_total{group="apps",index="",resource="deployments",storage="watchcache"} ${n.lists.evaluated}`,
          '# TYPE apiserver_storage_list_returned_objects_total counter',
          `apiserver_storage_list_returned_objects_total{resource="pods"} ${n.lists.returned}`,
          `apiserver_storage_list_returned_objects_total{group="apps",resource="deployments",storage="etcd"} ${n.lists.evaluated}`,
          `apiserver_storage_list_returned_objects_total{group="apps",resource="deployments",storage="watchcache"} ${n.lists.evaluated}`,
        ]),
    '',
  ].join('\n');
}

test('rates, service times and seats from the deltas; each flow classifies into its FlowSchema', () => {
  const before = exposition({ batchDispatched: 100, batchRejected: 10, gdDispatched: 1000, shadow: 5, execCount: 100, execSum: 10, seatsSum: 330 });
  // Over 10 s: batch 200 dispatched + 20 rejected, 200 executions summing 30 s, 880 seats (4 each).
  const after = exposition({ batchDispatched: 300, batchRejected: 30, gdDispatched: 1500, shadow: 9, execCount: 300, execSum: 40, seatsSum: 1210 });
  const traffic = observedTraffic({ before, after, elapsedSeconds: 10, flowSchemas: SCHEMAS, priorityLevels: LEVELS, objectsPerSeat: 100 });
  const batch = traffic.flows.find((f) => f.name === 'observed-batch-lists')!;
  assert.equal(
    [batch.arrival, batch.verb, batch.resource, batch.namespace, batch.objects, batch.groups],
    [{ type: 'poisson', rate: 22 }, 'list', 'pods', 'default', 400, ['batch', 'system:authenticated']],
  );
  // Mean 0.15 s; p99 inside the (0.2, 0.5] bucket, as histogram_quantile interpolates: 0.2 + 0.3 × 0.9 = 0.47.
  assert.equal(batch.service, serviceFrom(0.15, 0.47));
  assert.is(batch.service.type, 'lognormal');
  const gd = traffic.flows.find((f) => f.name === 'observed-global-default')!;
  // Every request within the first bucket (≤ 5 ms): the p99 interpolates to 4.95 ms.
  assert.equal([gd.arrival.rate, gd.verb, gd.objectName, gd.service], [50, 'get', 'observed', serviceFrom(0.002, 0.00495)]);
  assert.not.ok(traffic.flows.some((f) => f.name === 'observed-batch-shadow'));
  assert.match(traffic.warnings.join('\n'), /batch-shadow \(level batch\): no request its rules describe classifies into it/);
});

test("a LIST flow returns its resource's share of the objects its LISTs tested (returned ÷ tested over the window)", () => {
  const counts = { batchDispatched: 100, batchRejected: 10, gdDispatched: 1000, shadow: 5, execCount: 100, execSum: 10, seatsSum: 330 };
  const before = exposition({ ...counts, lists: { evaluated: 1000, returned: 100 } });
  // Pods: 4000 tested, 200 returned in the window: 5%. Deployments returned all they tested.
  const after = exposition({ ...counts, batchDispatched: 300, execCount: 300, execSum: 40, seatsSum: 1130, lists: { evaluated: 5000, returned: 300 } });
  const input = { elapsedSeconds: 10, flowSchemas: SCHEMAS, priorityLevels: LEVELS, objectsPerSeat: 100 };
  const traffic = observedTraffic({ ...input, before, after });
  const batch = traffic.flows.find((f) => f.name === 'observed-batch-lists')!;
  assert.equal([batch.resource, batch.objects, batch.returns], ['pods', 400, 20]);
  assert.not.ok(traffic.warnings.some((w) => w.includes('apiserver_storage_list')));
  assert.equal(listSelectivity(parseExposition(before), parseExposition(after))?.total, { tested: 4000 + 2 * 4000, returned: 200 + 2 * 4000 });
  // A wildcard rule's made-up resource (no LIST of it counted) takes the ratio over every resource.
  const selectivity = listSelectivity(parseExposition(before), parseExposition(after))!;
  assert.is(returnsOf(selectivity, '', 'configmaps', 1200), 820, '8200 of 12000');
  assert.is(returnsOf(selectivity, 'apps', 'deployments', 1200), undefined, 'all returned: the default');

  // An older server without the families: no returns, and one warning, not one per flow.
  const bare = observedTraffic({
    ...input,
    before: exposition(counts),
    after: exposition({ ...counts, batchDispatched: 300, execCount: 300, seatsSum: 1130 }),
  });
  assert.is(bare.flows.find((f) => f.name === 'observed-batch-lists')!.returns, undefined);
  assert.equal(
    bare.warnings.filter((w) => w.includes('apiserver_storage_list')),
    [
      '/metrics has none of apiserver_cache_list_fetched_objects_total, apiserver_cache_list_returned_objects_total, ' +
        'apiserver_storage_list_evaluated_objects_total, apiserver_storage_list_returned_objects_total: each LIST flow returns all its objects',
    ],
  );
});

test('a log-normal with the observed mean and p99; an exponential when the p99 is not above the mean', () => {
  const service = serviceFrom(0.1, 0.5);
  assert.is(service.type, 'lognormal');
  if (service.type !== 'lognormal') return;
  const median = parseDurationMs(service.median);
  const p99 = parseDurationMs(service.p99);
  assert.ok(median.ok && p99.ok);
  if (!median.ok || !p99.ok) return;
  const sigma = lognormalSigma(median.ms, p99.ms);
  assert.ok(Math.abs(median.ms * Math.exp((sigma * sigma) / 2) - 100) < 0.1, 'its mean is the observed mean');
  assert.equal(serviceFrom(0.1, 0.05), { type: 'exponential', mean: '100ms' });
  assert.equal(serviceFrom(0.1, undefined), { type: 'exponential', mean: '100ms' });
  assert.is(
    histogramQuantile(0.5, {
      count: 10,
      sum: 1,
      buckets: [
        [1, 5],
        [2, 10],
        [Number.POSITIVE_INFINITY, 10],
      ],
    }),
    1,
  );
  assert.is(histogramQuantile(0.99, { count: 0, sum: 0, buckets: [] }), undefined);
});

test('--merge: the configuration is the server’s, the operator’s flows and comments stay, observed flows are replaced', () => {
  const existing = [
    '# my scenario: CI floods on Mondays',
    'kind: Scenario',
    'name: mine',
    'duration: 5m',
    'server: {maxRequestsInflight: 10, maxMutatingRequestsInflight: 5, requestTimeout: 30s}',
    'files: [old-config.yaml]',
    'flows:',
    '  - name: ci-lists # the noisy one',
    '    user: ci',
    '    verb: list',
    '    resource: pods',
    '    arrival: {type: poisson, rate: 3}',
    '    service: {type: constant, value: 1s}',
    '  - {name: observed-old, user: x, verb: get, resource: pods, arrival: {type: poisson, rate: 1}, service: {type: constant, value: 1ms}}',
    '',
  ].join('\n');
  const imported = {
    server: { maxRequestsInflight: 400, maxMutatingRequestsInflight: 200 },
    objectCounts: { pods: 8000 },
    objects: [...LEVELS, ...SCHEMAS],
    flows: [
      {
        name: 'observed-new',
        user: 'y',
        groups: [],
        verb: 'get',
        resource: 'pods',
        arrival: { type: 'poisson', rate: 2 },
        service: { type: 'exponential', mean: '2ms' },
      },
    ],
  };
  const merged = mergeScenario(existing, imported, true);
  assert.ok('text' in merged);
  if (!('text' in merged)) return;
  const value = parse(merged.text);
  assert.equal(
    value.flows.map((f: { name: string }) => f.name),
    ['ci-lists', 'observed-new'],
  );
  assert.equal(
    [value.duration, value.server, value.bootstrap, value.objectCounts, value.objects.length, value.files],
    ['5m', { maxRequestsInflight: 400, maxMutatingRequestsInflight: 200, requestTimeout: '30s' }, 'none', { pods: 8000 }, 5, undefined],
  );
  assert.match(merged.text, /^# my scenario: CI floods on Mondays$/m);
  assert.match(merged.text, /# the noisy one/);
  assert.equal(merged.warnings, ['the imported objects replace the manifest files the scenario named (old-config.yaml)']);
  // Without --traffic, earlier observed flows stay too.
  const kept = mergeScenario(existing, { ...imported, flows: [] }, false);
  assert.ok('text' in kept && parse(kept.text).flows.length === 2);
  assert.equal(mergeScenario('kind: Other\n', imported, false), { error: 'not a Scenario (kind: Scenario)' });
});

test.run();
