// The report's plots, written as vega-lite specifications and rendered headless to SVG by vega
// (no browser, no canvas: vega's SVG renderer estimates text widths). Each plot is a function of
// report.json alone, so a report can be re-rendered from its JSON.

import type { SimulationReport } from '../report.ts';
import { levelColour, levelEncoding } from './colours.ts';

export interface Plot {
  /** File name under plots/, e.g. `level-workload-low.svg`. */
  file: string;
  title: string;
  /** One or two sentences telling a reader what to look for. */
  caption: string;
  spec: Record<string, unknown> | undefined;
  /** Shown instead of a chart when there is nothing to draw. */
  emptyText?: string;
}

/** Wide enough that, scaled to the page's width like the tables, text keeps its size. */
const WIDTH = 960;
const HEIGHT = 220;
/** More lines than this are unreadable; the busiest flows are kept. */
const MAX_SERIES = 12;
const WAIT_FLOOR_MS = 0.001;

const base = (title: string) => ({
  $schema: 'https://vega.github.io/schema/vega-lite/v5.json',
  title,
  width: WIDTH,
  height: HEIGHT,
  background: 'white',
  config: { font: 'sans-serif', axis: { labelFontSize: 11, titleFontSize: 12 }, legend: { labelFontSize: 11, titleFontSize: 12, labelLimit: 260 } },
});

/** Levels worth drawing: those that saw traffic or whose CurrentCL moved. */
export function activeLevels(report: SimulationReport): string[] {
  return Object.entries(report.levels)
    .filter(([, l]) => l.dispatched + l.rejectedTotal > 0 || l.currentCL.min !== l.currentCL.max)
    .map(([name]) => name);
}

/** The busiest flows (by arrivals), in report order. */
export function busiestFlows(report: SimulationReport, limit = MAX_SERIES): string[] {
  const names = Object.keys(report.flows);
  if (names.length <= limit) return names;
  const keep = new Set([...names].sort((a, b) => report.flows[b]!.arrived - report.flows[a]!.arrived || (a < b ? -1 : 1)).slice(0, limit));
  return names.filter((n) => keep.has(n));
}

export function buildPlots(report: SimulationReport): Plot[] {
  const levels = activeLevels(report);
  const flows = busiestFlows(report);
  const busyLevels = levels.filter((l) => report.levels[l]!.dispatched + report.levels[l]!.rejectedTotal > 0);
  return [
    currentClPlot(report, levels),
    ...busyLevels.map((name) => levelSeatsPlot(report, name)),
    queuesPlot(report, levels),
    waitCdfPlot(report, flows),
    rejectionsPlot(report, flows),
    rejectionsOverTimePlot(report, flows),
    ...capacityPlots(report),
  ];
}

function currentClPlot(report: SimulationReport, levels: readonly string[]): Plot {
  const times = report.series.timesSeconds;
  // Every level with a limit is drawn; with many, the idle ones whose limit never moved are
  // named in the caption instead.
  const limited = Object.keys(report.levels).filter((name) => !report.levels[name]!.exempt);
  const drawn = limited.length <= MAX_SERIES ? limited : limited.filter((name) => levels.includes(name));
  const leftOut = [
    ...Object.keys(report.levels)
      .filter((name) => report.levels[name]!.exempt)
      .map((name) => `${name} (exempt: no limit)`),
    ...limited.filter((name) => !drawn.includes(name)).map((name) => `${name} (no traffic; CurrentCL ${report.levels[name]!.currentCL.final} throughout)`),
  ];
  return {
    file: 'current-cl.svg',
    title: 'CurrentCL over time, per priority level',
    caption:
      'The concurrency limit each level actually had. It starts near NominalCL and moves every 10 s as levels lend idle seats and borrow them: a ' +
      'line above its NominalCL is a level borrowing, below is a level lending.' +
      (leftOut.length === 0 ? '' : ` Not drawn: ${leftOut.join(', ')}.`),
    spec: {
      ...base('CurrentCL (seats) by priority level'),
      data: { values: drawn.flatMap((name) => times.map((t, i) => ({ t, level: name, seats: report.series.levels[name]!.currentCL[i] }))) },
      mark: { type: 'line', interpolate: 'step-before' },
      encoding: {
        x: { field: 't', type: 'quantitative', title: 'simulated time (s)' },
        y: { field: 'seats', type: 'quantitative', title: 'CurrentCL (seats)' },
        ...levelEncoding(drawn),
      },
    },
  };
}

