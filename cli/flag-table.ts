// A command's flags, declared once as a table: each flag's name, value type, default, description
// and validation. Parsing (parse-flags.ts), `--help` (flag-help.ts) and the check of
// docs/configuration.md all read the table, so a flag cannot exist in one of them and not the
// others. The parsed values' TypeScript type is derived from the table too (FlagValues).

/**
 * The value types, with pflag's meaning: `strings` is a comma-separated list that a repeated flag
 * extends (kube-apiserver's `--authorization-mode=Node,RBAC`); `stringArray` is repeatable with
 * no splitting (file names may hold commas); `duration` is Go's text form (`1m30s`), held as
 * milliseconds; `int` takes Go's integer forms (`0x10`, `1_000`).
 */
export interface FlagTypes {
  string: string;
  int: number;
  bool: boolean;
  duration: number;
  ip: string;
  strings: string[];
  stringArray: string[];
}

export type FlagType = keyof FlagTypes;

export interface FlagSpec<T extends FlagType = FlagType> {
  /** The long name, without dashes. */
  readonly name: string;
  readonly type: T;
  readonly default: FlagTypes[T];
  /** One sentence or a few; `--help` shows it on one line. */
  readonly description: string;
  /** A one-letter form (`-v`). */
  readonly shorthand?: string;
  /** The value's name in help (pflag's backquoted name: `--out DIR`); the type name otherwise. */
  readonly valueName?: string;
  /** The default as help and docs show it, when it is computed (`cores - 1`). */
  readonly defaultText?: string;
  /** Missing flag → usage error; the text says what to give (`--seeds is required (e.g. --seeds 1..50)`). */
  readonly required?: string;
  /**
   * Checks a value the user gave (defaults are not checked); returns the whole message, naming
   * the flag (`flag` is `--name`), or undefined when the value is fine.
   */
  validate?(value: FlagTypes[T], flag: string): string | undefined;
}

export type FlagTable = Readonly<Record<string, FlagSpec>>;

/** The parsed values of a table: one property per key, typed by the flag's type. */
export type FlagValues<T extends FlagTable> = { -readonly [K in keyof T]: FlagTypes[T[K]['type']] };

type FlagOptions<T extends FlagType> = Omit<FlagSpec<T>, 'name' | 'type' | 'default' | 'description'>;

/** One table entry: `flag('int', 'secure-port', 6443, 'The port…', { validate })`. */
export function flag<T extends FlagType>(type: T, name: string, defaultValue: FlagTypes[T], description: string, options: FlagOptions<T> = {}): FlagSpec<T> {
  return { name, type, default: defaultValue, description, ...options };
}
