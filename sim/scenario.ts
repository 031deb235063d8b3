// The scenario format (docs/simulator.md): server limits, the APF configuration to try (bootstrap
// objects, inline manifests, manifest files) and the workload (flows with arrival and service
// distributions). This module turns a parsed document into a checked `Scenario` value; every
// problem is reported with its field path. The flowcontrol manifests themselves are checked by
// scenario-config.ts with the server's own decoding, defaulting and validation.

import { decodeWorkEstimatorConfig, type WorkEstimatorConfig } from '../engine/flowcontrol/work-estimator-config.ts';
import { fieldErrorBody } from '../engine/resources/field-errors.ts';
import type { ArrivalSpec, ServiceSpec } from './distributions.ts';
import { FieldReader, isPlain, type FieldProblem, type Plain } from './field-reader.ts';
import { parseDurationMs } from './duration.ts';
import { pauseShare, type PauseSpec } from './server-pauses.ts';
import type { PathSegment } from './yaml-source.ts';

export const SCENARIO_KIND = 'Scenario';
export const BOOTSTRAP_MODES = ['suggested', 'mandatory', 'none'] as const;
export type BootstrapMode = (typeof BOOTSTRAP_MODES)[number];

/** kube-apiserver's flag defaults. */
export const DEFAULT_MAX_REQUESTS_INFLIGHT = 400;
export const DEFAULT_MAX_MUTATING_REQUESTS_INFLIGHT = 200;
export const DEFAULT_REQUEST_TIMEOUT_MS = 60_000;
/** A request may wait in its queue a quarter of its timeout, at most one minute (as kube-apiserver). */
export const MAX_WAIT_LIMIT_MS = 60_000;

export const RESOURCE_VERBS = ['get', 'list', 'watch', 'create', 'update', 'patch', 'delete', 'deletecollection', 'proxy'] as const;
export const NON_RESOURCE_VERBS = ['get', 'head', 'post', 'put', 'patch', 'delete', 'options'] as const;

export const REPLICA_ASSIGNMENTS = ['random', 'round-robin'] as const;
export type ReplicaAssignment = (typeof REPLICA_ASSIGNMENTS)[number];
/** Bytes a listed object holds in a response, when the flow does not say (a typical pod's JSON). */
export const DEFAULT_OBJECT_BYTES = 4096;

export interface ServerSpec {
  maxRequestsInflight: number;
  maxMutatingRequestsInflight: number;
  requestTimeoutMs: number;
  /** Lists at resourceVersion "" are served from the watch cache (1.32 default with a recent etcd). */
  consistentListFromCache: boolean;
  /**
   * The server's execution plane, as `--execution-threads` sets it (sim/execution-plane.ts): N
   * worker threads, or 0 for the main thread alone; null when not modelled (`none`, or neither it
   * nor `cpus` given: every admitted request starts at once, as in kube-apiserver). Default: as the
   * server's, cpus − 1 (at least 1), when `cpus` is given.
   */
  executorThreads: number | null;
  /**
   * The server machine's CPUs: the capacity model's cores (requests share them, sim/shared-cpu.ts)
   * and the default of executorThreads. null: CPU not modelled, every request runs at its own pace.
   */
  cpus: number | null;
  /** Bytes the server may hold for responses in flight (LISTs); null when unbounded. */
  memoryBytes: number | null;
  /** The main thread as a run-to-completion resource on the CPUs (sim/main-thread.ts); needs `cpus`. */
  mainThread: boolean;
  /** Stop-the-world pauses of the main thread (GC), by kind (sim/server-pauses.ts); needs `mainThread`. [] when off. */
  pauses: PauseSpec[];
  /** Independent kube-apiservers, each with its own APF, concurrency limit and CPUs. */
  replicas: number;
  /** How a client's connection picks its replica: a seeded draw, or in turn. */
  replicaAssignment: ReplicaAssignment;
  /** The work estimator's tunables (Kubernetes' WorkEstimatorConfig); its defaults when left out. */
  workEstimator: WorkEstimatorConfig;
}

