// The overload scenario of the flow-control and reliability end-to-end tests: a real `fairway
// serve` with a small concurrency limit (ServerCL 30), three users, and two levels of our own.
//
//   flooder → FlowSchema e2e-flood → PLC e2e-flood: Limited, 10 shares (NominalCL 2), Reject,
//             neither lends nor borrows
//   bob     → FlowSchema e2e-other → PLC e2e-other: Limited, 40 shares (NominalCL 5), queues
//   admin   → system:masters → exempt
//
// The flood is real work: `bulkObjects` FlowSchemas with a padding annotation make one LIST of the
// collection several megabytes (and 10 seats by the work estimator: a level of 2 seats runs one at
// a time), and the flooding clients read their responses slowly (`holdMs`), as clients on a slow
// link do. A LIST holds its seats until its body is on the socket, so an admitted LIST keeps the
// level full and every other LIST of the flood is rejected at once.
import { spawn } from 'node:child_process';
import { killOnExit } from '../../testing/kill-on-exit.ts';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { startServerProcess, type ServerProcess, type StartOptions } from './server-process.ts';
import { closedLoop, percentile, sleep, StatusCounts, timedRequest, type Endpoint, type TimedResponse } from '../../testing/load.ts';

export const GROUP = 'flowcontrol.apiserver.k8s.io';
export const FS_PATH = `/apis/${GROUP}/v1/flowschemas`;
export const PLC_PATH = `/apis/${GROUP}/v1/prioritylevelconfigurations`;
export const FLOOD_LEVEL = 'e2e-flood';
export const OTHER_LEVEL = 'e2e-other';
export const TOKENS = { flooder: 'flooder-token-000000000001', bob: 'bob-token-00000000000000002' } as const;

export interface OverloadServer {
  server: ServerProcess;
  endpoint: Endpoint;
  /** Bearer tokens: admin (system:masters, exempt), flooder and bob. */
  tokens: { admin: string; flooder: string; bob: string };
  close(): Promise<number | null>;
}

export interface OverloadServerOptions {
  /** FlowSchemas that make the flooded LIST heavy. */
  bulkObjects: number;
  /** Padding per bulk object, in bytes of annotation. */
  annotationBytes: number;
  start?: StartOptions;
}

const level = (name: string, shares: number, limitResponse: object) => ({
  apiVersion: `${GROUP}/v1`,
  kind: 'PriorityLevelConfiguration',
  metadata: { name },
  spec: { type: 'Limited', limited: { nominalConcurrencyShares: shares, lendablePercent: 0, borrowingLimitPercent: 0, limitResponse } },
});

const schema = (name: string, levelName: string, user: string, precedence: number, extraMetadata: object = {}) => ({
  apiVersion: `${GROUP}/v1`,
  kind: 'FlowSchema',
  metadata: { name, ...extraMetadata },
  spec: {
    priorityLevelConfiguration: { name: levelName },
    matchingPrecedence: precedence,
    distinguisherMethod: { type: 'ByUser' },
    rules: [
      {
        subjects: [{ kind: 'User', user: { name: user } }],
        resourceRules: [{ verbs: ['*'], apiGroups: ['*'], resources: ['*'], clusterScope: true, namespaces: ['*'] }],
        nonResourceRules: [{ verbs: ['*'], nonResourceURLs: ['*'] }],
      },
    ],
  },
});

async function mustCreate(endpoint: Endpoint, token: string, path: string, object: object): Promise<void> {
  const response = await timedRequest(endpoint, path, { method: 'POST', token, body: JSON.stringify(object) });
  if (response.status !== 201) throw new Error(`creating ${path}: ${response.status} ${response.text}${response.error ?? ''}`);
}

/** Starts the server, creates the two levels, their schemas and the bulk objects. */
export async function startOverloadServer(options: OverloadServerOptions): Promise<OverloadServer> {
  const dir = await mkdtemp(join(tmpdir(), 'fairway-overload-'));
  const tokenFile = join(dir, 'tokens.csv');
  await writeFile(tokenFile, `${TOKENS.flooder},flooder,uid-flooder,"e2e"\n${TOKENS.bob},bob,uid-bob,"e2e"\n`);
  const start = options.start ?? {};
  const server = await startServerProcess({
    ...start,
    args: ['--max-requests-inflight=20', '--max-mutating-requests-inflight=10', `--token-auth-file=${tokenFile}`, ...(start.args ?? [])],
  });
  const endpoint: Endpoint = { url: server.url, caPem: server.caPem };
  const admin = server.token;
  await mustCreate(endpoint, admin, PLC_PATH, level(FLOOD_LEVEL, 10, { type: 'Reject' }));
  await mustCreate(endpoint, admin, PLC_PATH, level(OTHER_LEVEL, 40, { type: 'Queue', queuing: { queues: 8, handSize: 2, queueLengthLimit: 50 } }));
  await mustCreate(endpoint, admin, FS_PATH, schema(FLOOD_LEVEL, FLOOD_LEVEL, 'flooder', 500));
  await mustCreate(endpoint, admin, FS_PATH, schema(OTHER_LEVEL, OTHER_LEVEL, 'bob', 500));
  const padding = 'x'.repeat(options.annotationBytes);
  const names = Array.from({ length: options.bulkObjects }, (_, i) => `bulk-${String(i).padStart(5, '0')}`);
  // Matching nobody, after our schemas and before the defaults' catch-alls: never scanned by the test's users.
  const creators = closedLoop(8, async () => {
    const name = names.pop();
    if (name === undefined) return sleep(1);
    await mustCreate(endpoint, admin, FS_PATH, schema(name, OTHER_LEVEL, 'nobody', 9000, { annotations: { 'e2e.fairway.io/padding': padding } }));
  });
  while (names.length > 0) await sleep(20);
  await creators.stop();
  return {
    server,
    endpoint,
    tokens: { admin, flooder: TOKENS.flooder, bob: TOKENS.bob },
    async close() {
      const code = await server.stop();
      await rm(dir, { recursive: true, force: true });
      return code;
    },
  };
}

