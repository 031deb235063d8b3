// /healthz, /livez and /readyz as kube-apiserver serves them: `ok` when every check passes; with
// `?verbose`, or on failure (HTTP 500), one `[+]name ok` / `[-]name failed: reason withheld` line per
// check and a closing summary. `/<endpoint>/<check>` runs one check. `?exclude=<check>` skips one.
import type { RequestContext } from '../request/http-context.ts';

export interface HealthCheck {
  name: string;
  /** undefined when healthy, else the reason (logged, never sent). */
  check(): string | undefined;
}

export interface HealthChecks {
  healthz: readonly HealthCheck[];
  livez: readonly HealthCheck[];
  readyz: readonly HealthCheck[];
}

export const HEALTH_ENDPOINTS = ['/healthz', '/livez', '/readyz'] as const;

const HEALTH_PREFIXES: readonly string[] = HEALTH_ENDPOINTS.map((endpoint) => `${endpoint}/`);

/** The health endpoint `path` is, or is a check of. Asked for every request authorized: no closure or string made per call. */
function healthEndpointOf(path: string): (typeof HEALTH_ENDPOINTS)[number] | undefined {
  for (let i = 0; i < HEALTH_ENDPOINTS.length; i++) if (path === HEALTH_ENDPOINTS[i] || path.startsWith(HEALTH_PREFIXES[i]!)) return HEALTH_ENDPOINTS[i];
  return undefined;
}

/** True for the paths that need no credentials. */
export function isHealthPath(path: string): boolean {
  return healthEndpointOf(path) !== undefined;
}

function sendPlain(context: RequestContext, code: number, body: string): void {
  const { res } = context;
  res.statusCode = code;
  res.setHeader('Content-Type', 'text/plain; charset=utf-8');
  res.setHeader('X-Content-Type-Options', 'nosniff');
  res.setHeader('Content-Length', Buffer.byteLength(body));
  res.end(body);
}

/** Serves a health path; false when `path` is not one. */
export function serveHealth(context: RequestContext, checks: HealthChecks): boolean {
  const path = context.requestInfo.path.replace(/\/+$/, '');
  const endpoint = healthEndpointOf(path);
  if (endpoint === undefined) return false;
  const name = endpoint.slice(1) as keyof HealthChecks;
  const single = path.slice(endpoint.length + 1);
  const all = checks[name];
  if (single !== '') {
    const check = all.find((c) => c.name === single);
    if (check === undefined) {
      sendPlain(context, 404, '404 page not found\n');
      return true;
    }
    const problem = check.check();
    sendPlain(context, problem === undefined ? 200 : 500, problem === undefined ? 'ok' : `internal server error: ${check.name} failed\n`);
    return true;
  }
  const excluded = new Set(context.query.getAll('exclude'));
  const lines: string[] = [];
  let failed = false;
  for (const check of all) {
    if (excluded.has(check.name)) {
      lines.push(`[+]${check.name} excluded: ok`);
      continue;
    }
    const problem = check.check();
    if (problem === undefined) lines.push(`[+]${check.name} ok`);
    else {
      failed = true;
      lines.push(`[-]${check.name} failed: reason withheld`);
    }
  }
  const verbose = context.query.has('verbose');
  if (!failed && !verbose) {
    sendPlain(context, 200, 'ok');
    return true;
  }
  lines.push(failed ? `${name} check failed` : `${name} check passed`);
  sendPlain(context, failed ? 500 : 200, `${lines.join('\n')}\n`);
  return true;
}
