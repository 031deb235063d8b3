// /debug/api_priority_and_fairness/dump_{priority_levels,queues,requests} (apf-semantics 9.3): the
// controller's state as kube-apiserver prints it, cells separated by ",\t" and aligned by Go's
// tabwriter (minwidth 8, padding 1), so scripts written against Kubernetes parse Fairway's output.
//
// Rows are ordered as upstream does where upstream has an order, and deterministically where it
// iterates a Go map: levels by name, queues by index, waiting requests in queue order, then the
// queue's executing requests by start time, then the level's queueless executing requests.

import { formatGoDuration } from '../../engine/go-duration.ts';
import { formatRfc3339Nano } from '../../engine/clock.ts';
import type { ControllerDump, FlowController, LevelDump, RequestDescriptor } from '../../engine/flowcontrol/controller.ts';
import type { RequestDump } from '../../engine/flowcontrol/queue-set.ts';
import { formatSeatSeconds } from '../../engine/flowcontrol/seat-seconds.ts';
import type { RequestContext } from '../request/http-context.ts';
import { tabwrite } from './tabwriter.ts';
import { append } from '../../engine/append.ts';

export const APF_DEBUG_PREFIX = '/debug/api_priority_and_fairness/';

const PRIORITY_LEVEL_COLUMNS = [
  'PriorityLevelName',
  'ActiveQueues',
  'IsIdle',
  'IsQuiescing',
  'WaitingRequests',
  'ExecutingRequests',
  'DispatchedRequests',
  'RejectedRequests',
  'TimedoutRequests',
  'CancelledRequests',
];
const QUEUE_COLUMNS = [
  'PriorityLevelName',
  'Index',
  'PendingRequests',
  'ExecutingRequests',
  'SeatsInUse',
  'NextDispatchR',
  'InitialSeatsSum',
  'MaxSeatsSum',
  'TotalWorkSum',
];
const REQUEST_COLUMNS = [
  'PriorityLevelName',
  'FlowSchemaName',
  'QueueIndex',
  'RequestIndexInQueue',
  'FlowDistingsher', // sic, as upstream spells it
  'ArriveTime',
  'InitialSeats',
  'FinalSeats',
  'AdditionalLatency',
  'StartTime',
];
const REQUEST_DETAIL_COLUMNS = ['UserName', 'Verb', 'APIPath', 'Namespace', 'Name', 'APIVersion', 'Resource', 'SubResource'];

/** Go's zero time.Time in RFC3339Nano: the StartTime of a request still waiting. */
const ZERO_TIME = '0001-01-01T00:00:00Z';

const row = (cells: readonly (string | number | boolean)[]): string => `${cells.map(String).join(',\t')}\n`;

export function renderPriorityLevels(dump: ControllerDump): string {
  let text = row(PRIORITY_LEVEL_COLUMNS);
  for (const level of sortedLevels(dump)) {
    const qs = level.queueSet;
    text += row([
      level.name,
      qs.queues.filter((q) => q.pendingRequests > 0).length,
      qs.isIdle,
      level.state === 'quiescing',
      qs.waitingRequests,
      qs.executingRequests,
      qs.dispatched,
      qs.rejected,
      // v1.32 counts a wait-limit expiry as a cancellation and never increments Timedout.
      0,
      qs.timedOut + qs.cancelled,
    ]);
  }
  return tabwrite(text);
}

export function renderQueues(dump: ControllerDump): string {
  let text = row(QUEUE_COLUMNS);
  for (const level of sortedLevels(dump)) {
    level.queueSet.queues.forEach((q, index) => {
      text += row([
        level.name,
        index,
        q.pendingRequests,
        q.executingRequests,
        q.seatsInUse,
        formatSeatSeconds(q.nextDispatchR),
        q.initialSeatsSum,
        q.maxSeatsSum,
        formatSeatSeconds(q.totalWorkSum),
      ]);
    });
  }
  return tabwrite(text);
}

