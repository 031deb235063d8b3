// The API fuzz's client and its response rules. Requests go out exactly as generated (no body
// encoding, no header defaults beyond the token); a response that streams (a watch: 200 without a
// Content-Length) is checked by its status line and then dropped, which also exercises the server's
// handling of clients that go away mid-stream.

import { request as httpRequest, type IncomingHttpHeaders } from 'node:http';
import * as assert from 'uvu/assert';
import { parse as yamlParse } from 'yaml';
import type { FuzzRequest } from './api-requests.ts';
import { decodeBody, PROTOBUF_MEDIA_TYPE } from '../../engine/protobuf/objects.ts';

export interface FuzzResponse {
  status: number;
  headers: IncomingHttpHeaders;
  text: string;
  /** The body as received (protobuf is not text). */
  bytes: Buffer;
  streamed: boolean;
}

/** A server that does not answer at all within this long has hung; it is not a timing check. */
const HUNG_MS = 30_000;

export function send(baseUrl: string, token: string, r: FuzzRequest): Promise<FuzzResponse> {
  const query = r.query.length > 0 ? `?${r.query.map(([k, v]) => `${k}=${v}`).join('&')}` : '';
  const headers: Record<string, string> = { ...r.headers };
  if (r.authorized) headers.Authorization = `Bearer ${token}`;
  if (r.body !== undefined) headers['Content-Length'] = String(Buffer.byteLength(r.body));
  return new Promise((resolve, reject) => {
    const req = httpRequest(`${baseUrl}${r.path}${query}`, { method: r.method, headers }, (res) => {
      const status = res.statusCode ?? 0;
      if (status === 200 && res.headers['content-length'] === undefined && r.method !== 'HEAD') {
        res.destroy();
        resolve({ status, headers: res.headers, text: '', bytes: Buffer.alloc(0), streamed: true });
        return;
      }
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('end', () => {
        const bytes = Buffer.concat(chunks);
        resolve({ status, headers: res.headers, text: bytes.toString('utf8'), bytes, streamed: false });
      });
      res.on('error', reject);
    });
    req.setTimeout(HUNG_MS, () => req.destroy(new Error(`no answer within ${HUNG_MS / 1000} s: the server hung`)));
    // The server may answer (413) and close before reading a large body; that is its right.
    req.on('error', (error: NodeJS.ErrnoException) => (error.code === 'EPIPE' || error.code === 'ECONNRESET' ? undefined : reject(error)));
    req.end(r.body);
  });
}

/** The body as data, by its Content-Type (YAML or protobuf when the client asked for them). */
export function parseBody(response: FuzzResponse): unknown {
  const type = String(response.headers['content-type'] ?? '');
  if (type.startsWith('application/yaml')) return yamlParse(response.text);
  if (type.startsWith(PROTOBUF_MEDIA_TYPE)) {
    const decoded = decodeBody(response.bytes, '');
    if (!decoded.ok) throw new Error(decoded.error);
    return decoded.decoded.value;
  }
  return JSON.parse(response.text);
}

/**
 * The rules every answer obeys: no 5xx, ever; a 429 is APF's plain text with Retry-After; every other
 * error is a Kubernetes Status (kind Status, apiVersion v1, status Failure, the HTTP code, a
 * non-empty reason and a message); a JSON success body parses.
 */
export function assertWellFormed(response: FuzzResponse, request: Pick<FuzzRequest, 'method' | 'headers'>): void {
  const method = request.method;
  assert.ok(response.status < 500, `HTTP ${response.status}: ${response.text.slice(0, 500)}`);
  if (method === 'HEAD' || response.streamed) return;
  if (response.status === 429) {
    assert.match(String(response.headers['content-type']), /^text\/plain/, '429 content type');
    assert.ok(response.headers['retry-after'] !== undefined, '429 without Retry-After');
    return;
  }
  const type = String(response.headers['content-type'] ?? '');
  if (response.status >= 400) {
    let status: Record<string, unknown>;
    try {
      status = parseBody(response) as Record<string, unknown>;
    } catch (error) {
      assert.unreachable(`HTTP ${response.status} body is not ${type}: ${(error as Error).message}: ${response.text.slice(0, 300)}`);
      return;
    }
    assert.ok(status !== null && typeof status === 'object', `HTTP ${response.status} body is not an object: ${response.text.slice(0, 300)}`);
    assert.equal(
      { kind: status.kind, apiVersion: status.apiVersion, status: status.status, code: status.code },
      { kind: 'Status', apiVersion: 'v1', status: 'Failure', code: response.status },
      `HTTP ${response.status} Status: ${response.text.slice(0, 300)}`,
    );
    assert.ok(typeof status.reason === 'string' && status.reason !== '', `HTTP ${response.status} Status without a reason: ${response.text.slice(0, 300)}`);
    assert.type(status.message, 'string', 'Status message');
    return;
  }
  if (type.startsWith('application/json') && response.text !== '') {
    try {
      JSON.parse(response.text);
    } catch (error) {
      assert.unreachable(`HTTP ${response.status} ${type} body does not parse: ${(error as Error).message}`);
    }
  }
}
