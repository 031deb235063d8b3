// The sweep summary: for each configuration variant, every flow's, level's and fairness metric
// across seeds as min / median / mean / max, plus one row per run. Written as summary.json (stable
// keys, task order) and summary.html (tables and one strip plot of p99 waits per seed).

import { round } from '../report.ts';
import { esc, fmtNumber, fmtSeconds, nameCell } from '../report/format.ts';
import { page, stripXmlHeader, table } from '../report/page.ts';
import type { RunDigest } from '../run-digest.ts';
import type { SweepTaskResult } from './task.ts';

export interface Spread {
  min: number | null;
  median: number | null;
  mean: number | null;
  max: number | null;
}

export interface VariantSummary {
  runs: number;
  failedRuns: number;
  flows: Record<string, { arrived: Spread; dispatched: Spread; rejectedTotal: Spread; waitP99Seconds: Spread; latencyP99Seconds: Spread }>;
  levels: Record<string, { currentCLMean: Spread; rejectedTotal: Spread; seatsInUseMean: Spread }>;
  fairness: Record<string, { jain: Spread; jainVsMaxMinFair: Spread }>;
}

export interface SweepSummary {
  kind: 'SimulationSweep';
  version: 1;
  scenario: string;
  seeds: string[];
  variants: Record<string, { files: string[] } & VariantSummary>;
  runs: { variant: string; seed: string; ok: boolean; report?: string; html?: string; errors?: string[]; totals?: RunDigest['totals'] }[];
}

export function spread(values: readonly (number | null | undefined)[]): Spread {
  const xs = values.filter((v): v is number => typeof v === 'number' && Number.isFinite(v)).sort((a, b) => a - b);
  if (xs.length === 0) return { min: null, median: null, mean: null, max: null };
  const mid = xs.length >> 1;
  const median = xs.length % 2 === 1 ? xs[mid]! : (xs[mid - 1]! + xs[mid]!) / 2;
  return { min: round(xs[0]!), median: round(median), mean: round(xs.reduce((s, x) => s + x, 0) / xs.length), max: round(xs[xs.length - 1]!) };
}

export function summarizeVariant(results: readonly SweepTaskResult[]): VariantSummary {
  const ok = results.filter((r): r is Extract<SweepTaskResult, { ok: true }> => r.ok).map((r) => r.digest);
  const names = <K extends 'flows' | 'levels' | 'fairness'>(key: K) => [...new Set(ok.flatMap((d) => Object.keys(d[key])))];
  const flows: VariantSummary['flows'] = {};
  for (const name of names('flows')) {
    const pick = (f: (x: RunDigest['flows'][string]) => number | null) => spread(ok.map((d) => (d.flows[name] === undefined ? null : f(d.flows[name]!))));
    flows[name] = {
      arrived: pick((x) => x.arrived),
      dispatched: pick((x) => x.dispatched),
      rejectedTotal: pick((x) => x.rejectedTotal),
      waitP99Seconds: pick((x) => x.waitP99Seconds),
      latencyP99Seconds: pick((x) => x.latencyP99Seconds),
    };
  }
  const levels: VariantSummary['levels'] = {};
  for (const name of names('levels')) {
    const pick = (f: (x: RunDigest['levels'][string]) => number) => spread(ok.map((d) => (d.levels[name] === undefined ? null : f(d.levels[name]!))));
    levels[name] = { currentCLMean: pick((x) => x.currentCLMean), rejectedTotal: pick((x) => x.rejectedTotal), seatsInUseMean: pick((x) => x.seatsInUseMean) };
  }
  const fairness: VariantSummary['fairness'] = {};
  for (const name of names('fairness'))
    fairness[name] = { jain: spread(ok.map((d) => d.fairness[name]?.jain)), jainVsMaxMinFair: spread(ok.map((d) => d.fairness[name]?.jainVsMaxMinFair)) };
  return { runs: results.length, failedRuns: results.length - ok.length, flows, levels, fairness };
}

