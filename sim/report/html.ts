// report.html: one self-contained page (inline SVG, inline CSS, no scripts) that a person can read
// without opening the JSON: what ran, what happened in plain sentences, the tables, the plots with
// a line on how to read each, and a glossary of the APF terms used.

import type { FlowReport, LevelReport, SimulationReport } from '../report.ts';
import type { Plot } from './plots.ts';
import { esc, fmtBytes, fmtInt, fmtNumber, fmtPercent, fmtRange, fmtSeconds, nameCell } from './format.ts';
import { COLD_START_MS } from '../cold-start.ts';
import { page, stripXmlHeader, table } from './page.ts';
import { levelCell } from './colours.ts';

export interface RenderedPlot {
  plot: Plot;
  svg: string;
}

export function renderHtml(report: SimulationReport, plots: readonly RenderedPlot[], reproduce: string): string {
  const s = report.scenario;
  const parts: string[] = [];
  parts.push(`<h1>Simulation: ${esc(s.name)}</h1>`);
  if (s.description !== '') parts.push(`<p class="lead">${esc(s.description)}</p>`);
  parts.push(
    `<p class="meta">Seed <code>${esc(s.seed)}</code> · ${fmtNumber(s.durationSeconds)} s simulated · server concurrency limit ` +
      `${s.server.serverConcurrencyLimit} seats (` +
      `${s.server.maxRequestsInflight} + ${s.server.maxMutatingRequestsInflight}) · bootstrap: ${esc(s.bootstrap)} · request timeout ` +
      `${fmtNumber(s.server.requestTimeoutSeconds)} s` +
      (s.server.executorThreads === null
        ? ''
        : s.server.executorThreads === 0
          ? ' · execution plane inline (0 threads)'
          : ` · ${s.server.executorThreads} executor thread${s.server.executorThreads === 1 ? '' : 's'}`) +
      (s.server.cpus === undefined ? '' : ` · ${s.server.cpus} CPUs`) +
      (s.server.mainThread === true ? ' · main thread modelled' : '') +
      (s.server.memoryBytes === undefined ? '' : ` · ${fmtBytes(s.server.memoryBytes)} for responses`) +
      (s.server.replicas === undefined ? '' : ` · ${s.server.replicas} replicas (${esc(s.server.replicaAssignment ?? '')})`) +
      `</p>`,
  );
  parts.push(`<p class="meta">Reproduce: <code>${esc(reproduce)}</code></p>`);
  if (s.warnings.length > 0) parts.push(`<div class="warn"><strong>Warnings</strong><ul>${s.warnings.map((w) => `<li>${esc(w)}</li>`).join('')}</ul></div>`);

  parts.push('<h2>At a glance</h2><ul class="findings">');
  for (const e of report.explanations ?? []) parts.push(`<li><b>Why ${esc(e.flow)} suffered:</b> ${esc(e.text)}</li>`);
  for (const line of findings(report)) parts.push(`<li>${line}</li>`);
  parts.push('</ul>');
  if (report.suggestions !== undefined) parts.push(suggestionsSection(report));

  parts.push(
    '<h2>Flows</h2><p class="note">One row per workload flow. Wait is the time queued before dispatch (dispatched requests only); latency adds the ' +
      'service time (completed requests only).</p>',
  );
  parts.push(flowTable(report));
  parts.push(
    '<h2>Priority levels</h2><p class="note">Limits in seats. Borrowing is CurrentCL − NominalCL: positive when the level borrowed idle seats of ' +
      'others, negative when it lent its own.</p>',
  );
  parts.push(levelTable(report));
  parts.push(capacitySection(report));
  parts.push(fairnessSection(report));

  parts.push('<h2>Plots</h2>');
  for (const { plot, svg } of plots) {
    parts.push(`<figure><figcaption><strong>${esc(plot.title)}.</strong> ${esc(plot.caption)}</figcaption>${stripXmlHeader(svg)}</figure>`);
  }
  if (report.audit !== undefined) {
    const a = report.audit;
    parts.push(
      `<h2>Audit-log replay</h2><p>${a.replayed} of ${a.requests} requests from <code>${esc(a.file)}</code> were replayed (${a.beyondDuration} ` +
        'arrived after the simulated duration). ' +
        `Skipped: ${a.skipped.otherStage} events of other stages, ${a.skipped.duplicate} duplicates, ${a.skipped.longRunning} long-running requests ` +
        'that bypass APF. ' +
        `${a.originallyRejected} requests had been rejected with 429 in the original log.</p>`,
    );
  }
  parts.push(GLOSSARY);
  return page(`${s.name} — Fairway simulation (seed ${s.seed})`, parts);
}

