// One sentence per changed field of a recommendation: the mechanism by which it helps, with the
// numbers of the runs (NominalCL, maxSeats, lendable seats, queue capacity), and what it spends,
// measured in the same runs: seats other levels lose, more heavy requests at once, longer waits,
// the modelled server's CPU, and the flows outside the objectives that got slower. Every number
// comes from the baseline's and the recommendation's run digests (worst seed), never from a rule
// of thumb, so the sentence cannot claim what the runs do not show.

import { fmtNumber, fmtPercent, fmtSeconds } from '../report/format.ts';
import type { LevelDigest, RunDigest } from '../run-digest.ts';
import { levelParams, type Candidate, type LevelParams, type TuneSpace } from './candidate.ts';

type Runs = readonly { seed: string; digest: RunDigest }[];

/** A change in a flow's p99 latency smaller than this is noise, not a cost. */
const LATENCY_NOISE_SECONDS = 0.001;

/** The level's digest in the first run that has it (configuration-derived numbers are the same in every seed). */
function levelIn(runs: Runs, name: string): LevelDigest | undefined {
  for (const run of runs) if (run.digest.levels[name] !== undefined) return run.digest.levels[name];
  return undefined;
}

function worstOver(runs: Runs, pick: (d: RunDigest) => number | null | undefined): number | null {
  let worst: number | null = null;
  for (const run of runs) {
    const value = pick(run.digest);
    if (value !== null && value !== undefined && (worst === null || value > worst)) worst = value;
  }
  return worst;
}

const times = (before: number, after: number) => (after > 0 ? `${fmtNumber(before / after)}×` : 'many times');

const memoryUse = (d: RunDigest) => (d.capacity?.memoryBytes ? d.capacity.peakMemoryBytes / d.capacity.memoryBytes : null);

/** What the modelled server's CPU and memory did, or that the model is off (and so more concurrent work looked free). */
function capacityClause(baseline: Runs, recommended: Runs): string {
  const before = worstOver(baseline, (d) => d.capacity?.peakCpu);
  const after = worstOver(recommended, (d) => d.capacity?.peakCpu);
  const memory = memoryClause(baseline, recommended, before === null || after === null);
  if (before === null || after === null) {
    if (memory === '')
      return "the server's CPU and memory are not modelled (server.cpus unset), so more heavy work at once costs nothing here; it does on a real server";
    return `the server's CPU is not modelled (server.cpus unset), so more heavy work at once costs no time here; it does on a real server; ${memory}`;
  }
  // Demand over the cores reads above 100%: say what that means, since a real CPU never shows it.
  const cpus = recommended.find((r) => r.digest.capacity?.cpus != null)?.digest.capacity?.cpus;
  const over = after > 1 ? `, more than the cores, so every running request took up to ${fmtNumber(after)}× its time` : '';
  return `server CPU demand peaks at ${fmtPercent(after)} of its ${cpus} cores (baseline ${fmtPercent(before)})${over}${memory === '' ? '' : `; ${memory}`}`;
}

/**
 * The response bytes in flight against server.memory: always when it is the only model, else when
 * the recommendation runs the server out of memory (met objectives do not make that safe to apply).
 */
function memoryClause(baseline: Runs, recommended: Runs, onlyModel: boolean): string {
  const before = worstOver(baseline, memoryUse);
  const after = worstOver(recommended, memoryUse);
  if (before === null || after === null || (!onlyModel && after <= 1)) return '';
  const out = after > 1 ? `: the server would run out of memory${before > 1 ? ', as in the baseline' : ''}` : '';
  return `server memory peaks at ${fmtPercent(after)} of server.memory (baseline ${fmtPercent(before)})${out}`;
}

