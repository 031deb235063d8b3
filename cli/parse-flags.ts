// The one flag parser of every `fairway` command. Node's util.parseArgs splits the words (long and
// short options, `--name=value` and `--name value`, `--` ending the flags); this file gives them
// pflag's meaning, as kube-apiserver's command line has it:
// - a boolean takes its value only after `=` (`--flag`, `--flag=false`; in `--flag false` the
//   `false` is an argument of its own);
// - any other flag takes the next word as its value even when it starts with `-`;
// - `_` and `-` are interchangeable in names;
// - a repeated flag replaces the earlier value, except list flags, whose first use replaces the
//   default and later uses append;
// - `-x=value`, `-xvalue` and `-x value` for a flag with a shorthand.
// Every error is one line naming the flag.
import { parseArgs } from 'node:util';
import { closestFlag } from './closest-flag.ts';
import type { CommandSpec } from './command-spec.ts';
import type { FlagSpec, FlagTable, FlagValues } from './flag-table.ts';
import { parseFlagValue } from './flag-values.ts';

export type FlagParse<T extends FlagTable> =
  | { kind: 'values'; values: FlagValues<T>; positionals: string[] }
  | { kind: 'help' }
  | { kind: 'error'; message: string };

type ParseArgsOptions = NonNullable<Parameters<typeof parseArgs>[0]>['options'];

export function parseFlags<T extends FlagTable>(spec: CommandSpec<T>, argv: readonly string[]): FlagParse<T> {
  const byName = new Map<string, [key: string, flag: FlagSpec]>(Object.entries(spec.flags).map(([key, flag]) => [flag.name, [key, flag]]));
  const options: ParseArgsOptions = { help: { type: 'boolean', short: 'h' } };
  for (const flag of byName.values()) {
    // parseArgs rejects a `short` key holding undefined.
    options[flag[1].name] = { type: flag[1].type === 'bool' ? 'boolean' : 'string', ...(flag[1].shorthand === undefined ? {} : { short: flag[1].shorthand }) };
  }
  const { tokens } = parseArgs({ args: normalizeNames(argv), options, strict: false, allowPositionals: true, tokens: true });

  const values = Object.fromEntries(
    Object.entries(spec.flags).map(([key, flag]) => [key, Array.isArray(flag.default) ? [...flag.default] : flag.default]),
  ) as Record<string, unknown>;
  const given = new Set<string>();
  const positionals: string[] = [];
  let strayAfterBool: { flag: string; word: string } | undefined;
  let error: string | undefined;
  let help = false;
  for (let i = 0; i < tokens.length; i++) {
    const token = tokens[i]!;
    if (token.kind === 'option-terminator') continue;
    if (token.kind === 'positional') {
      const before = tokens[i - 1];
      if (strayAfterBool === undefined && before?.kind === 'option' && before.value === undefined && byName.get(before.name)?.[1].type === 'bool') {
        strayAfterBool = { flag: before.name, word: token.value };
      }
      positionals.push(token.value);
      continue;
    }
    if (token.name === 'help') {
      help = true;
      continue;
    }
    if (error !== undefined) continue;
    const raw = argv[token.index]!;
    if (token.rawName.startsWith('---') || token.name === '' || token.name.startsWith('=')) {
      error = `bad flag syntax: ${raw}; flags are written --name=value or --name value`;
      continue;
    }
    const entry = byName.get(token.name);
    if (entry === undefined) {
      // A single-dash word is a group of shorthands to parseArgs; report it as written (`-port`).
      error = unknownFlag(token.rawName.startsWith('--') ? token.rawName : raw.split('=')[0]!, [...byName.keys()]);
      continue;
    }
    const [key, flag] = entry;
    const name = `--${flag.name}`;
    let text = token.value;
    // pflag's `-v=3`: the `=` is not part of the value.
    if (text !== undefined && token.inlineValue === true && !token.rawName.startsWith('--') && text.startsWith('=')) text = text.slice(1);
    if (text === undefined) {
      if (flag.type !== 'bool') {
        error = `${name} needs a value (${name}=${flag.valueName ?? 'VALUE'} or ${name} ${flag.valueName ?? 'VALUE'})`;
        continue;
      }
      text = 'true';
    }
    const parsed = parseFlagValue(flag.type, text);
    if (!parsed.ok) {
      error = `${name}: ${parsed.problem}`;
      continue;
    }
    const list = flag.type === 'strings' || flag.type === 'stringArray';
    values[key] = list && given.has(key) ? [...(values[key] as string[]), ...(parsed.value as string[])] : parsed.value;
    given.add(key);
  }
  if (help) return { kind: 'help' };
  if (error !== undefined) return { kind: 'error', message: error };

  const problem = checkPositionals(spec, positionals, strayAfterBool) ?? checkValues(spec, values, given);
  if (problem !== undefined) return { kind: 'error', message: problem };
  const typed = values as FlagValues<T>;
  const crossFlag = spec.check?.(typed);
  return crossFlag === undefined ? { kind: 'values', values: typed, positionals } : { kind: 'error', message: crossFlag };
}

/** `--api_domain` → `--api-domain` (pflag's word-separator normalization), up to a lone `--`. */
function normalizeNames(argv: readonly string[]): string[] {
  const end = argv.indexOf('--');
  return argv.map((arg, i) => {
    if ((end >= 0 && i >= end) || !arg.startsWith('--')) return arg;
    const eq = arg.indexOf('=');
    return eq < 0 ? arg.replaceAll('_', '-') : `${arg.slice(0, eq).replaceAll('_', '-')}${arg.slice(eq)}`;
  });
}

function unknownFlag(rawName: string, names: readonly string[]): string {
  const long = rawName.startsWith('--');
  const suggestion = closestFlag(rawName.replace(/^-+/, ''), names);
  return (
    `unknown flag: ${rawName}${suggestion === undefined ? '' : `; did you mean --${suggestion}?`}` +
    `${long || suggestion !== undefined ? '' : ' (long flags start with --)'}`
  );
}

function checkPositionals(spec: CommandSpec, positionals: readonly string[], strayAfterBool: { flag: string; word: string } | undefined): string | undefined {
  const allowed = spec.positionals ?? { name: '', min: 0, max: 0, missing: '' };
  if (positionals.length < allowed.min) return allowed.missing;
  if (positionals.length <= allowed.max) return undefined;
  const extra = positionals.slice(allowed.max);
  const what =
    allowed.max === 0
      ? `${spec.path} takes no arguments`
      : `${spec.path} takes ${allowed.max === 1 ? `one ${allowed.name}` : `at most ${allowed.max} ${allowed.name} arguments`}`;
  const hint =
    strayAfterBool !== undefined && extra.includes(strayAfterBool.word)
      ? ` (a boolean flag takes its value after "=": --${strayAfterBool.flag}=${strayAfterBool.word})`
      : '';
  return `${what}, got ${extra.map((a) => JSON.stringify(a)).join(' ')}${hint}`;
}

/** Required flags, then each given value against its flag's rule. */
function checkValues(spec: CommandSpec, values: Record<string, unknown>, given: ReadonlySet<string>): string | undefined {
  for (const [key, flag] of Object.entries(spec.flags)) {
    if (!given.has(key)) {
      if (flag.required !== undefined) return flag.required;
      continue;
    }
    const problem = (flag.validate as ((value: unknown, name: string) => string | undefined) | undefined)?.(values[key], `--${flag.name}`);
    if (problem !== undefined) return problem;
  }
  return undefined;
}