const MAX_FLOW_FINDINGS = 8;

function findings(report: SimulationReport): string[] {
  const t = report.totals;
  const out: string[] = [];
  const seconds = report.scenario.durationSeconds;
  const pct = (n: number, of: number) => (of === 0 ? '0%' : `${((100 * n) / of).toFixed(n === of || n === 0 ? 0 : 1)}%`);
  out.push(
    `${fmtInt(t.arrived)} requests arrived (${fmtNumber(t.arrived / seconds)}/s): ${pct(t.dispatched, t.arrived)} were dispatched and ` +
      `${pct(t.rejectedTotal, t.arrived)} rejected` +
      (t.rejectedTotal > 0 ? ` (${reasons(t.rejected)})` : '') +
      `; ${fmtInt(t.waitingAtEnd)} were still queued when the run ended.`,
  );
  // With many flows (an audit-log replay) only the worst few are spelled out.
  const flows = Object.entries(report.flows);
  const lossy = flows
    .filter(([, f]) => f.rejectedTotal > 0 && f.rejectedTotal >= 0.01 * f.arrived)
    .sort((a, b) => b[1].rejectedTotal / b[1].arrived - a[1].rejectedTotal / a[1].arrived);
  for (const [name, f] of lossy.slice(0, MAX_FLOW_FINDINGS))
    out.push(`Flow <b>${esc(name)}</b> (level ${esc(f.priorityLevel)}) lost ${pct(f.rejectedTotal, f.arrived)} of its requests: ${reasons(f.rejected)}.`);
  if (lossy.length > MAX_FLOW_FINDINGS) out.push(`${lossy.length - MAX_FLOW_FINDINGS} more flows lost at least 1% of their requests (see the Flows table).`);
  const slow = flows.filter(([, f]) => f.waitSeconds.p99 !== null && f.waitSeconds.p99 >= 0.1).sort((a, b) => b[1].waitSeconds.p99! - a[1].waitSeconds.p99!);
  for (const [name, f] of slow.slice(0, MAX_FLOW_FINDINGS))
    out.push(`Flow <b>${esc(name)}</b> had a p99 queue wait of ${fmtSeconds(f.waitSeconds.p99)} (median ${fmtSeconds(f.waitSeconds.p50)}).`);
  if (slow.length > MAX_FLOW_FINDINGS) out.push(`${slow.length - MAX_FLOW_FINDINGS} more flows had a p99 queue wait of 100 ms or more.`);
  const quiet = Object.entries(report.flows).filter(([, f]) => f.rejectedTotal === 0 && (f.waitSeconds.p99 ?? 0) < 0.1 && f.arrived > 0);
  if (quiet.length > 0)
    out.push(
      `${
        quiet.length === Object.keys(report.flows).length
          ? 'Every flow'
          : `${quiet.length} flow${quiet.length === 1 ? '' : 's'} (${quiet
              .slice(0, 8)
              .map(([n]) => esc(n))
              .join(', ')}${quiet.length > 8 ? ', …' : ''})`
      } had no rejections and a p99 wait under 100 ms.`,
    );
  // Idle levels lend, and every level starts from a CurrentCL without demand history: that is
  // how APF works, not a finding. Lending is a finding only in the intervals after the cold start
  // in which the level's own requests stayed queued while its CurrentCL was below NominalCL.
  for (const [name, l] of Object.entries(report.levels)) {
    if (l.dispatched + l.rejectedTotal === 0) continue;
    const lent = lentWhileQueued(report, name);
    if (l.borrowing.maxSeats > 0)
      out.push(
        `Level <b>${esc(name)}</b> borrowed up to ${l.borrowing.maxSeats} seats above its NominalCL of ${l.nominalCL} (CurrentCL ` +
          `${fmtRange(String(l.currentCL.min), String(l.currentCL.max))}).`,
      );
    else if (lent > 0)
      out.push(`Level <b>${esc(name)}</b> lent up to ${lent} of its ${l.nominalCL} nominal seats to other levels while its own requests queued.`);
    if (l.noAccommodation > 0)
      out.push(
        `Level <b>${esc(name)}</b> had a wide request at the head of a queue that did not fit ${fmtInt(l.noAccommodation)} times (it blocks the ` +
          'level until enough seats are free).',
      );
  }
  for (const [name, f] of Object.entries(report.fairness)) {
    if (f.jain !== null && f.backloggedFlows.length > 1)
      out.push(
        `Among the ${f.backloggedFlows.length} backlogged flows of <b>${esc(name)}</b>, Jain’s fairness index of the seats they held was ` +
          `${f.jain.toFixed(3)} (1 = perfectly even).`,
      );
    if (f.jainVsMaxMinFair !== null && Object.keys(f.maxMinFair).length > 1)
      out.push(
        `In <b>${esc(name)}</b>, measured against each flow’s max-min fair share of the level’s seats, Jain’s index was ` +
          `${f.jainVsMaxMinFair.toFixed(3)} (1 = every flow got its fair share).`,
      );
  }
  return out;
}