export interface FlowSpec {
  name: string;
  user: string;
  groups: string[];
  namespace: string;
  verb: string;
  apiGroup: string;
  resource: string;
  subresource: string;
  /** The object a request names (get/update/delete of one object); "" for collections. */
  objectName: string;
  /** A non-resource path (`/healthz`); when set the flow makes non-resource requests. */
  path: string;
  /** Objects a LIST or WATCH touches (the estimator's object count for this flow's resource). */
  objects: number | undefined;
  /** Objects a LIST returns (a label selector's matches); undefined: all its objects. Response bytes and pool routing follow it. */
  returns: number | undefined;
  /** Watches a write of this flow notifies (the mutating estimator's watch count). */
  watchers: number;
  /** CPU time one request uses (ms); undefined: from its objects (sim/request-cost.ts). */
  cpuMs: number | undefined;
  /** The part of it on the main thread, with `server.mainThread` (ms); undefined: sim/request-cost.ts. */
  mainThreadCpuMs: number | undefined;
  /** Each request's CPU and slice in proportion to its drawn service time, averaging `cpuMs` and `mainThreadCpuMs` (sim/request-cost.ts). */
  mainThreadCpuVaries: boolean;
  /** Bytes one listed object holds in the response. */
  objectBytes: number;
  /** Connections the flow's requests spread over, each pinned to one replica. */
  clients: number;
  query: Record<string, string>;
  arrival: ArrivalSpec;
  service: ServiceSpec;
  timeoutMs: number;
  waitLimitMs: number;
  startMs: number;
  stopMs: number;
}

/** A manifest written inline in the scenario, with where it came from. */
export interface InlineObject {
  index: number;
  object: Plain;
}

export interface Scenario {
  name: string;
  description: string;
  durationMs: number;
  server: ServerSpec;
  bootstrap: BootstrapMode;
  objects: InlineObject[];
  /** Manifest files, as written (relative to the scenario file). */
  files: string[];
  /** Stored object counts by `resource.group` (core: `resource`), for requests that do not say. */
  objectCounts: Record<string, number>;
  flows: FlowSpec[];
  /** Width of the report's time buckets; undefined: chosen from the duration. */
  reportIntervalMs: number | undefined;
}

const TOP_FIELDS = ['apiVersion', 'kind', 'name', 'description', 'duration', 'server', 'bootstrap', 'objects', 'files', 'objectCounts', 'flows', 'report'];
const SERVER_FIELDS = [
  'maxRequestsInflight',
  'maxMutatingRequestsInflight',
  'requestTimeout',
  'consistentListFromCache',
  'executorThreads',
  'cpus',
  'cores',
  'memory',
  'mainThread',
  'pauses',
  'replicas',
  'replicaAssignment',
  'workEstimator',
];
const FLOW_FIELDS = [
  'name',
  'user',
  'groups',
  'namespace',
  'verb',
  'apiGroup',
  'resource',
  'subresource',
  'objectName',
  'path',
  'objects',
  'returns',
  'watchers',
  'cpu',
  'mainThreadCpu',
  'mainThreadCpuVaries',
  'objectSize',
  'clients',
  'query',
  'arrival',
  'service',
  'timeout',
  'waitLimit',
  'start',
  'stop',
];
const FLOW_NAME = /^[A-Za-z0-9][A-Za-z0-9._-]{0,62}$/;

