// `npm run properties -- [--runs N] [--seed S] [--path P --only NAME] [file fragments...]`
// Runs the property suites (properties/*.test.ts) long: N runs per property from seed S (a decimal
// integer or any text, e.g. a commit hash). A failure prints its seed and path; `--path` with
// `--only` replays exactly that counterexample. Without options this is what `npm test` runs.
import { spawn } from 'node:child_process';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseCommandLine, processOutput, type CommandSpec } from '../cli/command.ts';
import { flag } from '../cli/flag-table.ts';

const PROPERTIES_FLAGS = {
  runs: flag('int', 'runs', 0, 'runs per property', {
    valueName: 'N',
    defaultText: "each property's own",
    validate: (value, name) => (value < 1 ? `${name} must be a positive whole number, got ${value}` : undefined),
  }),
  seed: flag('string', 'seed', '', 'the seed of the first run: a decimal integer or any text (e.g. a commit hash)', {
    valueName: 'S',
    defaultText: 'the fixed seed of npm test',
  }),
  path: flag('string', 'path', '', "a failure's path, to replay exactly that counterexample (with --only)", { valueName: 'P' }),
  only: flag('string', 'only', '', 'run only the property with this name', { valueName: 'NAME' }),
};

export const PROPERTIES_COMMAND: CommandSpec<typeof PROPERTIES_FLAGS> = {
  path: 'npm run properties --',
  usage: 'npm run properties -- [--runs N] [--seed S] [--path P --only NAME] [file fragments...]',
  description: 'Runs the property suites (properties/*.test.ts) whose path contains one of the fragments (all without any).',
  flags: PROPERTIES_FLAGS,
  positionals: { name: 'fragment', min: 0, max: Infinity, missing: '' },
  check: (values) => (values.path !== '' && values.only === '' ? '--path replays one property: give its name with --only' : undefined),
};

// Only when run as the script: the docs test imports PROPERTIES_COMMAND.
if (process.argv[1] !== undefined && fileURLToPath(import.meta.url) === process.argv[1]) runProperties(process.argv.slice(2));

function runProperties(args: readonly string[]): void {
  const parsed = parseCommandLine(PROPERTIES_COMMAND, args, processOutput);
  // exitCode rather than exit(): the help text on a pipe must be written out first.
  if ('exitCode' in parsed) {
    process.exitCode = parsed.exitCode;
    return;
  }
  const { values, positionals: fragments } = parsed;
  const env = { ...process.env };
  if (values.runs !== 0) env.FAIRWAY_PROPERTY_RUNS = String(values.runs);
  if (values.seed !== '') env.FAIRWAY_PROPERTY_SEED = values.seed;
  if (values.path !== '') env.FAIRWAY_PROPERTY_PATH = values.path;
  if (values.only !== '') env.FAIRWAY_PROPERTY_ONLY = values.only;

  const root = join(dirname(fileURLToPath(import.meta.url)), '..');
  const escapeRegExp = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  const scope = fragments.length > 0 ? `.*(${fragments.map(escapeRegExp).join('|')})` : '';
  const pattern = `^properties[\\\\/]${scope}.*\\.test\\.ts$`;
  console.log(
    `properties: seed=${env.FAIRWAY_PROPERTY_SEED ?? '(default)'} runs=${env.FAIRWAY_PROPERTY_RUNS ?? '(per property)'}` +
      (env.FAIRWAY_PROPERTY_ONLY ? ` only=${JSON.stringify(env.FAIRWAY_PROPERTY_ONLY)}` : ''),
  );
  const child = spawn(process.execPath, ['--import', 'tsx', join(root, 'node_modules/uvu/bin.js'), '.', pattern], { cwd: root, stdio: 'inherit', env });
  child.on('close', (code, signal) => process.exit(signal ? 1 : (code ?? 1)));
}
