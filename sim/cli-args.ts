import { AUDIT_GROUPINGS, isAuditGrouping, type AuditGrouping } from './audit-grouping.ts';
import { parseSeedList } from './seed.ts';

// A small flag parser for the `sim` commands: `--flag value`, `--flag=value`, repeatable flags,
// boolean switches and positionals, with errors worded for a person.

export interface FlagSpec {
  /** Takes a value (otherwise a boolean switch). */
  value: boolean;
  repeatable?: boolean;
}

export interface ParsedArgs {
  positionals: string[];
  values: Map<string, string[]>;
  switches: Set<string>;
}

export function parseArgs(args: readonly string[], flags: Record<string, FlagSpec>): ParsedArgs | { error: string } {
  const parsed: ParsedArgs = { positionals: [], values: new Map(), switches: new Set() };
  for (let i = 0; i < args.length; i++) {
    const arg = args[i]!;
    if (arg === '--') {
      parsed.positionals.push(...args.slice(i + 1));
      break;
    }
    if (!arg.startsWith('-') || arg === '-') {
      parsed.positionals.push(arg);
      continue;
    }
    const eq = arg.indexOf('=');
    const name = (eq < 0 ? arg : arg.slice(0, eq)).replace(/^--?/, '');
    const spec = flags[name];
    if (spec === undefined) return { error: `unknown flag ${JSON.stringify(arg)}` };
    if (!spec.value) {
      if (eq >= 0) return { error: `--${name} takes no value` };
      parsed.switches.add(name);
      continue;
    }
    const value = eq >= 0 ? arg.slice(eq + 1) : args[++i];
    if (value === undefined || value === '') return { error: `--${name} needs a value` };
    const list = parsed.values.get(name) ?? [];
    if (list.length > 0 && spec.repeatable !== true) return { error: `--${name} given twice` };
    list.push(value);
    parsed.values.set(name, list);
  }
  return parsed;
}

/**
 * The part every `sim` command shares: parse the flags (plus `--help`/`-h`), print usage on
 * request, and take exactly one scenario file. Returns the exit code when the command is done
 * already (help printed, or a usage error reported on stderr), else what the command needs.
 */
export function parseScenarioCommand(
  command: string,
  args: readonly string[],
  flags: Record<string, FlagSpec>,
  usageText: string,
  output: { stdout(text: string): void; stderr(text: string): void },
): { exitCode: number } | { parsed: ParsedArgs; scenarioFile: string; usage: (message: string) => number } {
  const usage = (message: string) => {
    output.stderr(`fairway ${command}: ${message}\nRun 'fairway ${command} --help' for usage.\n`);
    return 2;
  };
  const parsed = parseArgs(args, { ...flags, help: { value: false }, h: { value: false } });
  if ('error' in parsed) return { exitCode: usage(parsed.error) };
  if (parsed.switches.has('help') || parsed.switches.has('h')) {
    output.stdout(usageText);
    return { exitCode: 0 };
  }
  if (parsed.positionals.length !== 1) return { exitCode: usage(parsed.positionals.length === 0 ? 'no scenario file given' : 'give exactly one scenario file') };
  return { parsed, scenarioFile: parsed.positionals[0]!, usage };
}

/** The flags every command that runs a scenario over seeds shares. */
export const RUN_FLAGS: Record<string, FlagSpec> = {
  'audit-log': { value: true },
  'group-by': { value: true },
  strict: { value: false },
  'no-suggestions': { value: false },
  'no-plots': { value: false },
};

export const SEEDS_FLAGS: Record<string, FlagSpec> = {
  seeds: { value: true },
  workers: { value: true },
};

/** `--workers K`: default cores − 1, at least 1. */
export function parseWorkers(text: string | undefined, defaultWorkers: number): number | { error: string } {
  if (text === undefined) return Math.max(1, defaultWorkers);
  const workers = Number(text);
  if (!Number.isSafeInteger(workers) || workers < 1 || workers > 256) return { error: `--workers must be a whole number from 1 to 256, got ${JSON.stringify(text)}` };
  return workers;
}

/**
 * Prints the load warnings; with `--strict` they are errors and the command stops (exit 1) before
 * anything is simulated. Returns true when the command must stop.
 */
export function reportWarnings(warnings: readonly string[], strict: boolean, command: string, output: { stderr(text: string): void }): boolean {
  const unique = [...new Set(warnings)];
  for (const warning of unique) output.stderr(`${strict ? 'error' : 'warning'}: ${warning}\n`);
  if (strict && unique.length > 0) {
    output.stderr(`fairway ${command}: ${unique.length} warning${unique.length === 1 ? '' : 's'} with --strict; nothing was simulated\n`);
    return true;
  }
  return false;
}

/** The `fairway sim run` command line that reproduces one run (shown in its report.html). */
export function reproduceCommand(run: { scenarioFile: string; seed: string; variantFiles?: readonly string[]; auditLogFile?: string | undefined; auditGrouping?: string | undefined }): string {
  return [
    'fairway sim run',
    run.scenarioFile,
    '--seed',
    run.seed,
    ...(run.variantFiles ?? []).flatMap((v) => ['--variant', v]),
    ...(run.auditLogFile === undefined ? [] : ['--audit-log', run.auditLogFile]),
    ...(run.auditGrouping === undefined ? [] : ['--group-by', run.auditGrouping]),
  ].join(' ');
}

/** The help lines of RUN_FLAGS (and --no-plots), shared by the commands that run scenarios. */
export const RUN_FLAGS_HELP = `  --audit-log FILE    replay this audit log in every run
  --group-by G        how replayed requests form flows: ${AUDIT_GROUPINGS.join(', ')}
                      (default user+flowschema)
  --no-plots          skip the SVG plots in each run's report.html
  --no-suggestions    do not simulate the remedies each run's report suggests
  --strict            treat warnings (e.g. a variant that changes nothing) as errors
`;

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

/** Reads RUN_FLAGS, SEEDS_FLAGS and --no-plots; a usage error as a message. */
export function parseRunOptions(parsed: ParsedArgs, defaultSeeds: string | undefined, defaultWorkers: number): RunOptions | { error: string } {
  const seedsText = parsed.values.get('seeds')?.[0] ?? defaultSeeds;
  if (seedsText === undefined) return { error: '--seeds is required (e.g. --seeds 1..50)' };
  const seeds = parseSeedList(seedsText);
  if (!seeds.ok) return { error: seeds.message };
  const workers = parseWorkers(parsed.values.get('workers')?.[0], defaultWorkers);
  if (typeof workers !== 'number') return workers;
  const groupBy = parsed.values.get('group-by')?.[0];
  if (groupBy !== undefined && !isAuditGrouping(groupBy)) return { error: `--group-by must be one of ${AUDIT_GROUPINGS.join(', ')}, got ${JSON.stringify(groupBy)}` };
  return {
    seeds: seeds.seeds,
    seedsText,
    workers,
    auditLogFile: parsed.values.get('audit-log')?.[0],
    auditGrouping: groupBy,
    plots: !parsed.switches.has('no-plots'),
    suggestions: !parsed.switches.has('no-suggestions'),
    strict: parsed.switches.has('strict'),
  };
}