export function parseScenario(value: unknown, defaultName: string): { scenario: Scenario; problems: FieldProblem[] } {
  const r = new FieldReader();
  const top = r.mapping(value, [], TOP_FIELDS) ?? {};
  if (top.kind !== SCENARIO_KIND)
    r.fail(['kind'], top.kind === undefined ? `required: must be ${SCENARIO_KIND}` : `must be ${SCENARIO_KIND}, got ${JSON.stringify(top.kind)}`);
  r.string(top, 'apiVersion', []);
  const problemsBefore = r.problems.length;
  const durationMs = r.duration(top, 'duration', [], { required: true, fallbackMs: 1000, positive: true });
  // A bad duration is reported once: flows then skip the checks that compare against it.
  const durationOk = r.problems.length === problemsBefore;
  const server = parseServer(r, top.server);
  const reportMap = top.report === undefined ? {} : (r.mapping(top.report, ['report'], ['interval']) ?? {});
  const reportIntervalMs = reportMap.interval === undefined ? undefined : r.duration(reportMap, 'interval', ['report'], { fallbackMs: 1000, positive: true });

  const objects: InlineObject[] = [];
  (r.list(top.objects, ['objects']) ?? []).forEach((object, index) => {
    if (isPlain(object)) objects.push({ index, object });
    else r.fail(['objects', index], 'must be a PriorityLevelConfiguration or FlowSchema manifest (a mapping)');
  });
  const files: string[] = [];
  (r.list(top.files, ['files']) ?? []).forEach((file, index) => {
    if (typeof file === 'string' && file !== '') files.push(file);
    else r.fail(['files', index], 'must be a path to a manifest file');
  });

  const objectCounts: Record<string, number> = {};
  if (top.objectCounts !== undefined && top.objectCounts !== null) {
    const counts = isPlain(top.objectCounts)
      ? top.objectCounts
      : (r.fail(['objectCounts'], 'must be a mapping from resource (e.g. pods, deployments.apps) to a count'), {});
    for (const key of Object.keys(counts)) objectCounts[key] = r.number(counts, key, ['objectCounts'], { fallback: 0, integer: true, min: 0 });
  }

  const flows: FlowSpec[] = [];
  const seen = new Map<string, number>();
  (r.list(top.flows, ['flows']) ?? []).forEach((raw, index) => {
    const flow = parseFlow(r, raw, ['flows', index], server, durationOk ? durationMs : undefined);
    if (flow === undefined) return;
    const earlier = seen.get(flow.name);
    if (earlier !== undefined) r.fail(['flows', index, 'name'], `duplicate flow name ${JSON.stringify(flow.name)} (also flows[${earlier}])`);
    seen.set(flow.name, index);
    flows.push(flow);
  });

  const scenario: Scenario = {
    name: r.string(top, 'name', [], { fallback: defaultName }) || defaultName,
    description: r.string(top, 'description', []),
    durationMs,
    server,
    bootstrap: r.oneOf(top, 'bootstrap', [], BOOTSTRAP_MODES, 'suggested'),
    objects,
    files,
    objectCounts,
    flows,
    reportIntervalMs,
  };
  return { scenario, problems: r.problems };
}

function parseServer(r: FieldReader, value: unknown): ServerSpec {
  const map = value === undefined || value === null ? {} : (r.mapping(value, ['server'], SERVER_FIELDS) ?? {});
  const path = ['server'];
  const server: ServerSpec = {
    maxRequestsInflight: r.number(map, 'maxRequestsInflight', path, { fallback: DEFAULT_MAX_REQUESTS_INFLIGHT, integer: true, min: 0 }),
    maxMutatingRequestsInflight: r.number(map, 'maxMutatingRequestsInflight', path, {
      fallback: DEFAULT_MAX_MUTATING_REQUESTS_INFLIGHT,
      integer: true,
      min: 0,
    }),
    requestTimeoutMs: r.duration(map, 'requestTimeout', path, { fallbackMs: DEFAULT_REQUEST_TIMEOUT_MS, positive: true }),
    consistentListFromCache: r.boolean(map, 'consistentListFromCache', path, true),
    executorThreads: null,
    cpus: map.cpus === undefined || map.cpus === null ? null : r.number(map, 'cpus', path, { fallback: 1, integer: true, min: 1, max: 4096 }),
    memoryBytes: map.memory === undefined || map.memory === null ? null : r.bytes(map, 'memory', path, { fallback: 1, positive: true }),
    mainThread: r.boolean(map, 'mainThread', path, false),
    pauses: [],
    replicas: r.number(map, 'replicas', path, { fallback: 1, integer: true, min: 1, max: 64 }),
    replicaAssignment: r.oneOf(map, 'replicaAssignment', path, REPLICA_ASSIGNMENTS, 'random'),
    workEstimator: workEstimatorOf(r, map.workEstimator),
  };
  // One name for the machine's size: `cores` was its first name, when it only set the thread count.
  if (map.cores !== undefined) r.fail([...path, 'cores'], 'renamed to cpus (the CPUs requests share, and the default of executorThreads)');
  // As `fairway serve --execution-threads`: the cores left after the main thread, at least one.
  const defaultThreads = server.cpus === null ? null : Math.max(1, server.cpus - 1);
  // `none`: kube-apiserver has no execution plane; every admitted request runs at once (sharing the CPUs).
  server.executorThreads =
    map.executorThreads === undefined || map.executorThreads === null
      ? defaultThreads
      : map.executorThreads === 'none'
        ? null
        : r.number(map, 'executorThreads', path, { fallback: 0, integer: true, min: 0, max: 4096 });
  if (server.mainThread && server.cpus === null) r.fail([...path, 'mainThread'], 'needs server.cpus: the main thread runs on the CPUs it shares with the pool');
  server.pauses = pausesOf(r, map.pauses, server.mainThread);
  if (server.maxRequestsInflight + server.maxMutatingRequestsInflight <= 0) {
    r.fail(path, 'maxRequestsInflight + maxMutatingRequestsInflight must be greater than 0 (APF needs a server concurrency limit)');
  }
  return server;
}

