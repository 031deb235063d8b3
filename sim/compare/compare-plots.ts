// compare.html's plots (also on tune's page): each configuration's p99 wait and rejected share per
// flow, side by side, from the medians across seeds. The flows shown are the comparison's own
// order (winners and losers first), at most a dozen.

import type { Plot } from '../report/plots.ts';
import { renderSvg } from '../report/plots.ts';
import { stripXmlHeader } from '../report/page.ts';
import { esc } from '../report/format.ts';
import type { Comparison, MetricComparison } from './compare.ts';

const MAX_FLOWS = 12;
const WIDTH = 960;
/** The baseline in grey; variants in colours that are not any level's (levels are coloured by name). */
const CONFIGURATION_COLOURS = ['#9e9e9e', '#1f4e9c', '#b3341c', '#2e7d32', '#6a1b9a', '#00838f'];

export function comparePlots(comparison: Comparison): Plot[] {
  const first = comparison.variants[0];
  if (first === undefined) return [];
  const flows = first.flows.slice(0, MAX_FLOWS).map((row) => row.name);
  const configurations = ['baseline', ...comparison.variants.map((v) => v.name)];
  const rows = (metric: string, scale: number) =>
    flows.flatMap((flow) => {
      const of = (m: MetricComparison | undefined, side: 'baseline' | 'variant') => ((m?.[side].median ?? null) === null ? null : m![side].median! * scale);
      const baseline = of(first.flows.find((r) => r.name === flow)?.metrics[metric], 'baseline');
      return [
        { flow, configuration: 'baseline', value: baseline },
        ...comparison.variants.map((v) => ({ flow, configuration: v.name, value: of(v.flows.find((r) => r.name === flow)?.metrics[metric], 'variant') })),
      ].filter((r) => r.value !== null);
    });
  const spec = (title: string, axis: string, values: ReturnType<typeof rows>) => ({
    $schema: 'https://vega.github.io/schema/vega-lite/v5.json',
    title,
    width: WIDTH,
    height: { step: 10 },
    background: 'white',
    config: { font: 'sans-serif', axis: { labelFontSize: 11, titleFontSize: 12, labelLimit: 260 }, legend: { labelFontSize: 11, titleFontSize: 12 } },
    data: { values },
    mark: 'bar',
    encoding: {
      y: { field: 'flow', type: 'nominal', title: 'flow', sort: flows },
      yOffset: { field: 'configuration', type: 'nominal', sort: configurations },
      x: { field: 'value', type: 'quantitative', title: axis },
      color: {
        field: 'configuration',
        type: 'nominal',
        title: 'configuration',
        scale: { domain: configurations, range: configurations.map((_, i) => CONFIGURATION_COLOURS[i % CONFIGURATION_COLOURS.length]) },
      },
    },
  });
  const wait = rows('waitP99Seconds', 1000);
  const rejected = rows('rejectedFraction', 100);
  const n = comparison.seeds.length;
  const across = `the median across ${n} seed${n === 1 ? '' : 's'}`;
  return [
    {
      file: 'compare-wait-p99.svg',
      title: 'p99 wait per flow, in each configuration',
      caption: `Each bar is ${across}; shorter is better.`,
      spec: wait.length === 0 ? undefined : spec('p99 wait before dispatch (ms)', 'p99 wait (ms)', wait),
      emptyText: 'No request was dispatched.',
    },
    {
      file: 'compare-rejected.svg',
      title: 'Rejected share per flow, in each configuration',
      caption: `Each bar is ${across} of the flow's rejected requests as a share of those that arrived.`,
      spec: rejected.every((r) => r.value === 0) ? undefined : spec('Rejected (% of arrived)', 'rejected (%)', rejected),
      emptyText: 'No configuration rejected any request.',
    },
  ];
}

/** The plots as HTML figures, each SVG inline (the page stays one self-contained file). */
export async function comparePlotsHtml(comparison: Comparison): Promise<string[]> {
  const out: string[] = [];
  for (const plot of comparePlots(comparison)) {
    const body = plot.spec === undefined ? `<p class="note">${esc(plot.emptyText ?? '')}</p>` : stripXmlHeader(await renderSvg(plot.spec));
    out.push(`<figure><figcaption><strong>${esc(plot.title)}.</strong> ${esc(plot.caption)}</figcaption>${body}</figure>`);
  }
  return out;
}