export interface FloodResult {
  counts: StatusCounts;
  /** Retry-After values of the 429s. */
  retryAfterSeconds: number[];
  /** 429s without a Retry-After header. */
  missingRetryAfter: number;
  /** Status bodies of 5xx answers and connection failures, for the failure message. */
  failures: string[];
  /** The first 429, whole. */
  sampleRejection?: TimedResponse;
}

export interface FloodOptions {
  workers: number;
  /** How long each admitted LIST sits unread before the client reads it. */
  holdMs: number;
  /** Pause after a 429 before the next try (0: retry at once, as a misbehaving client does). */
  backoffMs: number;
}

/** `workers` closed-loop clients LISTing the bulk collection as `token`, in this process, until `stop()`. */
export function floodLoop(endpoint: Endpoint, token: string, options: FloodOptions, onFirstAnswer?: () => void): { stop(): Promise<FloodResult> } {
  const result: FloodResult = { counts: new StatusCounts(), retryAfterSeconds: [], missingRetryAfter: 0, failures: [] };
  const loop = closedLoop(options.workers, async () => {
    const response = await timedRequest(endpoint, FS_PATH, { token, holdMs: options.holdMs, holdOnlyOk: true, discardBody: true });
    if (result.counts.total === 0) onFirstAnswer?.();
    result.counts.add(response.status);
    if (response.status === 429) {
      result.sampleRejection ??= response;
      const header = response.headers['retry-after'];
      if (typeof header === 'string') result.retryAfterSeconds.push(Number(header));
      else result.missingRetryAfter++;
      if (options.backoffMs > 0) await sleep(options.backoffMs);
    } else if (response.status === 0 || response.status >= 500) {
      result.failures.push(`${response.status} ${response.error ?? response.text.slice(0, 300)}`);
    }
  });
  return {
    async stop() {
      await loop.stop();
      return result;
    },
  };
}

const FLOOD_PROCESS = fileURLToPath(new URL('./flood-process.ts', import.meta.url));

/**
 * The flood as the flooding user, from a child process (flood-process.ts): its clients then never
 * share an event loop with the probes, whose latencies would otherwise include the time this
 * process spends receiving 10 MB LISTs and hundreds of 429s.
 */
export async function startFlood(target: OverloadServer, options: FloodOptions): Promise<{ stop(): Promise<FloodResult> }> {
  const child = spawn(
    process.execPath,
    ['--import', 'tsx', FLOOD_PROCESS, JSON.stringify({ endpoint: target.endpoint, token: target.tokens.flooder, options })],
    {
      stdio: ['pipe', 'pipe', 'pipe'],
    },
  );
  let stdout = '';
  let stderr = '';
  let flooding: () => void = () => undefined;
  const started = new Promise<void>((resolve) => (flooding = resolve));
  child.stdout.on('data', (chunk: Buffer) => {
    stdout += chunk.toString('utf8');
    if (stdout.startsWith(FLOODING_LINE)) flooding();
  });
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString('utf8')));
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  killOnExit(child);
  // Probes measure the flood, not the child's start-up: wait for its first answer.
  await Promise.race([started, exited]);
  return {
    async stop() {
      child.stdin.end();
      const code = await exited;
      if (code !== 0 || !stdout.startsWith(FLOODING_LINE)) throw new Error(`the flood process exited with ${code}: ${stderr}`);
      return decodeFloodResult(stdout.slice(FLOODING_LINE.length));
    },
  };
}

/** What flood-process.ts prints once its first request was answered. */
export const FLOODING_LINE = 'flooding\n';

/** One line of JSON: what flood-process.ts prints when its stdin closes. */
export function encodeFloodResult(result: FloodResult): string {
  const { sampleRejection, counts, ...rest } = result;
  return JSON.stringify({ ...rest, counts: [...counts.byStatus], sampleRejection });
}

function decodeFloodResult(text: string): FloodResult {
  const parsed = JSON.parse(text) as Omit<FloodResult, 'counts'> & { counts: [number, number][] };
  const counts = new StatusCounts();
  for (const [status, count] of parsed.counts) for (let i = 0; i < count; i++) counts.add(status);
  return { ...parsed, counts };
}

export interface ProbeResult {
  counts: StatusCounts;
  latenciesMs: number[];
  failures: string[];
}

/**
 * One client sending small requests back to back (a GET of one object, a LIST of 20) for
 * `durationMs`, as `token`; returns every latency.
 */
export async function probe(target: OverloadServer, token: string, durationMs: number): Promise<ProbeResult> {
  const result: ProbeResult = { counts: new StatusCounts(), latenciesMs: [], failures: [] };
  const endAtMs = performance.now() + durationMs;
  for (let i = 0; performance.now() < endAtMs; i++) {
    const path = i % 2 === 0 ? `${FS_PATH}/${OTHER_LEVEL}` : `${FS_PATH}?limit=20`;
    const response: TimedResponse = await timedRequest(target.endpoint, path, { token });
    result.counts.add(response.status);
    result.latenciesMs.push(response.ms);
    if (response.status !== 200) result.failures.push(`${path}: ${response.status} ${response.error ?? response.text.slice(0, 300)}`);
  }
  return result;
}

export interface LatencySummary {
  requests: number;
  p50Ms: number;
  p99Ms: number;
}

export function summarize(latenciesMs: readonly number[]): LatencySummary {
  return { requests: latenciesMs.length, p50Ms: percentile(latenciesMs, 50), p99Ms: percentile(latenciesMs, 99) };
}
