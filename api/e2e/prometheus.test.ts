// The Prometheus rules and dashboard operators load (deploy/prometheus/), checked with the real
// tools: `promtool check rules` and `promtool test rules` (every alert fired and not fired by
// series written for it), a real Prometheus scraping a live `fairway serve` over TLS with a bearer
// token and evaluating the recording rules and every dashboard panel's query, and `promtool check
// metrics` on /metrics, whose only complaints are the kube-apiserver names kept for compatibility.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { request } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parse } from 'yaml';
import { ROOT } from '../../build.mjs';
import { killOnExit } from '../testing/kill-on-exit.ts';
import { scrape } from '../testing/metrics.ts';
import { freePort, startServerProcess, type ServerProcess } from '../commands/testing/server-process.ts';

const DEPLOY = join(ROOT, 'deploy', 'prometheus');
const RULES = join(DEPLOY, 'fairway-apf.rules.yaml');
/** kube-apiserver's own names that promtool's linter dislikes; served as kube serves them (docs/operations.md). */
export const KEPT_FOR_COMPATIBILITY = [
  'apiserver_flowcontrol_latest_s',
  'apiserver_flowcontrol_next_discounted_s_bounds',
  'apiserver_flowcontrol_next_s_bounds',
];

function promtool(args: string[], input?: string) {
  const result = spawnSync('promtool', args, { cwd: DEPLOY, encoding: 'utf8', input });
  if (result.error !== undefined) throw new Error(`these tests need promtool (Debian package prometheus): ${result.error.message}`);
  return result;
}

const records = (): string[] =>
  (parse(readFileSync(RULES, 'utf8')).groups as { rules: { record?: string }[] }[]).flatMap((g) =>
    g.rules.flatMap((r) => (r.record === undefined ? [] : [r.record])),
  );

test('promtool check rules and promtool test rules pass', () => {
  const check = promtool(['check', 'rules', RULES]);
  assert.is(check.status, 0, check.stdout + check.stderr);
  assert.match(check.stdout, /SUCCESS: 10 rules found/);
  const unit = promtool(['test', 'rules', 'fairway-apf.rules.test.yaml']);
  assert.is(unit.status, 0, unit.stdout + unit.stderr);
  // Each alert is tested both firing and quiet.
  const tests = readFileSync(join(DEPLOY, 'fairway-apf.rules.test.yaml'), 'utf8');
  const alerts = (parse(readFileSync(RULES, 'utf8')).groups as { rules: { alert?: string }[] }[]).flatMap((g) => g.rules.flatMap((r) => r.alert ?? []));
  assert.is(alerts.length, 4);
  for (const alert of alerts) {
    const blocks = tests.split(/^ {6}- eval_time:/m).filter((b) => b.includes(`alertname: ${alert}\n`));
    assert.ok(
      blocks.some((b) => b.includes('exp_alerts: []')),
      `${alert} tested quiet`,
    );
    assert.ok(
      blocks.some((b) => b.includes('exp_labels:')),
      `${alert} tested firing`,
    );
  }
});

test('promtool check metrics on /metrics: only the kube-apiserver names kept for compatibility', async () => {
  const server = await startServerProcess();
  try {
    const text = await scrape({ url: server.url, caPem: server.caPem }, server.token);
    assert.match(text, /^apiserver_flowcontrol_nominal_limit_seats\{/m, 'the flow-control families are there to lint');
    const lint = promtool(['check', 'metrics'], text);
    const output = lint.stdout + lint.stderr;
    // latest_s and the S bounds appear after a level's first dispatch from a queue; the rest must be clean.
    const named = [...new Set([...output.matchAll(/^(\S+) /gm)].map((m) => m[1]!))];
    assert.ok(
      named.every((name) => KEPT_FOR_COMPATIBILITY.includes(name)),
      output,
    );
  } finally {
    await server.stop();
  }
});

function query(port: number, expr: string): Promise<{ status: string; data: { result: unknown[] }; error?: string }> {
  return new Promise((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port, path: `/api/v1/query?query=${encodeURIComponent(expr)}` }, (res) => {
      let body = '';
      res.on('data', (c: Buffer) => (body += c.toString('utf8')));
      res.on('end', () => {
        try {
          resolve(JSON.parse(body));
        } catch {
          reject(new Error(`not JSON (${res.statusCode}): ${body}`)); // not ready yet
        }
      });
    });
    req.on('error', reject);
    req.end();
  });
}

test('a real Prometheus scrapes fairway serve over TLS with a bearer token and evaluates the rules and every dashboard query', async () => {
  const work = await mkdtemp(join(tmpdir(), 'fairway-prometheus-'));
  let server: ServerProcess | undefined;
  let prometheus: ChildProcess | undefined;
  try {
    server = await startServerProcess();
    await writeFile(join(work, 'ca.crt'), server.caPem);
    await writeFile(join(work, 'token'), server.token);
    const port = await freePort();
    await writeFile(
      join(work, 'prometheus.yml'),
      [
        'global: {scrape_interval: 1s, evaluation_interval: 1s}',
        `rule_files: [${JSON.stringify(RULES)}]`,
        'scrape_configs:',
        '  - job_name: fairway',
        '    scheme: https',
        `    authorization: {credentials_file: ${JSON.stringify(join(work, 'token'))}}`,
        `    tls_config: {ca_file: ${JSON.stringify(join(work, 'ca.crt'))}}`,
        `    static_configs: [{targets: ["127.0.0.1:${server.port}"]}]`,
        '',
      ].join('\n'),
    );
    let log = '';
    prometheus = spawn(
      'prometheus',
      [`--config.file=${join(work, 'prometheus.yml')}`, `--storage.tsdb.path=${join(work, 'data')}`, `--web.listen-address=127.0.0.1:${port}`],
      { stdio: ['ignore', 'ignore', 'pipe'] },
    );
    killOnExit(prometheus);
    prometheus.stderr!.on('data', (c: Buffer) => (log += c.toString('utf8')));
    // The recording rule has a value once a scrape and an evaluation have run.
    const record = 'priority_level:apiserver_flowcontrol_borrowed_seats';
    let result: unknown[] = [];
    for (let attempt = 0; attempt < 600 && result.length === 0; attempt++) {
      await new Promise((resolve) => setTimeout(resolve, 100));
      result = await query(port, record).then(
        (r) => r.data?.result ?? [],
        () => [],
      );
    }
    assert.ok(result.length >= 8, `${record} for every default level: ${JSON.stringify(result)}\n${log}`);
    const up = await query(port, 'up{job="fairway"}');
    assert.equal((up.data.result[0] as { value: [number, string] }).value[1], '1', 'the target is up');
    // Every recorded series and every panel's query is valid PromQL on live data.
    const dashboard = JSON.parse(readFileSync(join(DEPLOY, 'fairway-apf.dashboard.json'), 'utf8'));
    const exprs: string[] = dashboard.panels.flatMap((p: { targets: { expr: string }[] }) => p.targets.map((t) => t.expr));
    for (const expr of [...records(), ...exprs]) {
      const answer = await query(port, expr);
      assert.is(answer.status, 'success', `${expr}: ${answer.error}`);
    }
    // The dashboard shows what the rules record: each recorded series has a panel.
    for (const name of records()) assert.ok(exprs.includes(name), `a panel for ${name}`);
  } finally {
    prometheus?.kill('SIGTERM');
    await server?.stop();
    await rm(work, { recursive: true, force: true });
  }
});

test.run();
