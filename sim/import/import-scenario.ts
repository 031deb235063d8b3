// A scenario skeleton from what a running API server reports: its PriorityLevelConfigurations and
// FlowSchemas as a person would write them (status, managedFields and the metadata the server set
// are dropped), `bootstrap: none` so the simulation holds exactly that configuration, the server
// concurrency limit that explains the levels' apiserver_flowcontrol_nominal_limit_seats, and
// objectCounts from apiserver_storage_objects. Flows are for the operator to add (or an audit log
// to replay).

import { isMap, isSeq, parseDocument, stringify } from 'yaml';
import { computeLevelLimits } from '../../engine/flowcontrol/concurrency-limits.ts';
import { levelConfigOf } from '../../engine/flowcontrol/level-config.ts';
import { defaultPriorityLevelConfiguration } from '../../engine/resources/defaults.ts';
import { parseExposition, type ExpositionSample } from '../../engine/prometheus-text.ts';
import type { PriorityLevelConfiguration } from '../../engine/resources/types.ts';
import { OBSERVED_PREFIX, type ObservedFlow } from './observed-traffic.ts';

/** Annotations that record how an object was written, not what it says. */
const DROPPED_ANNOTATIONS = new Set(['kubectl.kubernetes.io/last-applied-configuration']);

export interface ImportInput {
  server: string;
  context: string;
  /** Manifests (manifestOf), checked and in name order (imported-objects.ts). */
  priorityLevels: Record<string, unknown>[];
  flowSchemas: Record<string, unknown>[];
  metricsText: string;
  name: string;
  /** Flows that reproduce the observed load (`--traffic`); none by default. */
  flows?: readonly ObservedFlow[];
  /** kube-apiservers counted from their identity leases (apiserver-replicas.ts); unset when unknown. */
  replicas?: number;
}

export interface ImportResult {
  text: string;
  /** What the text holds, for `--merge` to take the configuration from. */
  scenario: Record<string, unknown>;
  serverConcurrencyLimit: number;
  objectCounts: Record<string, number>;
  warnings: string[];
}

/** The object as a manifest: apiVersion, kind, name, labels, annotations and spec only. */
export function manifestOf(object: Record<string, unknown>, kind: string): Record<string, unknown> {
  const metadata = (object.metadata ?? {}) as Record<string, unknown>;
  const kept: Record<string, unknown> = { name: metadata.name };
  if (isRecord(metadata.labels) && Object.keys(metadata.labels).length > 0) kept.labels = metadata.labels;
  if (isRecord(metadata.annotations)) {
    const annotations = Object.fromEntries(Object.entries(metadata.annotations).filter(([k]) => !DROPPED_ANNOTATIONS.has(k)));
    if (Object.keys(annotations).length > 0) kept.annotations = annotations;
  }
  return { apiVersion: typeof object.apiVersion === 'string' ? object.apiVersion : 'flowcontrol.apiserver.k8s.io/v1', kind, metadata: kept, spec: object.spec };
}

/**
 * The ServerCL under which every level's NominalCL is what the server reports. A level without a
 * borrowing limit may grow to NominalCL + ServerCL (apiserver_flowcontrol_upper_limit_seats), which
 * names it exactly; failing that, NominalCL rounds up, so the sum of the reported values is at
 * least ServerCL and at most ServerCL + levels, and the smallest ServerCL in that range that gives
 * every reported NominalCL is taken.
 */
export function inferServerCL(
  priorityLevels: readonly PriorityLevelConfiguration[],
  nominal: ReadonlyMap<string, number>,
  upper: ReadonlyMap<string, number>,
): number | undefined {
  const inputs = priorityLevels.map((p) => levelConfigOf(defaultPriorityLevelConfiguration(p)).limitsInput);
  const fits = (serverCL: number) =>
    serverCL > 0 && computeLevelLimits(serverCL, inputs).levels.every((l) => !nominal.has(l.name) || nominal.get(l.name) === l.nominalCL);
  for (const input of inputs) {
    const n = nominal.get(input.name);
    const u = upper.get(input.name);
    if (
      (input.exempt || input.borrowingLimitPercent === undefined || input.borrowingLimitPercent === null) &&
      n !== undefined &&
      u !== undefined &&
      fits(u - n)
    )
      return u - n;
  }
  const sum = [...nominal.values()].reduce((s, n) => s + n, 0);
  for (let serverCL = Math.max(1, sum - inputs.length); serverCL <= sum; serverCL++) if (fits(serverCL)) return serverCL;
  return undefined;
}

