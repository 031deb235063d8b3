// Verdicts for rows that exist on one side only, and how the page and the CLI word them: a level
// that appears with hundreds of rejections is worse, not noise, and counts in the headline.

import { test } from 'uvu';
import * as assert from 'uvu/assert';
import type { FlowDigest, LevelDigest, RunDigest } from '../run-digest.ts';
import { compareVariant } from './compare.ts';
import { compareHtml, variantSummary } from './compare-html.ts';
import { fmtRange } from '../report/format.ts';

const rejected = (n: number) => ({ 'queue-full': n, 'time-out': 0, 'concurrency-limit': 0 });

function flow(level: string, rejectedTotal: number, waitP99Seconds: number): FlowDigest {
  return {
    priorityLevel: level,
    flowSchema: 'fs',
    demandSeats: 1,
    arrived: 1000,
    dispatched: 1000 - rejectedTotal,
    rejected: rejected(rejectedTotal),
    rejectedTotal,
    waitP50Seconds: waitP99Seconds / 10,
    waitP99Seconds,
    latencyP50Seconds: waitP99Seconds / 10,
    latencyP99Seconds: waitP99Seconds,
    seatsPerRequest: 1,
  };
}

function level(rejectedTotal: number, waitingMean: number): LevelDigest {
  return {
    nominalCL: 20,
    currentCLMean: 20,
    borrowingMeanSeats: 0,
    rejected: rejected(rejectedTotal),
    rejectedTotal,
    seatsInUseMean: 5,
    waitingMean,
    borrowingMaxSeats: 0,
    maxSeats: 5,
  };
}

function digest(flows: Record<string, FlowDigest>, levels: Record<string, LevelDigest>): RunDigest {
  return { totals: {} as RunDigest['totals'], flows, levels, fairness: {}, capacity: null };
}

// The variant moves jenkins to a new level ci-tools that rejects 831 of its requests per seed.
const baseline = [0, 1].map(() =>
  digest({ jenkins: flow('workload-low', 0, 0.002), gone: flow('old', 0, 0) }, { 'workload-low': level(0, 0), old: level(0, 0) }),
);
const variant = [831, 829].map((n) => digest({ jenkins: flow('ci-tools', n, 0.5) }, { 'workload-low': level(0, 0), 'ci-tools': level(n, 12) }));

test('a level on one side only: new with its rejections judged against nothing (worse), removed as removed', () => {
  const v = compareVariant('what-if', [], baseline, variant);
  const ci = v.levels.find((l) => l.name === 'ci-tools')!;
  assert.is(ci.verdict, 'worse');
  assert.is(ci.metrics.rejectedTotal!.baseline.median, 0);
  assert.is(ci.metrics.rejectedTotal!.delta, 830);
  assert.is(v.levels.find((l) => l.name === 'old')!.verdict, 'removed');
  assert.is(v.flows.find((f) => f.name === 'gone')!.verdict, 'removed');
  assert.is(v.flows.find((f) => f.name === 'jenkins')!.verdict, 'worse');
  // A new row that neither rejects nor queues is new, not better.
  const quiet = compareVariant(
    'q',
    [],
    baseline,
    [0, 1].map(() => digest({}, { extra: level(0, 0) })),
  );
  assert.is(quiet.levels.find((l) => l.name === 'extra')!.verdict, 'new');
});

test('the headline counts new and removed rows; ranges of negative numbers read as ranges', () => {
  const v = compareVariant('what-if', [], baseline, variant);
  const html = compareHtml({ kind: 'SimulationComparison', version: 1, scenario: 's', seeds: ['1', '2'], variants: [v], runs: [] });
  assert.match(html, /Levels: 0 better, 1 worse, 1 removed, 1 within seed noise\./);
  assert.match(html, /<td class="name"><span class="swatch"[^>]*><\/span>ci-tools<\/td><td[^>]*><span class="worse">worse<\/span><\/td><td[^>]*>0 → 830/);
  assert.is(fmtRange('-14.92', '-12.42'), '−14.92 to −12.42');
  assert.is(fmtRange('1', '2'), '1–2');
  assert.is(fmtRange('3.99', '3.99'), '3.99');
  assert.is(fmtRange('-1', '-1'), '−1');
});

test("the terminal's line: rows named by verdict, one flow is '1 flow', new and removed counted", () => {
  assert.is(
    variantSummary(compareVariant('what-if', [], baseline, variant)),
    'what-if: 2 flows: 0 better, 1 worse (jenkins), 1 removed (gone), 0 within seed noise; levels: 0 better, 1 worse, 1 removed, 1 within seed noise',
  );
  const one = [0, 1].map(() => digest({ jenkins: flow('workload-low', 0, 0.002) }, { 'workload-low': level(0, 0) }));
  const faster = [0, 1].map(() => digest({ jenkins: flow('workload-low', 0, 0.0005) }, { 'workload-low': level(0, 0) }));
  assert.is(
    variantSummary(compareVariant('v', [], one, faster)),
    'v: 1 flow: 1 better (jenkins), 0 worse, 0 within seed noise; levels: 0 better, 0 worse, 1 within seed noise',
  );
});

test.run();