function levelSeatsPlot(report: SimulationReport, name: string): Plot {
  const times = report.series.timesSeconds;
  const s = report.series.levels[name]!;
  const nominal = report.levels[name]!.nominalCL;
  const rows = times.flatMap((t, i) => [
    { t, series: 'seats in use (mean)', value: s.seatsInUseMean[i] },
    { t, series: 'seats in use (max)', value: s.seatsInUseMax[i] },
    { t, series: 'CurrentCL', value: s.currentCL[i] },
    { t, series: 'NominalCL', value: nominal },
  ]);
  return {
    file: `level-${fileSafe(name)}.svg`,
    title: `Seats in level ${name}`,
    caption:
      `Seats held by executing requests of ${name} against its limits. When the max touches CurrentCL the level is saturated and further requests ` +
      'queue (or are rejected).',
    spec: {
      ...base(`${name}: seats in use vs limits`),
      data: { values: rows },
      mark: { type: 'line', interpolate: 'step-before' },
      encoding: {
        x: { field: 't', type: 'quantitative', title: 'simulated time (s)' },
        y: { field: 'value', type: 'quantitative', title: 'seats' },
        color: {
          field: 'series',
          type: 'nominal',
          title: 'series',
          // The level's own colour for its limit, as in every other plot of it.
          scale: {
            domain: ['seats in use (mean)', 'seats in use (max)', 'CurrentCL', 'NominalCL'],
            range: ['#4c78a8', '#9ecae9', levelColour(name), '#888888'],
          },
        },
        strokeDash: {
          field: 'series',
          type: 'nominal',
          title: 'series',
          scale: {
            domain: ['seats in use (mean)', 'seats in use (max)', 'CurrentCL', 'NominalCL'],
            range: [
              [1, 0],
              [4, 2],
              [1, 0],
              [6, 4],
            ],
          },
        },
      },
    },
  };
}

function queuesPlot(report: SimulationReport, levels: readonly string[]): Plot {
  const times = report.series.timesSeconds;
  return {
    file: 'queues.svg',
    title: 'Requests waiting in queues, per priority level',
    caption:
      'Time-averaged number of requests waiting in each level’s queues. Sustained waiting means demand above CurrentCL; waiting that reaches the ' +
      'queue-length limit turns into queue-full rejections.',
    spec: {
      ...base('Requests waiting (mean per interval)'),
      data: { values: levels.flatMap((name) => times.map((t, i) => ({ t, level: name, waiting: report.series.levels[name]!.waitingMean[i] }))) },
      mark: { type: 'line', interpolate: 'step-before' },
      encoding: {
        x: { field: 't', type: 'quantitative', title: 'simulated time (s)' },
        y: { field: 'waiting', type: 'quantitative', title: 'requests waiting' },
        ...levelEncoding(levels),
      },
    },
  };
}

function waitCdfPlot(report: SimulationReport, flows: readonly string[]): Plot {
  // A log axis cannot show 0, so waits of 0 (and under 1 µs) are drawn at 1 µs, the axis floor.
  const cdfRows = flows.flatMap((flow) => (report.distributions.waitSeconds[flow] ?? []).map(([s, p]) => ({ flow, ms: Math.max(WAIT_FLOOR_MS, s * 1000), p })));
  return {
    file: 'wait-cdf.svg',
    title: 'Queue wait distribution, per flow',
    caption:
      'For each flow, the fraction of dispatched requests (y) that waited at most x milliseconds before executing. A curve far to the right is a ' +
      'flow that waits long; a curve that starts high at the left edge mostly did not wait at all.',
    spec:
      cdfRows.length === 0
        ? undefined
        : {
            ...base('Wait before dispatch (cumulative)'),
            data: { values: cdfRows },
            mark: { type: 'line', interpolate: 'step-after' },
            encoding: {
              x: { field: 'ms', type: 'quantitative', title: 'wait (ms, log scale; 0 is drawn at 0.001)', scale: { type: 'log', domainMin: WAIT_FLOOR_MS } },
              y: { field: 'p', type: 'quantitative', title: 'fraction of requests', scale: { domain: [0, 1] } },
              color: { field: 'flow', type: 'nominal', title: 'flow' },
            },
          },
    emptyText: 'No request was dispatched.',
  };
}

function rejectionsPlot(report: SimulationReport, flows: readonly string[]): Plot {
  const rejectRows = flows.flatMap((flow) =>
    Object.entries(report.flows[flow]!.rejected)
      .filter(([, n]) => n > 0)
      .map(([reason, n]) => ({ flow, reason, n })),
  );
  return {
    file: 'rejections.svg',
    title: 'Rejections by flow and reason',
    caption:
      'queue-full: the chosen queue was at its length limit while the level was saturated; time-out: the request waited its whole wait limit; ' +
      'concurrency-limit: a level that does not queue (Reject) was full.',
    spec:
      rejectRows.length === 0
        ? undefined
        : {
            ...base('Rejected requests'),
            height: Math.max(60, 22 * new Set(rejectRows.map((r) => r.flow)).size),
            data: { values: rejectRows },
            mark: 'bar',
            encoding: {
              y: { field: 'flow', type: 'nominal', title: 'flow', sort: null },
              x: { field: 'n', type: 'quantitative', title: 'rejected requests', stack: 'zero' },
              color: {
                field: 'reason',
                type: 'nominal',
                title: 'reason',
                scale: { domain: ['queue-full', 'time-out', 'concurrency-limit'], range: ['#f58518', '#e45756', '#b279a2'] },
              },
            },
          },
    emptyText: 'No request was rejected.',
  };
}