/**
 * The most seats `level` had lent (NominalCL − CurrentCL) in an interval after the cold start in
 * which its own requests stayed queued; 0 when that never happened.
 */
export function lentWhileQueued(report: SimulationReport, level: string): number {
  const l = report.levels[level];
  const s = report.series.levels[level];
  if (l === undefined || s === undefined) return 0;
  const times = report.series.timesSeconds;
  let lent = 0;
  for (let i = 0; i < times.length; i++) {
    // The CurrentCL at the end of the previous interval held during this one's start.
    if (times[i]! * 1000 <= COLD_START_MS || (s.waitingMax[i] ?? 0) === 0) continue;
    const cl = Math.min(s.currentCL[i]!, s.currentCL[i - 1] ?? s.currentCL[i]!);
    lent = Math.max(lent, l.nominalCL - cl);
  }
  return lent;
}

function suggestionsSection(report: SimulationReport): string {
  const suggestions = report.suggestions ?? [];
  const parts = ['<h2>Suggestions</h2>'];
  if (suggestions.length === 0) {
    const why =
      (report.explanations ?? []).length === 0
        ? 'No flow suffered, so there is nothing to suggest.'
        : 'No remedy this report knows of helped in simulation (each was tried with the same seed), so none is suggested.';
    parts.push(`<p class="note">${why}</p>`);
    return parts.join('\n');
  }
  parts.push(
    '<p class="note">Each suggestion was simulated with this run’s seed; the table shows what it did to every flow. Apply the manifests with ' +
      '<code>kubectl apply -f</code>.</p>',
  );
  for (const s of suggestions) {
    parts.push(
      `<h3>${esc(s.title)}</h3><p>${s.changes.map(esc).join('<br>')}</p><p>Helps ${s.for.map((f) => `<b>${esc(f)}</b>`).join(', ')}` +
        `.</p><details><summary>Manifest</summary><pre>${esc(s.manifest)}</pre></details>`,
    );
    const rows = Object.entries(s.effect).map(([flow, e]) => [
      nameCell(flow),
      `${fmtPercent(e.before.rejectedFraction ?? 0)} → ${fmtPercent(e.after.rejectedFraction ?? 0)}`,
      `${fmtSeconds(e.before.waitP99Seconds)} → ${fmtSeconds(e.after.waitP99Seconds)}`,
      `${fmtSeconds(e.before.latencyP99Seconds)} → ${fmtSeconds(e.after.latencyP99Seconds)}`,
      `<span class="${e.change === 'same' ? 'noise' : e.change}">${e.change}</span>`,
    ]);
    parts.push(table(['flow', 'rejected', 'wait p99', 'latency p99', 'effect'], rows));
  }
  return parts.join('\n');
}

