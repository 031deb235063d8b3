// `fairway sim tune SCENARIO --objectives FILE [--variant FILE] [--seeds LIST] [--budget N] --out DIR`:
// searches for the smallest configuration change that meets every objective in every seed (on top
// of the variant's what-if, when given), and writes it as manifests ready for `kubectl apply`, with
// the search's record, the objectives table, why each changed field helps and what it costs, and a
// comparison page.

import { writeFile } from 'node:fs/promises';
import { availableParallelism } from 'node:os';
import { join } from 'node:path';
import { stringify } from 'yaml';
import { parseCommandLine, processOutput, type Command, type CommandSpec, type Output } from '../../cli/command.ts';
import { flag } from '../../cli/flag-table.ts';
import { reportWarnings } from '../run/scenario-warnings.ts';
import { nonEmpty, RUN_FLAGS, runOptions, type RunOptions, SCENARIO_ARGUMENT, seedValue, SEEDS_FLAGS, VARIANT_FLAG } from './cli-args.ts';
import { compareHtml } from '../compare/compare-html.ts';
import { comparePlotsHtml } from '../compare/compare-plots.ts';
import { runComparison } from '../compare/run-comparison.ts';
import { createProgress } from '../progress.ts';
import { esc } from '../report/format.ts';
import { table } from '../report/page.ts';
import { loadRunInputs } from '../run/run-scenario.ts';
import type { LoadedScenario } from '../scenario-load.ts';
import { parseSeed, streamPrng } from '../seed.ts';
import { createSweepPool, type SweepPool } from '../sweep/sweep.ts';
import type { SweepTask } from '../sweep/task.ts';
import { assess } from '../tune/assess.ts';
import { changeEffects } from '../tune/change-effects.ts';
import { candidateKey, candidateManifests, candidateObjects, describeCandidate, EMPTY_CANDIDATE, type Candidate, type TuneSpace } from '../tune/candidate.ts';
import { improves, readObjectivesFile, type TuneObjectives, withImplicitObjectives } from '../tune/objectives.ts';
import { failingRows, failures, objectivesTable, objectivesTableText, type ObjectiveRow } from '../tune/objectives-table.ts';
import { searchConfigurations, type Evaluation, type SearchResult } from '../tune/search.ts';
import { buildSpace, type Matched } from '../tune/space.ts';
import { makeDirectories } from '../../engine/make-directories.ts';

export const DEFAULT_TUNE_SEEDS = '1..3';
export const DEFAULT_BUDGET = 120;
const MAX_BUDGET = 100_000;

const SIM_TUNE_FLAGS = {
  ...RUN_FLAGS,
  ...SEEDS_FLAGS,
  seeds: {
    ...SEEDS_FLAGS.seeds,
    default: DEFAULT_TUNE_SEEDS,
    description: 'seeds every candidate must meet the objectives in: a range 1..5, a list 1,2,7, or both',
  },
  objectives: flag('string', 'objectives', '', 'a TuneObjectives file', { valueName: 'FILE', required: '--objectives FILE is required', validate: nonEmpty }),
  variant: {
    ...VARIANT_FLAG,
    description: "manifests applied over the scenario's configuration before tuning (a what-if to tune on top of); repeatable, applied in order",
  },
  out: flag('string', 'out', '', 'output directory', { valueName: 'DIR', required: '--out DIR is required', validate: nonEmpty }),
  budget: flag('int', 'budget', DEFAULT_BUDGET, 'most candidates to try, the baseline included', {
    valueName: 'N',
    validate: (value, name) => (value < 1 || value > MAX_BUDGET ? `${name} must be a whole number from 1 to ${MAX_BUDGET}, got ${value}` : undefined),
  }),
  searchSeed: flag('string', 'search-seed', '1', "the seed of the search's own random picks", { valueName: 'S', validate: seedValue }),
};

