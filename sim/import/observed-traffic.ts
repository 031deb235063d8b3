// Flows that reproduce the load a server saw, from two scrapes of its /metrics some seconds apart
// (`sim import --traffic`). Only kube-apiserver's standard families are read, so this works against
// any kube-apiserver as against Fairway. Per FlowSchema × priority level:
//
//   arrivals   (Δ apiserver_flowcontrol_dispatched_requests_total + Δ …_rejected_requests_total) ÷ elapsed, as Poisson
//   service    apiserver_flowcontrol_request_execution_seconds{type="regular"}: the window's mean and
//              p99 (from the buckets' deltas) as a log-normal with that mean and p99, or an
//              exponential of that mean when the p99 is not above it
//   seats      apiserver_flowcontrol_work_estimated_seats: the window's mean, rounded; a flow of s > 1
//              seats is written as a LIST of s × objectsPerSeat objects, which the work estimator
//              prices at s seats
//   returns    a LIST's share of its objects that it returns, Δ returned ÷ Δ tested of the
//              resource's LISTs from the watch cache (apiserver_cache_list_*_objects_total) and
//              from etcd (apiserver_storage_list_*_objects_total) (list-selectivity.ts: assumed
//              the same for every LIST of the resource); unset, with one warning, when the server
//              has no such families
//
// A flow's requests must classify into its FlowSchema: its user, groups, verb and resource are
// taken from the schema's rules (a wildcard becomes a concrete value) and checked with the same
// classifier the simulator runs; a schema whose rules give no request that lands in it (a broader
// schema of higher precedence catches each) is skipped with a warning, as are watches (their
// execution is their initial listing, not their length).

import { buildClassifier } from '../../engine/flowcontrol/classifier.ts';
import { counterDelta, histogramDelta, histogramQuantile, histograms } from '../../engine/prometheus-delta.ts';
import { parseExposition, samplesByKey } from '../../engine/prometheus-text.ts';
import { defaultFlowSchema, defaultPriorityLevelConfiguration } from '../../engine/resources/defaults.ts';
import type { FlowSchema, PolicyRulesWithSubjects, PriorityLevelConfiguration, Subject } from '../../engine/resources/types.ts';
import { NORMAL_Z_P99 } from '../distributions.ts';
import { requestDigest, type RequestShape } from '../request-shape.ts';
import { LIST_SELECTIVITY_FAMILIES, listSelectivity, returnsOf } from './list-selectivity.ts';

/** The prefix of every flow `--traffic` writes; `--merge` replaces these and keeps the operator's. */
export const OBSERVED_PREFIX = 'observed-';
const NAMED_VERBS = new Set(['get', 'update', 'patch', 'delete']);

export interface ObservedFlow {
  name: string;
  user: string;
  groups: string[];
  verb: string;
  apiGroup?: string;
  resource?: string;
  namespace?: string;
  objectName?: string;
  path?: string;
  objects?: number;
  returns?: number;
  arrival: { type: 'poisson'; rate: number };
  service: { type: 'lognormal'; median: string; p99: string } | { type: 'exponential'; mean: string };
}

export interface ObservedTraffic {
  flows: ObservedFlow[];
  warnings: string[];
}

const key = (fs: string, pl: string) => `${fs}\u0000${pl}`;
const pairOf = (labels: Record<string, string>) =>
  labels.flow_schema === undefined || labels.priority_level === undefined ? undefined : key(labels.flow_schema, labels.priority_level);
const ms = (seconds: number) => `${Math.max(0.001, Math.round(seconds * 1e6) / 1e3)}ms`;

/**
 * A log-normal with this mean and p99: mean = median·e^(σ²/2) and p99 = median·e^(zσ), so σ is the
 * smaller root of σ²/2 − zσ + ln(p99/mean) = 0. None when the p99 is not above the mean (or too
 * far above it for any log-normal): then an exponential of the mean.
 */
export function serviceFrom(meanSeconds: number, p99Seconds: number | undefined): ObservedFlow['service'] {
  if (p99Seconds !== undefined && p99Seconds > meanSeconds && meanSeconds > 0) {
    const r = Math.log(p99Seconds / meanSeconds);
    const disc = NORMAL_Z_P99 * NORMAL_Z_P99 - 2 * r;
    if (disc >= 0) {
      const sigma = NORMAL_Z_P99 - Math.sqrt(disc);
      const median = meanSeconds / Math.exp((sigma * sigma) / 2);
      return { type: 'lognormal', median: ms(median), p99: ms(p99Seconds) };
    }
  }
  return { type: 'exponential', mean: ms(meanSeconds) };
}

