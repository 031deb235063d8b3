// `fairway top` reads kube-apiserver's own output, not only Fairway's. The samples are Kubernetes'
// published ones, copied as published:
// - /metrics: the expected exposition of kubernetes/kubernetes
//   staging/src/k8s.io/apiserver/pkg/util/flowcontrol/metrics/metrics_test.go
//   (TestFlowControlBetaMetrics: component-base's `[BETA]` HELP lines, kube's label order), its
//   four cases' families one after the other, as one scrape lists them;
// - the debug dumps: kubernetes/website content/en/docs/concepts/cluster-administration/flow-control.md
//   ("Debug endpoints"): dump_priority_levels with the exempt level's `<none>` row, and
//   dump_requests in the older form (a comma ending each line, only waiting requests, no seats).
// Lines longer than the line width are split between words; the text is the same.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { layoutScreen } from './top-layout.ts';
import { topSnapshot } from './top-model.ts';

const KUBE_METRICS = [
  '# HELP apiserver_flowcontrol_rejected_requests_total [BETA] Number of requests rejected by API Priority and Fairness ' + 'subsystem',
  '# TYPE apiserver_flowcontrol_rejected_requests_total counter',
  'apiserver_flowcontrol_rejected_requests_total{flow_schema="test-fs",priority_level="test-pl",reason="queue-full"} 1',
  '# HELP apiserver_flowcontrol_dispatched_requests_total [BETA] Number of requests executed by API Priority and Fairness ' + 'subsystem',
  '# TYPE apiserver_flowcontrol_dispatched_requests_total counter',
  'apiserver_flowcontrol_dispatched_requests_total{flow_schema="test-fs",priority_level="test-pl"} 1',
  '# HELP apiserver_flowcontrol_current_executing_requests [BETA] Number of requests in initial (for a WATCH) or any (for ' +
    'a non-WATCH) execution stage in the API Priority and Fairness subsystem',
  '# TYPE apiserver_flowcontrol_current_executing_requests gauge',
  'apiserver_flowcontrol_current_executing_requests{flow_schema="test-fs",priority_level="test-pl"} 2',
  '# HELP apiserver_flowcontrol_current_executing_seats [BETA] Concurrency (number of seats) occupied by the currently ' +
    'executing (initial stage for a WATCH, any stage otherwise) requests in the API Priority and Fairness subsystem',
  '# TYPE apiserver_flowcontrol_current_executing_seats gauge',
  'apiserver_flowcontrol_current_executing_seats{flow_schema="test-fs",priority_level="test-pl"} 3',
  '',
].join('\n');

const KUBE_DUMP_PRIORITY_LEVELS = [
  'PriorityLevelName, ActiveQueues, IsIdle, IsQuiescing, WaitingRequests, ExecutingRequests, DispatchedRequests, ' +
    'RejectedRequests, TimedoutRequests, CancelledRequests',
  'catch-all,         0,            true,   false,       0,               0,                 1,                  0,                ' + '0,                0',
  'exempt,            <none>,       <none>, <none>,      <none>,          <none>,            <none>,             <none>,           ' +
    '<none>,           <none>',
  'global-default,    0,            true,   false,       0,               0,                 46,                 0,                ' + '0,                0',
  'leader-election,   0,            true,   false,       0,               0,                 4,                  0,                ' + '0,                0',
  'node-high,         0,            true,   false,       0,               0,                 34,                 0,                ' + '0,                0',
  'system,            0,            true,   false,       0,               0,                 48,                 0,                ' + '0,                0',
  'workload-high,     0,            true,   false,       0,               0,                 500,                0,                ' + '0,                0',
  'workload-low,      0,            true,   false,       0,               0,                 0,                  0,                ' + '0,                0',
  '',
].join('\n');

const KUBE_DUMP_REQUESTS = [
  'PriorityLevelName, FlowSchemaName, QueueIndex, RequestIndexInQueue, FlowDistingsher,       ArriveTime,',
  'exempt,            <none>,         <none>,     <none>,              <none>,                <none>,',
  'system,            system-nodes,   12,         0,                   system:node:127.0.0.1, ' + '2020-07-23T15:26:57.179170694Z,',
  '',
].join('\n');

const KUBE_DUMP_REQUESTS_DETAILED = [
  'PriorityLevelName, FlowSchemaName, QueueIndex, RequestIndexInQueue, FlowDistingsher,       ArriveTime,                     ' +
    'UserName,              Verb,   APIPath,                                                     Namespace, Name,   ' +
    'APIVersion, Resource, SubResource,',
  'system,            system-nodes,   12,         0,                   system:node:127.0.0.1, ' +
    '2020-07-23T15:31:03.583823404Z, system:node:127.0.0.1, create, /api/v1/namespaces/scaletest/configmaps,',
  'system,            system-nodes,   12,         1,                   system:node:127.0.0.1, ' +
    '2020-07-23T15:31:03.594555947Z, system:node:127.0.0.1, create, /api/v1/namespaces/scaletest/configmaps,',
  '',
].join('\n');

test("kube-apiserver's /metrics: its level and FlowSchema, rates from a first scrape with nothing yet", () => {
  const snapshot = topSnapshot({ before: '', after: KUBE_METRICS, elapsedSeconds: 2 });
  const [level] = snapshot.levels;
  assert.equal(
    [level?.name, level?.executing, level?.seatsInUse, level?.dispatched, level?.rejected, level?.rejectedByReason],
    ['test-pl', 2, 3, 0.5, 0.5, { 'queue-full': 0.5 }],
  );
  // A family kube-apiserver did not write is unknown, not 0.
  assert.equal([level?.nominal, level?.limit, level?.queuedSeats, level?.waitP99], [undefined, undefined, undefined, undefined]);
  assert.equal(
    snapshot.flowSchemas.map((f) => [f.name, f.level, f.executing, f.seatsInUse]),
    [['test-fs', 'test-pl', 2, 3]],
  );
});

test("kube-apiserver's dumps: the exempt level's <none> row, the older dump_requests with its trailing commas", () => {
  const snapshot = topSnapshot({ after: KUBE_METRICS, elapsedSeconds: 0, dumpPriorityLevels: KUBE_DUMP_PRIORITY_LEVELS, dumpRequests: KUBE_DUMP_REQUESTS });
  const levels = new Map(snapshot.levels.map((l) => [l.name, l]));
  assert.equal(
    [...levels.keys()],
    ['catch-all', 'exempt', 'global-default', 'leader-election', 'node-high', 'system', 'test-pl', 'workload-high', 'workload-low'],
  );
  assert.is(levels.get('global-default')!.activeQueues, 0);
  assert.is(levels.get('exempt')!.activeQueues, undefined);
  assert.equal(snapshot.flows, [{ flowSchema: 'system-nodes', level: 'system', flow: 'system:node:127.0.0.1', executing: 0, waiting: 1, seats: 1 }]);
  const detailed = topSnapshot({ after: KUBE_METRICS, elapsedSeconds: 0, dumpRequests: KUBE_DUMP_REQUESTS_DETAILED });
  assert.equal(
    detailed.flows!.map((f) => [f.flow, f.waiting]),
    [['system:node:127.0.0.1', 2]],
  );
  const lines = layoutScreen(snapshot, { width: 80, height: 40, sort: 'seats', title: 't', notices: [] });
  assert.ok(
    lines.some((line) => line.startsWith('test-pl ')),
    lines.join('\n'),
  );
  assert.ok(
    lines.some((line) => line.startsWith('system-nodes/system:node:127.0.0.1 ')),
    lines.join('\n'),
  );
});

test.run();
