// What `fairway top` shows, from standard endpoints only, so it reads any kube-apiserver as it
// reads Fairway: two scrapes of /metrics an interval apart give the rates and the queue-wait p99
// over that interval (counter and histogram deltas), the second scrape gives the gauges (limits,
// seats in use, queued requests and seats), and dump_requests gives the flows (FlowSchema × flow
// distinguisher) with requests waiting or executing right now. Pure: the command fetches the texts.

import { counterDelta, histogramDelta, histogramQuantile, histograms } from '../../engine/prometheus-delta.ts';
import { parseExposition, samplesByKey, type ExpositionSample } from '../../engine/prometheus-text.ts';
import { NO_VALUE, numberCell, parseDump } from './dump-table.ts';

export interface LevelRow {
  name: string;
  nominal?: number;
  /** Seats this level may lend: nominal − lower limit. */
  lendable?: number;
  limit?: number;
  seatsInUse: number;
  executing: number;
  queued: number;
  queuedSeats?: number;
  /** Queues holding requests (dump_priority_levels' ActiveQueues). */
  activeQueues?: number;
  /** Per second over the interval; undefined before the second scrape. */
  dispatched?: number;
  rejected?: number;
  rejectedByReason?: Record<string, number>;
  /** Seconds: of the requests that started executing in the interval. */
  waitP99?: number;
}

export interface FlowSchemaRow {
  name: string;
  level: string;
  seatsInUse: number;
  executing: number;
  queued: number;
  dispatched?: number;
  rejected?: number;
  waitP99?: number;
}

export interface FlowRow {
  flowSchema: string;
  level: string;
  /** The flow distinguisher (user or namespace); '' for a schema without one. */
  flow: string;
  executing: number;
  waiting: number;
  seats: number;
}

export interface TopSnapshot {
  /** Seconds between the two scrapes the rates come from; undefined with one scrape. */
  intervalSeconds?: number;
  levels: LevelRow[];
  flowSchemas: FlowSchemaRow[];
  /** Undefined when dump_requests could not be read. */
  flows?: FlowRow[];
}

export interface TopInput {
  /** /metrics of the previous scrape, if any. */
  before?: string;
  after: string;
  elapsedSeconds: number;
  dumpPriorityLevels?: string;
  dumpRequests?: string;
}

const F = 'apiserver_flowcontrol_';
const byLevel = (labels: Record<string, string>) => labels.priority_level;
const bySchema = (labels: Record<string, string>) =>
  labels.flow_schema === undefined || labels.priority_level === undefined ? undefined : `${labels.flow_schema}\u0000${labels.priority_level}`;
const executed = (keyOf: (labels: Record<string, string>) => string | undefined) => (labels: Record<string, string>) =>
  labels.execute === 'false' ? undefined : keyOf(labels);

function gaugeSum(samples: readonly ExpositionSample[] | undefined): number {
  let sum = 0;
  for (const s of samples ?? []) if (Number.isFinite(s.value)) sum += s.value;
  return sum;
}

function gauge(samples: readonly ExpositionSample[] | undefined): number | undefined {
  return samples === undefined || samples.length === 0 ? undefined : gaugeSum(samples);
}

/** Gauges, rates and p99s of one grouping (by level, or by FlowSchema × level). */
function grouped(before: ExpositionSample[] | undefined, after: ExpositionSample[], keyOf: (labels: Record<string, string>) => string | undefined) {
  const now = (name: string) => samplesByKey(after, `${F}${name}`, keyOf);
  const then = (name: string) => (before === undefined ? undefined : samplesByKey(before, `${F}${name}`, keyOf));
  const waitFamily = `${F}request_wait_duration_seconds`;
  const waits = before === undefined ? undefined : ([histograms(before, waitFamily, executed(keyOf)), histograms(after, waitFamily, executed(keyOf))] as const);
  const counters = (name: string) => ({ earlier: then(name), now: now(name) });
  return {
    seatsInUse: now('current_executing_seats'),
    executing: now('current_executing_requests'),
    queued: now('current_inqueue_requests'),
    queuedSeats: now('current_inqueue_seats'),
    dispatched: counters('dispatched_requests_total'),
    rejected: counters('rejected_requests_total'),
    keys: (): Set<string> =>
      new Set(
        ['current_executing_requests', 'current_inqueue_requests', 'dispatched_requests_total', 'rejected_requests_total', 'nominal_limit_seats'].flatMap(
          (name) => [...now(name).keys()],
        ),
      ),
    waitP99: (key: string) => (waits === undefined ? undefined : histogramQuantile(0.99, histogramDelta(waits[0], waits[1], key))),
  };
}