/** Requests a rule's subjects and rules can make, most specific first; wildcards made concrete. */
function* candidateShapes(rule: PolicyRulesWithSubjects, wantList: boolean): Generator<Omit<RequestShape, 'name' | 'subresource'>> {
  const users = (rule.subjects ?? []).flatMap(userOf);
  for (const who of users) {
    for (const r of rule.resourceRules ?? []) {
      const verbs = r.verbs ?? [];
      const verb = verbs.includes(wantList ? 'list' : 'get') || verbs.includes('*') ? (wantList ? 'list' : 'get') : (verbs.find((v) => v !== 'watch') ?? '');
      if (verb === '') continue;
      const apiGroup = (r.apiGroups ?? []).find((g) => g !== '*') ?? '';
      const resource = (r.resources ?? []).find((x) => x !== '*') ?? 'configmaps';
      const namespaces = r.namespaces ?? [];
      const namespace = namespaces.find((n) => n !== '*') ?? (namespaces.includes('*') ? 'default' : '');
      if (namespace === '' && r.clusterScope !== true) continue;
      yield { ...who, verb, apiGroup, resource: resource.split('/')[0]!, namespace, nonResourcePath: '' };
    }
    for (const r of rule.nonResourceRules ?? []) {
      const verb = (r.verbs ?? []).find((v) => v !== '*') ?? 'get';
      const url = (r.nonResourceURLs ?? []).find((u) => u !== '*') ?? '/healthz';
      yield { ...who, verb, apiGroup: '', resource: '', namespace: '', nonResourcePath: url.endsWith('*') ? `${url.slice(0, -1)}observed` : url };
    }
  }
}

function userOf(subject: Subject): { user: string; groups: string[] }[] {
  switch (subject.kind) {
    case 'User': {
      const name = subject.user?.name ?? '*';
      return [{ user: name === '*' ? 'observed-user' : name, groups: ['system:authenticated'] }];
    }
    case 'ServiceAccount': {
      const ns = subject.serviceAccount?.namespace ?? 'default';
      const name = subject.serviceAccount?.name ?? '*';
      return [
        {
          user: `system:serviceaccount:${ns}:${name === '*' ? 'observed' : name}`,
          groups: ['system:serviceaccounts', `system:serviceaccounts:${ns}`, 'system:authenticated'],
        },
      ];
    }
    case 'Group': {
      const group = subject.group?.name ?? '*';
      if (group === 'system:unauthenticated') return [{ user: 'system:anonymous', groups: ['system:unauthenticated'] }];
      return [
        { user: 'observed-user', groups: group === '*' || group === 'system:authenticated' ? ['system:authenticated'] : [group, 'system:authenticated'] },
      ];
    }
    default:
      return [];
  }
}

/** A flow name from the schema's: observed-<schema>, within the scenario's name rules. */
function flowName(schema: string): string {
  return `${OBSERVED_PREFIX}${schema.replace(/[^A-Za-z0-9._-]+/g, '-')}`.slice(0, 63).replace(/[^A-Za-z0-9]+$/, '');
}

