#!/usr/bin/env node
// `npm run properties -- [--runs N] [--seed S] [--path P --only NAME] [file fragments...]`
// Runs the property suites (properties/*.test.ts) long: N runs per property from seed S (a decimal
// integer or any text, e.g. a commit hash). A failure prints its seed and path; `--path` with
// `--only` replays exactly that counterexample. Without options this is what `npm test` runs.
import { spawn } from 'node:child_process';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const usage = 'usage: npm run properties -- [--runs N] [--seed S] [--path P --only NAME] [file fragments...]';

const env = { ...process.env };
const fragments = [];
const args = process.argv.slice(2);
for (let i = 0; i < args.length; i++) {
  const arg = args[i];
  const [flag, inline] = arg.startsWith('--') && arg.includes('=') ? [arg.slice(0, arg.indexOf('=')), arg.slice(arg.indexOf('=') + 1)] : [arg, undefined];
  const value = () => {
    const v = inline ?? args[++i];
    if (v === undefined || v === '') fail(`${flag} needs a value`);
    return v;
  };
  switch (flag) {
    case '--runs': {
      const runs = value();
      if (!/^[1-9]\d*$/.test(runs)) fail(`--runs must be a positive integer, got ${JSON.stringify(runs)}`);
      env.FAIRWAY_PROPERTY_RUNS = runs;
      break;
    }
    case '--seed':
      env.FAIRWAY_PROPERTY_SEED = value();
      break;
    case '--path':
      env.FAIRWAY_PROPERTY_PATH = value();
      break;
    case '--only':
      env.FAIRWAY_PROPERTY_ONLY = value();
      break;
    case '--help':
    case '-h':
      console.log(usage);
      process.exit(0);
      break;
    default:
      if (arg.startsWith('-')) fail(`unknown option ${arg}`);
      fragments.push(arg);
  }
}
if (env.FAIRWAY_PROPERTY_PATH && !env.FAIRWAY_PROPERTY_ONLY) fail('--path replays one property: give its name with --only');

const escape = (s) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
const scope = fragments.length > 0 ? `.*(${fragments.map(escape).join('|')})` : '';
const pattern = `^properties[\\\\/]${scope}.*\\.test\\.ts$`;
console.log(
  `properties: seed=${env.FAIRWAY_PROPERTY_SEED ?? '(default)'} runs=${env.FAIRWAY_PROPERTY_RUNS ?? '(per property)'}` +
    (env.FAIRWAY_PROPERTY_ONLY ? ` only=${JSON.stringify(env.FAIRWAY_PROPERTY_ONLY)}` : ''),
);
const child = spawn(process.execPath, ['--import', 'tsx', join(root, 'node_modules/uvu/bin.js'), '.', pattern], {
  cwd: root,
  stdio: 'inherit',
  env,
});
child.on('close', (code, signal) => process.exit(signal ? 1 : (code ?? 1)));

function fail(message) {
  console.error(`${message}\n${usage}`);
  process.exit(2);
}