export function renderRequests(dump: ControllerDump, includeRequestDetails: boolean): string {
  let text = includeRequestDetails ? row([...REQUEST_COLUMNS, ...REQUEST_DETAIL_COLUMNS]) : row(REQUEST_COLUMNS);
  for (const level of sortedLevels(dump)) {
    for (const r of orderedRequests(level)) text += row(requestCells(level.name, r, includeRequestDetails));
  }
  return tabwrite(text);
}

function requestCells(levelName: string, r: RequestDump<RequestDescriptor>, details: boolean): (string | number)[] {
  const d = r.descriptor;
  const cells: (string | number)[] = [
    levelName,
    d.flowSchema,
    r.queueIndex,
    r.indexInQueue,
    d.flowDistinguisher,
    formatRfc3339Nano(r.arrivalMs),
    r.workEstimate.initialSeats,
    r.workEstimate.finalSeats,
    formatGoDuration(BigInt(Math.round(r.workEstimate.additionalLatencyMs * 1e6))),
    r.startMs === undefined ? ZERO_TIME : formatRfc3339Nano(r.startMs),
  ];
  if (!details) return cells;
  const info = d.digest.requestInfo;
  // schema.GroupVersion.String(): the version alone for the core group.
  const groupVersion = info.apiGroup === '' ? info.apiVersion : `${info.apiGroup}/${info.apiVersion}`;
  return [...cells, d.digest.user.name, info.verb, info.path, info.namespace, info.name, groupVersion, info.resource, info.subresource];
}

function sortedLevels(dump: ControllerDump): LevelDump[] {
  return [...dump.levels].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
}

function orderedRequests(level: LevelDump): RequestDump<RequestDescriptor>[] {
  const byStart = (a: RequestDump<RequestDescriptor>, b: RequestDump<RequestDescriptor>) =>
    (a.startMs ?? 0) - (b.startMs ?? 0) || a.arrivalMs - b.arrivalMs || a.descriptor.id - b.descriptor.id;
  const requests = level.queueSet.requests;
  const out: RequestDump<RequestDescriptor>[] = [];
  level.queueSet.queues.forEach((_, index) => {
    const inQueue = requests.filter((r) => r.queueIndex === index);
    append(
      out,
      inQueue.filter((r) => r.indexInQueue >= 0).sort((a, b) => a.indexInQueue - b.indexInQueue),
    );
    append(out, inQueue.filter((r) => r.indexInQueue < 0).sort(byStart));
  });
  append(out, requests.filter((r) => r.queueIndex < 0).sort(byStart));
  return out;
}

export type DebugHandler = (context: RequestContext) => Promise<void>;

export interface ApfDebugHandlers {
  dumpPriorityLevels: DebugHandler;
  dumpQueues: DebugHandler;
  dumpRequests: DebugHandler;
  /** The three handlers by full path, for a router. */
  byPath: ReadonlyMap<string, DebugHandler>;
}

export function createApfDebugHandlers(controller: Pick<FlowController, 'dump'>): ApfDebugHandlers {
  const serve =
    (render: (context: RequestContext) => string): DebugHandler =>
    async (context) => {
      const body = render(context);
      const res = context.res;
      if (res.headersSent || res.writableEnded) return;
      res.statusCode = 200;
      res.setHeader('Content-Type', 'text/plain; charset=utf-8');
      res.end(body);
    };
  const dumpPriorityLevels = serve(() => renderPriorityLevels(controller.dump()));
  const dumpQueues = serve(() => renderQueues(controller.dump()));
  const dumpRequests = serve((context) => renderRequests(controller.dump(), (context.query.get('includeRequestDetails') ?? '') !== ''));
  return {
    dumpPriorityLevels,
    dumpQueues,
    dumpRequests,
    byPath: new Map([
      [`${APF_DEBUG_PREFIX}dump_priority_levels`, dumpPriorityLevels],
      [`${APF_DEBUG_PREFIX}dump_queues`, dumpQueues],
      [`${APF_DEBUG_PREFIX}dump_requests`, dumpRequests],
    ]),
  };
}
