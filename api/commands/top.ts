// `fairway top [--kubeconfig FILE] [--context NAME] [--interval 2s] [--sort KEY] [--once -o json|yaml|wide]`:
// APF's state on any kube-apiserver (Fairway included), live: per priority level its limits,
// seats in use, queues, dispatch and rejection rates and queue-wait p99 over the interval, then
// the busiest FlowSchemas and flows. Read from /metrics and the APF debug dumps with the
// kubeconfig's credentials (api/top/).

import { stringify } from 'yaml';
import { parseCommandLine, processOutput, type Command, type CommandSpec, type Output } from '../../cli/command.ts';
import { flag } from '../../cli/flag-table.ts';
import { withExecCredential } from '../../cli/exec-credential.ts';
import { KUBECONFIG_DEFAULT_TEXT, kubeconfigPath } from '../../cli/kubeconfig-path.ts';
import { loadWebhookKubeconfig } from '../../engine/auth/webhook-kubeconfig.ts';
import { realClock, type Cancel, type Clock } from '../../engine/clock.ts';
import { DEFAULT_REQUEST_TIMEOUT_MS } from '../../sim/import/api-reader.ts';
import { isSortKey, nextSortKey, SORT_KEYS, sortFlows, sortRows, type SortKey } from '../top/sort-keys.ts';
import { layoutScreen } from '../top/top-layout.ts';
import { topSnapshot, type TopSnapshot } from '../top/top-model.ts';
import { createSource, type Scrape } from '../top/top-source.ts';
import { openTerminalScreen } from '../top/terminal-screen.ts';

const OUTPUTS = ['json', 'yaml', 'wide'];
const positive = (value: number, name: string) => (value <= 0 ? `${name} must be positive` : undefined);

const TOP_FLAGS = {
  kubeconfig: flag('string', 'kubeconfig', '', 'the kubeconfig to reach the server with', { valueName: 'FILE', defaultText: KUBECONFIG_DEFAULT_TEXT }),
  context: flag('string', 'context', '', 'the context to use', { valueName: 'NAME', defaultText: "the file's current-context" }),
  interval: flag('duration', 'interval', 2000, 'time between two scrapes; rates and the wait p99 are over it', { validate: positive }),
  sort: flag('string', 'sort', 'seats', `the order of the tables, largest first: ${SORT_KEYS.join(', ')} (s on the screen cycles them)`, {
    valueName: 'KEY',
    validate: (value, name) => (isSortKey(value) ? undefined : `${name} must be one of ${SORT_KEYS.join(', ')}, not ${JSON.stringify(value)}`),
  }),
  once: flag('bool', 'once', false, 'scrape twice, one interval apart, print the tables once and exit (for scripts and CI)'),
  output: flag('string', 'output', '', 'with --once (which it implies): json, yaml, or wide (every column, whatever the width)', {
    shorthand: 'o',
    valueName: 'FORMAT',
    validate: (value, name) => (OUTPUTS.includes(value) ? undefined : `${name} must be one of ${OUTPUTS.join(', ')}, not ${JSON.stringify(value)}`),
  }),
  requestTimeoutMs: flag('duration', 'request-timeout', DEFAULT_REQUEST_TIMEOUT_MS, 'the longest one request to the server may take; 0 waits forever', {
    validate: (value, name) => (value < 0 ? `${name} can not be negative` : undefined),
  }),
};

export const TOP_COMMAND: CommandSpec<typeof TOP_FLAGS> = {
  path: 'fairway top',
  usage: 'fairway top [--kubeconfig FILE] [--context NAME] [--interval DURATION] [--sort KEY] [--once] [-o json|yaml|wide]',
  description: `Shows API Priority and Fairness live on a running API server — Fairway or any kube-apiserver —
refreshed every --interval: per priority level its nominal, lendable and current seat limits,
seats in use, queued requests and seats, dispatch and rejection rates (by reason) and the p99 of
the queue wait over the interval; then the busiest FlowSchemas and flows. Keys: s cycles the sort
order, q quits. It reads only standard endpoints with the kubeconfig's user: /metrics (needs
nonResourceURLs [/metrics] verbs [get], as the system:monitoring ClusterRole grants) and, for active
queues and flows, /debug/api_priority_and_fairness/dump_priority_levels and dump_requests
(nonResourceURLs [/debug/api_priority_and_fairness/*]); without the latter the rest is shown.`,
  flags: TOP_FLAGS,
  epilogue: 'Exit status: 0 on q or Ctrl-C (or after --once), 1 if the kubeconfig is bad or the server cannot be read, 2 for usage errors.',
};

export const topCommand: Command = {
  spec: TOP_COMMAND,
  run: (args) => runTop(args, processOutput),
};

const wait = (clock: Clock, ms: number) => new Promise<void>((resolve) => clock.after(ms, resolve));

/** A ScrapeError is already worded for the operator; anything else is shown as thrown. */
const messageOf = (error: unknown) => (error instanceof Error ? error.message : String(error));

/** hh:mm:ss in UTC, for the title line. */
const timeOfDay = (ms: number) => new Date(ms).toISOString().slice(11, 19);