function levelSentences(name: string, edit: Partial<LevelParams>, c: Candidate, space: TuneSpace, baseline: Runs, recommended: Runs): string[] {
  const base = space.levels.get(name)!.base;
  const next = levelParams(c, space, name);
  const before = levelIn(baseline, name);
  const after = levelIn(recommended, name);
  const nominalBefore = before?.nominalCL ?? 0;
  const nominalAfter = after?.nominalCL ?? nominalBefore;
  const lines: string[] = [];
  const field = (text: string) => `${name}: ${text}`;
  if (edit.shares !== undefined) {
    const othersBefore = sumOthers(baseline, name);
    const othersAfter = sumOthers(recommended, name);
    lines.push(
      field(
        `nominalConcurrencyShares ${base.shares} → ${edit.shares} ${nominalAfter >= nominalBefore ? 'raises' : 'lowers'} its NominalCL ${nominalBefore} → ` +
          `${nominalAfter} seats; the other levels' NominalCL ${othersAfter <= othersBefore ? 'falls' : 'rises'} ${othersBefore} → ${othersAfter} seats in all`,
      ),
    );
  }
  if (edit.lendablePercent !== undefined) {
    const lendable = (pct: number) => Math.round((nominalAfter * pct) / 100);
    lines.push(
      field(
        `lendablePercent ${base.lendablePercent} → ${edit.lendablePercent}: it lends at most ${lendable(edit.lendablePercent)} of its ${nominalAfter} seats ` +
          `instead of ${lendable(base.lendablePercent)}, so its own requests find them when they come back; levels that borrowed them ` +
          `(up to ${fmtNumber(maxBorrowedByOthers(baseline, name))} seats borrowed at once in the baseline) have that much less to borrow`,
      ),
    );
  }
  if (edit.borrowingLimitPercent !== undefined) {
    const borrowed = worstOver(recommended, (d) => d.levels[name]?.borrowingMaxSeats) ?? 0;
    const limit = (pct: number | undefined) => (pct === undefined ? 'unlimited' : `${Math.round((nominalAfter * pct) / 100)} seats`);
    lines.push(
      field(
        `borrowingLimitPercent ${base.borrowingLimitPercent ?? 'unset'} → ${edit.borrowingLimitPercent}: ` +
          `it may borrow ${limit(edit.borrowingLimitPercent)} instead of ${limit(base.borrowingLimitPercent)} ` +
          `(it borrowed up to ${fmtNumber(borrowed)}); what it borrows, lenders lose while they have demand of their own`,
      ),
    );
  }
  if (edit.handSize !== undefined) {
    const seatsBefore = before?.maxSeats ?? 0;
    const seatsAfter = after?.maxSeats ?? seatsBefore;
    const more =
      seatsAfter < seatsBefore ? `up to ${times(seatsBefore, seatsAfter)} as many run at once; ${capacityClause(baseline, recommended)}` : 'fewer run at once';
    const seats =
      seatsAfter !== seatsBefore
        ? `; it also sets the level's maxSeats (the smaller of ⌈15% of NominalCL⌉ and ⌊NominalCL ÷ handSize⌋) ${seatsBefore} → ${seatsAfter}, ` +
          `so each heavy request is charged ${seatsAfter} seats instead of ${seatsBefore} and ${more}`
        : '';
    lines.push(
      field(
        `handSize ${base.handSize} → ${edit.handSize}: each flow may use ${edit.handSize} of the ${next.queues} queues instead of ${base.handSize}, ` +
          `so fewer flows collide in their shortest queue${seats}`,
      ),
    );
  }
  if (edit.queues !== undefined) {
    lines.push(
      field(
        `queues ${base.queues} → ${edit.queues}: flows spread over ${edit.queues} queues, so fewer share a queue by chance; ` +
          `up to ${fmtNumber(edit.queues * (next.queueLengthLimit ?? 0))} requests may now wait at once ` +
          `instead of ${fmtNumber((base.queues ?? 0) * (next.queueLengthLimit ?? 0))}`,
      ),
    );
  }
  if (edit.queueLengthLimit !== undefined) {
    const waitBefore = worstOver(baseline, (d) => levelWaitP99(d, name));
    const waitAfter = worstOver(recommended, (d) => levelWaitP99(d, name));
    lines.push(
      field(
        `queueLengthLimit ${base.queueLengthLimit} → ${edit.queueLengthLimit}: a queue holds ${edit.queueLengthLimit} requests ` +
          `before it rejects with 429 instead of ${base.queueLengthLimit}; requests that were rejected wait instead ` +
          `(its flows' worst wait p99 ${fmtSeconds(waitBefore)} → ${fmtSeconds(waitAfter)})`,
      ),
    );
  }
  return lines;
}

function sumOthers(runs: Runs, name: string): number {
  const levels = runs[0]?.digest.levels ?? {};
  let sum = 0;
  for (const [other, l] of Object.entries(levels)) if (other !== name) sum += l.nominalCL;
  return sum;
}

function maxBorrowedByOthers(runs: Runs, name: string): number {
  return worstOver(runs, (d) => Math.max(0, ...Object.entries(d.levels).map(([other, l]) => (other === name ? 0 : l.borrowingMaxSeats)))) ?? 0;
}

function levelWaitP99(d: RunDigest, level: string): number | null {
  let worst: number | null = null;
  for (const f of Object.values(d.flows)) if (f.priorityLevel === level && f.waitP99Seconds !== null) worst = Math.max(worst ?? 0, f.waitP99Seconds);
  return worst;
}

/**
 * The sentences for every changed field, then what the whole change cost the flows outside the
 * objectives (`improved`): the one whose p99 latency rose the most, measured.
 */
export function changeEffects(c: Candidate, space: TuneSpace, baseline: Runs, recommended: Runs, improved: ReadonlySet<string>): string[] {
  const lines: string[] = [];
  const names = Object.keys(c.levels).sort();
  for (const name of names) lines.push(...levelSentences(name, c.levels[name]!, c, space, baseline, recommended));
  for (const flow of Object.keys(c.dedicated).sort()) {
    const target = space.dedicatable.get(flow)!;
    const nominal = levelIn(recommended, target.name)?.nominalCL ?? 0;
    lines.push(
      `${target.name}: a level of its own for flow ${flow}, NominalCL ${nominal} seats for its demand of about ${fmtNumber(target.demandSeats)} seats, ` +
        `so its requests no longer queue behind others' (and others' not behind its); the other levels' NominalCL falls ` +
        `${sumOthers(baseline, target.name)} → ${sumOthers(recommended, target.name)} seats in all`,
    );
  }
  if (lines.length === 0) return lines;
  lines.push(costLine(baseline, recommended, improved));
  return lines;
}

function costLine(baseline: Runs, recommended: Runs, improved: ReadonlySet<string>): string {
  let worst: { flow: string; before: number; after: number } | undefined;
  const flows = new Set(recommended.flatMap((r) => Object.keys(r.digest.flows)));
  for (const flow of [...flows].sort()) {
    if (improved.has(flow)) continue;
    const before = worstOver(baseline, (d) => d.flows[flow]?.latencyP99Seconds);
    const after = worstOver(recommended, (d) => d.flows[flow]?.latencyP99Seconds);
    if (before === null || after === null || after - before <= LATENCY_NOISE_SECONDS) continue;
    if (worst === undefined || after - before > worst.after - worst.before) worst = { flow, before, after };
  }
  const slower =
    worst === undefined
      ? 'no flow outside the objectives got slower (p99 latency, worst seed)'
      : `the flow outside the objectives that lost most is ${worst.flow}: p99 latency ${fmtSeconds(worst.before)} → ${fmtSeconds(worst.after)} (worst seed)`;
  return `Measured cost: ${slower}; ${capacityClause(baseline, recommended)}.`;
}