export const SIM_TUNE_COMMAND: CommandSpec<typeof SIM_TUNE_FLAGS> = {
  path: 'fairway sim tune',
  usage: 'fairway sim tune SCENARIO --objectives FILE --out DIR [flags]',
  description: `Searches APF configurations for the smallest change to the scenario's configuration (with any
--variant files applied) that meets every objective in every seed (docs/simulator.md, "sim tune"),
prints the objectives table and why each changed field helps and what it costs, and writes:
  DIR/recommended.yaml  the created and changed objects, ready for 'kubectl apply' (when met;
                        DIR/closest.yaml otherwise)
  DIR/tune.json         whether the objectives were met, the objectives table (limit, baseline,
                        recommendation, margin), the effects of each change, every candidate
                        tried, the seeds and the search seed
  DIR/compare.html      the baseline against the recommendation, with every run's report`,
  flags: SIM_TUNE_FLAGS,
  positionals: SCENARIO_ARGUMENT,
  epilogue: `Exit status: 0 when a configuration meets every objective, 1 when none within the budget does
(the closest is written, with what still fails) or inputs are invalid, 2 for usage errors.`,
};

export const simTuneCommand: Command = {
  spec: SIM_TUNE_COMMAND,
  run: (args) => runSimTune(args, processOutput),
};

/** What the command line and its files name, read and checked before anything is simulated. */
interface TuneInputs {
  scenarioFile: string;
  objectivesFile: string;
  outDir: string;
  options: RunOptions;
  searchSeed: string;
  budget: number;
  variantFiles: string[];
  objectives: TuneObjectives;
  loaded: LoadedScenario;
}

type CandidateRuns = Pick<Evaluation, 'runs' | 'errors'>;

export async function runSimTune(args: string[], output: Output): Promise<number> {
  const inputs = await readTuneInputs(args, output);
  if (typeof inputs === 'number') return inputs;
  const { scenarioFile, objectivesFile, variantFiles, budget, options, loaded } = inputs;
  output.stdout(
    `SCENARIO=${scenarioFile} NAME=${loaded.scenario.name} OBJECTIVES=${objectivesFile}` +
      `${variantFiles.length > 0 ? ` VARIANT=${variantFiles.join(',')}` : ''} ` +
      `BUDGET=${budget} WORKERS=${options.workers}\n`,
  );
  const pool = createSweepPool(Math.min(options.workers, budget * options.seeds.length));
  const progress = createProgress();
  const startMs = performance.now();
  try {
    const searched = await searchTune(inputs, candidateRunner(inputs, pool), progress, output);
    progress.done();
    if (typeof searched === 'number') return searched;
    const searchSeconds = (performance.now() - startMs) / 1000;
    const outcome = await writeTuneOutputs(inputs, searched, pool);
    printOutcome(output, inputs, searched.result, outcome, searchSeconds);
    return searched.result.met ? 0 : 1;
  } finally {
    progress.done();
    await pool.destroy();
  }
}

/** The flags, the objectives file and the scenario (with its variants); an exit code when any is wrong. */
async function readTuneInputs(args: string[], output: Output): Promise<TuneInputs | number> {
  const command = parseCommandLine(SIM_TUNE_COMMAND, args, output);
  if ('exitCode' in command) return command.exitCode;
  const { values } = command;
  const scenarioFile = command.positionals[0]!;
  const options = runOptions(values, availableParallelism());
  const searchSeed = parseSeed(values.searchSeed);
  if (!searchSeed.ok) return command.usageError(`--search-seed: ${searchSeed.message}`);
  const variantFiles = values.variant;

  output.stdout(`SEEDS=${options.seedsText} SEARCH_SEED=${searchSeed.seed}\n`);
  const objectives = await readObjectivesFile(values.objectives);
  const inputs = await loadRunInputs({ scenarioFile, seed: '0', auditLogFile: options.auditLogFile, variantFiles });
  const inputErrors = [...(objectives.ok ? [] : objectives.errors), ...(inputs.ok ? [] : inputs.errors)];
  if (!objectives.ok || !inputs.ok) {
    for (const error of inputErrors) output.stderr(`${error}\n`);
    output.stderr('fairway sim tune: invalid input; nothing was simulated\n');
    return 1;
  }
  if (reportWarnings(inputs.loaded.warnings, options.strict, 'sim tune', output)) return 1;
  return {
    scenarioFile,
    objectivesFile: values.objectives,
    outDir: values.out,
    options,
    searchSeed: searchSeed.seed,
    budget: values.budget,
    variantFiles,
    objectives: withImplicitObjectives(objectives.objectives, inputs.loaded.scenario.server),
    loaded: inputs.loaded,
  };
}

