// The simulator's pages (a run's report, a comparison, a sweep summary, tune's page) opened in a real
// headless Chromium (Debian's, driven by puppeteer-core): no console error, every plot drawn, and
// no table wider than a 1400 px window (columns wrap rather than hide behind a scroll bar), no
// table cell taller than three lines, and every plot at least as wide as the tables.

import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { existsSync } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import puppeteer, { type Browser } from 'puppeteer-core';
import { runSimCompare } from './cli-compare.ts';
import { runSimRun } from './cli-run.ts';
import { runSimSweep } from './cli-sweep.ts';
import { runSimTune } from './cli-tune.ts';

const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
const VIEWPORT = { width: 1400, height: 900 };

// Long flow names (an audit-log user, a service account) are the usual reason tables overflow.
const SCENARIO = [
  'kind: Scenario',
  'name: pages',
  'description: Long names and a busy level, to lay out.',
  'duration: 8s',
  'server: {maxRequestsInflight: 20, maxMutatingRequestsInflight: 5}',
  'objectCounts: {pods: 2000}',
  'flows:',
  '  - {name: kube-system.generic-garbage-collector-with-a-longer-name, user: "system:serviceaccount:kube-system:generic-garbage-collector", groups: ' +
    '[system:serviceaccounts, system:authenticated], verb: get, resource: pods, namespace: a, objectName: p, arrival: {type: poisson, rate: 300}, ' +
    'service: {type: exponential, mean: 30ms}}',
  '  - {name: lists, user: "system:serviceaccount:ci:lister", groups: [system:serviceaccounts, system:authenticated], verb: list, ' +
    'resource: pods, arrival: {type: poisson, rate: 20}, service: {type: lognormal, median: 100ms, p99: 500ms}}',
  '  - {name: calm, user: bob, namespace: b, verb: get, resource: pods, objectName: p, ' +
    'arrival: {type: constant, rate: 5}, service: {type: constant, value: 10ms}}',
  '',
].join('\n');

const VARIANT = [
  'apiVersion: flowcontrol.apiserver.k8s.io/v1',
  'kind: PriorityLevelConfiguration',
  'metadata: {name: workload-low, annotations: {apf.kubernetes.io/autoupdate-spec: "false"}}',
  'spec: {type: Limited, limited: {nominalConcurrencyShares: 300, lendablePercent: 0, ' +
    'limitResponse: {type: Queue, queuing: {queues: 128, handSize: 6, queueLengthLimit: 200}}}}',
  '',
].join('\n');

// tune's page: its objectives table, the changes' effects and the configurations' plots.
// lists waits seconds as configured; a change is found within the budget, so the page has plots.
const OBJECTIVES = [
  'kind: TuneObjectives',
  'objectives:',
  '  - {flows: calm, waitP99: 1s}',
  '  - {flows: lists, waitP99: 50ms}',
  'changes:',
  '  modify: [workload-low]',
  '  createFor: [lists]',
  '',
].join('\n');

// Runs in the page (as text: the type check knows Node, not the DOM).
const MEASURE = [
  '({',
  "  figures: [...document.querySelectorAll('figure')].map((f) => {",
  "    const box = f.querySelector('svg')?.getBoundingClientRect();",
  "    return { caption: (f.querySelector('figcaption')?.textContent ?? '').slice(0, 60), width: box?.width ?? 0, height: box?.height ?? 0 };",
  '  }),',
  "  tables: [...document.querySelectorAll('table')].map((t, index) => ({ index, scrollWidth: " +
    't.scrollWidth, clientWidth: t.clientWidth, right: t.getBoundingClientRect().right })),',
  "  cellLines: Math.max(0, ...[...document.querySelectorAll('td')].map((td) => { const s = getComputedStyle(td); " +
    'return Math.round((td.getBoundingClientRect().height - parseFloat(s.paddingTop) - parseFloat(s.paddingBottom)) / parseFloat(s.lineHeight)); })),',
  '  documentWidth: document.documentElement.scrollWidth,',
  '})',
].join('\n');

interface PageCheck {
  errors: string[];
  figures: { caption: string; width: number; height: number }[];
  tables: { index: number; scrollWidth: number; clientWidth: number; right: number }[];
  cellLines: number;
  documentWidth: number;
}

async function inspect(browser: Browser, file: string): Promise<PageCheck> {
  const page = await browser.newPage();
  const errors: string[] = [];
  page.on('console', (message) => {
    if (message.type() === 'error') errors.push(message.text());
  });
  page.on('pageerror', (error) => errors.push(String(error)));
  page.on('requestfailed', (request) => errors.push(`request failed: ${request.url()}`));
  await page.setViewport(VIEWPORT);
  await page.goto(pathToFileURL(file).href, { waitUntil: 'load' });
  const measured = (await page.evaluate(MEASURE)) as Omit<PageCheck, 'errors'>;
  await page.close();
  return { errors, ...measured };
}

