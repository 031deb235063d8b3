// docs/configuration.md lists every flag of every command with its default, and nothing else: the
// "Command-line flags" section is checked against the commands' flag tables in both directions.
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import type { CommandSpec } from '../../cli/command.ts';
import { defaultLabel } from '../../cli/flag-help.ts';
import { PROPERTIES_COMMAND } from '../../properties/run.ts';
import { COMMANDS } from './main.ts';

const DOC = join(dirname(fileURLToPath(import.meta.url)), '../../docs/configuration.md');

/** Per `### \`command\`` heading of the section: flag name → the default column (backticks dropped). */
function documentedFlags(markdown: string): Map<string, Map<string, string>> {
  const section = markdown.slice(markdown.indexOf('\n## Command-line flags\n'));
  assert.ok(section.length > 1, 'docs/configuration.md has a "## Command-line flags" section');
  const end = section.indexOf('\n## ', 1);
  const commands = new Map<string, Map<string, string>>();
  let current: Map<string, string> | undefined;
  for (const line of (end < 0 ? section : section.slice(0, end)).split('\n')) {
    const heading = /^### `(.+)`$/.exec(line);
    if (heading !== null) {
      current = new Map();
      commands.set(heading[1]!, current);
      continue;
    }
    const row = /^\| (`-[^|]+) \| [^|]* \| ([^|]*) \|/.exec(line);
    if (row === null || current === undefined) continue;
    const long = /`--([^`]+)`/.exec(row[1]!)![1]!;
    assert.not.ok(current.has(long), `--${long} is listed twice`);
    current.set(long, row[2]!.trim().replace(/^`(.*)`$/, '$1'));
  }
  return commands;
}

async function commandSpecs(): Promise<CommandSpec[]> {
  const specs: CommandSpec[] = [];
  for (const entry of Object.values(COMMANDS)) specs.push((await entry.load()).spec);
  return [...specs, PROPERTIES_COMMAND];
}

test('every flag of every command is in docs/configuration.md with its default, and every documented flag exists', async () => {
  const documented = documentedFlags(readFileSync(DOC, 'utf8'));
  const specs = await commandSpecs();
  assert.equal([...documented.keys()].sort(), specs.map((s) => s.path).sort(), 'one section per command');
  for (const spec of specs) {
    const doc = documented.get(spec.path)!;
    const flags = new Map(Object.values(spec.flags).map((f) => [f.name, f]));
    for (const name of doc.keys()) assert.ok(flags.has(name), `docs/configuration.md lists --${name} for ${spec.path}, which has no such flag`);
    for (const [name, flag] of flags) {
      assert.ok(doc.has(name), `${spec.path} --${name} is missing from docs/configuration.md`);
      assert.is(doc.get(name), defaultLabel(flag), `the documented default of ${spec.path} --${name}`);
    }
  }
});

test('the check reads the tables: a row it cannot find fails it', () => {
  const parsed = documentedFlags(
    '\n## Command-line flags\n\n### `fairway x`\n\n| flag | value | default | description |\n|---|---|---|---|\n| `-v`, `--v` | Level |  | verbosity ' +
      '|\n| `--port` | int | `6443` | p |\n\n## Next\n| `--later` | x | | |\n',
  );
  assert.equal(
    [...parsed.get('fairway x')!.entries()],
    [
      ['v', ''],
      ['port', '6443'],
    ],
  );
});

test.run();