/** `server.pauses`: a list of {every, duration}, each kind of pause of the main thread, which it needs. */
function pausesOf(r: FieldReader, value: unknown, mainThread: boolean): PauseSpec[] {
  if (value === undefined || value === null) return [];
  const path = ['server', 'pauses'];
  if (!mainThread) r.fail(path, 'needs server.mainThread: true (a pause stops the main thread)');
  const specs: PauseSpec[] = [];
  (r.list(value, path) ?? []).forEach((raw, index) => {
    const map = r.mapping(raw, [...path, index], ['every', 'duration', 'durations']);
    if (map === undefined) return;
    const everyMs = r.duration(map, 'every', [...path, index], { required: true, fallbackMs: 1000, positive: true });
    if (map.durations !== undefined && map.duration !== undefined)
      r.fail([...path, index, 'durations'], 'give duration (a distribution) or durations (measured lengths), not both');
    const duration =
      map.durations === undefined ? parseService(r, map.duration, [...path, index, 'duration']) : measuredOf(r, map.durations, [...path, index, 'durations']);
    specs.push({ everyMs, duration });
  });
  const share = pauseShare(specs);
  if (share >= 1) r.fail(path, `the pauses would take ${(share * 100).toFixed(0)}% of the main thread's time (Σ mean duration ÷ every): it must be under 100%`);
  return specs;
}

/** A pause kind's `durations`: measured lengths, each a positive duration, one drawn at random per pause. */
function measuredOf(r: FieldReader, value: unknown, path: PathSegment[]): PauseSpec['duration'] {
  const valuesMs: number[] = [];
  (r.list(value, path) ?? []).forEach((item, index) => {
    const parsed = typeof item === 'string' ? parseDurationMs(item) : undefined;
    if (parsed?.ok === true && parsed.ms > 0) valuesMs.push(parsed.ms);
    else r.fail([...path, index], `must be a positive duration such as "1.5ms", got ${JSON.stringify(item)}`);
  });
  if (valuesMs.length === 0) {
    r.fail(path, 'must list at least one measured length, e.g. [0.8ms, 1.2ms, 11ms]');
    return { type: 'constant', valueMs: 1 };
  }
  return { type: 'measured', valuesMs };
}

function workEstimatorOf(r: FieldReader, value: unknown): WorkEstimatorConfig {
  const { config, errors } = decodeWorkEstimatorConfig(value);
  for (const error of errors) r.fail(['server', 'workEstimator', ...error.field.split('.').filter((p) => p !== '')], fieldErrorBody(error));
  return config;
}

