#!/usr/bin/env node
// The README's test command (`npm test`): type-check, then every colocated `*.test.ts` under uvu,
// ending with the one line CI reads: `N passed, N failed`.
// `npm test -- engine/store` narrows the run to paths matching the given fragments.
import { spawn, spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { dirname, join } from 'node:path';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const fragments = process.argv.slice(2);

const tsc = spawnSync(process.execPath, [join(root, 'node_modules/typescript/bin/tsc'), '--noEmit', '-p', root], {
  cwd: root,
  stdio: 'inherit',
});
if (tsc.status !== 0) {
  console.log('type check failed');
  console.log('0 passed, 1 failed');
  process.exit(1);
}

const escape = (s) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
const scope = fragments.length > 0 ? `(${fragments.map(escape).join('|')})` : '';
const pattern = `^(engine|api|workers|sim|properties|bench)[\\\\/].*${scope}.*\\.test\\.ts$`;

const child = spawn(
  process.execPath,
  ['--import', 'tsx', join(root, 'node_modules/uvu/bin.js'), '.', pattern, '-i', '^data', '-i', '^\\.'],
  { cwd: root, stdio: ['ignore', 'pipe', 'inherit'], env: { ...process.env, FAIRWAY_TEST: '1' } },
);

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
    console.log(`${failed} test(s) did not report a result (uvu dropped an error it could not format): look for a file whose "(n / m)" count is short, and run it alone`);
  }
  console.log(`${passed} passed, ${failed} failed${skipped > 0 ? `, ${skipped} skipped` : ''}`);
  process.exit(failed > 0 || code !== 0 ? 1 : 0);
});
