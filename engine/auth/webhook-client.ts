// The HTTPS client a webhook authorizer posts reviews with, behaving as client-go's generic webhook
// client does: one POST of JSON to the kubeconfig's URL with `?timeout=<per-attempt timeout>`
// added, the kubeconfig's CA / client certificate / token, and the retry policy of
// `webhook.WithExponentialBackoff` + `DefaultShouldRetry`: up to 5 attempts, 500 ms initial
// backoff ×1.5 with 20% jitter, retrying only connection resets, 500s, 504s, 429s and answers
// with Retry-After. A refused connection, a timed-out attempt, other statuses and undecodable
// bodies are not retried. Timers and jitter come from the injected Clock and Prng.
import { Agent, request } from 'node:https';
import type { IncomingMessage } from 'node:http';
import type { Clock } from '../clock.ts';
import type { Prng } from '../random.ts';
import { formatGoDuration } from '../go-duration.ts';
import type { WebhookConnection } from './webhook-kubeconfig.ts';

export type CallFailureKind = 'timeout' | 'error' | 'canceled';

export type CallOutcome = { ok: true; statusCode: number; body: string } | { ok: false; kind: CallFailureKind; error: string; retryable: boolean };

export interface RetryBackoff {
  initialMs: number;
  factor: number;
  jitter: number;
  steps: number;
}

export const DEFAULT_RETRY_BACKOFF: RetryBackoff = { initialMs: 500, factor: 1.5, jitter: 0.2, steps: 5 };

/** Largest response body read; a bigger one is a failed call, not a memory problem. */
const MAX_RESPONSE_BYTES = 3 * 1024 * 1024;

export interface WebhookClient {
  /** One attempt; never rejects. */
  post(body: string, signal?: AbortSignal): Promise<CallOutcome>;
  close(): void;
}

export function createWebhookClient(connection: WebhookConnection, options: { timeoutMs: number; clock: Clock; userAgent?: string }): WebhookClient {
  const url = new URL(connection.url);
  if (options.timeoutMs > 0) url.searchParams.set('timeout', formatGoDuration(BigInt(Math.round(options.timeoutMs * 1e6))));
  const target = url.toString();
  const agent = new Agent({
    keepAlive: true,
    ...(connection.caPem !== undefined ? { ca: connection.caPem } : {}),
    ...(connection.clientCertPem !== undefined ? { cert: connection.clientCertPem, key: connection.clientKeyPem } : {}),
    ...(connection.tlsServerName !== undefined ? { servername: connection.tlsServerName } : {}),
    rejectUnauthorized: !connection.insecureSkipTlsVerify,
  });
  const headers: Record<string, string> = {
    'Content-Type': 'application/json',
    Accept: 'application/json, */*',
    'User-Agent': options.userAgent ?? 'fairway-apiserver',
  };
  if (connection.token !== undefined) headers.Authorization = `Bearer ${connection.token}`;
  else if (connection.username !== undefined)
    headers.Authorization = `Basic ${Buffer.from(`${connection.username}:${connection.password ?? ''}`).toString('base64')}`;

  const post = (body: string, signal?: AbortSignal): Promise<CallOutcome> =>
    new Promise((resolve) => {
      const failure = (kind: CallFailureKind, detail: string, retryable = false): CallOutcome => ({
        ok: false,
        kind,
        error: `Post ${JSON.stringify(target)}: ${detail}`,
        retryable,
      });
      if (signal?.aborted) return resolve(failure('canceled', 'context canceled'));
      let settled = false;
      const settle = (outcome: CallOutcome) => {
        if (settled) return;
        settled = true;
        cancelTimer();
        signal?.removeEventListener('abort', onAbort);
        resolve(outcome);
      };
      const req = request(target, { method: 'POST', agent, headers: { ...headers, 'Content-Length': String(Buffer.byteLength(body)) } });
      const cancelTimer =
        options.timeoutMs > 0
          ? options.clock.after(options.timeoutMs, () => {
              settle(failure('timeout', 'context deadline exceeded (Client.Timeout exceeded while awaiting headers)'));
              req.destroy();
            })
          : () => undefined;
      const onAbort = () => {
        settle(failure('canceled', 'context canceled'));
        req.destroy();
      };
      signal?.addEventListener('abort', onAbort, { once: true });
      req.on('error', (error: NodeJS.ErrnoException) =>
        settle(failure('error', transportErrorText(error, url), error.code === 'ECONNRESET' || error.code === 'EPIPE')),
      );
      req.on('response', (res: IncomingMessage) => {
        const chunks: Buffer[] = [];
        let total = 0;
        res.on('data', (chunk: Buffer) => {
          total += chunk.length;
          if (total > MAX_RESPONSE_BYTES) {
            settle(failure('error', `response body larger than ${MAX_RESPONSE_BYTES} bytes`));
            req.destroy();
            return;
          }
          chunks.push(chunk);
        });
        res.on('error', (error: NodeJS.ErrnoException) => settle(failure('error', transportErrorText(error, url), error.code === 'ECONNRESET')));
        res.on('end', () => {
          const text = Buffer.concat(chunks).toString('utf8');
          const statusCode = res.statusCode ?? 0;
          if (statusCode >= 200 && statusCode <= 206) return settle({ ok: true, statusCode, body: text });
          const retryAfter = res.headers['retry-after'] !== undefined;
          settle({
            ok: false,
            kind: 'error',
            error: serverErrorText(statusCode, text),
            retryable: retryAfter || statusCode === 500 || statusCode === 504 || statusCode === 429,
          });
        });
      });
      req.end(body);
    });

  return { post, close: () => agent.destroy() };
}

