// An HTTP/2 client for tests: one TLS connection (a session) on which every request is a stream,
// as client-go multiplexes them. Requests give back status, headers, body and how the stream ended
// (a clean end, or the RST_STREAM code); watches collect newline-separated JSON events and can stop
// reading, which stops the stream's flow-control window from reopening.
import { connect, constants, type ClientHttp2Session, type ClientHttp2Stream, type IncomingHttpHeaders, type SecureClientSessionOptions } from 'node:http2';
import { WatchCollector } from './watch-collector.ts';

export interface H2Response {
  status: number;
  headers: IncomingHttpHeaders;
  text: string;
  /** NGHTTP2_NO_ERROR (0) when the stream ended normally or was reset without error. */
  rstCode: number;
  json(): any;
}

export interface H2RequestOptions {
  token?: string | null | undefined;
  headers?: Record<string, string> | undefined;
  /** Sent whole, then the stream is ended. */
  body?: string | Buffer | undefined;
  /** Sent in pieces, each after its pause; the stream is ended after the last unless `keepOpen`. */
  pieces?: { pauseMs: number; bytes: string | Buffer }[];
  keepOpen?: boolean;
}

export interface H2Watch {
  readonly events: any[];
  readonly status: number;
  readonly ended: boolean;
  /** Ended with END_STREAM (not reset). */
  readonly complete: boolean;
  readonly rstCode: number | undefined;
  until(predicate: () => boolean): Promise<void>;
  pause(): void;
  resume(): void;
  close(): void;
}

export interface H2Client {
  readonly session: ClientHttp2Session;
  /** GOAWAY frames received (error codes). */
  readonly goaways: number[];
  request(method: string, path: string, options?: H2RequestOptions): Promise<H2Response>;
  watch(path: string, options?: { token?: string }): H2Watch;
  close(): Promise<void>;
}

export function connectH2(
  baseUrl: string,
  defaults: { token?: string; caPem: string; settings?: SecureClientSessionOptions['settings']; maxSendHeaderBlockLength?: number },
): Promise<H2Client> {
  return new Promise((resolve, reject) => {
    const session = connect(baseUrl, {
      ca: defaults.caPem,
      ...(defaults.settings !== undefined ? { settings: defaults.settings } : {}),
      ...(defaults.maxSendHeaderBlockLength !== undefined ? { maxSendHeaderBlockLength: defaults.maxSendHeaderBlockLength } : {}),
    });
    const goaways: number[] = [];
    session.on('goaway', (code) => goaways.push(code));
    session.on('error', () => undefined);
    // Ready once the server's SETTINGS arrived (its stream limit and windows are known then).
    session.once('remoteSettings', () => resolve(client));
    session.once('connect', () => {
      if (session.alpnProtocol !== 'h2') reject(new Error(`ALPN chose ${String(session.alpnProtocol)}, not h2`));
    });
    session.once('error', reject);
    const headersFor = (method: string, path: string, token: string | null | undefined, extra: Record<string, string> = {}) => {
      const headers: Record<string, string> = { ':method': method, ':path': path, ...extra };
      const bearer = token === undefined ? defaults.token : token;
      if (bearer !== undefined && bearer !== null) headers.authorization = `Bearer ${bearer}`;
      return headers;
    };
    const client: H2Client = {
      session,
      goaways,
      request: (method, path, options = {}) =>
        new Promise((done, fail) => {
          const hasBody = options.body !== undefined || options.pieces !== undefined;
          const stream = session.request(headersFor(method, path, options.token, options.headers), { endStream: !hasBody });
          let status = 0;
          let headers: IncomingHttpHeaders = {};
          const chunks: Buffer[] = [];
          stream.on('response', (h) => {
            headers = h;
            status = Number(h[':status']);
          });
          stream.on('data', (chunk: Buffer) => chunks.push(chunk));
          stream.on('error', () => undefined);
          let settled = false;
          const settle = () => {
            if (settled) return;
            settled = true;
            const text = Buffer.concat(chunks).toString('utf8');
            if (status === 0) fail(new Error(`stream reset with code ${stream.rstCode} before a response`));
            else done({ status, headers, text, rstCode: stream.rstCode ?? 0, json: () => JSON.parse(text) });
            // A stream the server reset while the body was still going out keeps the unsent
            // bytes (and never closes) in Node's client: drop them.
            if (!stream.destroyed) stream.destroy();
          };
          stream.on('end', settle);
          stream.on('close', settle);
          if (options.body !== undefined) {
            stream.end(options.body);
          } else if (options.pieces !== undefined) {
            void sendPieces(stream, options.pieces, options.keepOpen === true);
          }
        }),
      watch: (path, options = {}) => watchOn(session, headersFor('GET', path, options.token)),
      // Streams the server left half-open (a paused watch, a body it stopped reading) would keep
      // a graceful close waiting forever: after a moment, cut the session.
      close: () =>
        new Promise((done) => {
          if (session.destroyed) return done();
          const cut = setTimeout(() => session.destroy(), 1_000);
          session.once('close', () => {
            clearTimeout(cut);
            done();
          });
          session.close();
        }),
    };
  });
}

async function sendPieces(stream: ClientHttp2Stream, pieces: readonly { pauseMs: number; bytes: string | Buffer }[], keepOpen: boolean): Promise<void> {
  for (const piece of pieces) {
    await new Promise((resolve) => setTimeout(resolve, piece.pauseMs));
    if (stream.closed || stream.destroyed) return;
    stream.write(piece.bytes);
  }
  if (!keepOpen && !stream.closed) stream.end();
}

function watchOn(session: ClientHttp2Session, headers: Record<string, string>): H2Watch {
  const watch = new WatchCollector();
  let rstCode: number | undefined;
  const stream = session.request(headers, { endStream: true });
  stream.on('response', (h) => watch.started(Number(h[':status'])));
  stream.on('data', (chunk: Buffer) => watch.take(chunk));
  stream.on('end', () => (watch.complete = true));
  stream.on('error', () => undefined);
  stream.on('close', () => {
    rstCode = stream.rstCode;
    watch.end();
  });
  return {
    events: watch.events,
    get status() {
      return watch.status;
    },
    get ended() {
      return watch.ended;
    },
    get complete() {
      return watch.complete;
    },
    get rstCode() {
      return rstCode;
    },
    until: (predicate) => watch.until(predicate),
    pause: () => stream.pause(),
    resume: () => stream.resume(),
    close: () => stream.close(constants.NGHTTP2_CANCEL),
  };
}