/** Runs candidates on the pool, every seed each, and gathers each candidate's digests and errors. */
function candidateRunner(inputs: TuneInputs, pool: SweepPool) {
  const { seeds, auditLogFile, auditGrouping } = inputs.options;
  const taskBase = { scenarioFile: inputs.scenarioFile, auditLogFile, auditGrouping, digestOnly: true };
  return async (candidates: readonly Candidate[], objectsOf: (c: Candidate) => SweepTask['extraObjects']): Promise<CandidateRuns[]> => {
    const tasks: SweepTask[] = candidates.flatMap((c, i) =>
      seeds.map((seed) => ({ ...taskBase, seed, variant: `candidate-${i}`, variantFiles: inputs.variantFiles, extraObjects: objectsOf(c) ?? [] })),
    );
    const results = await pool.run(tasks);
    return candidates.map((_, i) => {
      const mine = results.slice(i * seeds.length, (i + 1) * seeds.length);
      return {
        runs: mine.flatMap((r) => (r.ok ? [{ seed: r.seed, digest: r.digest }] : [])),
        errors: mine.flatMap((r) => (r.ok ? [] : r.errors.map((e) => `seed ${r.seed}: ${e}`))),
      };
    });
  };
}

interface Searched {
  result: SearchResult;
  space: TuneSpace;
  matched: Map<number, Matched>;
}

/** The baseline, the space it allows, and the search; an exit code when the baseline fails or the objectives do not fit. */
async function searchTune(
  inputs: TuneInputs,
  runCandidates: ReturnType<typeof candidateRunner>,
  progress: ReturnType<typeof createProgress>,
  output: Output,
): Promise<Searched | number> {
  const { objectives, budget } = inputs;
  // The baseline first: it names the flows the objectives must match and sizes new levels.
  const [baselineRuns] = await runCandidates([EMPTY_CANDIDATE], () => []);
  if (baselineRuns!.errors.length > 0) {
    for (const error of baselineRuns!.errors) output.stderr(`${error}\n`);
    return 1;
  }
  const built = buildSpace(inputs.loaded, objectives, baselineRuns!.runs);
  if (!built.ok) {
    for (const error of built.errors) output.stderr(`${error}\n`);
    output.stderr('fairway sim tune: the objectives do not fit the scenario\n');
    return 1;
  }
  const { space, matched } = built;
  const baselineKey = candidateKey(EMPTY_CANDIDATE);
  const result = await searchConfigurations({
    space,
    budget,
    prng: streamPrng(inputs.searchSeed, 'sim-tune'),
    evaluate: (candidates) =>
      candidates.length === 1 && candidateKey(candidates[0]!) === baselineKey
        ? Promise.resolve([baselineRuns!])
        : runCandidates(candidates, (c) => candidateObjects(c, space, `candidate ${describeCandidate(c, space).join('; ')}`)),
    assess: (runs) => assess(objectives.objectives, matched, runs, baselineRuns!.runs),
    focusOf: (evaluation) => focusOf(evaluation, space.levels, space.dedicatable),
    onRound: (_round, evaluated) => progress.update(evaluated / budget, `${evaluated}/${budget} candidates`),
  });
  return { result, space, matched };
}

/** What the outputs say about the best candidate: its file, its changes, their effects and the objectives table. */
interface Outcome {
  yamlName: string;
  changes: string[];
  effects: string[];
  objectiveRows: ObjectiveRow[];
}

