// Kubernetes audit logs (JSON lines of audit.k8s.io/v1 Events, as the log backend writes them)
// turned into a replayable workload: when each request arrived, who made it, what it asked for,
// and how long the server took to answer it. Replaying that through another APF configuration
// answers "what would this change have done to yesterday's traffic".
//
// Choices, documented in docs/simulator.md:
// - Only one event per request counts: the `ResponseComplete` (or `Panic`) stage; other stages are
//   skipped, as are duplicate audit IDs.
// - Service time = stageTimestamp − requestReceivedTimestamp, minus the APF queue wait the server
//   recorded in the `apiserver.latency.k8s.io/apf-queue-wait` annotation when present, so the
//   original configuration's queuing is not counted twice.
// - Watches hold their seats only until initialised, so they are replayed with a zero service
//   time; other long-running requests (exec, attach, portforward, proxy, log) bypass APF in
//   kube-apiserver and are skipped.
// - The user APF classifies is the impersonated one when the event has `impersonatedUser`.

import { readFile } from 'node:fs/promises';
import { parseDurationMs } from './duration.ts';
import type { RequestShape } from './request-shape.ts';

export const APF_QUEUE_WAIT_ANNOTATION = 'apiserver.latency.k8s.io/apf-queue-wait';
const LONG_RUNNING_SUBRESOURCES = new Set(['attach', 'exec', 'proxy', 'log', 'portforward']);
const MAX_ERRORS = 20;

export interface ReplayRequest {
  /** Milliseconds after the first request of the log. */
  arrivalMs: number;
  serviceMs: number;
  shape: RequestShape;
  /** The client's User-Agent header as the event recorded it ("" if absent). */
  userAgent: string;
  query: Record<string, string>;
  /** The status code the request originally got (429 means APF rejected it then). */
  originalCode: number | undefined;
  line: number;
}

export interface AuditLog {
  file: string;
  requests: ReplayRequest[];
  /** Epoch milliseconds of the first arrival (for the report). */
  startEpochMs: number;
  skipped: { otherStage: number; duplicate: number; longRunning: number; blank: number };
  errors: string[];
}

export async function readAuditLog(file: string): Promise<AuditLog> {
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (error) {
    const code = (error as { code?: string }).code;
    return emptyLog(file, [`${file}: cannot read: ${code === 'ENOENT' ? 'no such file or directory' : String(error)}`]);
  }
  return parseAuditLog(text, file);
}

export function parseAuditLog(text: string, file: string): AuditLog {
  const log = emptyLog(file, []);
  const seen = new Set<string>();
  const raw: (ReplayRequest & { receivedEpochMs: number })[] = [];
  const lines = text.split('\n');
  for (let i = 0; i < lines.length; i++) {
    const lineNumber = i + 1;
    const line = lines[i]!.trim();
    if (line === '') {
      log.skipped.blank++;
      continue;
    }
    const fail = (message: string) => {
      if (log.errors.length < MAX_ERRORS) log.errors.push(`${file}:${lineNumber}: ${message}`);
    };
    let event: unknown;
    try {
      event = JSON.parse(line);
    } catch (error) {
      fail(`invalid JSON: ${error instanceof Error ? error.message.split('\n')[0] : String(error)}`);
      continue;
    }
    if (!isObject(event)) {
      fail('expected an audit Event object');
      continue;
    }
    const stage = event.stage;
    if (stage !== undefined && stage !== 'ResponseComplete' && stage !== 'Panic') {
      log.skipped.otherStage++;
      continue;
    }
    if (typeof event.auditID === 'string') {
      if (seen.has(event.auditID)) {
        log.skipped.duplicate++;
        continue;
      }
      seen.add(event.auditID);
    }
    const parsed = parseEvent(event, fail);
    if (parsed === undefined) continue;
    if (parsed === 'long-running') {
      log.skipped.longRunning++;
      continue;
    }
    raw.push({ ...parsed, line: lineNumber, arrivalMs: 0 });
  }
  if (raw.length === 0 && log.errors.length === 0) log.errors.push(`${file}: no replayable audit events (want JSON lines with stage ResponseComplete)`);
  // Stable sort: requests received in the same microsecond keep the log's order.
  raw.sort((a, b) => a.receivedEpochMs - b.receivedEpochMs || a.line - b.line);
  const start = raw[0]?.receivedEpochMs ?? 0;
  log.startEpochMs = start;
  log.requests = raw.map(({ receivedEpochMs, ...request }) => ({ ...request, arrivalMs: receivedEpochMs - start }));
  return log;
}

