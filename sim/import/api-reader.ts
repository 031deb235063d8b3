// GETs against a running API server with a kubeconfig's credentials (CA, client certificate,
// bearer token or basic auth), for `fairway sim import` and `fairway top`. Read-only and bounded, since the server
// may be anyone's: a response larger than `maxBytes` is an error rather than a memory problem, and
// each request has a total deadline (`--request-timeout`), not only an idle one, so a server that
// trickles a byte every few seconds cannot keep the command waiting forever.

import { request } from 'node:https';
import type { WebhookConnection } from '../../engine/auth/webhook-kubeconfig.ts';
import type { Cancel, Clock } from '../../engine/clock.ts';

/** kube-apiserver's /metrics is a few MB on a large cluster; the flowcontrol lists are kilobytes. */
export const MAX_RESPONSE_BYTES = 64 * 1024 * 1024;
export const DEFAULT_REQUEST_TIMEOUT_MS = 30_000;

export interface ApiResponse {
  status: number;
  body: string;
}

export interface ApiGetOptions {
  /** What the deadline is measured on. */
  clock: Clock;
  accept?: string;
  /** The whole request, connection to last byte; 0 waits forever, as kubectl's --request-timeout=0. */
  deadlineMs?: number;
  maxBytes?: number;
  /** Who is asking, for the server's logs; `fairway-sim-import` unless told. */
  userAgent?: string;
}

export function apiGet(connection: WebhookConnection, path: string, options: ApiGetOptions): Promise<ApiResponse> {
  const url = new URL(path, connection.url);
  const deadlineMs = options.deadlineMs ?? DEFAULT_REQUEST_TIMEOUT_MS;
  const maxBytes = options.maxBytes ?? MAX_RESPONSE_BYTES;
  const headers: Record<string, string> = { Accept: options.accept ?? 'application/json', 'User-Agent': options.userAgent ?? 'fairway-sim-import' };
  if (connection.token !== undefined) headers.Authorization = `Bearer ${connection.token}`;
  else if (connection.username !== undefined)
    headers.Authorization = `Basic ${Buffer.from(`${connection.username}:${connection.password ?? ''}`).toString('base64')}`;
  return new Promise((resolve, reject) => {
    let cancelDeadline: Cancel | undefined;
    const settle =
      <T>(then: (value: T) => void) =>
      (value: T) => {
        cancelDeadline?.();
        then(value);
      };
    const done = settle(resolve);
    const fail = settle(reject);
    const req = request(
      url,
      {
        method: 'GET',
        headers,
        ...(connection.caPem === undefined ? {} : { ca: connection.caPem }),
        ...(connection.clientCertPem === undefined ? {} : { cert: connection.clientCertPem, key: connection.clientKeyPem }),
        ...(connection.tlsServerName === undefined ? {} : { servername: connection.tlsServerName }),
        rejectUnauthorized: !connection.insecureSkipTlsVerify,
      },
      (res) => {
        const tooLarge = () => new Error(`GET ${url.href}: response larger than ${maxBytes} bytes`);
        if (Number(res.headers['content-length']) > maxBytes) {
          abandon(tooLarge());
          return;
        }
        const chunks: Buffer[] = [];
        let size = 0;
        res.on('data', (chunk: Buffer) => {
          size += chunk.length;
          if (size > maxBytes) {
            abandon(tooLarge());
            return;
          }
          chunks.push(chunk);
        });
        res.on('end', () => done({ status: res.statusCode ?? 0, body: Buffer.concat(chunks).toString('utf8') }));
        res.on('error', fail);
      },
    );
    if (deadlineMs > 0) {
      cancelDeadline = options.clock.after(deadlineMs, () =>
        abandon(new Error(`GET ${url.href}: no complete answer within ${formatSeconds(deadlineMs)} (--request-timeout)`)),
      );
    }
    // Destroying with the error would hand it to the TLS socket too, where nothing listens for it.
    function abandon(error: Error): void {
      fail(error);
      req.destroy();
    }
    req.on('error', fail);
    req.end();
  });
}

function formatSeconds(ms: number): string {
  return `${ms / 1000} s`;
}