export function importScenario(input: ImportInput): ImportResult {
  const warnings: string[] = [];
  const exposition = parseExposition(input.metricsText);
  const samples = (name: string) => exposition.filter((s) => s.name === name);
  // A sample that is not a count (NaN, Inf, -3, 2.5) is not one; the rest of the metrics still are.
  const count = (name: string, label: string, m: ExpositionSample): number | undefined => {
    if (Number.isSafeInteger(m.value) && m.value >= 0) return m.value;
    warnings.push(`/metrics: ${name}{${label}=${JSON.stringify(m.labels[label] ?? '')}} is ${JSON.stringify(goValue(m.value))}, not a count: skipped`);
    return undefined;
  };
  const perLevel = (name: string) => {
    const values = new Map<string, number>();
    for (const m of samples(name)) {
      const level = m.labels.priority_level;
      if (level === undefined) continue;
      const value = count(name, 'priority_level', m);
      if (value !== undefined) values.set(level, value);
    }
    return values;
  };
  const nominal = perLevel('apiserver_flowcontrol_nominal_limit_seats');
  const upper = perLevel('apiserver_flowcontrol_upper_limit_seats');
  const objectCounts: Record<string, number> = {};
  for (const m of samples('apiserver_storage_objects').sort((a, b) => ((a.labels.resource ?? '') < (b.labels.resource ?? '') ? -1 : 1))) {
    const resource = m.labels.resource;
    // -1: the server could not count them.
    if (resource === undefined || m.value === -1) continue;
    const value = count('apiserver_storage_objects', 'resource', m);
    if (value !== undefined) objectCounts[resource] = value;
  }
  if (Object.keys(objectCounts).length === 0)
    warnings.push('/metrics has no apiserver_storage_objects samples: the scenario has no objectCounts, so LISTs are priced at 1 seat until you add them');

  const plcs = input.priorityLevels;
  const schemas = input.flowSchemas;
  let serverCL: number | undefined;
  if (nominal.size === 0)
    warnings.push('/metrics has no apiserver_flowcontrol_nominal_limit_seats samples (is APF enabled?): using the default server concurrency limit, 600');
  else {
    serverCL = inferServerCL(plcs as unknown as PriorityLevelConfiguration[], nominal, upper);
    if (serverCL === undefined) {
      serverCL = [...nominal.values()].reduce((s, n) => s + n, 0);
      warnings.push(
        'no server concurrency limit gives exactly the NominalCLs /metrics reports (did the configuration change while importing?); using their sum, ' +
          `${serverCL}`,
      );
    }
  }
  const total = serverCL ?? 600;
  // Only the sum reaches APF; split as kube-apiserver's defaults are (400 + 200).
  const maxRequestsInflight = Math.round((total * 2) / 3);
  const scenario = {
    kind: 'Scenario',
    name: input.name,
    description: `Imported from ${input.server} (context ${input.context}).`,
    duration: '60s',
    server: {
      maxRequestsInflight,
      maxMutatingRequestsInflight: total - maxRequestsInflight,
      ...(input.replicas === undefined ? {} : { replicas: input.replicas }),
    },
    bootstrap: 'none',
    objectCounts,
    objects: [...plcs, ...schemas],
    flows: [...(input.flows ?? [])],
  };
  const header = [
    `# Imported by fairway sim import from ${input.server} (context ${input.context}).`,
    `# Server concurrency limit ${total}${serverCL === undefined ? ' (default)' : ', the one that gives every level the NominalCL /metrics reports'};` +
      ' APF uses only the sum of the two limits.',
    `# ${plcs.length} PriorityLevelConfigurations and ${schemas.length} FlowSchemas as stored (status, managedFields and server-set metadata ` +
      'dropped); bootstrap: none keeps exactly them.',
    ...(input.flows === undefined
      ? ['# Next: add flows (docs/simulator.md, "Scenario file") or replay an audit log with --audit-log,']
      : [`# ${input.flows.length} flows (${OBSERVED_PREFIX}*) reproduce the load /metrics showed over the --traffic window; add your own beside them,`]),
    '# then fairway sim run / sim tune (docs/simulator.md, "The operator\'s loop").',
  ];
  return { text: `${header.join('\n')}\n${stringify(scenario, { lineWidth: 0 })}`, scenario, serverConcurrencyLimit: total, objectCounts, warnings };
}

function isRecord(value: unknown): value is Record<string, string> {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

/**
 * `--merge`: the existing scenario with the imported configuration, limits and object counts in
 * place of its own, its comments and every other field (duration, flows, report) kept. Observed
 * flows replace the earlier observed ones (`--traffic`); the operator's flows stay. Manifest
 * `files` give way to the imported objects, with a warning naming them.
 */
export function mergeScenario(
  existing: string,
  imported: Record<string, unknown>,
  replaceObserved: boolean,
): { text: string; warnings: string[] } | { error: string } {
  const document = parseDocument(existing);
  if (document.errors.length > 0) return { error: document.errors[0]!.message };
  if (!isRecord(document.toJS()) || document.get('kind') !== 'Scenario') return { error: 'not a Scenario (kind: Scenario)' };
  const warnings: string[] = [];
  const files = document.get('files');
  if (isSeq(files) && files.items.length > 0) {
    warnings.push(`the imported objects replace the manifest files the scenario named (${files.items.map(String).join(', ')})`);
    document.delete('files');
  }
  const server = imported.server as Record<string, number>;
  document.setIn(['server', 'maxRequestsInflight'], server.maxRequestsInflight);
  document.setIn(['server', 'maxMutatingRequestsInflight'], server.maxMutatingRequestsInflight);
  if (server.replicas !== undefined) document.setIn(['server', 'replicas'], server.replicas);
  document.set('bootstrap', 'none');
  document.set('objectCounts', imported.objectCounts);
  document.set('objects', imported.objects);
  const observed = imported.flows as ObservedFlow[];
  const flows = document.get('flows');
  const kept = isSeq(flows) ? flows.items.filter((f) => !(replaceObserved && isMap(f) && String(f.get('name')).startsWith(OBSERVED_PREFIX))) : [];
  document.set('flows', [...kept, ...observed.map((f) => document.createNode(f))]);
  return { text: document.toString({ lineWidth: 0 }), warnings };
}

/** A sample's value as the exposition spells it. */
function goValue(value: number): string {
  if (value === Number.POSITIVE_INFINITY) return '+Inf';
  if (value === Number.NEGATIVE_INFINITY) return '-Inf';
  return String(value);
}
