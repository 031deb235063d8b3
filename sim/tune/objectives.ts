// The TuneObjectives file: what must hold for which flows, in every seed, and which parts of the
// configuration the tuner may change. Checked field by field like a scenario, every problem
// reported with the file, line and field. Objectives say what must improve and, as importantly,
// what must be protected: a change that helps one flow by moving seat accounting or capacity away
// from the others is only a win if the others are held to their baseline.
//
//   kind: TuneObjectives
//   objectives:
//     - flows: argo-gets          # a flow name or a glob (* and ?), or a list of them
//       waitP99: 100ms            # queue wait p99 of dispatched requests
//       latencyP99: 1s            # latency p99 (wait + execution) of completed requests
//       rejected: 1%              # rejected fraction, all reasons
//     - levels: "*"               # the flows of these levels (in the baseline run)
//       noWorseThan: baseline     # each flow's latency p99 and rejected fraction at most the baseline's
//       slack: 10%                #   plus this much of it (default 10%)
//     - levels: ci-tools
//       borrowedSeats: 50         # the most seats the level may borrow at any moment
//     - server: {cpu: 80%, memory: 90%}   # peak CPU and memory use of the modelled server
//   changes:                      # optional
//     modify: [workload-low]      # levels whose shares, percents and queuing may change
//     createFor: [acme-lists]     # flows that may get a level and FlowSchema of their own

import { readFile } from 'node:fs/promises';
import { FieldReader, isPlain, type Plain } from '../field-reader.ts';
import { formatPath, formatSourceError, parseYamlSource, type PathSegment } from '../yaml-source.ts';

export const OBJECTIVES_KIND = 'TuneObjectives';
/** How much worse than the baseline a protected flow may get, when `slack` is not given. */
export const DEFAULT_SLACK = 0.1;

export interface Objective {
  index: number;
  /** Flow names or globs. */
  flows: string[];
  /** Level names or globs: the objective covers their flows (and, for borrowedSeats, the levels). */
  levels: string[];
  waitP99Seconds?: number;
  latencyP99Seconds?: number;
  rejectedFraction?: number;
  /** Each flow's latency p99 and rejected fraction at most its baseline's × (1 + slack). */
  noWorseThan?: { slack: number };
  /** The most seats a level may borrow at any moment. */
  borrowedSeats?: number;
  /** Peak CPU use of the modelled server, as a fraction of its cores. */
  serverCpu?: number;
  /** Peak memory use of the modelled server, as a fraction of server.memory. */
  serverMemory?: number;
  /** Why the tuner holds this objective though the file does not give it ("server.memory is set"). */
  implicit?: string;
}

/** Whether the objective asks its flows to do better (not only to be protected). */
export function improves(o: Objective): boolean {
  return o.waitP99Seconds !== undefined || o.latencyP99Seconds !== undefined || o.rejectedFraction !== undefined;
}

export interface TuneObjectives {
  file: string;
  objectives: Objective[];
  changes: { modify?: string[]; createFor?: string[] };
}

const PERCENT = /^(\d+(?:\.\d+)?)%$/;
const OBJECTIVE_FIELDS = ['flows', 'levels', 'waitP99', 'latencyP99', 'rejected', 'noWorseThan', 'slack', 'borrowedSeats', 'server'];
const MEASURES = 'waitP99, latencyP99, rejected, noWorseThan, borrowedSeats or server';

export async function readObjectivesFile(file: string): Promise<{ ok: true; objectives: TuneObjectives } | { ok: false; errors: string[] }> {
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (error) {
    const code = (error as { code?: string }).code;
    return { ok: false, errors: [`${file}: cannot read: ${code === 'ENOENT' ? 'no such file or directory' : String(error)}`] };
  }
  return parseObjectives(text, file);
}

/** "1%" → 0.01 (at most `max`, 100% by default); 0 → 0; a problem (and 0) otherwise. */
function percent(r: FieldReader, map: Plain, key: string, path: readonly PathSegment[], max = 100): number {
  const value = map[key];
  const m = typeof value === 'string' ? PERCENT.exec(value) : null;
  if (value === 0) return 0;
  if (m !== null && Number(m[1]) <= max) return Number(m[1]) / 100;
  r.fail([...path, key], `must be a percentage such as "1%" or "0%"${max === 100 ? '' : ` (at most ${max}%)`}, got ${JSON.stringify(value)}`);
  return 0;
}

function selector(r: FieldReader, map: Plain, key: string, path: readonly PathSegment[]): string[] {
  if (map[key] === undefined) return [];
  const names = typeof map[key] === 'string' ? [map[key] as string] : r.stringList(map, key, path, []);
  if (names.length === 0 || names.some((f) => f === '')) r.fail([...path, key], 'must be a name or glob, or a list of them');
  return names;
}

