// Real etcd members for tests and benchmarks: single members and 3-member clusters on free loopback
// ports with temporary data directories, started and stopped by PID. Nothing outlives the test
// process: each etcd runs under a small shell that holds the read end of a pipe from us and kills
// etcd when that pipe closes, which happens however we exit (a failed assertion, an uncaught error,
// a signal, even SIGKILL). Debian's etcd-server (3.4) is expected on PATH; `.ci/run` installs it.

import { realClock } from '../../../clock.ts';
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** Keeps etcd on a leash: exits (and kills etcd) when our stdin closes. Prints etcd's PID first. */
const LEASH = `
exec 3<&0 </dev/null
etcd "$@" >>"$ETCD_LOG" 2>&1 &
p=$!
echo "$p"
( cat <&3 >/dev/null; kill -KILL "$p" 2>/dev/null ) &
w=$!
wait "$p"; s=$?
kill "$w" 2>/dev/null
exit $s
`;

const HEALTH_TIMEOUT_MS = 20_000;

export function etcdAvailable(): boolean {
  return spawnSync('etcd', ['--version'], { stdio: 'ignore' }).status === 0;
}

/** A TCP port that was free a moment ago on 127.0.0.1. */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.unref();
    server.on('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      const port = typeof address === 'object' && address !== null ? address.port : 0;
      server.close(() => resolve(port));
    });
  });
}

export interface EtcdMemberSpec {
  readonly name: string;
  readonly clientPort: number;
  readonly peerPort: number;
  readonly dataDir: string;
  readonly logFile: string;
}

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

export class EtcdMember {
  private leash: ChildProcess | undefined;
  private exited: Promise<void> = Promise.resolve();
  /** etcd's own PID while it runs. */
  pid: number | undefined;

  constructor(
    readonly spec: EtcdMemberSpec,
    private readonly initialCluster: string,
    private readonly clusterToken: string,
    private readonly tuning: readonly string[],
  ) {}

  get clientUrl(): string {
    return `http://127.0.0.1:${this.spec.clientPort}`;
  }

  get peerUrl(): string {
    return `http://127.0.0.1:${this.spec.peerPort}`;
  }

  get running(): boolean {
    return this.leash !== undefined;
  }

  /** Starts etcd (again, on the same data directory if it ran before); resolves once it has its PID. */
  async start(): Promise<void> {
    if (this.leash !== undefined) throw new Error(`etcd member ${this.spec.name} is already running`);
    mkdirSync(this.spec.dataDir, { recursive: true, mode: 0o700 });
    const args = [
      '--name',
      this.spec.name,
      '--data-dir',
      this.spec.dataDir,
      '--listen-client-urls',
      this.clientUrl,
      '--advertise-client-urls',
      this.clientUrl,
      '--listen-peer-urls',
      this.peerUrl,
      '--initial-advertise-peer-urls',
      this.peerUrl,
      '--initial-cluster',
      this.initialCluster,
      '--initial-cluster-state',
      'new',
      '--initial-cluster-token',
      this.clusterToken,
      '--logger',
      'zap',
      '--log-level',
      'warn',
      ...this.tuning,
    ];
    const leash = spawn('sh', ['-c', LEASH, 'etcd-leash', ...args], {
      stdio: ['pipe', 'pipe', 'ignore'], // the shell's own job messages ("Killed"); etcd logs to ETCD_LOG
      env: { ...process.env, ETCD_LOG: this.spec.logFile },
    });
    this.leash = leash;
    this.exited = new Promise((resolve) => leash.once('exit', () => resolve()));
    void this.exited.then(() => {
      if (this.leash === leash) {
        this.leash = undefined;
        this.pid = undefined;
      }
      leash.stdin?.destroy();
    });
    this.pid = await new Promise<number>((resolve, reject) => {
      let text = '';
      leash.stdout!.on('data', (chunk: Buffer) => {
        text += chunk.toString();
        const line = /^(\d+)\n/.exec(text);
        if (line !== null) resolve(Number(line[1]));
      });
      leash.once('exit', (code) => reject(new Error(`etcd member ${this.spec.name} exited at once (code ${code}): ${this.logTail()}`)));
      leash.once('error', reject);
    });
  }

