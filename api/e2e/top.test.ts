// `fairway top` against a real `fairway serve` under load: a Queue level of one seat and a short
// queue (e2e-top) flooded by 16 closed-loop clients GETting /metrics, so it dispatches, queues
// and rejects (queue-full) all the time. Checked: `--once -o json` reports the level's limits,
// rates, rejections by reason and wait p99, and the flood's FlowSchema and flow; a real terminal
// (tmux) shows the screen, re-sorts on `s`, fits a narrower window and gives the terminal back on
// `q`; a user with /metrics but not the debug endpoints sees everything else and which permission
// is missing; a user without /metrics gets the permission it needs; an unreachable server and a
// bad kubeconfig get messages naming the address or the file and field. The default kubeconfig
// is $KUBECONFIG, as kubectl's.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { spawn, spawnSync } from 'node:child_process';
import { killOnExit } from '../testing/kill-on-exit.ts';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { writeKubeconfig } from '../data-dir/kubeconfig.ts';
import { closedLoop, sleep, timedRequest, type Endpoint } from '../testing/load.ts';
import { freePort, startServerProcess, type ServerProcess } from '../commands/testing/server-process.ts';

const FAIRWAY = fileURLToPath(new URL('../fairway.mjs', import.meta.url));
const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const GROUP = 'flowcontrol.apiserver.k8s.io';
const TOKENS = { flooder: 'flooder-token-0000000000001', monitor: 'monitor-token-000000000002', nobody: 'nobody-token-0000000000003' } as const;
const TMUX_SOCKET = `fairway-top-e2e-${process.pid}`;

let server: ServerProcess;
let dir: string;
let flood: { stop(): Promise<void> };
let flooded = 0;
const kubeconfigs: Record<string, string> = {};

/** Runs `fairway top` without blocking this process, whose event loop keeps the flood going. */
function top(args: string[], env: Record<string, string> = {}): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const child = spawn(process.execPath, [FAIRWAY, 'top', ...args], {
    cwd: ROOT,
    env: { ...process.env, FAIRWAY_TEST: '1', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  killOnExit(child);
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString('utf8')));
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString('utf8')));
  return new Promise((resolve) => child.once('close', (code) => resolve({ code, stdout, stderr })));
}

test.before(async () => {
  dir = await mkdtemp(join(tmpdir(), 'fairway-e2e-top-'));
  await writeFile(
    join(dir, 'tokens.csv'),
    `${TOKENS.flooder},flooder,uid-flooder,"system:monitoring"\n${TOKENS.monitor},monitor,uid-monitor,"system:monitoring"\n` +
      `${TOKENS.nobody},nobody,uid-nobody,"e2e"\n`,
  );
  server = await startServerProcess({
    args: ['--max-requests-inflight=20', '--max-mutating-requests-inflight=10', `--token-auth-file=${join(dir, 'tokens.csv')}`, '--authorization-mode=RBAC'],
  });
  const level = {
    apiVersion: `${GROUP}/v1`,
    kind: 'PriorityLevelConfiguration',
    metadata: { name: 'e2e-top' },
    spec: {
      type: 'Limited',
      limited: {
        nominalConcurrencyShares: 1,
        lendablePercent: 0,
        borrowingLimitPercent: 0,
        limitResponse: { type: 'Queue', queuing: { queues: 1, handSize: 1, queueLengthLimit: 2 } },
      },
    },
  };
  const schema = {
    apiVersion: `${GROUP}/v1`,
    kind: 'FlowSchema',
    metadata: { name: 'e2e-top-flood' },
    spec: {
      priorityLevelConfiguration: { name: 'e2e-top' },
      matchingPrecedence: 500,
      distinguisherMethod: { type: 'ByUser' },
      rules: [{ subjects: [{ kind: 'User', user: { name: 'flooder' } }], nonResourceRules: [{ verbs: ['*'], nonResourceURLs: ['*'] }] }],
    },
  };
  assert.is((await server.client.request('POST', `/apis/${GROUP}/v1/prioritylevelconfigurations`, { body: level })).status, 201);
  assert.is((await server.client.request('POST', `/apis/${GROUP}/v1/flowschemas`, { body: schema })).status, 201);
  for (const [name, token] of Object.entries(TOKENS)) {
    kubeconfigs[name] = join(dir, `${name}.kubeconfig`);
    await writeKubeconfig(kubeconfigs[name], { serverUrl: server.url, caPem: server.caPem, user: { name, token } });
  }
  const endpoint: Endpoint = { url: server.url, caPem: server.caPem };
  flood = closedLoop(16, async () => {
    await timedRequest(endpoint, '/metrics', { token: TOKENS.flooder, discardBody: true, timeoutMs: 30_000 });
    flooded++;
  });
  // The level has served and refused some before anyone looks.
  while (flooded < 50) await sleep(20);
});