function flowTable(report: SimulationReport): string {
  const head = [
    'flow',
    'level (FlowSchema)',
    'arrived',
    'dispatched',
    'rejected: queue-full / time-out / concurrency-limit',
    'wait p50',
    'wait p90',
    'wait p99',
    'latency p99',
    'seats per request',
    'past timeout',
  ];
  const rows = Object.entries(report.flows).map(([name, f]: [string, FlowReport]) => [
    nameCell(name),
    `${f.priorityLevel.split(',').map(levelCell).join(', ')} <span class="dim">(${nameCell(f.flowSchema)})</span>`,
    fmtInt(f.arrived),
    fmtInt(f.dispatched),
    `${fmtInt(f.rejected['queue-full'])} / ${fmtInt(f.rejected['time-out'])} / ${fmtInt(f.rejected['concurrency-limit'])}`,
    fmtSeconds(f.waitSeconds.p50),
    fmtSeconds(f.waitSeconds.p90),
    fmtSeconds(f.waitSeconds.p99),
    fmtSeconds(f.latencySeconds.p99),
    f.seatsPerRequest === null ? '—' : fmtNumber(f.seatsPerRequest),
    fmtInt(f.deadlineExceeded),
  ]);
  return table(head, rows, [0, 1]);
}

function levelTable(report: SimulationReport): string {
  const head = [
    'level',
    'NominalCL',
    'CurrentCL min–max (mean)',
    'borrowing mean (range)',
    'seats in use mean / max',
    'waiting mean / max (longest queue)',
    'queues',
    'dispatched',
    'rejected',
  ];
  const rows = Object.entries(report.levels).map(([name, l]: [string, LevelReport]) => [
    `${levelCell(name)}${l.exempt ? ' <span class="dim">(exempt)</span>' : ''}`,
    String(l.nominalCL),
    `${fmtRange(String(l.currentCL.min), String(l.currentCL.max))} (${fmtNumber(l.currentCL.mean)})`,
    `${signed(l.borrowing.meanSeats)} (${signed(l.borrowing.minSeats)} to ${signed(l.borrowing.maxSeats)})`,
    `${fmtNumber(l.seatsInUse.mean)} / ${l.seatsInUse.max}`,
    `${fmtNumber(l.waiting.mean)} / ${l.waiting.max} (${l.longestQueue})`,
    String(l.queues),
    fmtInt(l.dispatched),
    l.rejectedTotal === 0 ? '0' : `${fmtInt(l.rejectedTotal)} <span class="dim">(${reasons(l.rejected)})</span>`,
  ]);
  return table(head, rows);
}

function fairnessSection(report: SimulationReport): string {
  const rows = Object.entries(report.fairness).map(([level, f]) => [
    levelCell(level),
    f.jain === null ? '— <span class="dim">(no flow backlogged for 10% of the run)</span>' : f.jain.toFixed(4),
    f.backloggedFlows.map((n) => `${nameCell(n)}: ${fmtNumber(f.meanSeatsWhileBacklogged[n] ?? 0)}`).join(', ') || '—',
    f.jainVsMaxMinFair === null ? '—' : f.jainVsMaxMinFair.toFixed(4),
    Object.entries(f.maxMinFair)
      .slice(0, 12)
      .map(
        ([n, m]) =>
          `${nameCell(n)}: ${fmtNumber(m.receivedSeats)} of ${fmtNumber(m.fairShareSeats)} <span class="dim">(asked ${fmtNumber(m.demandSeats)})</span>`,
      )
      .join('<br>'),
  ]);
  return (
    '<h2>Fairness</h2><p class="note">Two views per level. <b>Backlogged flows</b>: Jain’s index over the mean seats each flow held while it had ' +
    'requests waiting (flows backlogged at least 10% of the run); fair queuing aims to give competing flows equal seats, so 1 is an even split and ' +
    '1/n means one flow took everything. ' +
    'A flow held up behind wide requests can look backlogged while getting all it asks for, so the second view helps: <b>vs max-min fair share</b>: ' +
    'each flow’s mean seats received divided by its max-min fair share of the level’s mean CurrentCL (given what every flow asked for), Jain’s index ' +
    'over those ratios; 1 means every flow got its fair share.</p>' +
    table(
      ['level', 'Jain (backlogged flows)', 'backlogged flows: mean seats held', 'Jain (vs max-min fair)', 'seats received of fair share'],
      rows,
      [0, 1, 2, 4],
    )
  );
}

const reasons = (r: Record<string, number>) =>
  Object.entries(r)
    .filter(([, n]) => n > 0)
    .map(([reason, n]) => `${fmtInt(n)} ${reason}`)
    .join(', ');