export async function runTop(args: string[], output: Output): Promise<number> {
  const command = parseCommandLine(TOP_COMMAND, args, output);
  if ('exitCode' in command) return command.exitCode;
  const { interval, requestTimeoutMs } = command.values;
  let sort = command.values.sort as SortKey;
  const format = command.values.output;
  const once = command.values.once || format !== '';
  const file = kubeconfigPath(command.values.kubeconfig);
  const loaded = loadWebhookKubeconfig(file, { context: command.values.context === '' ? undefined : command.values.context });
  if (!loaded.ok) {
    output.stderr(`fairway top: ${loaded.error}\n`);
    return 1;
  }
  const credential = withExecCredential(loaded.connection);
  if (!credential.ok) {
    output.stderr(`fairway top: ${file}: ${credential.error}\n`);
    return 1;
  }
  if (!once && !(process.stdout.isTTY && process.stdin.isTTY)) {
    output.stderr('fairway top: the live screen needs a terminal; for scripts use --once (-o json, yaml or wide)\n');
    return 1;
  }
  const clock = realClock();
  const source = createSource(credential.connection, clock, requestTimeoutMs);
  const title = (at: number) => `fairway top  ${source.server}  every ${interval / 1000}s  sort: ${sort}  (s: sort, q: quit)  ${timeOfDay(at)} UTC`;

  let first: Scrape;
  let firstAt: number;
  try {
    firstAt = clock.now();
    first = await source.scrape();
  } catch (error) {
    output.stderr(`fairway top: ${messageOf(error)}\n`);
    return 1;
  }

  if (once) {
    await wait(clock, interval);
    let second: Scrape;
    const secondAt = clock.now();
    try {
      second = await source.scrape();
    } catch (error) {
      output.stderr(`fairway top: ${messageOf(error)}\n`);
      return 1;
    }
    const snapshot = snapshotOf(first.metrics, second, (secondAt - firstAt) / 1000);
    if (format === 'json' || format === 'yaml') {
      const document = { server: source.server, sort, ...sorted(snapshot, sort), notices: second.notices };
      output.stdout(format === 'json' ? `${JSON.stringify(document, null, 2)}\n` : stringify(document));
    } else {
      const width = format === 'wide' || !process.stdout.isTTY ? Number.POSITIVE_INFINITY : process.stdout.columns || 80;
      const lines = layoutScreen(snapshot, { width, height: Number.POSITIVE_INFINITY, sort, title: title(secondAt), notices: second.notices });
      output.stdout(`${lines.join('\n')}\n`);
    }
    return 0;
  }

  return new Promise<number>((resolve) => {
    let previous = { metrics: first.metrics, at: firstAt };
    let snapshot = snapshotOf(undefined, first, 0);
    let notices = first.notices;
    let drawnAt = firstAt;
    let cancelTick: Cancel | undefined;
    let stopped = false;
    const redraw = () => screen.draw(layoutScreen(snapshot, { width: screen.width, height: screen.height, sort, title: title(drawnAt), notices }));
    const stop = () => {
      if (stopped) return;
      stopped = true;
      cancelTick?.();
      screen.close();
      resolve(0);
    };
    const screen = openTerminalScreen(process.stdin, process.stdout, {
      onKey: (key) => {
        if (key === 'q' || key === 'Q') stop();
        else if (key === 's' || key === 'S') {
          sort = nextSortKey(sort);
          redraw();
        }
      },
      onResize: () => redraw(),
      onInterrupt: stop,
    });
    const tick = async () => {
      const at = clock.now();
      try {
        const scrape = await source.scrape();
        if (stopped) return;
        snapshot = snapshotOf(previous.metrics, scrape, (at - previous.at) / 1000);
        previous = { metrics: scrape.metrics, at };
        notices = scrape.notices;
      } catch (error) {
        // Keep the last tables and say why they are not fresh; the next tick tries again.
        notices = [`${timeOfDay(at)} UTC: ${messageOf(error)}; retrying`];
      }
      if (stopped) return;
      drawnAt = at;
      redraw();
      cancelTick = clock.after(interval, () => void tick());
    };
    redraw();
    cancelTick = clock.after(interval, () => void tick());
  });
}

function snapshotOf(before: string | undefined, scrape: Scrape, elapsedSeconds: number): TopSnapshot {
  return topSnapshot({
    ...(before === undefined ? {} : { before }),
    after: scrape.metrics,
    elapsedSeconds,
    ...(scrape.dumpPriorityLevels === undefined ? {} : { dumpPriorityLevels: scrape.dumpPriorityLevels }),
    ...(scrape.dumpRequests === undefined ? {} : { dumpRequests: scrape.dumpRequests }),
  });
}

function sorted(snapshot: TopSnapshot, sort: SortKey): TopSnapshot {
  const out: TopSnapshot = { ...snapshot, levels: sortRows(snapshot.levels, sort), flowSchemas: sortRows(snapshot.flowSchemas, sort) };
  if (snapshot.flows !== undefined) out.flows = sortFlows(snapshot.flows, sort);
  return out;
}