test.after(async () => {
  await flood?.stop();
  spawnSync('tmux', ['-L', TMUX_SOCKET, 'kill-server']);
  await server?.stop();
  await rm(dir, { recursive: true, force: true });
});

interface Level {
  name: string;
  nominal?: number;
  limit?: number;
  dispatched?: number;
  rejected?: number;
  rejectedByReason?: Record<string, number>;
  waitP99?: number;
}

test('--once -o json: the flooded level dispatches, rejects (queue-full) and waits; its FlowSchema and flow are listed', async () => {
  const run = await top(['--kubeconfig', server.kubeconfigPath, '--once', '-o', 'json', '--interval', '2s', '--sort', 'rejected']);
  assert.is(run.code, 0, run.stderr);
  const report = JSON.parse(run.stdout) as {
    server: string;
    levels: Level[];
    flowSchemas: { name: string; level: string; rejected?: number }[];
    flows?: unknown[];
    notices: string[];
  };
  assert.is(report.server, server.url);
  assert.equal(report.notices, []);
  const level = report.levels[0]!;
  assert.is(level.name, 'e2e-top', 'sorted by rejections, the flooded level first');
  assert.ok(level.nominal! >= 1 && level.limit! >= 1, JSON.stringify(level));
  assert.ok(level.dispatched! > 0, JSON.stringify(level));
  assert.ok(level.rejectedByReason!['queue-full']! > 0, JSON.stringify(level));
  assert.ok(level.waitP99 !== undefined && level.waitP99 > 0, JSON.stringify(level));
  assert.equal(report.flowSchemas[0], { ...report.flowSchemas[0]!, name: 'e2e-top-flood', level: 'e2e-top' });
  assert.ok(report.levels.some((l) => l.name === 'exempt') && report.levels.some((l) => l.name === 'catch-all'));
  assert.ok(Array.isArray(report.flows));
});

test('-o yaml and -o wide; $KUBECONFIG is the default kubeconfig', async () => {
  const [yaml, wide] = await Promise.all([
    top(['-o', 'yaml', '--interval', '1s'], { KUBECONFIG: server.kubeconfigPath }),
    top(['--kubeconfig', server.kubeconfigPath, '-o', 'wide', '--interval', '1s']),
  ]);
  assert.is(yaml.code, 0, yaml.stderr);
  assert.match(yaml.stdout, /^server: https:\/\/127\.0\.0\.1:\d+\n/);
  assert.match(yaml.stdout, /\n {2}- name: e2e-top\n/);
  assert.is(wide.code, 0, wide.stderr);
  assert.match(wide.stdout, /PRIORITY LEVEL +NOMINAL +LENDABLE +LIMIT +SEATS +QUEUED +QSEATS +DISPATCH\/s +REJECT\/s +WAIT p99 +REJECTED BY REASON \/s/);
  assert.match(wide.stdout, /\ne2e-top +\d.*queue-full=\d/);
  assert.match(wide.stdout, /\nBusiest FlowSchemas \(\d+ active\)\nFLOWSCHEMA/);
});

