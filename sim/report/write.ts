// Writes a run's output directory: report.json, plots/*.svg and report.html (which embeds the
// same SVGs, so it is one self-contained file).

import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { reportJson, type SimulationReport } from '../report.ts';
import { renderHtml, type RenderedPlot } from './html.ts';
import { buildPlots, placeholderSvg, renderSvg } from './plots.ts';
import { makeDirectories } from '../../engine/make-directories.ts';

export interface WrittenRun {
  reportJson: string;
  reportHtml: string;
  plots: string[];
}

export async function writeRunOutput(dir: string, report: SimulationReport, reproduce: string, options: { plots?: boolean } = {}): Promise<WrittenRun> {
  await makeDirectories(dir);
  const jsonPath = join(dir, 'report.json');
  await writeFile(jsonPath, reportJson(report));
  const rendered: RenderedPlot[] = [];
  const plotPaths: string[] = [];
  if (options.plots !== false) {
    await makeDirectories(join(dir, 'plots'));
    for (const plot of buildPlots(report)) {
      const svg = plot.spec === undefined ? placeholderSvg(plot.emptyText ?? 'Nothing to plot.') : await renderSvg(plot.spec);
      const path = join(dir, 'plots', plot.file);
      await writeFile(path, svg);
      plotPaths.push(path);
      rendered.push({ plot, svg });
    }
  }
  const htmlPath = join(dir, 'report.html');
  await writeFile(htmlPath, renderHtml(report, rendered, reproduce));
  return { reportJson: jsonPath, reportHtml: htmlPath, plots: plotPaths };
}
