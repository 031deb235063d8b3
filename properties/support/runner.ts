// Runs fast-check properties with a seed and a run count that come from the environment, so the
// same file is a quick fixed-seed check under `npm test` and a long search under
// `npm run properties -- --runs N --seed S` (properties/run.ts sets the variables). A failure
// throws one message that carries the seed, the path and the exact command that replays it.
//
// Environment (all optional):
//   FAIRWAY_PROPERTY_RUNS  runs per property, overriding each property's own default
//   FAIRWAY_PROPERTY_SEED  a decimal integer, or any text (a commit hash) folded to one
//   FAIRWAY_PROPERTY_PATH  replay one counterexample; needs FAIRWAY_PROPERTY_ONLY
//   FAIRWAY_PROPERTY_ONLY  run only the property with this exact name (the others say so and pass)

import fc from 'fast-check';

/** The seed `npm test` uses when none is given: fixed, so CI is reproducible. */
export const DEFAULT_SEED = 1040;

export interface PropertySettings {
  seed: number;
  /** What the user typed, when it was not already a 32-bit integer. */
  seedText: string | undefined;
  runsOverride: number | undefined;
  path: string | undefined;
  only: string | undefined;
}

export function readPropertySettings(env: NodeJS.ProcessEnv = process.env): PropertySettings {
  const runsText = env['FAIRWAY_PROPERTY_RUNS'];
  let runsOverride: number | undefined;
  if (runsText !== undefined && runsText !== '') {
    runsOverride = Number(runsText);
    if (!Number.isSafeInteger(runsOverride) || runsOverride < 1) {
      throw new RangeError(`FAIRWAY_PROPERTY_RUNS must be a positive integer, got ${JSON.stringify(runsText)}`);
    }
  }
  const seedText = env['FAIRWAY_PROPERTY_SEED'];
  const seed = seedText === undefined || seedText === '' ? DEFAULT_SEED : parseSeed(seedText);
  const path = nonEmpty(env['FAIRWAY_PROPERTY_PATH']);
  const only = nonEmpty(env['FAIRWAY_PROPERTY_ONLY']);
  if (path !== undefined && only === undefined) {
    throw new Error('FAIRWAY_PROPERTY_PATH replays one property: set FAIRWAY_PROPERTY_ONLY to its name too');
  }
  return {
    seed,
    seedText: seedText !== undefined && String(seed) !== seedText.trim() ? seedText : undefined,
    runsOverride,
    path,
    only,
  };
}

/**
 * A decimal integer that fits fast-check's 32-bit seed is used as is; anything else (a 40-hex
 * commit hash, a word) is folded with FNV-1a, so CI can pass its commit and still replay by number.
 */
