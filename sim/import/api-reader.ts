// GETs against a running API server with a kubeconfig's credentials (CA, client certificate,
// bearer token or basic auth), for `fairway sim import`. Read-only and bounded: a response larger
// than the limit is an error rather than a memory problem.

import { request } from 'node:https';
import type { WebhookConnection } from '../../engine/auth/webhook-kubeconfig.ts';

const MAX_BODY_BYTES = 64 * 1024 * 1024;
const TIMEOUT_MS = 30_000;

export interface ApiResponse {
  status: number;
  body: string;
}

export function apiGet(connection: WebhookConnection, path: string, accept = 'application/json'): Promise<ApiResponse> {
  const url = new URL(path, connection.url);
  const headers: Record<string, string> = { Accept: accept, 'User-Agent': 'fairway-sim-import' };
  if (connection.token !== undefined) headers.Authorization = `Bearer ${connection.token}`;
  else if (connection.username !== undefined)
    headers.Authorization = `Basic ${Buffer.from(`${connection.username}:${connection.password ?? ''}`).toString('base64')}`;
  return new Promise((resolve, reject) => {
    const req = request(
      url,
      {
        method: 'GET',
        headers,
        ...(connection.caPem === undefined ? {} : { ca: connection.caPem }),
        ...(connection.clientCertPem === undefined ? {} : { cert: connection.clientCertPem, key: connection.clientKeyPem }),
        ...(connection.tlsServerName === undefined ? {} : { servername: connection.tlsServerName }),
        rejectUnauthorized: !connection.insecureSkipTlsVerify,
        timeout: TIMEOUT_MS,
      },
      (res) => {
        const chunks: Buffer[] = [];
        let size = 0;
        res.on('data', (chunk: Buffer) => {
          size += chunk.length;
          if (size > MAX_BODY_BYTES) {
            req.destroy(new Error(`GET ${url.pathname}: response larger than ${MAX_BODY_BYTES} bytes`));
            return;
          }
          chunks.push(chunk);
        });
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks).toString('utf8') }));
        res.on('error', reject);
      },
    );
    req.on('timeout', () => req.destroy(new Error(`GET ${url.pathname}: no answer within ${TIMEOUT_MS / 1000} s`)));
    req.on('error', reject);
    req.end();
  });
}