/**
 * Runs `attempt` until it succeeds, fails for good, or the steps run out (the last failure is
 * returned). Sleeps between attempts go through the clock: initial, ×factor each time, each
 * stretched by up to `jitter` of itself.
 */
export function callWithBackoff(
  attempt: () => Promise<CallOutcome>,
  options: { backoff: RetryBackoff; clock: Clock; prng: Prng; signal?: AbortSignal | undefined },
): Promise<CallOutcome> {
  const { backoff, clock, prng, signal } = options;
  return new Promise((resolve) => {
    let stepsLeft = backoff.steps;
    let delayMs = backoff.initialMs;
    const run = (): void => {
      void attempt().then((outcome) => {
        stepsLeft--;
        if (outcome.ok || !outcome.retryable || stepsLeft <= 0 || signal?.aborted) return resolve(outcome);
        const sleepMs = delayMs + (backoff.jitter > 0 ? prng.next() * backoff.jitter * delayMs : 0);
        delayMs *= backoff.factor;
        const cancel = clock.after(sleepMs, () => {
          signal?.removeEventListener('abort', onAbort);
          run();
        });
        const onAbort = () => {
          cancel();
          resolve(outcome);
        };
        signal?.addEventListener('abort', onAbort, { once: true });
      });
    };
    run();
  });
}

/** Go's net/http wording for the usual transport failures. */
function transportErrorText(error: NodeJS.ErrnoException, url: URL): string {
  const address = `${url.hostname}:${url.port || '443'}`;
  switch (error.code) {
    case 'ECONNREFUSED':
      return `dial tcp ${address}: connect: connection refused`;
    case 'ECONNRESET':
      return `read tcp ${address}: read: connection reset by peer`;
    case 'ENOTFOUND':
      return `dial tcp: lookup ${url.hostname}: no such host`;
    case 'UNABLE_TO_VERIFY_LEAF_SIGNATURE':
    case 'SELF_SIGNED_CERT_IN_CHAIN':
    case 'DEPTH_ZERO_SELF_SIGNED_CERT':
      return 'tls: failed to verify certificate: x509: certificate signed by unknown authority';
    case 'ERR_TLS_CERT_ALTNAME_INVALID':
      return `tls: failed to verify certificate: x509: certificate is valid for other names, not ${url.hostname}`;
    default:
      return error.message;
  }
}

/** client-go's text for a non-2xx answer that is not a Status object. */
function serverErrorText(statusCode: number, body: string): string {
  const status = parseStatus(body);
  if (status !== undefined) return status;
  const shown = body.length > 1024 ? `${body.slice(0, 1024)}...` : body;
  switch (statusCode) {
    case 400:
      return 'the server rejected our request for an unknown reason';
    case 401:
      return 'the server has asked for the client to provide credentials';
    case 403:
      return 'the server does not allow access to the requested resource';
    case 404:
      return 'the server could not find the requested resource';
    case 429:
      return 'the server has received too many requests and has asked us to try again later';
    case 503:
      return 'the server is currently unable to handle the request';
    case 504:
      return 'the server was unable to return a response in the time allotted, but may still be processing the request';
    default:
      return `an error on the server (${JSON.stringify(shown)}) has prevented the request from succeeding`;
  }
}

function parseStatus(body: string): string | undefined {
  try {
    const value = JSON.parse(body) as { kind?: unknown; message?: unknown };
    return value.kind === 'Status' && typeof value.message === 'string' ? value.message : undefined;
  } catch {
    return undefined;
  }
}