test('a user with /metrics but not the debug endpoints: levels shown, the missing permission named', async () => {
  const run = await top(['--kubeconfig', kubeconfigs.monitor!, '-o', 'json', '--interval', '1s']);
  assert.is(run.code, 0, run.stderr);
  const report = JSON.parse(run.stdout) as { levels: Level[]; flows?: unknown; notices: string[] };
  assert.ok(report.levels.some((l) => l.name === 'e2e-top'));
  assert.is(report.flows, undefined);
  assert.equal(report.notices, [
    'user "monitor" may not get nonResourceURL /debug/api_priority_and_fairness/dump_*: needs a ClusterRole with nonResourceURLs ' +
      '[/debug/api_priority_and_fairness/*] verbs [get], bound to that user; active queues and flows are not shown',
  ]);
});

test('a user without /metrics: exit 1 and the permission it needs', async () => {
  const run = await top(['--kubeconfig', kubeconfigs.nobody!, '--once', '--interval', '1s']);
  assert.is(run.code, 1);
  assert.is(
    run.stderr,
    'fairway top: user "nobody" may not get nonResourceURL /metrics: needs a ClusterRole with nonResourceURLs [/metrics] verbs [get], bound to that user\n',
  );
});

test('an unreachable server, a bad kubeconfig, bad credentials: the address, the file and what is wrong in it, the 401', async () => {
  const port = await freePort();
  const unreachable = join(dir, 'unreachable.kubeconfig');
  await writeKubeconfig(unreachable, { serverUrl: `https://127.0.0.1:${port}`, caPem: server.caPem, user: { name: 'x', token: 'x' } });
  const badToken = join(dir, 'bad-token.kubeconfig');
  await writeKubeconfig(badToken, { serverUrl: server.url, caPem: server.caPem, user: { name: 'x', token: 'not-a-token' } });
  const [refused, context, missing, usage, notTerminal, unauthorized] = await Promise.all([
    top(['--kubeconfig', unreachable, '--once']),
    top(['--kubeconfig', server.kubeconfigPath, '--context', 'nope', '--once']),
    top(['--once'], { KUBECONFIG: join(dir, 'missing.kubeconfig') }),
    top(['--sort', 'size']),
    top(['--kubeconfig', server.kubeconfigPath]),
    top(['--kubeconfig', badToken, '--once']),
  ]);
  assert.is(refused.code, 1);
  assert.match(refused.stderr, new RegExp(`^fairway top: cannot reach https://127\\.0\\.0\\.1:${port}: connection refused`));
  assert.equal(
    [context.code, context.stderr],
    [1, `fairway top: invalid kubeconfig ${server.kubeconfigPath}: context was not found for specified context: nope\n`],
  );
  assert.is(missing.code, 1);
  assert.match(missing.stderr, /^fairway top: invalid configuration: unable to read .*missing\.kubeconfig: /);
  assert.is(usage.code, 2);
  assert.match(usage.stderr, /--sort must be one of seats, queued, rejected, dispatched, wait, name, not "size"/);
  assert.equal([notTerminal.code, notTerminal.stderr], [1, 'fairway top: the live screen needs a terminal; for scripts use --once (-o json, yaml or wide)\n']);
  assert.is(unauthorized.code, 1);
  assert.match(unauthorized.stderr, /^fairway top: the server did not accept the kubeconfig's credentials for \/metrics \(401 Unauthorized\)/);
});

// A real terminal: tmux runs top in a 120×40 pane; the pane is read as a person would see it.
const tmux = (...args: string[]) => spawnSync('tmux', ['-L', TMUX_SOCKET, ...args], { encoding: 'utf8' });
const pane = () => tmux('capture-pane', '-p', '-t', 'top').stdout;

async function until(what: string, check: (screen: string) => boolean): Promise<string> {
  let screen = '';
  for (let i = 0; i < 300; i++) {
    screen = pane();
    if (check(screen)) return screen;
    await sleep(100);
  }
  throw new Error(`the pane never showed ${what}:\n${screen}`);
}

/** The level names in the order the screen lists them. */
const levelOrder = (screen: string) => {
  const lines = screen.split('\n');
  const header = lines.findIndex((l) => l.startsWith('PRIORITY LEVEL'));
  const names: string[] = [];
  for (const line of lines.slice(header + 1)) {
    if (line.trim() === '') break;
    names.push(line.split(' ')[0]!);
  }
  return names;
};

test('in a real terminal (tmux): the screen shows the levels, s re-sorts, a narrower window drops columns, q restores the terminal', async () => {
  const command = [process.execPath, FAIRWAY, 'top', '--kubeconfig', server.kubeconfigPath, '--interval', '1s'].map((a) => `'${a}'`).join(' ');
  const started = tmux('new-session', '-d', '-x', '120', '-y', '40', '-s', 'top', '-c', ROOT, `env FAIRWAY_TEST=1 ${command}; echo TOP-EXITED=$?; exec sh`);
  assert.is(started.status, 0, started.stderr);
  let screen = await until('the levels with rates', (s) => /\ne2e-top +.*\d+\.\d/.test(s) && s.includes('sort: seats') && s.includes('Busiest FlowSchemas'));
  assert.ok(screen.split('\n').every((line) => line.length <= 120));
  assert.ok(tmux('display', '-p', '-t', 'top', '#{alternate_on}').stdout.trim() === '1', 'on the alternate screen');

  tmux('send-keys', '-t', 'top', 's', 's');
  screen = await until('sort: rejected', (s) => s.includes('sort: rejected'));
  assert.is(levelOrder(screen)[0], 'e2e-top', 'the rejecting level first');
  tmux('send-keys', '-t', 'top', 's', 's', 's');
  screen = await until('sort: name', (s) => s.includes('sort: name'));
  const names = levelOrder(screen);
  assert.ok(names.length >= 8, screen);
  assert.equal(names, [...names].sort());

  tmux('resize-window', '-t', 'top', '-x', '70', '-y', '40');
  screen = await until('the narrow layout', (s) => /\nPRIORITY LEVEL/.test(s) && !s.includes('LENDABLE'));
  assert.ok(
    screen.split('\n').every((line) => line.length <= 70),
    screen,
  );
  assert.match(screen, /\nPRIORITY LEVEL .*SEATS +QUEUED .*REJECT\/s/);

  tmux('send-keys', '-t', 'top', 'q');
  screen = await until('top exiting', (s) => s.includes('TOP-EXITED=0'));
  assert.not.ok(screen.includes('PRIORITY LEVEL'), 'the main screen is back, without top’s tables');
  assert.is(tmux('display', '-p', '-t', 'top', '#{alternate_on}').stdout.trim(), '0');

  // Ctrl-C too gives the terminal back: the shell's next command is echoed as typed (cooked mode).
  tmux('send-keys', '-t', 'top', 'C-c');
  tmux('send-keys', '-t', 'top', `clear; env FAIRWAY_TEST=1 ${command}; echo TOP-EXITED-AGAIN=$?`, 'Enter');
  await until('the levels again', (s) => s.includes('PRIORITY LEVEL') && s.includes('e2e-top'));
  tmux('send-keys', '-t', 'top', 'C-c');
  screen = await until('top stopped by Ctrl-C', (s) => s.includes('TOP-EXITED-AGAIN=0'));
  assert.not.ok(screen.includes('PRIORITY LEVEL'));
  assert.is(tmux('display', '-p', '-t', 'top', '#{alternate_on}').stdout.trim(), '0');
  tmux('send-keys', '-t', 'top', 'echo typed-back', 'Enter');
  await until('the shell echoing again', (s) => s.includes('echo typed-back') && /\ntyped-back\n/.test(s));
});

test.run();
