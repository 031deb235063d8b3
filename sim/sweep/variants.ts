// The configuration variants of a sweep or comparison: "baseline" (no extra manifests) first, then
// one per --variant file, named after the file; and the up-front check of every variant's inputs.

import { basename, extname } from 'node:path';
import { reportWarnings } from '../run/scenario-warnings.ts';
import { loadRunInputs } from '../run/run-scenario.ts';
import type { Scenario } from '../scenario.ts';
import { append } from '../../engine/append.ts';

export interface Variant {
  name: string;
  files: string[];
}

export function variantNames(files: readonly string[]): Variant[] {
  const variants = [{ name: 'baseline', files: [] as string[] }];
  const used = new Set(['baseline']);
  for (const file of files) {
    const stem = basename(file, extname(file)).replace(/[^A-Za-z0-9._-]/g, '_') || 'variant';
    let name = stem;
    for (let i = 2; used.has(name); i++) name = `${stem}-${i}`;
    used.add(name);
    variants.push({ name, files: [file] });
  }
  return variants;
}

/**
 * Loads the scenario with each variant once (seed-independent), printing errors and warnings.
 * Returns the baseline scenario, or undefined when the command must exit 1.
 */
export async function checkVariants(options: {
  command: string;
  scenarioFile: string;
  variants: readonly Variant[];
  auditLogFile: string | undefined;
  strict: boolean;
  output: { stderr(text: string): void };
}): Promise<{ scenario: Scenario } | undefined> {
  const { command, scenarioFile, auditLogFile, output } = options;
  let scenario: Scenario | undefined;
  const warnings: string[] = [];
  for (const variant of options.variants) {
    const check = await loadRunInputs({ scenarioFile, seed: '0', variantFiles: variant.files, auditLogFile });
    if (!check.ok) {
      for (const error of check.errors) output.stderr(`${error}\n`);
      output.stderr(`fairway ${command}: invalid input${variant.files.length > 0 ? ` (variant ${variant.name})` : ''}; nothing was simulated\n`);
      return undefined;
    }
    scenario ??= check.loaded.scenario;
    append(warnings, check.loaded.warnings);
  }
  if (reportWarnings(warnings, options.strict, command, output)) return undefined;
  return { scenario: scenario! };
}