/** recommended.yaml (or closest.yaml), tune.json and compare.html. */
async function writeTuneOutputs(inputs: TuneInputs, searched: Searched, pool: SweepPool): Promise<Outcome> {
  const { result, space, matched } = searched;
  const objectives = inputs.objectives.objectives;
  const changes = describeCandidate(result.best.candidate, space);
  const improvedFlows = new Set(objectives.filter(improves).flatMap((o) => matched.get(o.index)?.flows ?? []));
  const outcome: Outcome = {
    yamlName: result.met ? 'recommended.yaml' : 'closest.yaml',
    changes,
    effects: changeEffects(result.best.candidate, space, result.baseline.runs, result.best.runs, improvedFlows),
    objectiveRows: objectivesTable(objectives, result.baseline.assessment, result.best.assessment),
  };
  await makeDirectories(inputs.outDir);
  await writeFile(join(inputs.outDir, outcome.yamlName), recommendationYaml(inputs, searched, changes));
  await writeFile(join(inputs.outDir, 'tune.json'), `${JSON.stringify(tuneJson(inputs, searched, outcome), null, 2)}\n`);
  await writeFile(join(inputs.outDir, 'compare.html'), await comparePage(inputs, result, outcome, pool));
  return outcome;
}

/** The manifests to apply, headed by the command that found them and what they change. */
function recommendationYaml(inputs: TuneInputs, { result, space }: Searched, changes: readonly string[]): string {
  const { scenarioFile, objectivesFile, variantFiles } = inputs;
  const header = [
    `# ${result.met ? 'Recommended' : 'Closest (objectives NOT met)'} by: fairway sim tune ${scenarioFile} --objectives ${objectivesFile} --seeds ` +
      `${inputs.options.seedsText} --search-seed ${inputs.searchSeed}${variantFiles.map((v) => ` --variant ${v}`).join('')}`,
    ...(variantFiles.length > 0 ? [`# Apply after ${variantFiles.join(', ')}: these changes are on top of that configuration.`] : []),
    ...changes.map((c) => `# - ${c}`),
    ...(changes.length === 0 ? ['# The configuration as it is meets every objective: nothing to apply.'] : []),
  ].join('\n');
  const manifests = candidateManifests(result.best.candidate, space);
  return `${header}\n${manifests.map((m) => `---\n${stringify(m, { lineWidth: 0 })}`).join('')}`;
}

/** tune.json: the outcome, the objectives table and every candidate tried. */
function tuneJson(inputs: TuneInputs, { result, space }: Searched, outcome: Outcome) {
  return {
    kind: 'TuneResult',
    version: 1,
    scenario: inputs.loaded.scenario.name,
    objectivesFile: inputs.objectivesFile,
    variantFiles: inputs.variantFiles,
    seeds: inputs.options.seeds,
    searchSeed: inputs.searchSeed,
    budget: inputs.budget,
    met: result.met,
    recommendation: {
      file: outcome.yamlName,
      changes: outcome.changes,
      objects: result.best.size.objects,
      relativeChange: result.best.size.relativeChange,
      candidate: result.best.index,
    },
    objectivesTable: outcome.objectiveRows,
    effects: outcome.effects,
    objectives: result.best.assessment?.objectives ?? [],
    baseline: result.baseline.assessment?.objectives ?? [],
    candidatesTried: result.evaluations.length,
    candidates: result.evaluations.map((e) => ({
      index: e.index,
      round: e.round,
      changes: describeCandidate(e.candidate, space),
      objects: e.size.objects,
      relativeChange: e.size.relativeChange,
      met: e.assessment?.met ?? false,
      distance: e.assessment?.distance ?? null,
      // Why not met: the failing rows of the objectives table, each at its worst flow and seed.
      ...(e.assessment !== undefined && !e.assessment.met ? { failing: failingRows(e.assessment) } : {}),
      ...(e.errors.length > 0 ? { errors: e.errors } : {}),
    })),
  };
}