/** `durationMs` is undefined when the scenario's duration was invalid (already reported). */
function parseFlow(r: FieldReader, raw: unknown, path: PathSegment[], server: ServerSpec, durationMs: number | undefined): FlowSpec | undefined {
  const map = r.mapping(raw, path, FLOW_FIELDS);
  if (map === undefined) return undefined;
  const name = r.string(map, 'name', path, { required: true });
  if (name !== '' && !FLOW_NAME.test(name))
    r.fail([...path, 'name'], `must be 1-63 letters, digits, '.', '_' or '-', starting with a letter or digit, got ${JSON.stringify(name)}`);
  const nonResourcePath = r.string(map, 'path', path);
  const isResource = nonResourcePath === '';
  if (!isResource && !nonResourcePath.startsWith('/')) r.fail([...path, 'path'], `must start with "/", got ${JSON.stringify(nonResourcePath)}`);
  const verb = r.oneOf(map, 'verb', path, isResource ? RESOURCE_VERBS : NON_RESOURCE_VERBS);
  const resource = r.string(map, 'resource', path, { required: isResource });
  if (!isResource && resource !== '') r.fail([...path, 'resource'], 'a flow has either a resource or a non-resource path, not both');
  const timeoutMs = r.duration(map, 'timeout', path, { fallbackMs: server.requestTimeoutMs, positive: true });
  const startMs = r.duration(map, 'start', path, { fallbackMs: 0 });
  const stopMs = r.duration(map, 'stop', path, { fallbackMs: durationMs ?? Number.POSITIVE_INFINITY });
  if (stopMs <= startMs && (durationMs !== undefined || map.stop !== undefined)) r.fail([...path, 'stop'], `must be later than start (${startMs / 1000}s)`);
  const cpuMs = map.cpu === undefined || map.cpu === null ? undefined : r.duration(map, 'cpu', path, { fallbackMs: 0 });
  const objects = map.objects === undefined ? undefined : r.number(map, 'objects', path, { fallback: 0, integer: true, min: 0 });
  return {
    name,
    user: r.string(map, 'user', path, { required: true }),
    groups: r.stringList(map, 'groups', path, ['system:authenticated']),
    namespace: r.string(map, 'namespace', path),
    verb,
    apiGroup: r.string(map, 'apiGroup', path),
    resource,
    subresource: r.string(map, 'subresource', path),
    objectName: r.string(map, 'objectName', path),
    path: nonResourcePath,
    objects,
    returns: returnsOf(r, map, path, objects),
    watchers: r.number(map, 'watchers', path, { fallback: 0, integer: true, min: 0 }),
    cpuMs,
    mainThreadCpuMs: mainThreadCpuOf(r, map, path, server, cpuMs),
    mainThreadCpuVaries: mainThreadCpuVariesOf(r, map, path),
    objectBytes: r.bytes(map, 'objectSize', path, { fallback: DEFAULT_OBJECT_BYTES, positive: true }),
    clients: r.number(map, 'clients', path, { fallback: 1, integer: true, min: 1, max: 100_000 }),
    query: r.stringMap(map, 'query', path),
    arrival: parseArrival(r, map.arrival, [...path, 'arrival']),
    service: parseService(r, map.service, [...path, 'service']),
    timeoutMs,
    // kube-apiserver lets a request wait a quarter of its deadline in its queue, at most a minute.
    waitLimitMs: r.duration(map, 'waitLimit', path, { fallbackMs: Math.min(timeoutMs / 4, MAX_WAIT_LIMIT_MS) }),
    startMs,
    stopMs,
  };
}

/** A flow's `returns`: part of its `objects` (a selector scans them all and returns the matches), so it needs them. */
function returnsOf(r: FieldReader, map: Plain, path: PathSegment[], objects: number | undefined): number | undefined {
  if (map.returns === undefined || map.returns === null) return undefined;
  const returns = r.number(map, 'returns', path, { fallback: 0, integer: true, min: 0 });
  if (objects === undefined) r.fail([...path, 'returns'], "needs the flow's objects (the objects it scans, of which it returns this many)");
  else if (returns > objects) r.fail([...path, 'returns'], `must be at most the flow's objects (${objects}), got ${returns}`);
  return returns;
}

