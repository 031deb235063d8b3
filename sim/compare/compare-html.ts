// compare.html: baseline against each variant, per flow and per level, winners and losers first.
// Each cell shows the baseline's and the variant's median across seeds (with their range), the
// median paired difference, and a verdict; every run's own report.html is linked.

import { esc, fmtNumber, fmtPercent, fmtRange, fmtSeconds, minus, nameCell } from '../report/format.ts';
import { page, table } from '../report/page.ts';
import { levelCell } from '../report/colours.ts';
import type { Comparison, MetricComparison, RowComparison, Unit, Verdict, VariantComparison } from './compare.ts';

const VERDICT_TEXT: Record<Verdict, string> = {
  better: 'better',
  worse: 'worse',
  new: 'new (variant only)',
  removed: 'removed (baseline only)',
  noise: 'within seed noise',
};

function fmt(unit: Unit, value: number | null): string {
  if (value === null) return '—';
  switch (unit) {
    case 'seconds':
      return fmtSeconds(value);
    case 'fraction':
      return fmtPercent(value);
    default:
      return fmtNumber(value);
  }
}

function signed(unit: Unit, value: number | null): string {
  if (value === null) return '—';
  if (value === 0) return '±0';
  return `${value > 0 ? '+' : '−'}${fmt(unit, Math.abs(value))}`;
}

/** Values never break inside ("12.3 ms"); a cell breaks only between them, so tables fit the page. */
const nb = (text: string) => text.replace(/ /g, '\u00a0');

function metricCell(m: MetricComparison | undefined): string {
  if (m === undefined) return '—';
  const range = (s: MetricComparison['baseline']) => (s.min === null || s.max === null ? '—' : nb(fmtRange(fmt(m.unit, s.min), fmt(m.unit, s.max))));
  const spreads =
    m.baseline.min !== m.baseline.max || m.variant.min !== m.variant.max
      ? `<br><span class="dim">seeds: ${range(m.baseline)} → ${range(m.variant)}</span>`
      : '';
  const arrow = m.verdict === null || m.verdict === 'noise' ? '' : `\u00a0<span class="${m.verdict}">${m.verdict === 'better' ? '▼' : '▲'}</span>`;
  const delta = m.delta === null || m.delta === 0 ? '' : `<br><span class="${m.verdict ?? 'noise'}">${nb(signed(m.unit, m.delta))}</span>${arrow}`;
  return `${nb(minus(fmt(m.unit, m.baseline.median)))} → ${nb(minus(fmt(m.unit, m.variant.median)))}${spreads}${delta}`;
}

/** "1 better, 0 worse, 1 new, 3 within seed noise": new and removed rows only when there are some. */
export function verdictCounts(rows: readonly RowComparison[]): string[] {
  return (['better', 'worse', 'new', 'removed', 'noise'] as const).flatMap((k) => {
    const n = rows.filter((r) => r.verdict === k).length;
    return n === 0 && (k === 'new' || k === 'removed') ? [] : [`${n} ${k === 'new' ? 'new' : k === 'removed' ? 'removed' : VERDICT_TEXT[k]}`];
  });
}

/** The terminal's line for a variant: "what-if: 2 flows: 0 better, 1 worse (jenkins), 1 removed (gone), 0 within seed noise; levels: …". */
export function variantSummary(v: VariantComparison): string {
  const parts = verdictCounts(v.flows).map((part) => {
    const verdict = part.slice(part.indexOf(' ') + 1);
    const names = v.flows.filter((f) => f.verdict === (verdict === VERDICT_TEXT.noise ? 'noise' : verdict)).map((f) => f.name);
    return verdict !== VERDICT_TEXT.noise && names.length > 0 ? `${part} (${names.join(', ')})` : part;
  });
  const n = v.flows.length;
  return `${v.name}: ${n} flow${n === 1 ? '' : 's'}: ${parts.join(', ')}; levels: ${verdictCounts(v.levels).join(', ')}`;
}

function verdictCell(row: RowComparison): string {
  return `<span class="${row.verdict}">${nb(VERDICT_TEXT[row.verdict])}</span>`;
}

/**
 * Each table has few enough columns that its cells need not wrap: a cell is at most three lines
 * (the medians, the seeds' ranges, the difference). Rejections and times are two tables.
 */
