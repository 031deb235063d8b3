// Pieces for the encryption-at-rest end-to-end tests: EncryptionConfiguration files, objects that
// carry a marker string, a scan of every file under a data directory, the raw stored values of a
// stopped server's LevelDB, and a `fairway serve` start that waits only for the server to listen
// (a server whose KMS plugin is down never becomes ready, which is the point of the test).
import { spawn } from 'node:child_process';
import { killOnExit } from '../../testing/kill-on-exit.ts';
import { readdir, readFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { ClassicLevel } from 'classic-level';
import { createTestClient, type TestClient } from '../../testing/http-client.ts';
import { freePort } from './server-process.ts';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..', '..', '..');
const LAUNCHER = fileURLToPath(new URL('../../fairway.mjs', import.meta.url));
export const GROUP = 'flowcontrol.apiserver.k8s.io';
export const PLC_PATH = `/apis/${GROUP}/v1/prioritylevelconfigurations`;
export const FS_PATH = `/apis/${GROUP}/v1/flowschemas`;

export const keyOf = (fill: number) => Buffer.alloc(32, fill).toString('base64');
export const keyed = (kind: 'aescbc' | 'aesgcm' | 'secretbox', keys: [string, string][]) =>
  `      - ${kind}:\n          keys:\n${keys.map(([name, secret]) => `            - {name: ${name}, secret: "${secret}"}`).join('\n')}\n`;
export const kmsV2 = (name: string, endpoint: string) => `      - kms: {apiVersion: v2, name: ${name}, endpoint: "${endpoint}", timeout: 1s}\n`;

/** One rule per entry: `[resources, providers YAML]`. */
export function encryptionConfig(...rules: [string[], string][]): string {
  const body = rules
    .map(([resources, providers]) => `  - resources: [${resources.map((r) => JSON.stringify(r)).join(', ')}]\n    providers:\n${providers}`)
    .join('');
  return `apiVersion: apiserver.config.k8s.io/v1\nkind: EncryptionConfiguration\nresources:\n${body}`;
}

export function markedPlc(name: string, marker: string) {
  return {
    apiVersion: `${GROUP}/v1`,
    kind: 'PriorityLevelConfiguration',
    metadata: { name, labels: { marker }, annotations: { note: `secret ${marker}` } },
    spec: { type: 'Limited', limited: { nominalConcurrencyShares: 3, limitResponse: { type: 'Reject' } } },
  };
}

export function markedFs(name: string, marker: string) {
  return {
    apiVersion: `${GROUP}/v1`,
    kind: 'FlowSchema',
    metadata: { name, annotations: { note: `secret ${marker}` } },
    spec: {
      priorityLevelConfiguration: { name: 'global-default' },
      matchingPrecedence: 7000,
      rules: [{ subjects: [{ kind: 'User', user: { name: marker } }], nonResourceRules: [{ verbs: ['get'], nonResourceURLs: ['/marker'] }] }],
    },
  };
}

/** Every file under `dir` whose bytes contain `needle`. */
export async function filesContaining(dir: string, needle: string): Promise<string[]> {
  const found: string[] = [];
  const bytes = Buffer.from(needle, 'utf8');
  let scanned = 0;
  for (const entry of await readdir(dir, { recursive: true, withFileTypes: true })) {
    if (!entry.isFile()) continue;
    const path = join(entry.parentPath, entry.name);
    scanned++;
    if ((await readFile(path)).includes(bytes)) found.push(path);
  }
  if (scanned === 0) throw new Error(`no files under ${dir}`);
  return found;
}

/** The stored value of every object key in a LevelDB store nobody has open. */
export async function storedValues(storeDir: string): Promise<Map<string, Buffer>> {
  const db = new ClassicLevel<string, Uint8Array>(storeDir, { keyEncoding: 'utf8', valueEncoding: 'view' });
  const values = new Map<string, Buffer>();
  for await (const [key, value] of db.iterator({ gte: '/registry/', lt: '/registry0' })) values.set(key, Buffer.from(value));
  await db.close();
  return values;
}

/** Replaces one stored value in a LevelDB store nobody has open. */
export async function putStoredValue(storeDir: string, key: string, value: Uint8Array): Promise<void> {
  const db = new ClassicLevel<string, Uint8Array>(storeDir, { keyEncoding: 'utf8', valueEncoding: 'view' });
  await db.put(key, value);
  await db.close();
}

export interface ListeningServer {
  client: TestClient;
  stderr(): string;
  /** The exit code (SIGTERM first if still running). */
  stop(): Promise<number | null>;
  exited: Promise<number | null>;
}

/**
 * `fairway serve --storage-backend=leveldb` on `dataDir`, resolved once it answers HTTP (any
 * status) or rejected with its stderr if it exits first.
 */
export async function startListening(dataDir: string, args: string[]): Promise<ListeningServer> {
  const port = await freePort();
  const child = spawn(process.execPath, [LAUNCHER, 'serve', `--data-dir=${dataDir}`, `--secure-port=${port}`, '--storage-backend=leveldb', ...args], {
    cwd: ROOT,
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let stderr = '';
  child.stderr!.on('data', (chunk: Buffer) => (stderr += chunk.toString('utf8')));
  let code: number | null | undefined;
  const exited = new Promise<number | null>((resolve) => child.once('exit', (c) => resolve((code = c))));
  killOnExit(child);
  const stop = async () => {
    if (code === undefined) child.kill('SIGTERM');
    return exited;
  };
  for (;;) {
    if (code !== undefined) throw new Error(`fairway serve exited with ${code} before it listened:\n${stderr}`);
    try {
      const kubeconfig = await readFile(join(dataDir, 'admin.kubeconfig'), 'utf8');
      if (kubeconfig.includes(`:${port}`)) {
        const token = (await readFile(join(dataDir, 'admin.token'), 'utf8')).trim();
        const client = createTestClient(`https://127.0.0.1:${port}`, { token, caPem: await readFile(join(dataDir, 'pki', 'ca.crt'), 'utf8') });
        await client.get('/livez');
        return { client, stderr: () => stderr, stop, exited };
      }
    } catch {
      // not yet
    }
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/** Runs `fairway <args>` to completion. */
export function runFairway(args: string[]): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [LAUNCHER, ...args], { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout!.on('data', (chunk: Buffer) => (stdout += chunk.toString('utf8')));
    child.stderr!.on('data', (chunk: Buffer) => (stderr += chunk.toString('utf8')));
    child.once('exit', (code) => resolve({ code, stdout, stderr }));
  });
}

/** Polls `probe` every 100 ms until it returns a value, or fails after `limitMs` with `what`. */
export async function eventually<T>(what: string, limitMs: number, probe: () => Promise<T | undefined>): Promise<T> {
  const deadline = Date.now() + limitMs;
  for (;;) {
    const value = await probe();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}