export function summaryHtml(summary: SweepSummary, plotSvg: string | undefined): string {
  const range = (sp: Spread, fmt: (n: number) => string) =>
    sp.median === null ? '—' : `${fmt(sp.median)} <span class="dim">[${fmt(sp.min!)} – ${fmt(sp.max!)}]</span>`;
  const count = (sp: Spread) => range(sp, (n) => fmtNumber(n));
  const time = (sp: Spread) => range(sp, (n) => fmtSeconds(n));
  const index = (sp: Spread) => range(sp, (n) => n.toFixed(3));
  const parts = [
    `<h1>Sweep: ${esc(summary.scenario)}</h1>`,
    `<p>${summary.seeds.length} seeds × ${Object.keys(summary.variants).length} configuration variant(s). Each cell is the median ` +
      'across seeds, with [min – max]; times are queue waits and latencies at the 99th percentile of each run.</p>',
  ];
  for (const [name, v] of Object.entries(summary.variants)) {
    parts.push(`<h2>Variant ${esc(name)}${v.files.length > 0 ? ` <span class="dim">(${v.files.map(esc).join(', ')})</span>` : ''}</h2>`);
    if (v.failedRuns > 0) parts.push(`<p><strong>${v.failedRuns} of ${v.runs} runs failed</strong>; see summary.json.</p>`);
    const rows = Object.entries(v.flows).map(([flow, f]) => [
      nameCell(flow),
      count(f.arrived),
      count(f.dispatched),
      count(f.rejectedTotal),
      time(f.waitP99Seconds),
      time(f.latencyP99Seconds),
    ]);
    parts.push(table(['flow', 'arrived', 'dispatched', 'rejected', 'wait p99', 'latency p99'], rows));
    const levels = Object.entries(v.levels).map(([level, l]) => [nameCell(level), count(l.currentCLMean), count(l.seatsInUseMean), count(l.rejectedTotal)]);
    if (levels.length > 0) parts.push(table(['level', 'CurrentCL mean (seats)', 'seats in use mean', 'rejected'], levels));
    const fairness = Object.entries(v.fairness);
    if (fairness.length > 0)
      parts.push(
        table(
          ['level', 'Jain (backlogged flows)', 'Jain (vs max-min fair)'],
          fairness.map(([l, f]) => [nameCell(l), index(f.jain), index(f.jainVsMaxMinFair)]),
        ),
      );
    const runs = summary.runs.filter((r) => r.variant === name);
    const links = runs.map((r) => (r.ok && r.html !== undefined ? `<a href="${esc(r.html)}">seed ${esc(r.seed)}</a>` : `seed ${esc(r.seed)} (failed)`));
    parts.push(`<p>Runs: ${links.join(' · ')}</p>`);
  }
  if (plotSvg !== undefined)
    parts.push(
      "<h2>p99 wait per seed</h2><p>One dot per run: each flow's p99 queue wait, by variant. A spread-out row means the outcome " +
        `depends on luck; separated colours mean the variants really differ.</p><figure>${stripXmlHeader(plotSvg)}</figure>`,
    );
  return page(`Sweep: ${summary.scenario}`, parts);
}

/** A vega-lite strip plot: p99 wait of each flow in each run, coloured by variant. */
export function waitStripSpec(results: readonly SweepTaskResult[]): Record<string, unknown> | undefined {
  const rows = results.flatMap((r) =>
    r.ok
      ? Object.entries(r.digest.flows)
          .filter(([, f]) => f.waitP99Seconds !== null)
          .map(([flow, f]) => ({ flow, variant: r.variant, seed: r.seed, ms: f.waitP99Seconds! * 1000 }))
      : [],
  );
  if (rows.length === 0) return undefined;
  return {
    $schema: 'https://vega.github.io/schema/vega-lite/v5.json',
    width: 640,
    background: 'white',
    data: { values: rows },
    mark: { type: 'point', filled: true, opacity: 0.6 },
    encoding: {
      y: { field: 'flow', type: 'nominal', title: 'flow', sort: null },
      x: { field: 'ms', type: 'quantitative', title: 'p99 wait (ms, symlog scale)', scale: { type: 'symlog', constant: 1 } },
      color: { field: 'variant', type: 'nominal', title: 'variant' },
      yOffset: { field: 'variant', type: 'nominal' },
    },
  };
}