/** A flow's `mainThreadCpu`: only with server.mainThread and an explicit `cpu`, and at most that (the slice is part of it). */
function mainThreadCpuOf(r: FieldReader, map: Plain, path: PathSegment[], server: ServerSpec, cpuMs: number | undefined): number | undefined {
  if (map.mainThreadCpu === undefined || map.mainThreadCpu === null) return undefined;
  const ms = r.duration(map, 'mainThreadCpu', path, { fallbackMs: 0 });
  if (!server.mainThread) r.fail([...path, 'mainThreadCpu'], 'has no effect without server.mainThread: true');
  // Without an explicit cpu the flow's CPU is worked out from its objects, and a slice larger than
  // that would silently become the flow's CPU time: ask for both.
  if (cpuMs === undefined) r.fail([...path, 'mainThreadCpu'], "needs the flow's cpu too (the main-thread slice is part of its CPU time)");
  else if (ms > cpuMs) r.fail([...path, 'mainThreadCpu'], "must be at most the flow's cpu (the main-thread slice is part of its CPU time)");
  return ms;
}

/** `mainThreadCpuVaries` scales the flow's `mainThreadCpu`: it needs one. */
function mainThreadCpuVariesOf(r: FieldReader, map: Plain, path: PathSegment[]): boolean {
  const varies = r.boolean(map, 'mainThreadCpuVaries', path, false);
  if (varies && (map.mainThreadCpu === undefined || map.mainThreadCpu === null)) {
    r.fail([...path, 'mainThreadCpuVaries'], "needs the flow's mainThreadCpu (the mean of the varied slices)");
  }
  return varies;
}

const RATE_LIMIT = 10_000_000;

function parseArrival(r: FieldReader, raw: unknown, path: PathSegment[]): ArrivalSpec {
  const fallback: ArrivalSpec = { type: 'constant', ratePerSecond: 1 };
  if (raw === undefined) {
    r.fail(path, 'required: e.g. {type: poisson, rate: 50}');
    return fallback;
  }
  const type = isPlain(raw) ? raw.type : undefined;
  const known = type === 'burst' ? ['type', 'rate', 'on', 'off'] : ['type', 'rate'];
  const map = r.mapping(raw, path, known);
  if (map === undefined) return fallback;
  const kind = r.oneOf(map, 'type', path, ['constant', 'poisson', 'burst'] as const);
  const ratePerSecond = r.number(map, 'rate', path, { required: true, fallback: 1, positive: true, max: RATE_LIMIT });
  if (kind !== 'burst') return { type: kind, ratePerSecond };
  return {
    type: 'burst',
    ratePerSecond,
    onMs: r.duration(map, 'on', path, { required: true, fallbackMs: 1000, positive: true }),
    offMs: r.duration(map, 'off', path, { required: true, fallbackMs: 0 }),
  };
}

function parseService(r: FieldReader, raw: unknown, path: PathSegment[]): ServiceSpec {
  const fallback: ServiceSpec = { type: 'constant', valueMs: 1 };
  if (raw === undefined) {
    r.fail(path, 'required: e.g. {type: exponential, mean: 40ms}');
    return fallback;
  }
  const type = isPlain(raw) ? raw.type : undefined;
  const known = type === 'constant' ? ['type', 'value'] : type === 'lognormal' ? ['type', 'median', 'p99'] : ['type', 'mean'];
  const map = r.mapping(raw, path, known);
  if (map === undefined) return fallback;
  const kind = r.oneOf(map, 'type', path, ['constant', 'exponential', 'lognormal'] as const);
  switch (kind) {
    case 'constant':
      return { type: 'constant', valueMs: r.duration(map, 'value', path, { required: true, fallbackMs: 1 }) };
    case 'exponential':
      return { type: 'exponential', meanMs: r.duration(map, 'mean', path, { required: true, fallbackMs: 1, positive: true }) };
    case 'lognormal': {
      const medianMs = r.duration(map, 'median', path, { required: true, fallbackMs: 1, positive: true });
      const p99Ms = r.duration(map, 'p99', path, { required: true, fallbackMs: 2, positive: true });
      if (p99Ms < medianMs) r.fail([...path, 'p99'], `must not be shorter than the median (${medianMs}ms)`);
      return { type: 'lognormal', medianMs, p99Ms: Math.max(p99Ms, medianMs) };
    }
  }
}
