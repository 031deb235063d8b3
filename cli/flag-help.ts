// The flags part of `--help`, laid out as pflag lays out flag usages: sorted by name, the value's
// type (or name) after the flag, descriptions in one column, then `(default …)` when the default
// is not the type's zero value. docs/configuration.md shows the same defaults (defaultLabel).
import { formatGoDuration } from '../engine/go-duration.ts';
import type { FlagSpec, FlagTable } from './flag-table.ts';

/** The default as help and docs show it; '' when it is the type's zero value. */
export function defaultLabel(flag: FlagSpec): string {
  if (flag.defaultText !== undefined) return flag.defaultText;
  const value = flag.default;
  switch (flag.type) {
    case 'string':
      return value === '' ? '' : JSON.stringify(value);
    case 'strings':
    case 'stringArray':
      return (value as string[]).length === 0 ? '' : `[${(value as string[]).join(',')}]`;
    case 'bool':
      return value === true ? 'true' : '';
    case 'int':
      return value === 0 ? '' : String(value);
    case 'duration':
      return value === 0 ? '' : formatGoDuration(BigInt(Math.round((value as number) * 1e6)));
    case 'ip':
      return String(value);
  }
}

/** The value's name after the flag in help; '' for booleans. */
export function valueLabel(flag: FlagSpec): string {
  return flag.valueName ?? (flag.type === 'bool' ? '' : flag.type);
}

/** One line per flag, and `-h, --help` (described as `help for <command word>`). */
export function flagHelp(flags: FlagTable, commandWord: string): string {
  const entries = [
    ...Object.values(flags).map((flag) => {
      const names = flag.shorthand === undefined ? `      --${flag.name}` : `  -${flag.shorthand}, --${flag.name}`;
      const value = valueLabel(flag);
      const fallback = defaultLabel(flag);
      return {
        name: flag.name,
        left: `${names}${value === '' ? '' : ` ${value}`}`,
        right: `${flag.description}${fallback === '' ? '' : ` (default ${fallback})`}`,
      };
    }),
    { name: 'help', left: '  -h, --help', right: `help for ${commandWord}` },
  ].sort((a, b) => (a.name < b.name ? -1 : 1));
  const width = Math.max(...entries.map((e) => e.left.length));
  return entries.map((e) => `${e.left.padEnd(width)}   ${e.right}`).join('\n');
}
