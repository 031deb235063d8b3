// The sweep summary: for each configuration variant, every flow's, level's and fairness metric
// across seeds as min / median / mean / max, plus one row per run. Written as summary.json (stable
// keys, task order) and summary.html (tables and one strip plot of p99 waits per seed).

import { round } from '../report.ts';
import type { RunDigest, SweepTaskResult } from './task.ts';

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
  runs: { variant: string; seed: string; ok: boolean; report?: string; errors?: string[]; totals?: RunDigest['totals'] }[];
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
  for (const name of names('fairness')) fairness[name] = { jain: spread(ok.map((d) => d.fairness[name]?.jain)), jainVsMaxMinFair: spread(ok.map((d) => d.fairness[name]?.jainVsMaxMinFair)) };
  return { runs: results.length, failedRuns: results.length - ok.length, flows, levels, fairness };
}

export function summaryHtml(summary: SweepSummary, plotSvg: string | undefined): string {
  const esc = (t: string) => t.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
  const cell = (s: Spread, unit = '') => (s.median === null ? '—' : `${s.median}${unit} <span class="dim">[${s.min}–${s.max}]</span>`);
  const parts = [
    `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Sweep: ${esc(summary.scenario)}</title><style>body{font-family:system-ui,sans-serif;max-width:1100px;margin:2em auto;padding:0 1em;color:#222}table{border-collapse:collapse;font-size:.9em;margin:.5em 0}th,td{border:1px solid #ddd;padding:.25em .5em;text-align:right;white-space:nowrap}th{background:#f6f6f6}td:first-child{text-align:left}.dim{color:#888}</style></head><body>`,
    `<h1>Sweep: ${esc(summary.scenario)}</h1>`,
    `<p>${summary.seeds.length} seeds × ${Object.keys(summary.variants).length} configuration variant(s). Each cell is the median across seeds, with [min–max]. Every run's full report is in <code>&lt;variant&gt;/seed-&lt;seed&gt;/report.json</code>.</p>`,
  ];
  for (const [name, v] of Object.entries(summary.variants)) {
    parts.push(`<h2>Variant ${esc(name)}${v.files.length > 0 ? ` <span class="dim">(${v.files.map(esc).join(', ')})</span>` : ''}</h2>`);
    if (v.failedRuns > 0) parts.push(`<p><strong>${v.failedRuns} of ${v.runs} runs failed</strong>; see summary.json.</p>`);
    parts.push('<table><thead><tr><th>flow</th><th>arrived</th><th>dispatched</th><th>rejected</th><th>wait p99 (s)</th><th>latency p99 (s)</th></tr></thead><tbody>');
    for (const [flow, f] of Object.entries(v.flows)) parts.push(`<tr><td>${esc(flow)}</td><td>${cell(f.arrived)}</td><td>${cell(f.dispatched)}</td><td>${cell(f.rejectedTotal)}</td><td>${cell(f.waitP99Seconds)}</td><td>${cell(f.latencyP99Seconds)}</td></tr>`);
    parts.push('</tbody></table>');
    const fairness = Object.entries(v.fairness);
    if (fairness.length > 0) parts.push(`<p>Jain’s fairness index, among backlogged flows / against max-min fair shares: ${fairness.map(([l, f]) => `${esc(l)} ${cell(f.jain)} / ${cell(f.jainVsMaxMinFair)}`).join('; ')}.</p>`);
  }
  if (plotSvg !== undefined) parts.push(`<h2>p99 wait per seed</h2><p>One dot per run: each flow's p99 queue wait, by variant. A spread-out row means the outcome depends on luck; separated colours mean the variants really differ.</p>${plotSvg.replace(/^<\?xml[^>]*>\s*/, '')}`);
  parts.push('</body></html>\n');
  return parts.join('\n');
}

/** A vega-lite strip plot: p99 wait of each flow in each run, coloured by variant. */
export function waitStripSpec(results: readonly SweepTaskResult[]): Record<string, unknown> | undefined {
  const rows = results.flatMap((r) => (r.ok ? Object.entries(r.digest.flows).filter(([, f]) => f.waitP99Seconds !== null).map(([flow, f]) => ({ flow, variant: r.variant, seed: r.seed, ms: f.waitP99Seconds! * 1000 })) : []));
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