/** The modelled server's CPU and memory, and each replica's share of the work; empty when not modelled. */
function capacitySection(report: SimulationReport): string {
  const c = report.capacity;
  const parts: string[] = [];
  if (c !== undefined) {
    const of = report.replicas === undefined ? '' : ' (the busiest replica)';
    const lines = [
      c.cpus === null
        ? ''
        : `CPU${of}: ${fmtPercent(c.meanCpuBusy)} of ${c.cpus} cores busy on average; demand peaked at ${fmtPercent(c.peakCpu)} of the cores` +
          (c.overloadedSeconds > 0 ? `, and for ${fmtSeconds(c.overloadedSeconds)} it exceeded them, slowing every running request.` : '.'),
      `Memory${of}: LIST responses in flight peaked at ${fmtBytes(c.peakMemoryBytes)}` +
        (c.memoryBytes === null
          ? ' (server.memory unbounded).'
          : c.outOfMemoryAtSeconds === null
            ? ` of ${fmtBytes(c.memoryBytes)}.`
            : `: more than server.memory (${fmtBytes(c.memoryBytes)}) from ${fmtNumber(c.outOfMemoryAtSeconds)} s, ` +
              `${fmtSeconds(c.outOfMemorySeconds)} in all; the modelled server would have run out of memory.`),
    ].filter((l) => l !== '');
    parts.push(`<h2>Server capacity</h2><ul class="findings">${lines.map((l) => `<li>${esc(l)}</li>`).join('')}</ul>`);
  }
  if (report.replicas !== undefined) {
    parts.push(
      '<h2>Replicas</h2><p class="note">Each kube-apiserver has its own APF and server concurrency limit; clients keep the replica they ' +
        'connected to. The tables above are the sums over replicas.</p>',
    );
    const rows = report.replicas.map((r) => {
      const levels = Object.values(r.levels);
      return [
        esc(r.name),
        esc(
          Object.entries(r.clients)
            .map(([flow, n]) => `${flow} ×${n}`)
            .join(', '),
        ),
        fmtInt(levels.reduce((s, l) => s + l.dispatched, 0)),
        fmtInt(levels.reduce((s, l) => s + l.rejectedTotal, 0)),
        r.capacity === null || r.capacity.cpus === null ? '—' : fmtPercent(r.capacity.meanCpuBusy),
        r.capacity === null || r.capacity.cpus === null ? '—' : fmtPercent(r.capacity.peakCpu),
        r.capacity === null ? '—' : fmtBytes(r.capacity.peakMemoryBytes),
      ];
    });
    parts.push(table(['replica', 'clients', 'dispatched', 'rejected', 'CPU busy', 'CPU demand peak', 'memory peak'], rows, [0, 1], { wrap: true }));
  }
  return parts.join('\n');
}

const signed = (n: number) => (n > 0 ? `+${fmtNumber(n)}` : fmtNumber(n));

const GLOSSARY = [
  '<h2>Glossary</h2><dl>',
  "<dt>Seat</dt><dd>One unit of a priority level's concurrency. Most requests occupy one seat while they execute; a LIST occupies more the more " +
    "objects it returns (up to the level's maxSeats), and a write with many watchers keeps extra seats for a moment after it returns.</dd>",
  '<dt>NominalCL</dt><dd>The seats a level is entitled to: the server concurrency limit split by nominalConcurrencyShares.</dd>',
  '<dt>CurrentCL</dt><dd>The seats a level may use right now: NominalCL adjusted every 10 s by lending ' +
    "(lendablePercent) and borrowing, driven by each level's recent seat demand.</dd>",
  '<dt>Flow</dt><dd>Requests with the same FlowSchema and flow distinguisher (user or namespace). Shuffle ' +
    'sharding gives each flow a hand of queues; a request joins the shortest queue of its hand.</dd>',
  '<dt>queue-full</dt><dd>Rejected on arrival: the level was saturated and the chosen queue already held queueLengthLimit requests.</dd>',
  '<dt>time-out</dt><dd>Rejected after waiting its whole wait limit (a quarter of the request timeout, at most 60 s) in a queue.</dd>',
  '<dt>concurrency-limit</dt><dd>Rejected on arrival by a level whose limitResponse is Reject (no queues) when it was full.</dd>',
  '<dt>Past timeout</dt><dd>Dispatched requests whose total latency exceeded their timeout: ' +
    'the client would have seen an error although the server did the work.</dd>',
  "<dt>Jain's fairness index</dt><dd>(Σx)² / (n·Σx²) over the competing flows' shares: 1 when all are equal, 1/n when one flow gets everything.</dd>",
  '</dl>',
].join('\n');