function rejectionsOverTimePlot(report: SimulationReport, flows: readonly string[]): Plot {
  const times = report.series.timesSeconds;
  const rejectedFlows = flows.filter((f) => report.flows[f]!.rejectedTotal > 0);
  return {
    file: 'rejections-over-time.svg',
    title: 'Rejections over time, per flow',
    caption:
      'Rejected requests per interval. Rejections that follow a burst and then stop show queues absorbing and shedding it; steady rejections show a ' +
      'flow persistently above its share.',
    spec:
      rejectedFlows.length === 0
        ? undefined
        : {
            ...base(`Rejections per ${report.series.intervalSeconds} s interval`),
            data: { values: rejectedFlows.flatMap((flow) => times.map((t, i) => ({ t, flow, n: report.series.flows[flow]!.rejected[i] }))) },
            mark: { type: 'line', interpolate: 'step-before' },
            encoding: {
              x: { field: 't', type: 'quantitative', title: 'simulated time (s)' },
              y: { field: 'n', type: 'quantitative', title: 'rejected requests' },
              color: { field: 'flow', type: 'nominal', title: 'flow' },
            },
          },
    emptyText: 'No request was rejected.',
  };
}

/** CPU and memory of each modelled replica over time (docs/simulator.md, "A server with finite capacity"). */
function capacityPlots(report: SimulationReport): Plot[] {
  const series = report.series.capacity;
  const capacity = report.capacity;
  if (series === undefined || capacity === undefined) return [];
  const times = report.series.timesSeconds;
  const replicas = Object.keys(series);
  const x = { field: 't', type: 'quantitative', title: 'simulated time (s)' };
  const color = { field: 'series', type: 'nominal', title: 'series' };
  const plots: Plot[] = [];
  if (capacity.cpus !== null) {
    const rows = replicas.flatMap((r) =>
      times.flatMap((t, i) => [
        { t, series: `${r}: busy (mean)`, value: series[r]!.cpuBusyMean[i] },
        { t, series: `${r}: demand (max)`, value: series[r]!.cpuDemandMax[i] },
      ]),
    );
    plots.push({
      file: 'capacity-cpu.svg',
      title: "The server's CPUs over time",
      caption:
        `Busy is the share of the ${capacity.cpus} cores in use; demand is what the running requests asked for, as a share of the cores. Above 1 ` +
        'the cores are oversubscribed and every running request on that server runs that many times slower.',
      spec: {
        ...base('CPU: busy and demand ÷ cores'),
        data: { values: rows },
        mark: { type: 'line', interpolate: 'step-before' },
        encoding: { x, y: { field: 'value', type: 'quantitative', title: 'share of the cores' }, color },
      },
    });
  }
  if (capacity.peakMemoryBytes > 0 || capacity.memoryBytes !== null) {
    const rows = replicas.flatMap((r) => times.map((t, i) => ({ t, series: `${r}: LIST responses (max)`, value: series[r]!.memoryBytesMax[i]! / 2 ** 20 })));
    if (capacity.memoryBytes !== null) for (const t of times) rows.push({ t, series: 'server.memory', value: capacity.memoryBytes / 2 ** 20 });
    plots.push({
      file: 'capacity-memory.svg',
      title: "The server's memory for responses over time",
      caption: 'Bytes the running LISTs hold for their responses (objects × size). A line above server.memory is a server that would have run out.',
      spec: {
        ...base('Response memory (MiB)'),
        data: { values: rows },
        mark: { type: 'line', interpolate: 'step-before' },
        encoding: { x, y: { field: 'value', type: 'quantitative', title: 'MiB' }, color },
      },
    });
  }
  return plots;
}

export function fileSafe(name: string): string {
  return name.replace(/[^A-Za-z0-9._-]/g, '_');
}

/** Renders one vega-lite spec to a standalone SVG document. */
export async function renderSvg(spec: Record<string, unknown>): Promise<string> {
  const [vega, vegaLite] = await Promise.all([import('vega'), import('vega-lite')]);
  const compiled = vegaLite.compile(spec as unknown as Parameters<typeof vegaLite.compile>[0]).spec;
  const view = new vega.View(vega.parse(compiled), { renderer: 'none' });
  try {
    return await view.toSVG();
  } finally {
    view.finalize();
  }
}

/** A small SVG that says there is nothing to plot. */
export function placeholderSvg(text: string): string {
  const escaped = text.replace(/&/g, '&amp;').replace(/</g, '&lt;');
  return (
    `<svg xmlns="http://www.w3.org/2000/svg" width="${WIDTH}" height="60" viewBox="0 0 ${WIDTH} 60"><rect width="100%" height="100%" ` +
    `fill="white"/><text x="10" y="35" font-family="sans-serif" font-size="14" fill="#555">${escaped}</text></svg>`
  );
}
