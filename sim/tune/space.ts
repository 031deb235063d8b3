// What the tuner may change, checked against the scenario and the baseline run: the levels it may
// edit (by default every Limited level that saw traffic, except the mandatory ones, whose spec the
// server always restores), and the flows that may get a level of their own (by default the flows
// the objectives name). Every name that matches nothing is an error, not a silent no-op.

import { MANDATORY_NAMES, SUGGESTED_NAMES } from '../../engine/resources/bootstrap.ts';
import { PRIORITY_LEVEL_KIND, type FlowSchema, type PolicyRulesWithSubjects, type PriorityLevelConfiguration } from '../../engine/resources/types.ts';
import type { LoadedScenario } from '../scenario-load.ts';
import type { FlowSpec } from '../scenario.ts';
import type { RunDigest } from '../run-digest.ts';
import { dedicatedName, subjectFor, type DedicatedTarget, type LevelParams, type TuneSpace } from './candidate.ts';
import { improves, matchFlows, type TuneObjectives } from './objectives.ts';

/** What an objective covers in the baseline run: its flows (by name or by level) and its levels. */
export interface Matched {
  flows: string[];
  levels: string[];
}

export function levelParamsOf(plc: PriorityLevelConfiguration): LevelParams | undefined {
  const limited = plc.spec?.limited;
  if (plc.spec?.type !== 'Limited' || limited === undefined || limited === null) return undefined;
  const queuing = limited.limitResponse?.type === 'Queue' ? limited.limitResponse.queuing : undefined;
  return {
    shares: limited.nominalConcurrencyShares ?? 30,
    lendablePercent: limited.lendablePercent ?? 0,
    borrowingLimitPercent: limited.borrowingLimitPercent ?? undefined,
    queues: queuing?.queues,
    handSize: queuing?.handSize,
    queueLengthLimit: queuing?.queueLengthLimit,
  };
}

export function buildSpace(
  loaded: LoadedScenario,
  objectives: TuneObjectives,
  baseline: readonly { seed: string; digest: RunDigest }[],
): { ok: true; space: TuneSpace; matched: Map<number, Matched> } | { ok: false; errors: string[] } {
  const file = objectives.file;
  const errors: string[] = [];
  const flowNames = [...new Set(baseline.flatMap((r) => Object.keys(r.digest.flows)))];
  const levelNames = [...new Set(baseline.flatMap((r) => Object.keys(r.digest.levels)))];
  const matched = new Map<number, Matched>();
  const quote = (names: readonly string[]) => names.map((f) => JSON.stringify(f)).join(', ');
  for (const o of objectives.objectives) {
    const at = `${file}: objectives[${o.index}]`;
    if (o.serverCpu !== undefined || o.serverMemory !== undefined) {
      // The CPU and memory models are independent: each objective needs only its own field.
      const server = loaded.scenario.server;
      if (o.serverCpu !== undefined && server.cpus === null)
        errors.push(`${at}.server.cpu: the server's CPU is not modelled: ${loaded.file} sets no server.cpus (give it, e.g. cpus: 4)`);
      if (o.serverMemory !== undefined && server.memoryBytes === null)
        errors.push(`${at}.server.memory: the server's memory is not bounded: ${loaded.file} sets no server.memory (give it, e.g. memory: 2Gi)`);
      matched.set(o.index, { flows: [], levels: [] });
      continue;
    }
    const levels = matchFlows(o.levels, levelNames);
    if (o.levels.length > 0 && levels.length === 0)
      errors.push(`${at}.levels: ${quote(o.levels)} matches no priority level of the run (levels: ${levelNames.join(', ') || 'none'})`);
    const ofLevels = new Set(levels);
    const flows = flowNames.filter(
      (name) => matchFlows(o.flows, [name]).length > 0 || baseline.some((r) => ofLevels.has(r.digest.flows[name]?.priorityLevel ?? '')),
    );
    if (o.flows.length > 0 && matchFlows(o.flows, flowNames).length === 0)
      errors.push(`${at}.flows: ${quote(o.flows)} matches no flow of the scenario (flows: ${flowNames.join(', ') || 'none'})`);
    matched.set(o.index, { flows, levels });
  }

  const plcs = new Map(loaded.config.priorityLevels.map((p) => [p.metadata?.name ?? '', p]));
  const schemas = new Map(loaded.config.flowSchemas.map((f) => [f.metadata?.name ?? '', f]));
  const busy = new Set(
    baseline.flatMap((r) =>
      Object.entries(r.digest.levels)
        .filter(([, l]) => l.rejectedTotal > 0 || l.seatsInUseMean > 0 || l.waitingMean > 0)
        .map(([n]) => n),
    ),
  );
  const levels: TuneSpace['levels'] = new Map();
  const modify = objectives.changes.modify ?? [...plcs.keys()].filter((n) => busy.has(n)).sort();
  for (const name of modify) {
    const plc = plcs.get(name);
    const params = plc === undefined ? undefined : levelParamsOf(plc);
    if (MANDATORY_NAMES[PRIORITY_LEVEL_KIND].has(name)) {
      if (objectives.changes.modify !== undefined)
        errors.push(`${file}: changes.modify: "${name}" is a mandatory PriorityLevelConfiguration; kube-apiserver always restores its spec`);
      continue;
    }
    if (plc === undefined)
      errors.push(`${file}: changes.modify: no PriorityLevelConfiguration "${name}" in the scenario's configuration (levels: ${[...plcs.keys()].join(', ')})`);
    else if (params === undefined) {
      if (objectives.changes.modify !== undefined)
        errors.push(`${file}: changes.modify: "${name}" is not a Limited level; only Limited levels have shares and queues to tune`);
    } else levels.set(name, { base: params, suggested: SUGGESTED_NAMES[PRIORITY_LEVEL_KIND].has(name) });
  }

  const dedicatable: TuneSpace['dedicatable'] = new Map();
  // By default only flows that must improve may get a level of their own, not those merely protected.
  const createFor = objectives.changes.createFor ?? [...new Set(objectives.objectives.filter(improves).flatMap((o) => matched.get(o.index)?.flows ?? []))];
  const specs = new Map(loaded.scenario.flows.map((f) => [f.name, f]));
  const usedNames = new Set([...plcs.keys(), ...schemas.keys()]);
  for (const pattern of createFor) {
    const names = matchFlows([pattern], flowNames);
    if (names.length === 0) errors.push(`${file}: changes.createFor: "${pattern}" matches no flow of the scenario`);
    for (const flow of names) {
      const target = dedicatedTarget(flow, specs.get(flow), baseline, schemas, usedNames);
      if (typeof target === 'string') {
        if (objectives.changes.createFor !== undefined) errors.push(`${file}: changes.createFor: flow "${flow}": ${target}`);
        continue;
      }
      usedNames.add(target.name);
      dedicatable.set(flow, target);
    }
  }
  if (errors.length > 0) return { ok: false, errors };

  const server = loaded.scenario.server;
  let totalShares = 0;
  for (const plc of plcs.values())
    totalShares += plc.spec?.type === 'Limited' ? (plc.spec.limited?.nominalConcurrencyShares ?? 30) : (plc.spec?.exempt?.nominalConcurrencyShares ?? 0);
  return { ok: true, space: { serverCL: server.maxRequestsInflight + server.maxMutatingRequestsInflight, totalShares, levels, dedicatable }, matched };
}