function assertLaidOut(check: PageCheck, name: string, minFigures: number): void {
  assert.equal(check.errors, [], `${name}: console errors`);
  assert.ok(check.figures.length >= minFigures, `${name}: ${check.figures.length} plots, expected at least ${minFigures}`);
  for (const f of check.figures) assert.ok(f.width > 100 && f.height > 40, `${name}: plot "${f.caption}" is not drawn (${f.width}×${f.height})`);
  assert.ok(check.tables.length > 0, `${name}: no tables`);
  for (const t of check.tables) {
    assert.ok(
      t.scrollWidth <= t.clientWidth + 1 && t.right <= VIEWPORT.width,
      `${name}: table ${t.index} is ${t.scrollWidth} px wide in ${t.clientWidth} px, right edge ${t.right}`,
    );
  }
  assert.ok(check.documentWidth <= VIEWPORT.width, `${name}: the page scrolls sideways (${check.documentWidth} px)`);
  assert.ok(check.cellLines <= 3, `${name}: a table cell wraps to ${check.cellLines} lines`);
  const widest = Math.max(...check.tables.map((t) => t.clientWidth));
  for (const f of check.figures) assert.ok(f.width >= widest - 1, `${name}: plot "${f.caption}" is ${f.width} px wide, the tables ${widest} px`);
}

test('report, comparison and sweep summary render in Chromium without errors, with every plot, within 1400 px', async () => {
  assert.ok(existsSync(CHROMIUM), `${CHROMIUM} is missing: install Debian's chromium (apt-get install -y chromium), as .ci/run does`);
  const dir = await mkdtemp(join(tmpdir(), 'fairway-pages-'));
  const browser = await puppeteer.launch({ executablePath: CHROMIUM, headless: true, args: ['--no-sandbox', '--disable-gpu'] });
  try {
    const scenario = join(dir, 'pages.yaml');
    const variant = join(dir, 'wider.yaml');
    await writeFile(scenario, SCENARIO);
    await writeFile(variant, VARIANT);
    const sink = { stdout: () => {}, stderr: (t: string) => void process.stderr.write(t) };
    assert.is(await runSimRun([scenario, '--seed', '1', '--out', join(dir, 'run')], sink), 0);
    assert.is(
      await runSimCompare([scenario, '--variant', variant, '--seeds', '1..2', '--workers', '2', '--no-suggestions', '--out', join(dir, 'compare')], sink),
      0,
    );
    assert.is(await runSimSweep([scenario, '--seeds', '1..2', '--workers', '2', '--no-plots', '--no-suggestions', '--out', join(dir, 'sweep')], sink), 0);
    const objectives = join(dir, 'objectives.yaml');
    await writeFile(objectives, OBJECTIVES);
    const tuned = await runSimTune([scenario, '--objectives', objectives, '--seeds', '1', '--budget', '8', '--workers', '2', '--out', join(dir, 'tune')], sink);
    assert.is(tuned, 0);

    assertLaidOut(await inspect(browser, join(dir, 'run', 'report.html')), 'report.html', 5);
    assertLaidOut(await inspect(browser, join(dir, 'compare', 'compare.html')), 'compare.html', 2);
    assertLaidOut(await inspect(browser, join(dir, 'sweep', 'summary.html')), 'summary.html', 1);
    // tune's page: the configurations' plots (sim/compare/compare-plots.ts), drawn and as wide as its tables.
    const tunePage = await inspect(browser, join(dir, 'tune', 'compare.html'));
    assertLaidOut(tunePage, 'tune compare.html', 1);
    assert.ok(
      tunePage.figures.some((f) => f.caption.startsWith('p99 wait per flow, in each configuration')),
      tunePage.figures.map((f) => f.caption).join('\n'),
    );
    // The capacity model's section, plots and the replicas' table (sim/examples/replicas.yaml).
    const replicas = fileURLToPath(new URL('../examples/replicas.yaml', import.meta.url));
    assert.is(await runSimRun([replicas, '--seed', '1', '--no-suggestions', '--out', join(dir, 'replicas')], sink), 0);
    const capacity = await inspect(browser, join(dir, 'replicas', 'report.html'));
    assertLaidOut(capacity, 'replicas report.html', 7);
    assert.ok(
      capacity.figures.some((f) => f.caption.startsWith("The server's CPUs over time")),
      capacity.figures.map((f) => f.caption).join('\n'),
    );

    // The check can fail: a table forced wider than the window is caught.
    const wide = join(dir, 'wide.html');
    await writeFile(wide, `<!doctype html><html><body><table><tr><td style="white-space:nowrap">${'x'.repeat(400)}</td></tr></table></body></html>`);
    const caught = await inspect(browser, wide);
    assert.ok(caught.tables[0]!.right > VIEWPORT.width || caught.documentWidth > VIEWPORT.width, 'an over-wide table is measured as such');
  } finally {
    await browser.close();
    await rm(dir, { recursive: true, force: true });
  }
});

test.run();