function flowTables(v: VariantComparison): string[] {
  const level = (row: RowComparison) =>
    row.level === undefined
      ? ''
      : row.level.baseline === row.level.variant
        ? levelCell(row.level.baseline)
        : `${levelCell(row.level.baseline) || '—'} → ${levelCell(row.level.variant) || '—'}`;
  const rejections = table(
    ['flow', 'verdict', 'level', 'rejected (share of arrived)', 'queue-full', 'time-out', 'concurrency-limit'],
    v.flows.map((row) => [
      nameCell(row.name),
      verdictCell(row),
      level(row),
      metricCell(row.metrics.rejectedFraction),
      metricCell(row.metrics['rejected.queue-full']),
      metricCell(row.metrics['rejected.time-out']),
      metricCell(row.metrics['rejected.concurrency-limit']),
    ]),
    [0, 2],
  );
  const times = table(
    ['flow', 'wait p50', 'wait p99', 'latency p50', 'latency p99', 'seats per request'],
    v.flows.map((row) => [
      nameCell(row.name),
      metricCell(row.metrics.waitP50Seconds),
      metricCell(row.metrics.waitP99Seconds),
      metricCell(row.metrics.latencyP50Seconds),
      metricCell(row.metrics.latencyP99Seconds),
      metricCell(row.metrics.seatsPerRequest),
    ]),
  );
  return [rejections, times];
}

function levelTables(v: VariantComparison): string[] {
  const rejections = table(
    ['level', 'verdict', 'rejected', 'queue-full', 'time-out', 'concurrency-limit', 'waiting (mean)'],
    v.levels.map((row) => [
      levelCell(row.name),
      verdictCell(row),
      metricCell(row.metrics.rejectedTotal),
      metricCell(row.metrics['rejected.queue-full']),
      metricCell(row.metrics['rejected.time-out']),
      metricCell(row.metrics['rejected.concurrency-limit']),
      metricCell(row.metrics.waitingMean),
    ]),
  );
  const limits = table(
    ['level', 'NominalCL', 'CurrentCL (mean)', 'borrowing (mean)', 'seats in use (mean)'],
    v.levels.map((row) => [
      levelCell(row.name),
      metricCell(row.metrics.nominalCL),
      metricCell(row.metrics.currentCLMean),
      metricCell(row.metrics.borrowingMeanSeats),
      metricCell(row.metrics.seatsInUseMean),
    ]),
  );
  return [rejections, limits];
}

/**
 * `intro`: lines of HTML, each a paragraph; `blocks`: HTML blocks (tables) after them; `plots`:
 * figures (compare-plots.ts), before the tables.
 */
export function compareHtml(comparison: Comparison, options: { title?: string; intro?: string[]; blocks?: string[]; plots?: string[] } = {}): string {
  const parts: string[] = [`<h1>${esc(options.title ?? `Comparison: ${comparison.scenario}`)}</h1>`];
  for (const line of options.intro ?? []) parts.push(`<p class="lead">${line}</p>`);
  parts.push(...(options.blocks ?? []));
  parts.push(
    `<p class="note">${comparison.seeds.length} seed${comparison.seeds.length === 1 ? '' : 's'} (${comparison.seeds.map(esc).join(', ')}) per ` +
      "configuration. Each cell: the baseline's median across seeds → the variant's, with [min–max] when the seeds differ, and below it the median of " +
      'the per-seed differences. ' +
      'A seed gives every flow the same arrivals in every configuration, so each seed is a paired comparison: a row is <span ' +
      'class="better">better</span> or <span class="worse">worse</span> only when every seed moves the same way and the median difference exceeds ' +
      'the noise floor (1 ms, 0.1 percentage point, one request, or 5% of the baseline); otherwise it is <span class="noise">within seed ' +
      'noise</span>. ' +
      'Verdicts use the rejected fraction and the p99 wait and latency (flows), rejections and requests waiting (levels); a row better on one and ' +
      'worse on another counts as worse. Winners and losers come first.</p>',
  );
  if ((options.plots ?? []).length > 0) parts.push('<h2>Plots</h2>', ...options.plots!);
  for (const v of comparison.variants) {
    const counts = (rows: RowComparison[]) => verdictCounts(rows).join(', ');
    parts.push(`<h2>baseline vs ${esc(v.name)}${v.files.length > 0 ? ` <span class="dim">(${v.files.map(esc).join(', ')})</span>` : ''}</h2>`);
    parts.push(`<p>Flows: ${counts(v.flows)}. Levels: ${counts(v.levels)}.</p>`);
    parts.push('<h3>Flows</h3>', ...flowTables(v), '<h3>Priority levels</h3>', ...levelTables(v));
  }
  parts.push('<h2>Runs</h2>');
  const byVariant = new Map<string, Comparison['runs']>();
  for (const run of comparison.runs) byVariant.set(run.variant, [...(byVariant.get(run.variant) ?? []), run]);
  const rows = [...byVariant].map(([variant, runs]) => [
    nameCell(variant),
    runs
      .map((r) => (r.ok && r.html !== undefined ? `<a href="${esc(r.html)}">seed ${esc(r.seed)}</a>` : `seed ${esc(r.seed)}${r.ok ? '' : ' (failed)'}`))
      .join(' · '),
  ]);
  parts.push(table(['configuration', "each run's report"], rows, [0, 1]));
  return page(options.title ?? `Comparison: ${comparison.scenario}`, parts);
}