export function topSnapshot(input: TopInput): TopSnapshot {
  const after = parseExposition(input.after);
  const before = input.before === undefined ? undefined : parseExposition(input.before);
  const seconds = before === undefined || !(input.elapsedSeconds > 0) ? undefined : input.elapsedSeconds;
  const perSecond = (then: ExpositionSample[] | undefined, now: ExpositionSample[] | undefined) =>
    seconds === undefined ? undefined : counterDelta(then, now) / seconds;

  const levelData = grouped(before, after, byLevel);
  const levelGauge = (name: string) => samplesByKey(after, `${F}${name}`, byLevel);
  const nominal = levelGauge('nominal_limit_seats');
  const lower = levelGauge('lower_limit_seats');
  const limit = levelGauge('current_limit_seats');
  const dumpLevels = new Map<string, number | undefined>();
  if (input.dumpPriorityLevels !== undefined) {
    for (const row of parseDump(input.dumpPriorityLevels)) {
      const name = row.get('PriorityLevelName');
      if (name !== undefined && name !== '') dumpLevels.set(name, numberCell(row, 'ActiveQueues'));
    }
  }
  const levelNames = new Set([...levelData.keys(), ...limit.keys(), ...dumpLevels.keys()]);
  const levels: LevelRow[] = [];
  for (const name of [...levelNames].sort()) {
    const row: LevelRow = {
      name,
      seatsInUse: gaugeSum(levelData.seatsInUse.get(name)),
      executing: gaugeSum(levelData.executing.get(name)),
      queued: gaugeSum(levelData.queued.get(name)),
    };
    const set = <K extends keyof LevelRow>(key: K, value: LevelRow[K] | undefined) => {
      if (value !== undefined) row[key] = value;
    };
    set('nominal', gauge(nominal.get(name)));
    const lowerSeats = gauge(lower.get(name));
    if (row.nominal !== undefined && lowerSeats !== undefined) row.lendable = Math.max(0, row.nominal - lowerSeats);
    set('limit', gauge(limit.get(name)));
    // Before v1.30 kube-apiserver has no current_inqueue_seats: leave the column empty, not 0.
    set('queuedSeats', levelData.queuedSeats.size === 0 ? undefined : gaugeSum(levelData.queuedSeats.get(name)));
    set('activeQueues', dumpLevels.get(name));
    set('dispatched', perSecond(levelData.dispatched.earlier?.get(name), levelData.dispatched.now.get(name)));
    set('rejected', perSecond(levelData.rejected.earlier?.get(name), levelData.rejected.now.get(name)));
    if (seconds !== undefined) {
      const reasons: Record<string, number> = {};
      const byReason = (samples: ExpositionSample[] | undefined) => {
        const out = new Map<string, ExpositionSample[]>();
        for (const s of samples ?? []) out.set(s.labels.reason ?? '', [...(out.get(s.labels.reason ?? '') ?? []), s]);
        return out;
      };
      const thenReasons = byReason(levelData.rejected.earlier?.get(name));
      for (const [reason, now] of byReason(levelData.rejected.now.get(name))) {
        const rate = counterDelta(thenReasons.get(reason), now) / seconds;
        if (rate > 0) reasons[reason] = rate;
      }
      row.rejectedByReason = reasons;
    }
    set('waitP99', levelData.waitP99(name));
    levels.push(row);
  }

  const schemaData = grouped(before, after, bySchema);
  const flowSchemas: FlowSchemaRow[] = [];
  for (const key of [...schemaData.keys()].sort()) {
    const [name, level] = key.split('\u0000') as [string, string];
    const row: FlowSchemaRow = {
      name,
      level,
      seatsInUse: gaugeSum(schemaData.seatsInUse.get(key)),
      executing: gaugeSum(schemaData.executing.get(key)),
      queued: gaugeSum(schemaData.queued.get(key)),
    };
    const dispatched = perSecond(schemaData.dispatched.earlier?.get(key), schemaData.dispatched.now.get(key));
    const rejected = perSecond(schemaData.rejected.earlier?.get(key), schemaData.rejected.now.get(key));
    const waitP99 = schemaData.waitP99(key);
    if (dispatched !== undefined) row.dispatched = dispatched;
    if (rejected !== undefined) row.rejected = rejected;
    if (waitP99 !== undefined) row.waitP99 = waitP99;
    flowSchemas.push(row);
  }

  const snapshot: TopSnapshot = { levels, flowSchemas };
  if (seconds !== undefined) snapshot.intervalSeconds = seconds;
  if (input.dumpRequests !== undefined) snapshot.flows = flowsOf(input.dumpRequests);
  return snapshot;
}

/** The flows with requests in the level's queues or executing, from dump_requests. */
function flowsOf(text: string): FlowRow[] {
  const flows = new Map<string, FlowRow>();
  for (const row of parseDump(text)) {
    const flowSchema = row.get('FlowSchemaName');
    const level = row.get('PriorityLevelName');
    // The exempt level's phantom row names no FlowSchema.
    if (flowSchema === undefined || level === undefined || flowSchema === NO_VALUE || flowSchema === '') continue;
    const flow = row.get('FlowDistingsher') ?? '';
    const key = `${flowSchema}\u0000${flow}\u0000${level}`;
    const entry = flows.get(key) ?? { flowSchema, level, flow, executing: 0, waiting: 0, seats: 0 };
    // A request still in its queue has an index there; an executing one has -1 (v1.32 lists both;
    // before v1.28 only waiting requests were listed, without the column's -1).
    const index = numberCell(row, 'RequestIndexInQueue');
    if (index !== undefined && index < 0) entry.executing++;
    else entry.waiting++;
    entry.seats += numberCell(row, 'InitialSeats') ?? 1;
    flows.set(key, entry);
  }
  return [...flows.values()];
}
