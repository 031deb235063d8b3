// Starts engine/kms/testing/kms-plugin.ts as a real child process for tests, and drives it: write
// its control file (fail, hang, rotate the key ID), read its call log, kill it, start it again on
// the same socket. Every process started here is stopped by its own pid in `stop()`.

import { spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

export interface PluginControl {
  keyId?: string;
  mode?: 'ok' | 'fail' | 'hang';
  healthz?: string;
  version?: string;
}

export interface KmsPluginProcess {
  readonly socketPath: string;
  /** `unix://<socketPath>`, as a configuration names it. */
  readonly endpoint: string;
  /** Replaces the control settings (unset fields take the plugin's defaults). */
  control(settings: PluginControl): void;
  /** The calls the plugin has received so far, one line each (`Status`, `Encrypt <uid>`, ...). */
  calls(): string[];
  /** Kills the process (SIGKILL: no goodbye to clients) and waits for it to exit. */
  kill(): Promise<void>;
  /** Starts a new process on the same socket and control file. */
  restart(): Promise<void>;
  /** Kills the process if running and removes the temporary directory. */
  stop(): Promise<void>;
}

const PLUGIN = fileURLToPath(new URL('./kms-plugin.ts', import.meta.url));
/** The repository root, where `--import tsx` resolves whatever the caller's working directory. */
const ROOT = fileURLToPath(new URL('../../../', import.meta.url));

export async function startKmsPlugin(initial: PluginControl = {}): Promise<KmsPluginProcess> {
  const dir = mkdtempSync(join(tmpdir(), 'fw-kms-'));
  const socketPath = join(dir, 'kms.sock');
  const controlPath = join(dir, 'control.json');
  const logPath = join(dir, 'calls.log');
  writeFileSync(controlPath, JSON.stringify(initial));
  let child: ChildProcess | undefined;

  const launch = (): Promise<void> =>
    new Promise((resolve, reject) => {
      const process_ = spawn(process.execPath, ['--import', 'tsx', PLUGIN, '--socket', socketPath, '--control', controlPath, '--log', logPath], {
        cwd: ROOT,
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      child = process_;
      let stderr = '';
      let stdout = '';
      process_.stderr!.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
      process_.stdout!.on('data', (chunk: Buffer) => {
        stdout += chunk.toString();
        if (stdout.includes('ready\n')) resolve();
      });
      process_.once('exit', (code, signal) => reject(new Error(`kms plugin exited before ready (code ${code}, signal ${signal}): ${stderr}`)));
      process_.once('error', reject);
    });

  const kill = async (): Promise<void> => {
    const running = child;
    child = undefined;
    if (running === undefined || running.exitCode !== null || running.signalCode !== null) return;
    const exited = new Promise<void>((resolve) => running.once('exit', () => resolve()));
    running.kill('SIGKILL');
    await exited;
  };

  await launch();
  return {
    socketPath,
    endpoint: `unix://${socketPath}`,
    control: (settings) => writeFileSync(controlPath, JSON.stringify(settings)),
    calls: () =>
      existsSync(logPath)
        ? readFileSync(logPath, 'utf8')
            .split('\n')
            .filter((line) => line !== '')
        : [],
    kill,
    restart: async () => {
      await kill();
      await launch();
    },
    stop: async () => {
      await kill();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
