// What a `fairway` command is to the command-line layer: its flag table and usage (CommandSpec),
// from which its parsing, its `--help` and its part of docs/configuration.md derive, and the
// function that runs it. Every command starts with `parseCommandLine`, so usage errors look the
// same everywhere: `Error: <message naming the flag>`, a pointer to `--help`, exit code 2.
import type { CommandSpec } from './command-spec.ts';
import type { FlagTable, FlagValues } from './flag-table.ts';
import { flagHelp } from './flag-help.ts';
import { parseFlags } from './parse-flags.ts';

export type { CommandSpec, Positionals } from './command-spec.ts';

export interface Command {
  readonly spec: CommandSpec;
  /** Runs the command; resolves to the process exit code. */
  run(args: string[]): Promise<number>;
}

/** Where a command writes; the real commands use the process streams, tests collect the text. */
export interface Output {
  stdout(text: string): void;
  stderr(text: string): void;
}

export const processOutput: Output = {
  stdout: (text) => void process.stdout.write(text),
  stderr: (text) => void process.stderr.write(text),
};

export const USAGE_EXIT_CODE = 2;

export interface CommandLine<T extends FlagTable> {
  values: FlagValues<T>;
  positionals: string[];
  /** Reports a usage error found after parsing (`--out DIR is required`); returns the exit code. */
  usageError(message: string): number;
}

/**
 * Parses `args` against the command's table. On `--help` prints the help (exit 0); on a usage
 * error prints it (exit 2); either way returns `{ exitCode }`, else the values.
 */
export function parseCommandLine<T extends FlagTable>(spec: CommandSpec<T>, args: readonly string[], output: Output): CommandLine<T> | { exitCode: number } {
  const usageError = (message: string): number => {
    output.stderr(`Error: ${message}\nRun '${spec.path} --help' for usage.\n`);
    return USAGE_EXIT_CODE;
  };
  const parsed = parseFlags(spec, args);
  if (parsed.kind === 'help') {
    output.stdout(commandHelp(spec));
    return { exitCode: 0 };
  }
  if (parsed.kind === 'error') return { exitCode: usageError(parsed.message) };
  return { values: parsed.values, positionals: parsed.positionals, usageError };
}

/** The whole `--help` text of a command. */
export function commandHelp(spec: CommandSpec): string {
  const parts = [
    `Usage: ${spec.usage}`,
    spec.description.trimEnd(),
    `Flags:\n${flagHelp(
      spec.flags,
      spec.path
        .split(' ')
        .filter((word) => !word.startsWith('-'))
        .at(-1)!,
    )}`,
  ];
  if (spec.epilogue !== undefined) parts.push(spec.epilogue.trimEnd());
  return `${parts.join('\n\n')}\n`;
}