/** The FlowSchema that would give one flow a level of its own, or why it cannot have one. */
function dedicatedTarget(
  flow: string,
  spec: FlowSpec | undefined,
  baseline: readonly { seed: string; digest: RunDigest }[],
  schemas: ReadonlyMap<string, FlowSchema>,
  usedNames: ReadonlySet<string>,
): DedicatedTarget | string {
  const digests = baseline.map((r) => r.digest.flows[flow]).filter((f) => f !== undefined);
  const schemaName = digests[0]?.flowSchema ?? '';
  const schema = schemas.get(schemaName);
  const precedence = (schema?.spec?.matchingPrecedence ?? 1000) - 1;
  if (precedence < 1) return `it is matched by FlowSchema "${schemaName}" (matchingPrecedence 1); nothing can match before it`;
  let rules: PolicyRulesWithSubjects[];
  if (spec !== undefined) {
    const subjects = [subjectFor(spec.user)];
    rules =
      spec.path !== ''
        ? [{ subjects, nonResourceRules: [{ verbs: [spec.verb], nonResourceURLs: [spec.path] }] }]
        : [
            {
              subjects,
              resourceRules: [
                {
                  verbs: [spec.verb],
                  apiGroups: [spec.apiGroup],
                  resources: [spec.subresource === '' ? spec.resource : `${spec.resource}/${spec.subresource}`],
                  ...(spec.namespace === '' ? { clusterScope: true } : { namespaces: [spec.namespace] }),
                },
              ],
            },
          ];
  } else {
    // A replayed flow grouped by user: the schema's own rules, for that user only.
    const user = /^audit:([^/]+)(?:\/.*)?$/.exec(flow)?.[1];
    if (user === undefined || schema === undefined)
      return 'only scenario flows and audit flows grouped by user or user+flowschema can get a level of their own';
    rules = (schema.spec?.rules ?? []).map((rule) => ({ ...rule, subjects: [subjectFor(user)] }));
  }
  let name = dedicatedName(flow);
  for (let i = 2; usedNames.has(name); i++) name = `${dedicatedName(flow).slice(0, 58)}-${i}`;
  const demandSeats = Math.max(0, ...digests.map((f) => f.demandSeats ?? 0));
  return { name, rules, precedence, distinguisher: 'ByUser', demandSeats };
}
