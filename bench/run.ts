// `npm run bench`: runs every bench/*.bench.ts, one process each, in name order, so no benchmark
// inherits another's heap or JIT state. Arguments narrow the set by substring
// (`npm run bench -- store`); the environment passes through (BENCH_QUICK=1 for a smoke run).
// Exits non-zero if any benchmark fails.

import { spawnSync } from 'node:child_process';
import { readdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));
const filters = process.argv.slice(2);
const benches = readdirSync(here)
  .filter((name) => name.endsWith('.bench.ts'))
  .filter((name) => filters.length === 0 || filters.some((f) => name.includes(f)))
  .sort();

if (benches.length === 0) {
  process.stderr.write(`no benchmark matches ${filters.join(' ')}\n`);
  process.exit(2);
}

const failed: string[] = [];
for (const name of benches) {
  process.stdout.write(`\n=== ${name} ===\n`);
  const run = spawnSync(process.execPath, ['--import', 'tsx', join(here, name)], { stdio: 'inherit', env: process.env });
  if (run.status !== 0) failed.push(`${name} (${run.signal ?? `exit ${run.status}`})`);
}
process.stdout.write(
  `\n${benches.length - failed.length} of ${benches.length} benchmarks finished${failed.length > 0 ? `; failed: ${failed.join(', ')}` : ''}\n`,
);
process.exit(failed.length > 0 ? 1 : 0);
