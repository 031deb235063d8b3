// Runs the real kubectl against a test server: its own kubeconfig, its own HOME (so the discovery
// and OpenAPI caches of one test run never leak into another), stdin when given. A missing
// kubectl is an error, never a skip: the end-to-end tests exist to drive the real one.
import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { renderKubeconfig, type KubeconfigUser } from '../kubeconfig.ts';

export interface KubectlResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

export interface RunningKubectl {
  /** stdout so far. */
  stdout(): string;
  /** Resolves once stdout matches `pattern`, or rejects if kubectl exits first. */
  waitFor(pattern: RegExp): Promise<void>;
  /** SIGTERM, then everything it printed. */
  stop(): Promise<KubectlResult>;
}

export interface Kubectl {
  (args: readonly string[], options?: { input?: string; env?: Record<string, string> }): Promise<KubectlResult>;
  /** A kubectl that keeps running (`get -w`). */
  start(args: readonly string[]): RunningKubectl;
  readonly home: string;
}

/** Throws unless `kubectl` runs. */
export function requireKubectl(): void {
  const probe = spawnSync('kubectl', ['version', '--client'], { encoding: 'utf8' });
  if (probe.error !== undefined || probe.status !== 0) {
    throw new Error(`the end-to-end tests need the real kubectl on PATH: ${probe.error?.message ?? probe.stderr}`);
  }
}

/** A kubectl for `user` against `server`, its kubeconfig written as `<dir>/<user.name>.kubeconfig`. */
export async function kubectlForUser(dir: string, server: { url: string; caPem: string }, user: KubeconfigUser): Promise<Kubectl> {
  const path = join(dir, `${user.name}.kubeconfig`);
  await writeFile(path, renderKubeconfig({ serverUrl: server.url, caPem: server.caPem, user }), { mode: 0o600 });
  return kubectlFor(path);
}

export function kubectlFor(kubeconfigPath: string): Kubectl {
  requireKubectl();
  const home = mkdtempSync(join(tmpdir(), 'fairway-kubectl-'));
  const run = (args: readonly string[], options: { input?: string; env?: Record<string, string> } = {}): Promise<KubectlResult> =>
    new Promise((resolve, reject) => {
      const child = spawn('kubectl', [...args], {
        env: { PATH: process.env.PATH ?? '', HOME: home, KUBECONFIG: kubeconfigPath, ...(options.env ?? {}) },
        stdio: ['pipe', 'pipe', 'pipe'],
      });
      let stdout = '';
      let stderr = '';
      child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString('utf8')));
      child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString('utf8')));
      child.on('error', reject);
      child.on('close', (code) => resolve({ code, stdout, stderr }));
      child.stdin.end(options.input ?? '');
    });
  const start = (args: readonly string[]): RunningKubectl => {
    const child = spawn('kubectl', [...args], {
      env: { PATH: process.env.PATH ?? '', HOME: home, KUBECONFIG: kubeconfigPath },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    let listeners: (() => void)[] = [];
    const notify = () => {
      for (const listener of listeners) listener();
    };
    child.stdout.on('data', (chunk: Buffer) => {
      stdout += chunk.toString('utf8');
      notify();
    });
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString('utf8')));
    const closed = new Promise<number | null>((resolve) =>
      child.on('close', (code) => {
        resolve(code);
        notify();
      }),
    );
    let exitCode: number | null | undefined;
    void closed.then((code) => (exitCode = code));
    return {
      stdout: () => stdout,
      waitFor: (pattern) =>
        new Promise<void>((resolve, reject) => {
          const check = () => {
            if (pattern.test(stdout)) {
              listeners = listeners.filter((l) => l !== check);
              resolve();
            } else if (exitCode !== undefined) {
              reject(new Error(`kubectl ${args.join(' ')} exited (${exitCode}) before printing ${pattern}:\n${stdout}\n${stderr}`));
            }
          };
          listeners.push(check);
          check();
        }),
      async stop() {
        if (exitCode === undefined) child.kill('SIGTERM');
        const code = await closed;
        return { code, stdout, stderr };
      },
    };
  };
  return Object.assign(run, { home, start });
}
