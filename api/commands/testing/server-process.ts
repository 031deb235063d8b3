// `fairway serve` as a child process for end-to-end tests: a free loopback port, a fresh data
// directory, the admin kubeconfig it writes, and a clean stop (SIGTERM, then the exit code).
import { spawn, type ChildProcess } from 'node:child_process';
import { killOnExit } from '../../testing/kill-on-exit.ts';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createTestClient, type TestClient } from '../../testing/http-client.ts';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..', '..', '..');
const LAUNCHER = fileURLToPath(new URL('../../fairway.mjs', import.meta.url));

export interface ServerProcess {
  /** The server's process id (benchmarks read its CPU time). */
  pid: number;
  port: number;
  url: string;
  dataDir: string;
  kubeconfigPath: string;
  token: string;
  caPem: string;
  client: TestClient;
  /** Everything the server wrote to stderr so far. */
  stderr(): string;
  /** SIGTERM, then the exit code (and the data dir is removed unless `keepData`). */
  stop(options?: { keepData?: boolean }): Promise<number | null>;
}

/** A port nobody listens on right now (the kernel's choice for port 0). */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}

const delay = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

export interface StartOptions {
  /** Extra `fairway serve` flags. */
  args?: string[];
  /** `memory` keeps tests fast; the default server uses LevelDB; `etcd3` needs `--etcd-servers` in `args`. */
  storageBackend?: 'memory' | 'leveldb' | 'etcd3';
  /** Reuse a data directory (restart tests). */
  dataDir?: string;
  /** Node options for the server process (`--cpu-prof` when profiling a benchmark). */
  nodeArgs?: string[];
  /** The umask the server process starts with (it inherits this process's otherwise). */
  umask?: number;
  /** The script that runs `fairway` (default api/fairway.mjs, the sources under the test runner). */
  launcher?: string;
  /** Environment variables set (or replaced) for the server process. */
  env?: Record<string, string>;
}

export async function startServerProcess(options: StartOptions = {}): Promise<ServerProcess> {
  const dataDir = options.dataDir ?? (await mkdtemp(join(tmpdir(), 'fairway-e2e-')));
  const port = await freePort();
  const args = [
    ...(options.nodeArgs ?? []),
    options.launcher ?? LAUNCHER,
    'serve',
    `--data-dir=${dataDir}`,
    `--secure-port=${port}`,
    `--storage-backend=${options.storageBackend ?? 'memory'}`,
    ...(options.args ?? []),
  ];
  const previousUmask = options.umask !== undefined ? process.umask(options.umask) : undefined;
  let child: ChildProcess;
  try {
    child = spawn(process.execPath, args, { cwd: ROOT, stdio: ['ignore', 'ignore', 'pipe'], env: { ...process.env, ...options.env } });
  } finally {
    if (previousUmask !== undefined) process.umask(previousUmask);
  }
  let stderr = '';
  child.stderr!.on('data', (chunk: Buffer) => (stderr += chunk.toString('utf8')));
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  let exitCode: number | null | undefined;
  // A test run that exits must not leave servers behind.
  killOnExit(child);
  void exited.then((code) => {
    exitCode = code;
  });

  const kubeconfigPath = join(dataDir, 'admin.kubeconfig');
  // Ready: the kubeconfig is written once the server listens, /readyz passes once the bootstrap
  // configuration is stored. A server that exits first fails the start with its stderr.
  let token = '';
  let caPem = '';
  for (;;) {
    if (exitCode !== undefined) throw new Error(`fairway serve exited with ${exitCode} before it was ready:\n${stderr}`);
    try {
      token = (await readFile(join(dataDir, 'admin.token'), 'utf8')).trim();
      caPem = await readFile(join(dataDir, 'pki', 'ca.crt'), 'utf8');
      // A restarted server finds the old kubeconfig: wait for the one naming this port.
      if (!(await readFile(kubeconfigPath, 'utf8')).includes(`:${port}`)) throw new Error('not yet');
      const client = createTestClient(`https://127.0.0.1:${port}`, { token, caPem });
      if ((await client.get('/readyz')).status === 200) break;
    } catch {
      // not yet
    }
    await delay(50);
  }
  const url = `https://127.0.0.1:${port}`;
  return {
    pid: child.pid!,
    port,
    url,
    dataDir,
    kubeconfigPath,
    token,
    caPem,
    client: createTestClient(url, { token, caPem }),
    stderr: () => stderr,
    async stop(stopOptions = {}) {
      if (exitCode === undefined) child.kill('SIGTERM');
      const code = await exited;
      if (!stopOptions.keepData && options.dataDir === undefined) await rm(dataDir, { recursive: true, force: true });
      return code;
    },
  };
}
