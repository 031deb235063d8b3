#!/usr/bin/env node
// The README's test command (`npm test`): type-check, then every colocated `*.test.ts` under uvu,
// ending with the one line CI reads: `N passed, N failed`.
// `npm test -- engine/store` narrows the run to test files whose path contains one of the given
// fragments; a filter that matches no file is a failure, not an empty success.
// Lanes: `--lane=e2e` is api/e2e/ (server processes, kubectl), `--lane=unit` everything else
// (`npm run test:e2e`, `npm run test:unit`).
import { spawn, spawnSync } from 'node:child_process';
import { readdirSync, statSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { dirname, join, relative, sep } from 'node:path';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const args = process.argv.slice(2);
const lane = args.find((a) => a.startsWith('--lane='))?.slice('--lane='.length);
const fragments = args.filter((a) => !a.startsWith('--lane='));
const TOP_DIRS = ['cli', 'engine', 'api', 'workers', 'sim', 'properties', 'bench'];
const LANES = {
  unit: (path) => !path.startsWith('api/e2e/'),
  e2e: (path) => path.startsWith('api/e2e/'),
};
if (lane !== undefined && !(lane in LANES)) {
  console.log(
    `unknown --lane=${lane}: use ${Object.keys(LANES)
      .map((l) => `--lane=${l}`)
      .join(' or ')}`,
  );
  console.log('0 passed, 1 failed');
  process.exit(1);
}

function* testFiles(dir) {
  for (const name of readdirSync(dir)) {
    if (name === 'node_modules' || name === 'data' || name.startsWith('.')) continue;
    const path = join(dir, name);
    if (statSync(path).isDirectory()) yield* testFiles(path);
    else if (name.endsWith('.test.ts')) yield relative(root, path).split(sep).join('/');
  }
}

const selected = TOP_DIRS.flatMap((top) => [...testFiles(join(root, top))])
  .filter((path) => lane === undefined || LANES[lane](path))
  .filter((path) => fragments.length === 0 || fragments.some((fragment) => path.includes(fragment.split('\\').join('/'))))
  .sort();
if (selected.length === 0) {
  console.log(`no test file matches ${[lane && `--lane=${lane}`, ...fragments].filter(Boolean).join(' ')}`);
  console.log('0 passed, 1 failed');
  process.exit(1);
}

// The linter and formatter (biome.json) first: fast, and a style slip is worth failing on.
const biome = spawnSync(process.execPath, [join(root, 'node_modules/@biomejs/biome/bin/biome'), 'ci', '.'], {
  cwd: root,
  stdio: 'inherit',
});
if (biome.status !== 0) {
  console.log('lint or format check failed (npx biome check . shows the problems; npx biome check --write . fixes formatting and the safe lint fixes)');
  console.log('0 passed, 1 failed');
  process.exit(1);
}

const tsc = spawnSync(process.execPath, [join(root, 'node_modules/typescript/bin/tsc'), '--noEmit', '-p', root], {
  cwd: root,
  stdio: 'inherit',
});
if (tsc.status !== 0) {
  console.log('type check failed');
  console.log('0 passed, 1 failed');
  process.exit(1);
}

// uvu takes one pattern: the selected files' paths, exactly (either separator).
const escapeRegExp = (s) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
const pattern = `^(${selected.map((path) => escapeRegExp(path).split('/').join('[\\\\/]')).join('|')})$`;

const child = spawn(process.execPath, ['--import', 'tsx', join(root, 'node_modules/uvu/bin.js'), '.', pattern, '-i', '^data', '-i', '^\\.'], {
  cwd: root,
  stdio: ['ignore', 'pipe', 'inherit'],
  env: { ...process.env, FAIRWAY_TEST: '1' },
});

let tail = '';
let sawFailureMark = false;
child.stdout.on('data', (chunk) => {
  process.stdout.write(chunk);
  const text = chunk.toString('utf8');
  sawFailureMark ||= text.includes('✘');
  tail = (tail + text).slice(-4096);
});
child.on('close', (code, signal) => {
  const plain = tail.replace(/\u001b\[[0-9;]*m/g, '');
  const total = Number(/Total:\s+(\d+)/.exec(plain)?.[1] ?? 0);
  const passed = Number(/Passed:\s+(\d+)/.exec(plain)?.[1] ?? 0);
  const skipped = Number(/Skipped:\s+(\d+)/.exec(plain)?.[1] ?? 0);
  // A run that died before uvu printed its totals (a crash, a signal) counts as one failure.
  const failed = total - passed - skipped + (code !== 0 && total === passed + skipped ? 1 : 0);
  if (signal) console.log(`test process ended by ${signal}`);
  // uvu 0.5 loses a failure (and the rest of that file) when formatting the error throws, e.g.
  // on an error whose `details` is not a string: the totals are then the only trace of it.
  if (failed > 0 && !sawFailureMark) {
    console.log(
      `${failed} test(s) did not report a result (uvu dropped an error it could not format): look for a file whose "(n / m)" count is short, and run it alone`,
    );
  }
  console.log(`${passed} passed, ${failed} failed${skipped > 0 ? `, ${skipped} skipped` : ''}`);
  process.exit(failed > 0 || code !== 0 ? 1 : 0);
});
