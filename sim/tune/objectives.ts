// The TuneObjectives file: what must hold for which flows, in every seed, and which parts of the
// configuration the tuner may change. Checked field by field like a scenario, every problem
// reported with the file, line and field.
//
//   kind: TuneObjectives
//   objectives:
//     - flows: argo-gets          # a flow name or a glob (* and ?), or a list of them
//       waitP99: 100ms            # queue wait p99 of dispatched requests
//       rejected: 1%              # rejected fraction, all reasons
//   changes:                      # optional
//     modify: [workload-low]      # levels whose shares, percents and queuing may change
//     createFor: [acme-lists]     # flows that may get a level and FlowSchema of their own

import { readFile } from 'node:fs/promises';
import { FieldReader, isPlain } from '../field-reader.ts';
import { formatPath, formatSourceError, parseYamlSource } from '../yaml-source.ts';

export const OBJECTIVES_KIND = 'TuneObjectives';

export interface Objective {
  index: number;
  /** Flow names or globs. */
  flows: string[];
  waitP99Seconds?: number;
  rejectedFraction?: number;
}

export interface TuneObjectives {
  file: string;
  objectives: Objective[];
  changes: { modify?: string[]; createFor?: string[] };
}

const PERCENT = /^(\d+(?:\.\d+)?)%$/;

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
    const path = ['objectives', index];
    const map = r.mapping(raw, path, ['flows', 'waitP99', 'rejected']);
    if (map === undefined) return;
    const flows = typeof map.flows === 'string' ? [map.flows] : r.stringList(map, 'flows', path, []);
    if (map.flows === undefined || flows.length === 0 || flows.some((f) => f === ''))
      r.fail([...path, 'flows'], 'required: a flow name or glob, or a list of them');
    const objective: Objective = { index, flows };
    if (map.waitP99 !== undefined) objective.waitP99Seconds = r.duration(map, 'waitP99', path, { fallbackMs: 0, positive: true }) / 1000;
    if (map.rejected !== undefined) {
      const value = map.rejected;
      const m = typeof value === 'string' ? PERCENT.exec(value) : null;
      if (value === 0) objective.rejectedFraction = 0;
      else if (m !== null && Number(m[1]) <= 100) objective.rejectedFraction = Number(m[1]) / 100;
      else r.fail([...path, 'rejected'], `must be a percentage such as "1%" or "0%", got ${JSON.stringify(value)}`);
    }
    if (objective.waitP99Seconds === undefined && objective.rejectedFraction === undefined && map.waitP99 === undefined && map.rejected === undefined) {
      r.fail(path, 'give waitP99, rejected, or both');
    }
    objectives.push(objective);
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
