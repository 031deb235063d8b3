// What the `sim` commands share on the command line: the flags of every command that runs a
// scenario (RUN_FLAGS, SEEDS_FLAGS) and reading them into RunOptions. Parsing and help are the
// command-line layer's (cli/); the warnings and the command line that reproduces a run are
// sim/run/'s, since sweeps and comparisons print and show them too.

import { flag, type FlagValues } from '../../cli/flag-table.ts';
import type { Positionals } from '../../cli/command.ts';
import { AUDIT_GROUPINGS, DEFAULT_AUDIT_GROUPING, isAuditGrouping, type AuditGrouping } from '../audit-grouping.ts';
import { parseSeed, parseSeedList } from '../seed.ts';

/** The one scenario file every command that runs a scenario takes. */
export const SCENARIO_ARGUMENT: Positionals = { name: 'SCENARIO', min: 1, max: 1, missing: 'no scenario file given' };

/** For flags that name a file or directory: `--out=` is a mistake, not "no file". */
export const nonEmpty = (value: string, name: string): string | undefined => (value === '' ? `${name} needs a value` : undefined);

/** A seed flag's rule: a decimal integer or 40 hex digits. */
export const seedValue = (value: string, name: string): string | undefined => {
  const seed = parseSeed(value);
  return seed.ok ? undefined : `${name}: ${seed.message}`;
};

/** The flags every command that runs a scenario over seeds shares. */
export const RUN_FLAGS = {
  auditLog: flag('string', 'audit-log', '', 'also replay Kubernetes audit events (JSON lines) through the configuration', {
    valueName: 'FILE',
    validate: nonEmpty,
  }),
  groupBy: flag('string', 'group-by', '', `how replayed requests form flows: ${AUDIT_GROUPINGS.join(', ')}`, {
    valueName: 'G',
    defaultText: DEFAULT_AUDIT_GROUPING,
    validate: (value, name) => (isAuditGrouping(value) ? undefined : `${name} must be one of ${AUDIT_GROUPINGS.join(', ')}, got ${JSON.stringify(value)}`),
  }),
  noPlots: flag('bool', 'no-plots', false, "skip the SVG plots in each run's report.html"),
  noSuggestions: flag('bool', 'no-suggestions', false, "do not simulate the remedies each run's report suggests (faster)"),
  strict: flag(
    'bool',
    'strict',
    false,
    'treat warnings (an edit the ensurer undoes, a LIST with no object count, a FlowSchema naming a missing level, ...) as errors',
  ),
};

/** A configuration variant per file, applied over the scenario's configuration. */
export const VARIANT_FLAG = flag(
  'stringArray',
  'variant',
  [],
  "PriorityLevelConfiguration/FlowSchema manifests applied over the scenario's configuration; repeatable, one variant per file",
  {
    valueName: 'FILE',
  },
);

export const MAX_WORKERS = 256;

export const SEEDS_FLAGS = {
  seeds: flag('string', 'seeds', '', 'seeds: a range 1..50, a list 1,2,7, or both (1..10,42); hex seeds allowed', {
    valueName: 'LIST',
    validate: (value, name) => {
      const seeds = parseSeedList(value);
      return seeds.ok ? undefined : `${name}: ${seeds.message}`;
    },
  }),
  workers: flag('int', 'workers', 0, 'worker threads; the results do not depend on it', {
    valueName: 'K',
    defaultText: 'available cores - 1, at least 1',
    validate: (value, name) => (value < 1 || value > MAX_WORKERS ? `${name} must be a whole number from 1 to ${MAX_WORKERS}, got ${value}` : undefined),
  }),
};

export interface RunOptions {
  seeds: string[];
  seedsText: string;
  workers: number;
  auditLogFile: string | undefined;
  auditGrouping: AuditGrouping | undefined;
  plots: boolean;
  suggestions: boolean;
  strict: boolean;
}

/** RUN_FLAGS and SEEDS_FLAGS as the commands use them; `--workers` unset is cores − 1, at least 1. */
export function runOptions(values: FlagValues<typeof RUN_FLAGS & typeof SEEDS_FLAGS>, availableCores: number): RunOptions {
  const seeds = parseSeedList(values.seeds);
  if (!seeds.ok) throw new Error(`--seeds was checked when parsed: ${seeds.message}`);
  return {
    seeds: seeds.seeds,
    seedsText: values.seeds,
    workers: values.workers === 0 ? Math.max(1, availableCores - 1) : values.workers,
    auditLogFile: values.auditLog === '' ? undefined : values.auditLog,
    auditGrouping: values.groupBy === '' ? undefined : (values.groupBy as AuditGrouping),
    plots: !values.noPlots,
    suggestions: !values.noSuggestions,
    strict: values.strict,
  };
}