export function parseSeed(text: string): number {
  const trimmed = text.trim();
  if (/^-?\d+$/.test(trimmed)) {
    const n = Number(trimmed);
    if (Number.isSafeInteger(n) && n >= -(2 ** 31) && n < 2 ** 31) return n;
  }
  let h = 0x811c9dc5;
  for (let i = 0; i < trimmed.length; i++) {
    h ^= trimmed.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  return h | 0;
}

export interface CheckOptions {
  /** Runs under `npm test`; FAIRWAY_PROPERTY_RUNS replaces it. */
  runs: number;
  /** Instead of the environment (the runner's own tests). */
  settings?: PropertySettings;
}

/**
 * Checks `property`; on failure throws an Error whose message names the property, the seed, the
 * shrunk counterexample, its path and the replay command.
 */
export function checkProperty<Ts>(name: string, property: fc.IProperty<Ts>, options: CheckOptions): void {
  const settings = settingsFor(name, options);
  if (settings === undefined) return;
  const details = fc.check(property, checkParameters<Ts>(settings, options));
  if (details.failed) throw new Error(failureMessage(name, settings, details));
}

/** `checkProperty` for properties whose predicate returns a promise (store, API, encryption). */
export async function checkAsyncProperty<Ts>(name: string, property: fc.IAsyncProperty<Ts>, options: CheckOptions): Promise<void> {
  const settings = settingsFor(name, options);
  if (settings === undefined) return;
  const details = await fc.check(property, checkParameters<Ts>(settings, options));
  if (details.failed) throw new Error(failureMessage(name, settings, details));
}

/** The settings to run `name` with, or undefined when a replay of another property is under way. */
function settingsFor(name: string, options: CheckOptions): PropertySettings | undefined {
  const settings = options.settings ?? readPropertySettings();
  if (settings.only !== undefined && settings.only !== name) {
    console.log(`  (skipped "${name}": replaying "${settings.only}" only)`);
    return undefined;
  }
  return settings;
}

function checkParameters<Ts>(settings: PropertySettings, options: CheckOptions): fc.Parameters<Ts> {
  return {
    seed: settings.seed,
    numRuns: settings.runsOverride ?? options.runs,
    ...(settings.path !== undefined ? { path: settings.path } : {}),
  };
}

/**
 * A negative control: the property must FAIL for `property` (built on a deliberately wrong
 * subject). Throws if it passes, because then the property has no power to find that fault.
 */
export function expectPropertyToFail<Ts>(name: string, property: fc.IProperty<Ts>, options: CheckOptions): fc.RunDetails<Ts> {
  const settings = options.settings ?? readPropertySettings();
  // No shrinking: a control only needs to fail, not to explain why.
  const details = fc.check(property, { seed: settings.seed, numRuns: settings.runsOverride ?? options.runs, endOnFailure: true });
  if (!details.failed) {
    throw new Error(`control "${name}" passed ${details.numRuns} runs (seed=${settings.seed}), but its property must reject the faulty subject`);
  }
  return details;
}

/** `expectPropertyToFail` for async properties (a store or server built to be wrong). */
export async function expectAsyncPropertyToFail<Ts>(name: string, property: fc.IAsyncProperty<Ts>, options: CheckOptions): Promise<fc.RunDetails<Ts>> {
  const settings = options.settings ?? readPropertySettings();
  const details = await fc.check(property, { seed: settings.seed, numRuns: settings.runsOverride ?? options.runs, endOnFailure: true });
  if (!details.failed) {
    throw new Error(`control "${name}" passed ${details.numRuns} runs (seed=${settings.seed}), but its property must reject the faulty subject`);
  }
  return details;
}

function failureMessage<Ts>(name: string, settings: PropertySettings, details: fc.RunDetails<Ts>): string {
  const path = details.counterexamplePath ?? '';
  const seedNote = settings.seedText !== undefined ? ` (from ${JSON.stringify(settings.seedText)})` : '';
  const cause = describeError(details.errorInstance);
  return [
    `property "${name}" failed: seed=${details.seed}${seedNote} path="${path}"`,
    `  after ${details.numRuns} run(s), shrunk ${details.numShrinks} time(s)`,
    `  counterexample: ${fc.stringify(details.counterexample)}`,
    `  cause: ${cause}`,
    `  replay: npm run properties -- --seed ${details.seed} --path "${path}" --only "${name}"`,
  ].join('\n');
}

/** The error's message, plus what uvu's assertions carry (expected/actual) and where it was thrown. */
function describeError(error: unknown): string {
  if (!(error instanceof Error)) return String(error ?? '');
  const parts = [error.message];
  const assertion = error as Error & { expects?: unknown; actual?: unknown };
  if ('expects' in assertion || 'actual' in assertion) {
    parts.push(`expected ${fc.stringify(assertion.expects)}, got ${fc.stringify(assertion.actual)}`);
  }
  const frame = error.stack?.split('\n').find((line) => /properties[\\/](?!support[\\/]runner)/.test(line) && !line.includes('node_modules'));
  if (frame !== undefined) parts.push(`at ${frame.trim().replace(/^at /, '')}`);
  return parts.join(' — ');
}

function nonEmpty(value: string | undefined): string | undefined {
  return value === undefined || value === '' ? undefined : value;
}
