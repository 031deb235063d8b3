// A command's flag table and usage, as the parser, `--help` and docs/configuration.md read them.
import type { FlagTable, FlagValues } from './flag-table.ts';

export interface Positionals {
  /** As usage shows it: `FILE`, `SCENARIO`. */
  readonly name: string;
  readonly min: number;
  readonly max: number;
  /** The message when fewer than `min` are given (`no scenario file given`). */
  readonly missing: string;
}

export interface CommandSpec<T extends FlagTable = FlagTable> {
  /** `fairway sim run`. */
  readonly path: string;
  /** The usage line without `Usage: ` (`fairway sim run SCENARIO [flags]`). */
  readonly usage: string;
  /** What the command does: the help text between the usage line and the flags. */
  readonly description: string;
  readonly flags: T;
  /** Arguments that are not flags; none when absent. */
  readonly positionals?: Positionals;
  /** Rules between flags (`--tls-cert-file and --tls-private-key-file must be specified together`). */
  check?(values: FlagValues<T>): string | undefined;
  /** Help text after the flags: output format, exit status. */
  readonly epilogue?: string;
}