export function observedTraffic(input: {
  before: string;
  after: string;
  elapsedSeconds: number;
  flowSchemas: readonly Record<string, unknown>[];
  priorityLevels: readonly Record<string, unknown>[];
  objectsPerSeat: number;
}): ObservedTraffic {
  const warnings: string[] = [];
  const a = parseExposition(input.before);
  const b = parseExposition(input.after);
  const schemas = input.flowSchemas.map((f) => defaultFlowSchema(f as FlowSchema));
  const levels = input.priorityLevels.map((p) => defaultPriorityLevelConfiguration(p as PriorityLevelConfiguration));
  const classifier = buildClassifier(schemas, levels);
  const bySchema = new Map(schemas.map((s) => [s.metadata?.name ?? '', s]));

  const counters = (name: string) => [samplesByKey(a, name, pairOf), samplesByKey(b, name, pairOf)] as const;
  const dispatched = counters('apiserver_flowcontrol_dispatched_requests_total');
  const rejected = counters('apiserver_flowcontrol_rejected_requests_total');
  const regular = (labels: Record<string, string>) => (labels.type !== 'watch' ? pairOf(labels) : undefined);
  const execution = [
    histograms(a, 'apiserver_flowcontrol_request_execution_seconds', regular),
    histograms(b, 'apiserver_flowcontrol_request_execution_seconds', regular),
  ] as const;
  const seats = [
    histograms(a, 'apiserver_flowcontrol_work_estimated_seats', pairOf),
    histograms(b, 'apiserver_flowcontrol_work_estimated_seats', pairOf),
  ] as const;

  const selectivity = listSelectivity(a, b);
  let listsWithoutSelectivity = false;

  const pairs = [...new Set([...dispatched[1].keys(), ...rejected[1].keys()])].sort();
  const flows: ObservedFlow[] = [];
  for (const pair of pairs) {
    const [fs, pl] = pair.split('\u0000') as [string, string];
    const arrivals = counterDelta(dispatched[0].get(pair), dispatched[1].get(pair)) + counterDelta(rejected[0].get(pair), rejected[1].get(pair));
    if (arrivals <= 0) continue;
    const rate = Math.round((arrivals / input.elapsedSeconds) * 1000) / 1000;
    const exec = histogramDelta(execution[0], execution[1], pair);
    if (exec.count <= 0) {
      warnings.push(`${fs} (level ${pl}): ${arrivals} requests arrived but none finished a regular execution in the window: no flow written`);
      continue;
    }
    const seatHistogram = histogramDelta(seats[0], seats[1], pair);
    const meanSeats = seatHistogram.count > 0 ? seatHistogram.sum / seatHistogram.count : 1;
    const wantSeats = Math.max(1, Math.round(meanSeats));
    const schema = bySchema.get(fs);
    if (schema === undefined) {
      warnings.push(`${fs} (level ${pl}): /metrics names a FlowSchema the server did not list: no flow written`);
      continue;
    }
    let shape: Omit<RequestShape, 'name' | 'subresource'> | undefined;
    for (const rule of schema.spec?.rules ?? []) {
      for (const candidate of candidateShapes(rule, wantSeats > 1)) {
        const digest = requestDigest({ ...candidate, name: '', subresource: '' });
        if (classifier.classify(digest).flowSchema.metadata?.name === fs) {
          shape = candidate;
          break;
        }
      }
      if (shape !== undefined) break;
    }
    if (shape === undefined) {
      warnings.push(`${fs} (level ${pl}): no request its rules describe classifies into it (a schema of higher precedence takes each): no flow written`);
      continue;
    }
    const flow: ObservedFlow = {
      name: flowName(fs),
      user: shape.user,
      groups: [...shape.groups],
      verb: shape.verb,
      arrival: { type: 'poisson', rate },
      service: serviceFrom(exec.sum / exec.count, histogramQuantile(0.99, exec)),
    };
    if (shape.nonResourcePath !== '') flow.path = shape.nonResourcePath;
    else {
      if (shape.apiGroup !== '') flow.apiGroup = shape.apiGroup;
      flow.resource = shape.resource;
      if (shape.namespace !== '') flow.namespace = shape.namespace;
      if (shape.verb === 'list') {
        flow.objects = wantSeats * input.objectsPerSeat;
        const returns = selectivity === undefined ? undefined : returnsOf(selectivity, shape.apiGroup, shape.resource, flow.objects);
        if (returns !== undefined) flow.returns = returns;
        listsWithoutSelectivity ||= selectivity === undefined;
      } else {
        // A request that names its object (a GET by name, not a LIST): as the URL would.
        if (NAMED_VERBS.has(shape.verb)) flow.objectName = 'observed';
        if (wantSeats > 1)
          warnings.push(`${fs} (level ${pl}): its requests took ${meanSeats.toFixed(2)} seats on average, but its rules allow no LIST: written at 1 seat`);
      }
    }
    flows.push(flow);
  }
  if (listsWithoutSelectivity) {
    warnings.push(`/metrics has none of ${LIST_SELECTIVITY_FAMILIES.join(', ')}: each LIST flow returns all its objects`);
  }
  return { flows, warnings };
}