/** compare.html: the baseline against the recommendation, each run's report written beside it. */
async function comparePage(inputs: TuneInputs, result: SearchResult, outcome: Outcome, pool: SweepPool): Promise<string> {
  const { options, outDir, variantFiles } = inputs;
  const { changes, yamlName } = outcome;
  const variants = [
    { name: 'baseline', files: variantFiles },
    ...(changes.length > 0 ? [{ name: result.met ? 'recommended' : 'closest', files: [...variantFiles, join(outDir, yamlName)] }] : []),
  ];
  const comparison = await runComparison({
    scenarioFile: inputs.scenarioFile,
    scenarioName: inputs.loaded.scenario.name,
    variants,
    seeds: options.seeds,
    workers: options.workers,
    outDir,
    plots: options.plots,
    suggestions: options.suggestions,
    auditLogFile: options.auditLogFile,
    auditGrouping: options.auditGrouping,
    pool,
  });
  const summary = result.met
    ? changes.length === 0
      ? 'The configuration as it is meets every objective.'
      : `Recommended change (${changes.length} edit${changes.length === 1 ? '' : 's'}) meets every objective in every seed.`
    : 'No candidate within the budget met every objective; this is the closest.';
  return compareHtml(comparison, {
    title: `Tuning: ${inputs.loaded.scenario.name}`,
    intro: [
      summary,
      ...changes.map((c) => `• ${esc(c)}`),
      ...outcome.effects.map((e) => esc(e)),
      `Manifests: <a href="${yamlName}">${yamlName}</a>; the search: <a href="tune.json">tune.json</a> (${result.evaluations.length} candidates).`,
    ],
    blocks: ['<h2>Objectives</h2>', objectivesTableHtml(outcome.objectiveRows)],
    plots: options.plots === false ? [] : await comparePlotsHtml(comparison),
  });
}

/** The terminal's account: the search's pace, the objectives table, and what to apply or what still fails. */
function printOutcome(output: Output, inputs: TuneInputs, result: SearchResult, outcome: Outcome, searchSeconds: number): void {
  const { changes, effects, yamlName } = outcome;
  const rate = result.evaluations.length / Math.max(searchSeconds, 1e-6);
  output.stdout(
    `tried ${result.evaluations.length} candidates × ${inputs.options.seeds.length} seeds in ${searchSeconds.toFixed(2)} s (${rate.toFixed(2)} candidates/s)\n`,
  );
  for (const line of objectivesTableText(outcome.objectiveRows)) output.stdout(`${line}\n`);
  if (result.met) {
    output.stdout(
      changes.length === 0
        ? 'MET: the configuration as it is meets every objective\n'
        : `MET by candidate ${result.best.index}:\n${changes.map((c) => `  ${c}\n`).join('')}` +
            `why, and what it costs:\n${effects.map((e) => `  ${e}\n`).join('')}`,
    );
  } else {
    output.stdout(
      `NOT MET within the budget; closest (candidate ${result.best.index}):\n${changes.map((c) => `  ${c}\n`).join('') || '  (no change)\n'}still failing:\n`,
    );
    for (const line of result.best.assessment === undefined ? result.best.errors : failures(result.best.assessment)) output.stdout(`  ${line}\n`);
  }
  const outDir = inputs.outDir;
  output.stdout(`wrote ${join(outDir, yamlName)}, ${join(outDir, 'tune.json')} and ${join(outDir, 'compare.html')}\n`);
}

/** The levels and flows the failing objectives of a candidate involve, to try moves on them first. */
function focusOf(
  evaluation: Evaluation,
  levels: ReadonlyMap<string, unknown>,
  dedicatable: ReadonlyMap<string, unknown>,
): { levels: Set<string>; flows: Set<string> } {
  const focusLevels = new Set<string>();
  const focusFlows = new Set<string>();
  const failing = new Set((evaluation.assessment?.objectives ?? []).filter((o) => !o.met).flatMap((o) => o.matched));
  for (const run of evaluation.runs) {
    for (const flow of failing) {
      const level = run.digest.flows[flow]?.priorityLevel;
      if (level !== undefined) focusLevels.add(level);
    }
  }
  for (const run of evaluation.runs) {
    for (const [flow, f] of Object.entries(run.digest.flows)) if (failing.has(flow) || focusLevels.has(f.priorityLevel)) focusFlows.add(flow);
  }
  return { levels: new Set([...focusLevels].filter((l) => levels.has(l))), flows: new Set([...focusFlows].filter((f) => dedicatable.has(f))) };
}

/** The objectives table on the comparison page. */
function objectivesTableHtml(rows: readonly ObjectiveRow[]): string {
  const head = ['objective', 'limit', 'baseline (worst seed)', 'recommended (worst seed)', 'margin', ''];
  return table(
    head,
    rows.map((r) => [r.label, r.limit, r.baseline, r.recommended, r.margin, r.met ? 'met' : 'NOT MET'].map(esc)),
  );
}
