// The objectives table that `sim tune` prints and writes (tune.json, compare.html): one row per
// objective and measure, with its limit, the baseline's worst value over the seeds, the
// recommendation's, and the margin left, so an operator sees what the change bought and what it
// spent, including what it was asked to protect.

import { fmtNumber, fmtPercent, fmtSeconds } from '../report/format.ts';
import { MEASURES, type Assessment, type Measure, type Worst } from './assess.ts';
import type { Objective } from './objectives.ts';

export interface ObjectiveRow {
  /** The entry of the objectives file (from 0); null for an objective the file does not give (`implicit` says why). */
  objective: number | null;
  implicit?: string;
  /** "ctrl-* wait p99", "workload-low borrowed seats", "server CPU". */
  what: string;
  /** The row's name in every table: "[0] ctrl-* wait p99", "[implicit] server memory peak". */
  label: string;
  /** "≤ 100 ms", "≤ baseline + 10%". */
  limit: string;
  baseline: string;
  recommended: string;
  /** Limit minus the recommendation's worst value, in the measure's unit (negative: over). */
  margin: string;
  met: boolean;
}

const NAMES: Record<Measure, string> = {
  waitP99Seconds: 'wait p99',
  latencyP99Seconds: 'latency p99',
  rejectedFraction: 'rejected',
  latencyP99NoWorse: 'latency p99 no worse than baseline',
  rejectedNoWorse: 'rejected no worse than baseline',
  borrowedSeats: 'borrowed seats',
  serverCpu: 'server CPU peak',
  serverMemory: 'server memory peak',
};

function format(measure: Measure, value: number): string {
  switch (measure) {
    case 'waitP99Seconds':
    case 'latencyP99Seconds':
    case 'latencyP99NoWorse':
      // fmtSeconds prints a zero bare; in this table every value carries its unit.
      return value === 0 ? '0 s' : fmtSeconds(value);
    case 'borrowedSeats':
      return fmtNumber(value);
    default:
      return fmtPercent(value);
  }
}

/** A signed difference in the measure's unit ("+12 ms", "−0.5%"). */
function signed(measure: Measure, value: number): string {
  const text = format(measure, Math.abs(value));
  return value < 0 ? `−${text}` : `+${text}`;
}

const valueText = (measure: Measure, w: Worst | undefined): string =>
  w?.worst === null || w === undefined ? '—' : `${format(measure, w.worst)}${w.flow !== null && w.flow !== 'server' ? ` (${w.flow})` : ''}`;

type Outcome = Assessment['objectives'][number];

function subject(o: Outcome): string {
  const names = [...o.flows, ...o.levels.map((l) => `level ${l}`)];
  return names.length === 0 ? '' : `${names.join(', ')} `;
}

/** An implicit objective has no entry in the file, so no index that would read as one. */
const labelOf = (o: Outcome, measure: Measure): string => `[${o.implicit === undefined ? o.index : 'implicit'}] ${subject(o)}${NAMES[measure]}`;

/** Each measure an assessment holds, objective by objective, in the table's order. */
function* measuresOf(assessment: Assessment | undefined): Generator<{ o: Outcome; measure: Measure; w: Worst }> {
  for (const o of assessment?.objectives ?? []) {
    for (const measure of MEASURES) {
      const w = o[measure];
      if (w !== undefined) yield { o, measure, w };
    }
  }
}

/** The rows for the recommendation's assessment against the baseline's. */
export function objectivesTable(objectives: readonly Objective[], baseline: Assessment | undefined, recommended: Assessment | undefined): ObjectiveRow[] {
  const rows: ObjectiveRow[] = [];
  for (const { o, measure, w } of measuresOf(recommended ?? baseline)) {
    const b = baseline?.objectives.find((x) => x.index === o.index);
    const protection = measure.endsWith('NoWorse');
    const slack = objectives.find((x) => x.index === o.index)?.noWorseThan?.slack ?? 0;
    rows.push({
      objective: o.implicit === undefined ? o.index : null,
      ...(o.implicit === undefined ? {} : { implicit: o.implicit }),
      what: `${subject(o)}${NAMES[measure]}`,
      label: labelOf(o, measure),
      limit: protection ? `≤ baseline + ${fmtPercent(slack)}` : `≤ ${format(measure, w.limit)}${o.implicit === undefined ? '' : ` (${o.implicit})`}`,
      // A protection's baseline is the worst flow's own baseline value: the one it is held to.
      baseline: protection
        ? w.baseline == null
          ? '—'
          : `${format(measure, w.baseline)}${w.flow === null ? '' : ` (${w.flow})`}`
        : valueText(measure, b?.[measure]),
      recommended: valueText(measure, w),
      margin: w.worst === null ? '—' : signed(measure, w.limit - w.worst),
      met: w.met,
    });
  }
  return rows;
}

/** Why a candidate is not met, bounded by the table: each failing row once, at its worst flow and seed. */
export interface FailingRow {
  /** The row's label, as in objectivesTable. */
  objective: string;
  /** The worst value, with its flow (or level). */
  worst: string;
  /** The limit that value was held to (a protection's: that flow's baseline plus the slack). */
  limit: string;
  seed: string | null;
}

export function failingRows(assessment: Assessment): FailingRow[] {
  const rows: FailingRow[] = [];
  for (const { o, measure, w } of measuresOf(assessment)) {
    if (!w.met) rows.push({ objective: labelOf(o, measure), worst: valueText(measure, w), limit: format(measure, w.limit), seed: w.seed });
  }
  return rows;
}

/** The table as aligned text columns, for the terminal. */
export function objectivesTableText(rows: readonly ObjectiveRow[]): string[] {
  const header = ['objective', 'limit', 'baseline', 'recommended', 'margin', ''];
  const cells = rows.map((r) => [r.label, r.limit, r.baseline, r.recommended, r.margin, r.met ? 'met' : 'NOT MET']);
  const widths = header.map((h, i) => Math.max(h.length, ...cells.map((c) => c[i]!.length)));
  return [header, ...cells].map((c) =>
    c
      .map((cell, i) => cell.padEnd(widths[i]!))
      .join('  ')
      .trimEnd(),
  );
}

/** "objectives[0]: ctrl-gets wait p99 1.2 s in seed 3 (limit 100 ms)" for each measure still failing. */
export function failures(assessment: Assessment): string[] {
  const lines: string[] = [];
  for (const { o, measure, w } of measuresOf(assessment)) {
    if (w.met || w.worst === null) continue;
    const baseline = w.baseline == null ? '' : `, baseline ${format(measure, w.baseline)}`;
    const who = w.flow === 'server' ? '' : `${w.flow} `;
    const objective = o.implicit === undefined ? `objectives[${o.index}]` : `implicit objective (${o.implicit})`;
    lines.push(`${objective}: ${who}${NAMES[measure]} ${format(measure, w.worst)} in seed ${w.seed} (limit ${format(measure, w.limit)}${baseline})`);
  }
  return lines;
}