type ParsedEvent = Omit<ReplayRequest, 'arrivalMs' | 'line'> & { receivedEpochMs: number };

function parseEvent(event: Record<string, unknown>, fail: (message: string) => void): ParsedEvent | 'long-running' | undefined {
  const verb = event.verb;
  if (typeof verb !== 'string' || verb === '') return (fail('verb: required'), undefined);
  const account = isObject(event.impersonatedUser) ? event.impersonatedUser : event.user;
  const field = isObject(event.impersonatedUser) ? 'impersonatedUser' : 'user';
  if (!isObject(account) || typeof account.username !== 'string') return (fail(`${field}.username: required`), undefined);
  const groups = Array.isArray(account.groups) ? account.groups.filter((g): g is string => typeof g === 'string') : [];
  const received = parseTimestamp(event.requestReceivedTimestamp);
  if (received === undefined)
    return (fail(`requestReceivedTimestamp: want an RFC 3339 time, got ${JSON.stringify(event.requestReceivedTimestamp)}`), undefined);
  const completed = parseTimestamp(event.stageTimestamp);
  if (completed === undefined) return (fail(`stageTimestamp: want an RFC 3339 time, got ${JSON.stringify(event.stageTimestamp)}`), undefined);
  if (completed < received) return (fail('stageTimestamp is before requestReceivedTimestamp'), undefined);

  const uri = typeof event.requestURI === 'string' ? event.requestURI : '';
  const queryStart = uri.indexOf('?');
  const path = queryStart < 0 ? uri : uri.slice(0, queryStart);
  const query = queryStart < 0 ? {} : Object.fromEntries(new URLSearchParams(uri.slice(queryStart + 1)));
  const ref = isObject(event.objectRef) ? event.objectRef : undefined;
  const str = (v: unknown) => (typeof v === 'string' ? v : '');
  const subresource = str(ref?.subresource);
  if (verb === 'proxy' || LONG_RUNNING_SUBRESOURCES.has(subresource)) return 'long-running';
  if (ref === undefined && path === '') return (fail('objectRef or requestURI: required'), undefined);

  let serviceMs = completed - received;
  const annotations = isObject(event.annotations) ? event.annotations : {};
  const queueWait = annotations[APF_QUEUE_WAIT_ANNOTATION];
  if (typeof queueWait === 'string') {
    const wait = parseDurationMs(queueWait);
    if (wait.ok) serviceMs = Math.max(0, serviceMs - wait.ms);
  }
  if (verb === 'watch') serviceMs = 0;
  const status = isObject(event.responseStatus) ? event.responseStatus : undefined;
  const shape: RequestShape = {
    user: account.username,
    groups,
    verb,
    resource: ref === undefined ? '' : str(ref.resource),
    apiGroup: str(ref?.apiGroup),
    apiVersion: str(ref?.apiVersion) || 'v1',
    namespace: str(ref?.namespace),
    subresource,
    name: str(ref?.name),
    nonResourcePath: ref === undefined ? path : '',
  };
  const userAgent = typeof event.userAgent === 'string' ? event.userAgent : '';
  return { receivedEpochMs: received, serviceMs, shape, userAgent, query, originalCode: typeof status?.code === 'number' ? status.code : undefined };
}

/** RFC 3339 with up to nanosecond fractions, to fractional epoch milliseconds (µs kept). */
export function parseTimestamp(value: unknown): number | undefined {
  if (typeof value !== 'string') return undefined;
  const m = /^(\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2})(?:\.(\d{1,9}))?(Z|[+-]\d{2}:\d{2})$/.exec(value);
  if (m === null) return undefined;
  const whole = Date.parse(`${m[1]}${m[3]}`);
  if (Number.isNaN(whole)) return undefined;
  const fraction = m[2] === undefined ? 0 : Number(`0.${m[2]}`) * 1000;
  return whole + Math.round(fraction * 1000) / 1000;
}

function emptyLog(file: string, errors: string[]): AuditLog {
  return { file, requests: [], startEpochMs: 0, skipped: { otherStage: 0, duplicate: 0, longRunning: 0, blank: 0 }, errors };
}

function isObject(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}