function parseObjective(r: FieldReader, raw: unknown, index: number): Objective | undefined {
  const path = ['objectives', index];
  const map = r.mapping(raw, path, OBJECTIVE_FIELDS);
  if (map === undefined) return undefined;
  const objective: Objective = { index, flows: selector(r, map, 'flows', path), levels: selector(r, map, 'levels', path) };
  if (map.server !== undefined) {
    const server = r.mapping(map.server, [...path, 'server'], ['cpu', 'memory']);
    if (server !== undefined) {
      if (server.cpu !== undefined) objective.serverCpu = percent(r, server, 'cpu', [...path, 'server']);
      if (server.memory !== undefined) objective.serverMemory = percent(r, server, 'memory', [...path, 'server']);
      if (server.cpu === undefined && server.memory === undefined) r.fail([...path, 'server'], 'give cpu, memory, or both (e.g. {cpu: 80%})');
    }
    const others = OBJECTIVE_FIELDS.filter((k) => k !== 'server' && map[k] !== undefined);
    if (others.length > 0) r.fail(path, `server stands alone in its objective (also given: ${others.join(', ')})`);
    return objective;
  }
  if (map.flows === undefined && map.levels === undefined) r.fail([...path, 'flows'], 'required: a flow name or glob, or a list of them (or levels)');
  if (map.waitP99 !== undefined) objective.waitP99Seconds = r.duration(map, 'waitP99', path, { fallbackMs: 0, positive: true }) / 1000;
  if (map.latencyP99 !== undefined) objective.latencyP99Seconds = r.duration(map, 'latencyP99', path, { fallbackMs: 0, positive: true }) / 1000;
  if (map.rejected !== undefined) objective.rejectedFraction = percent(r, map, 'rejected', path);
  if (map.noWorseThan !== undefined) {
    if (map.noWorseThan !== 'baseline') r.fail([...path, 'noWorseThan'], `must be "baseline", got ${JSON.stringify(map.noWorseThan)}`);
    objective.noWorseThan = { slack: map.slack === undefined ? DEFAULT_SLACK : percent(r, map, 'slack', path, 1000) };
  } else if (map.slack !== undefined) r.fail([...path, 'slack'], 'goes with noWorseThan: baseline');
  if (map.borrowedSeats !== undefined) {
    objective.borrowedSeats = r.number(map, 'borrowedSeats', path, { fallback: 0, integer: true, min: 0 });
    if (map.levels === undefined) r.fail([...path, 'borrowedSeats'], 'needs levels: the priority levels whose borrowing it caps');
    if (map.flows !== undefined) r.fail([...path, 'flows'], 'borrowedSeats caps levels: name them with levels, not flows');
  }
  if (OBJECTIVE_FIELDS.slice(2).every((k) => map[k] === undefined)) r.fail(path, `give at least one of ${MEASURES}`);
  return objective;
}

/**
 * The file's objectives and those the scenario implies: with server.memory set, no candidate may run
 * the modelled server out of memory (peak ≤ 100%), unless the file already holds memory to a limit,
 * which is at most that. Running out of memory is a failure; CPU over 100% is only slowness.
 */
export function withImplicitObjectives(objectives: TuneObjectives, server: { memoryBytes: number | null }): TuneObjectives {
  if (server.memoryBytes === null || objectives.objectives.some((o) => o.serverMemory !== undefined)) return objectives;
  const index = objectives.objectives.length;
  const memory: Objective = { index, flows: [], levels: [], serverMemory: 1, implicit: 'server.memory is set' };
  return { ...objectives, objectives: [...objectives.objectives, memory] };
}

export function parseObjectives(text: string, file: string): { ok: true; objectives: TuneObjectives } | { ok: false; errors: string[] } {
  const parsed = parseYamlSource(text, file);
  if ('error' in parsed) return { ok: false, errors: [formatSourceError(parsed.error)] };
  const { source } = parsed;
  const r = new FieldReader();
  const top = r.mapping(source.value, [], ['apiVersion', 'kind', 'objectives', 'changes']) ?? {};
  if (top.kind !== OBJECTIVES_KIND)
    r.fail(['kind'], top.kind === undefined ? `required: must be ${OBJECTIVES_KIND}` : `must be ${OBJECTIVES_KIND}, got ${JSON.stringify(top.kind)}`);
  const objectives: Objective[] = [];
  const list = r.list(top.objectives, ['objectives']) ?? [];
  if (top.objectives === undefined) r.fail(['objectives'], 'required: at least one objective, e.g. {flows: my-flow, waitP99: 100ms}');
  list.forEach((raw, index) => {
    const objective = parseObjective(r, raw, index);
    if (objective !== undefined) objectives.push(objective);
  });
  const changes: TuneObjectives['changes'] = {};
  if (top.changes !== undefined && top.changes !== null) {
    const map = isPlain(top.changes)
      ? r.mapping(top.changes, ['changes'], ['modify', 'createFor'])
      : (r.fail(['changes'], 'must be a mapping with modify and createFor'), undefined);
    if (map !== undefined) {
      if (map.modify !== undefined) changes.modify = r.stringList(map, 'modify', ['changes'], []);
      if (map.createFor !== undefined) changes.createFor = r.stringList(map, 'createFor', ['changes'], []);
    }
  }
  if (r.problems.length > 0) {
    const errors = r.problems
      .map((p) => ({ line: source.lineOf(p.path), p }))
      .sort((a, b) => (a.line ?? 0) - (b.line ?? 0))
      .map(({ line, p }) => formatSourceError({ file, line, path: formatPath(p.path), message: p.message }));
    return { ok: false, errors };
  }
  return { ok: true, objectives: { file, objectives, changes } };
}

/** `*` any run of characters, `?` one character; everything else literal. */
export function globMatches(pattern: string, name: string): boolean {
  const regex = new RegExp(
    `^${pattern
      .replace(/[.+^${}()|[\]\\]/g, '\\$&')
      .replace(/\*/g, '.*')
      .replace(/\?/g, '.')}$`,
  );
  return regex.test(name);
}

export function matchFlows(patterns: readonly string[], names: readonly string[]): string[] {
  return names.filter((name) => patterns.some((p) => globMatches(p, name)));
}
