// A real authorization webhook, run as its own process by tests (webhook-process.ts starts it):
// an HTTPS server answering SubjectAccessReviews the way its control file says. The control file
// is re-read on every call, so a test changes the webhook's behaviour while it runs.
//
//   node --import tsx webhook-server.ts --cert F --key F --control F --log F [--client-ca F] [--token T]
//
// Control (JSON): { mode, reason, rules, failFirst, apiVersion }
//   mode: allow | deny | noOpinion | both (allowed and denied) | hang (never answers) |
//         garbage (200 with a body that is not JSON) | status500 | rules (first matching rule)
//   rules: [{ user?, verb?, resource?, path?, nonResource?, decision, reason? }]  (mode `rules`; default noOpinion)
//   failFirst: answer the first N calls with 500 (then behave as `mode`)
//   apiVersion: answer with this apiVersion instead of echoing the request's
// Every call is appended to the log file as one JSON line; prints `ready <port>` when listening.
import { appendFileSync, readFileSync } from 'node:fs';
import { createServer } from 'node:https';
import type { TLSSocket } from 'node:tls';

interface Rule {
  user?: string;
  verb?: string;
  resource?: string;
  path?: string;
  /** Matches only non-resource requests (discovery, /version...). */
  nonResource?: boolean;
  decision: 'allow' | 'deny' | 'noOpinion';
  reason?: string;
}

interface Control {
  mode?: 'allow' | 'deny' | 'noOpinion' | 'both' | 'hang' | 'garbage' | 'status500' | 'rules';
  reason?: string;
  rules?: Rule[];
  failFirst?: number;
  apiVersion?: string;
}

const args = new Map<string, string>();
for (let i = 2; i < process.argv.length; i += 2) args.set(process.argv[i]!.replace(/^--/, ''), process.argv[i + 1] ?? '');
const need = (name: string): string => {
  const value = args.get(name);
  if (value === undefined || value === '') throw new Error(`--${name} is required`);
  return value;
};
const controlPath = need('control');
const logPath = need('log');
const clientCa = args.get('client-ca');
const token = args.get('token');
let calls = 0;

const server = createServer(
  {
    cert: readFileSync(need('cert')),
    key: readFileSync(need('key')),
    ...(clientCa !== undefined ? { ca: readFileSync(clientCa), requestCert: true, rejectUnauthorized: true } : {}),
  },
  (req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      calls++;
      const control = readControl();
      const text = Buffer.concat(chunks).toString('utf8');
      let review: { apiVersion?: string; spec?: Record<string, unknown> } = {};
      try {
        review = JSON.parse(text) as typeof review;
      } catch {
        // logged as is below
      }
      const peer = (req.socket as TLSSocket).getPeerCertificate?.();
      const entry = {
        call: calls,
        url: req.url,
        authorization: req.headers.authorization ?? '',
        clientCommonName: peer?.subject?.CN ?? '',
        apiVersion: review.apiVersion,
        spec: review.spec,
        body: text,
      };
      appendFileSync(logPath, `${JSON.stringify(entry)}\n`);
      if (token !== undefined && req.headers.authorization !== `Bearer ${token}`)
        return send(401, { kind: 'Status', apiVersion: 'v1', status: 'Failure', message: 'Unauthorized', code: 401 });
      if (calls <= (control.failFirst ?? 0)) return send(500, 'webhook failing on purpose');
      const apiVersion = control.apiVersion ?? review.apiVersion ?? 'authorization.k8s.io/v1';
      const status = (allowed: boolean, denied: boolean, reason?: string) => {
        const body: Record<string, unknown> = { allowed };
        if (denied) body.denied = true;
        if (reason !== undefined && reason !== '') body.reason = reason;
        send(200, { apiVersion, kind: 'SubjectAccessReview', status: body });
      };
      switch (control.mode ?? 'allow') {
        case 'hang':
          return; // never answers; the client's timeout ends it
        case 'garbage':
          return send(200, 'this is not a SubjectAccessReview{');
        case 'status500':
          return send(500, 'internal trouble');
        case 'allow':
          return status(true, false, control.reason);
        case 'deny':
          return status(false, true, control.reason);
        case 'noOpinion':
          return status(false, false, control.reason);
        case 'both':
          return status(true, true, control.reason);
        case 'rules': {
          const rule = (control.rules ?? []).find((r) => ruleMatches(r, review.spec ?? {}));
          const decision = rule?.decision ?? 'noOpinion';
          return status(decision === 'allow', decision === 'deny', rule?.reason);
        }
      }
    });
    function send(code: number, body: unknown): void {
      const text = typeof body === 'string' ? body : JSON.stringify(body);
      res.writeHead(code, { 'Content-Type': typeof body === 'string' ? 'text/plain' : 'application/json' });
      res.end(text);
    }
  },
);

function readControl(): Control {
  try {
    return JSON.parse(readFileSync(controlPath, 'utf8')) as Control;
  } catch {
    return {};
  }
}

function ruleMatches(rule: Rule, spec: Record<string, unknown>): boolean {
  const resource = (spec.resourceAttributes ?? {}) as Record<string, unknown>;
  const nonResource = (spec.nonResourceAttributes ?? {}) as Record<string, unknown>;
  const verb = resource.verb ?? nonResource.verb;
  if (rule.user !== undefined && rule.user !== spec.user) return false;
  if (rule.verb !== undefined && rule.verb !== verb) return false;
  if (rule.resource !== undefined && rule.resource !== resource.resource) return false;
  if (rule.path !== undefined && rule.path !== nonResource.path) return false;
  if (rule.nonResource === true && spec.nonResourceAttributes === undefined) return false;
  return true;
}

server.listen(Number(args.get('port') ?? '0'), '127.0.0.1', () => {
  const address = server.address();
  process.stdout.write(`ready ${typeof address === 'object' && address !== null ? address.port : 0}\n`);
});
process.on('SIGTERM', () => {
  server.closeAllConnections();
  server.close(() => process.exit(0));
});
