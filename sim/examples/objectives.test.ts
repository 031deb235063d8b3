// Every example that comes with a TuneObjectives file (<name>.objectives.yaml) fails its objectives
// as configured, and `fairway sim tune` finds a configuration that meets them in every seed.

import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { readdirSync } from 'node:fs';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { runSimTune } from '../cli/cli-tune.ts';

const here = fileURLToPath(new URL('.', import.meta.url));
const examples = readdirSync(here)
  .filter((f) => f.endsWith('.objectives.yaml'))
  .sort();

test('at least three examples come with objectives', () => {
  assert.ok(examples.length >= 3, examples.join(', '));
});

for (const objectives of examples) {
  const scenario = objectives.replace('.objectives.yaml', '.yaml');
  test(`sim tune meets the objectives of ${scenario}`, async () => {
    const dir = await mkdtemp(join(tmpdir(), 'fairway-objectives-'));
    try {
      let out = '';
      const code = await runSimTune(
        [join(here, scenario), '--objectives', join(here, objectives), '--seeds', '1..2', '--workers', '2', '--no-plots', '--no-suggestions', '--out', dir],
        {
          stdout: (t) => void (out += t),
          stderr: (t) => void (out += t),
        },
      );
      assert.is(code, 0, out);
      const tune = JSON.parse(await readFile(join(dir, 'tune.json'), 'utf8'));
      assert.is(tune.met, true);
      assert.ok(
        tune.baseline.some((o: { met: boolean }) => !o.met),
        'the objectives fail as configured',
      );
      assert.ok(tune.objectives.every((o: { met: boolean }) => o.met));
      assert.ok(tune.recommendation.changes.length > 0);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
}

test.run();
