// Runs the baseline and each variant over the same seeds on the Piscina pool, each run writing its
// own report.json, report.html and plots under DIR/<variant>/seed-<seed>/, and compares them.
// `sim compare` and `sim tune` (baseline vs its recommendation) share it.

import { join } from 'node:path';
import type { AuditGrouping } from '../audit-grouping.ts';
import { reproduceCommand } from '../run/reproduce-command.ts';
import { runSweep, type SweepPool } from '../sweep/sweep.ts';
import type { SweepTask } from '../sweep/task.ts';
import type { Variant } from '../sweep/variants.ts';
import { compareVariant, type Comparison, type CompareRun } from './compare.ts';

export interface ComparisonRequest {
  scenarioFile: string;
  scenarioName: string;
  /** The first is the baseline. */
  variants: readonly Variant[];
  seeds: readonly string[];
  workers: number;
  outDir: string;
  plots: boolean;
  /** Each run's report also simulates its suggestions. */
  suggestions: boolean;
  auditLogFile?: string | undefined;
  auditGrouping?: AuditGrouping | undefined;
  onTaskDone?: ((done: number, total: number) => void) | undefined;
  /** Run on this pool (kept open) instead of a new one. */
  pool?: SweepPool;
}

export async function runComparison(request: ComparisonRequest): Promise<Comparison> {
  const { scenarioFile, seeds, outDir, auditLogFile, auditGrouping } = request;
  const tasks: SweepTask[] = request.variants.flatMap((variant) =>
    seeds.map((seed) => ({
      scenarioFile,
      seed,
      variant: variant.name,
      variantFiles: variant.files,
      auditLogFile,
      auditGrouping,
      write: {
        dir: join(outDir, variant.name, `seed-${seed}`),
        reproduce: reproduceCommand({ scenarioFile, seed, variantFiles: variant.files, auditLogFile, auditGrouping }),
        plots: request.plots,
      },
      suggestions: request.suggestions,
      digestOnly: true,
    })),
  );
  const results =
    request.pool === undefined
      ? await runSweep(tasks, { workers: request.workers, onTaskDone: request.onTaskDone })
      : await request.pool.run(tasks, request.onTaskDone);
  const runs: CompareRun[] = results.map((r) => {
    const dir = join(r.variant, `seed-${r.seed}`);
    return r.ok
      ? { variant: r.variant, seed: r.seed, ok: true, digest: r.digest, report: join(dir, 'report.json'), html: join(dir, 'report.html') }
      : { variant: r.variant, seed: r.seed, ok: false, errors: r.errors };
  });
  const [baseline, ...others] = request.variants;
  // Only seeds where both runs succeeded are paired.
  const digests = (variant: string) => new Map(runs.filter((r) => r.variant === variant && r.ok).map((r) => [r.seed, r.digest!]));
  const base = digests(baseline!.name);
  const variants = others.map((v) => {
    const mine = digests(v.name);
    const paired = seeds.filter((s) => base.has(s) && mine.has(s));
    return compareVariant(
      v.name,
      v.files,
      paired.map((s) => base.get(s)!),
      paired.map((s) => mine.get(s)!),
    );
  });
  return {
    kind: 'SimulationComparison',
    version: 1,
    scenario: request.scenarioName,
    seeds: [...seeds],
    variants,
    runs: runs.map(({ digest: _digest, ...rest }) => rest),
  };
}
