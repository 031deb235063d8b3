// wrk (the C load generator, Debian package `wrk`) as the benchmarks' client: it outruns any Node
// server on this machine, so the figures measure the server, not the client (a Node client
// saturates first). One run → one summary, parsed from the JSON line bench/wrk-report.lua prints.
import { spawn, spawnSync } from 'node:child_process';
import { getPriority, setPriority } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const REPORT_SCRIPT = join(dirname(fileURLToPath(import.meta.url)), 'wrk-report.lua');

export interface WrkOptions {
  url: string;
  /** Bearer token sent with every request. */
  token?: string;
  headers?: Record<string, string>;
  connections: number;
  seconds: number;
  /** wrk threads (default 1: one client core). */
  threads?: number;
  /** Per-request timeout (wrk's default is 2 s). */
  timeoutSeconds?: number;
  /** A Lua script that also prints wrk-report.lua's line (default: that script), and its arguments. */
  script?: string;
  scriptArgs?: string[];
  /**
   * Added to this process's niceness for wrk (negative: scheduled ahead of it). A latency probe
   * sharing cores with the server and other load must not measure its own wait for a core.
   */
  niceIncrement?: number;
  /** CPUs wrk may run on (taskset's list form, e.g. `1`); absent: any. */
  cpus?: string;
}

export interface WrkResult {
  requests: number;
  durationUs: number;
  bytes: number;
  p50Us: number;
  p90Us: number;
  p99Us: number;
  maxUs: number;
  meanUs: number;
  non2xx: number;
  connectErrors: number;
  readErrors: number;
  writeErrors: number;
  timeouts: number;
}

/** Requests per second over the run. */
export const requestsPerSecond = (r: WrkResult): number => r.requests / (r.durationUs / 1e6);

/** Fails with installation advice when wrk is missing (`.ci/run` installs it as it installs etcd). */
export function requireWrk(): void {
  if (spawnSync('wrk', ['--version']).error !== undefined) throw new Error('wrk is not installed: apt-get install -y wrk');
}

export function runWrk(options: WrkOptions): Promise<WrkResult> {
  const args = [
    `-t${options.threads ?? 1}`,
    `-c${options.connections}`,
    `-d${options.seconds}s`,
    `--timeout`,
    `${options.timeoutSeconds ?? 10}s`,
    '-s',
    options.script ?? REPORT_SCRIPT,
  ];
  if (options.token !== undefined) args.push('-H', `Authorization: Bearer ${options.token}`);
  for (const [name, value] of Object.entries(options.headers ?? {})) args.push('-H', `${name}: ${value}`);
  args.push(options.url);
  if (options.scriptArgs !== undefined) args.push('--', ...options.scriptArgs);
  return spawnWrk(args, options.niceIncrement, options.cpus).then(({ status, stdout, stderr }) => {
    const line = stdout.split('\n').find((l) => l.startsWith('{'));
    if (status !== 0 || line === undefined) throw new Error(`wrk exited with ${status}: ${stderr}${stdout}`);
    return JSON.parse(line) as WrkResult;
  });
}

/**
 * wrk with these arguments, its output collected. Not spawnSync: the calling process's own
 * keep-alive sockets must see the server meanwhile.
 */
export function spawnWrk(args: readonly string[], niceIncrement = 0, cpus?: string): Promise<{ status: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    // taskset execs wrk in its own process, so the pid (for the priority below) is wrk's.
    const argv = cpus === undefined ? ['wrk', ...args] : ['taskset', '-c', cpus, 'wrk', ...args];
    const child = spawn(argv[0]!, argv.slice(1), { stdio: ['ignore', 'pipe', 'pipe'] });
    if (niceIncrement !== 0 && child.pid !== undefined) {
      try {
        setPriority(child.pid, Math.max(-20, Math.min(19, getPriority() + niceIncrement)));
      } catch {
        // Not allowed (raising priority needs CAP_SYS_NICE): wrk runs at this process's priority.
      }
    }
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString('utf8')));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString('utf8')));
    child.once('error', reject);
    child.once('close', (status) => resolve({ status, stdout, stderr }));
  });
}
