// A small HTTP(S) client for tests: one request, the whole response as text, nothing hidden (status,
// headers, body). Over TLS it trusts the given CA, as kubectl does with the admin kubeconfig.
import { WatchCollector } from './watch-collector.ts';
import { request as httpRequest } from 'node:http';
import { request as httpsRequest } from 'node:https';

export interface TestResponse {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  text: string;
  /** The body as received (protobuf bodies are not text). */
  bytes: Buffer;
  json(): any;
}

export interface RequestOptions {
  body?: string | Buffer | object | undefined;
  headers?: Record<string, string> | undefined;
  /** Overrides the client's token; `null` sends no Authorization header. */
  token?: string | null | undefined;
}

export interface TestClient {
  readonly baseUrl: string;
  request(method: string, path: string, options?: RequestOptions): Promise<TestResponse>;
  get(path: string, options?: RequestOptions): Promise<TestResponse>;
}

export function createTestClient(baseUrl: string, defaults: { token?: string; caPem?: string } = {}): TestClient {
  const request = (method: string, path: string, options: RequestOptions = {}): Promise<TestResponse> => {
    const url = new URL(path, baseUrl);
    const headers: Record<string, string> = { ...(options.headers ?? {}) };
    const token = options.token === undefined ? defaults.token : options.token;
    if (token !== undefined && token !== null) headers.Authorization = `Bearer ${token}`;
    let body: string | Buffer | undefined;
    if (options.body !== undefined) {
      body = typeof options.body === 'string' || Buffer.isBuffer(options.body) ? options.body : JSON.stringify(options.body);
      headers['Content-Type'] ??= 'application/json';
      // Node sends a DELETE body without length or chunking unless told its length.
      headers['Content-Length'] = String(Buffer.byteLength(body));
    }
    const send = url.protocol === 'https:' ? httpsRequest : httpRequest;
    return new Promise((resolve, reject) => {
      const req = send(url, { method, headers, ...(defaults.caPem !== undefined ? { ca: defaults.caPem } : {}) }, (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.on('end', () => {
          const bytes = Buffer.concat(chunks);
          const text = bytes.toString('utf8');
          resolve({ status: res.statusCode ?? 0, headers: res.headers, text, bytes, json: () => JSON.parse(text) });
        });
        res.on('error', reject);
      });
      req.on('error', reject);
      req.end(body);
    });
  };
  return { baseUrl, request, get: (path, options) => request('GET', path, options) };
}

/**
 * A streaming GET (a watch): collects newline-separated JSON events until `close()` or the server
 * ends the stream.
 */
export function openStream(baseUrl: string, path: string, defaults: { token?: string; caPem?: string; headers?: Record<string, string> | undefined } = {}) {
  const url = new URL(path, baseUrl);
  const headers: Record<string, string> = { ...(defaults.headers ?? {}) };
  if (defaults.token !== undefined) headers.Authorization = `Bearer ${defaults.token}`;
  const watch = new WatchCollector();
  const send = url.protocol === 'https:' ? httpsRequest : httpRequest;
  const req = send(url, { method: 'GET', headers, ...(defaults.caPem !== undefined ? { ca: defaults.caPem } : {}) }, (res) => {
    watch.started(res.statusCode ?? 0);
    res.on('data', (chunk: Buffer) => watch.take(chunk));
    res.on('end', () => watch.end(true));
    res.on('error', () => undefined);
  });
  req.on('error', () => watch.end());
  req.end();
  return {
    events: watch.events as any[],
    get status() {
      return watch.status;
    },
    get ended() {
      return watch.ended;
    },
    /** Resolves once `predicate(events)` holds or the stream has ended. */
    until: (predicate: (events: any[]) => boolean): Promise<void> => watch.until(() => predicate(watch.events)),
    close() {
      req.destroy();
    },
  };
}
