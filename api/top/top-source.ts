// Where `fairway top` reads from: the kubeconfig's server with the kubeconfig's user, through the
// standard endpoints only (/metrics, and the APF debug dumps when the user may read them). A
// refusal is told as the permission that is missing, in RBAC's words, so that an operator can
// grant it; an unreachable server as the address tried and why.

import type { WebhookConnection } from '../../engine/auth/webhook-kubeconfig.ts';
import type { Clock } from '../../engine/clock.ts';
import { apiGet, MAX_RESPONSE_BYTES, type ApiResponse } from '../../sim/import/api-reader.ts';

export const METRICS_PATH = '/metrics';
export const DUMP_PRIORITY_LEVELS = '/debug/api_priority_and_fairness/dump_priority_levels';
export const DUMP_REQUESTS = '/debug/api_priority_and_fairness/dump_requests';
const DEBUG_GRANT = '/debug/api_priority_and_fairness/*';
const DUMP_ANY = '/debug/api_priority_and_fairness/dump_*';

export interface Scrape {
  metrics: string;
  dumpPriorityLevels?: string;
  dumpRequests?: string;
  /** What could not be read, and why (shown on the screen, and in -o json). */
  notices: string[];
}

/** The scrape failed as a whole: /metrics could not be read. */
export class ScrapeError extends Error {}

/** The user a Status refusal names (`User "x" cannot get path "/metrics"`), if it does. */
export function refusedUser(body: string): string | undefined {
  try {
    const message = (JSON.parse(body) as { message?: unknown }).message;
    if (typeof message === 'string') return /User "((?:[^"\\]|\\.)*)"/.exec(message)?.[1];
  } catch {
    // not a Status
  }
  return undefined;
}

/** What a 401 or 403 on `path` means to the operator, with the rule that would allow it. */
export function refusalMessage(path: string, status: number, body: string, grant: string = path): string {
  if (status === 401) {
    return (
      `the server did not accept the kubeconfig's credentials for ${path} (401 Unauthorized): check its user's token or client ` +
      "certificate (an exec plugin's token may have expired: run again; auth-providers are not run)"
    );
  }
  const user = refusedUser(body);
  return (
    `${user === undefined ? "the kubeconfig's user" : `user "${user}"`} may not get nonResourceURL ${path}: ` +
    `needs a ClusterRole with nonResourceURLs [${grant}] verbs [get], bound to that user`
  );
}

/** A network failure as the operator would describe it. */
export function unreachableMessage(server: string, error: unknown): string {
  const code = (error as { code?: unknown } | null)?.code;
  const why =
    code === 'ECONNREFUSED'
      ? "connection refused (is the server running, and is the kubeconfig's server address right?)"
      : code === 'ENOTFOUND' || code === 'EAI_AGAIN'
        ? 'no such host'
        : code === 'ETIMEDOUT' || code === 'EHOSTUNREACH' || code === 'ENETUNREACH'
          ? 'no route to the server (timed out)'
          : error instanceof Error
            ? error.message
            : String(error);
  return `cannot reach ${server}: ${why}`;
}

type Settled = PromiseSettledResult<ApiResponse>;

const okBody = (result: Settled) => (result.status === 'fulfilled' && result.value.status === 200 ? result.value.body : undefined);

/** Why an optional endpoint could not be read, naming its path. */
function problem(result: Settled, path: string): string {
  if (result.status === 'rejected') return `${path}: ${result.reason instanceof Error ? result.reason.message : String(result.reason)}`;
  const { status, body } = result.value;
  if (status === 401 || status === 403) return refusalMessage(path, status, body, DEBUG_GRANT);
  return `${path}: HTTP ${status} (is API Priority and Fairness enabled?)`;
}

export function createSource(connection: WebhookConnection, clock: Clock, requestTimeoutMs: number) {
  const server = connection.url.origin;
  const get = (path: string) =>
    apiGet(connection, path, { clock, deadlineMs: requestTimeoutMs, maxBytes: MAX_RESPONSE_BYTES, accept: 'text/plain', userAgent: 'fairway-top' });
  return {
    server,
    async scrape(): Promise<Scrape> {
      const settled = await Promise.allSettled([get(METRICS_PATH), get(DUMP_PRIORITY_LEVELS), get(DUMP_REQUESTS)]);
      const [metrics, levels, requests] = settled;
      if (metrics.status === 'rejected') throw new ScrapeError(unreachableMessage(server, metrics.reason));
      if (metrics.value.status === 401 || metrics.value.status === 403)
        throw new ScrapeError(refusalMessage(METRICS_PATH, metrics.value.status, metrics.value.body));
      if (metrics.value.status !== 200)
        throw new ScrapeError(`GET ${server}${METRICS_PATH}: HTTP ${metrics.value.status}: ${metrics.value.body.slice(0, 200)}`);
      const scrape: Scrape = { metrics: metrics.value.body, notices: [] };
      const levelsBody = okBody(levels);
      const requestsBody = okBody(requests);
      if (levelsBody !== undefined) scrape.dumpPriorityLevels = levelsBody;
      if (requestsBody !== undefined) scrape.dumpRequests = requestsBody;
      const levelsProblem = levelsBody === undefined ? problem(levels, DUMP_PRIORITY_LEVELS) : undefined;
      const requestsProblem = requestsBody === undefined ? problem(requests, DUMP_REQUESTS) : undefined;
      // Both dumps refused for the same reason (the usual case: a monitoring user): one line.
      const both = levelsProblem !== undefined && levelsProblem === requestsProblem?.replace(DUMP_REQUESTS, DUMP_PRIORITY_LEVELS);
      if (both) scrape.notices.push(`${levelsProblem.replace(DUMP_PRIORITY_LEVELS, DUMP_ANY)}; active queues and flows are not shown`);
      else {
        if (levelsProblem !== undefined) scrape.notices.push(`${levelsProblem}; active queues are not shown`);
        if (requestsProblem !== undefined) scrape.notices.push(`${requestsProblem}; flows are not shown`);
      }
      return scrape;
    },
  };
}