  /** Waits until the member answers /health with a leader (a cluster needs a quorum for that). */
  async waitHealthy(timeoutMs = HEALTH_TIMEOUT_MS): Promise<void> {
    const clock = realClock();
    const deadline = clock.now() + timeoutMs;
    for (;;) {
      if (!this.running) throw new Error(`etcd member ${this.spec.name} exited: ${this.logTail()}`);
      try {
        const response = await fetch(`${this.clientUrl}/health`, { signal: AbortSignal.timeout(1_000) });
        const body = (await response.json()) as { health?: string };
        if (body.health === 'true') return;
      } catch {
        // not listening yet, or no leader yet
      }
      if (clock.now() > deadline) throw new Error(`etcd member ${this.spec.name} not healthy after ${timeoutMs} ms: ${this.logTail()}`);
      await sleep(50);
    }
  }

  /** SIGTERM (a clean stop) and wait for the exit. */
  stop(): Promise<void> {
    return this.signal('SIGTERM');
  }

  /** SIGKILL (a crash) and wait for the exit. */
  kill(): Promise<void> {
    return this.signal('SIGKILL');
  }

  logTail(): string {
    try {
      return readFileSync(this.spec.logFile, 'utf8').split('\n').slice(-8).join('\n');
    } catch {
      return '(no log)';
    }
  }

  private async signal(signal: NodeJS.Signals): Promise<void> {
    if (this.leash === undefined) return;
    if (this.pid !== undefined) {
      try {
        process.kill(this.pid, signal);
      } catch {
        // already gone
      }
    }
    await this.exited;
  }
}

export interface EtcdClusterOptions {
  /** Members (1 or 3 in practice). */
  readonly size?: number;
  /** Extra etcd flags for every member. */
  readonly flags?: readonly string[];
}

/** Faster elections than etcd's defaults (100 ms / 1 s), so a stopped member costs tests little. */
const TEST_TUNING = ['--heartbeat-interval', '50', '--election-timeout', '500'];

export class EtcdCluster {
  private constructor(
    readonly members: readonly EtcdMember[],
    private readonly root: string,
  ) {}

  /** Starts the members on free ports in a new temporary directory and waits until all are healthy. */
  static async start(options: EtcdClusterOptions = {}): Promise<EtcdCluster> {
    const size = options.size ?? 1;
    const root = mkdtempSync(join(tmpdir(), 'fairway-etcd-'));
    const specs: EtcdMemberSpec[] = [];
    for (let i = 0; i < size; i++) {
      const name = `m${i}`;
      specs.push({ name, clientPort: await freePort(), peerPort: await freePort(), dataDir: join(root, name), logFile: join(root, `${name}.log`) });
    }
    const initialCluster = specs.map((s) => `${s.name}=http://127.0.0.1:${s.peerPort}`).join(',');
    const cluster = new EtcdCluster(
      specs.map((spec) => new EtcdMember(spec, initialCluster, `fairway-test-${specs[0]!.clientPort}`, [...TEST_TUNING, ...(options.flags ?? [])])),
      root,
    );
    live.add(cluster);
    try {
      await Promise.all(cluster.members.map((m) => m.start()));
      await Promise.all(cluster.members.map((m) => m.waitHealthy()));
    } catch (error) {
      await cluster.close();
      throw error;
    }
    return cluster;
  }

  /** Client URLs of all members, for `--etcd-servers`. */
  get endpoints(): string[] {
    return this.members.map((m) => m.clientUrl);
  }

  member(index: number): EtcdMember {
    const member = this.members[index];
    if (member === undefined) throw new Error(`no etcd member ${index}`);
    return member;
  }

  /** Kills every member and removes the data directories. */
  async close(): Promise<void> {
    live.delete(this);
    await Promise.all(this.members.map((m) => m.kill()));
    rmSync(this.root, { recursive: true, force: true });
  }

  /** Synchronous last resort for process exit. */
  killNow(): void {
    for (const m of this.members) {
      if (m.pid !== undefined) {
        try {
          process.kill(m.pid, 'SIGKILL');
        } catch {
          // gone
        }
      }
    }
    rmSync(this.root, { recursive: true, force: true });
  }
}

const live = new Set<EtcdCluster>();
process.once('exit', () => {
  for (const cluster of live) cluster.killNow();
});
