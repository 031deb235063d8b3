// The listening side of `fairway serve`: TLS offering `h2` and `http/1.1` through ALPN, as
// kube-apiserver does, with one request handler for both. Go clients (kubectl, client-go
// controllers) then multiplex every request and watch over one connection. Node's HTTP/2
// compatibility layer hands the handler request and response objects with the same surface the
// server uses for HTTP/1.1 (headers, status, write/drain, end, 'close'/'finish'); watches, which
// stay open, get a leaner pair with that surface over the raw stream (h2-stream-exchange.ts).
//
// kube-apiserver's settings, applied to both protocols where they exist:
// - at most --http2-max-streams-per-connection concurrent streams (0: 100, Go's client default);
// - 256 KiB per-stream receive window and frame size, and a connection window of that times the
//   stream limit, so uploads of ordinary objects need no round trips for flow control;
// - request headers up to 1 MiB (beyond: 431 on HTTP/1.1, the stream refused on HTTP/2);
// - 90 s idle timeout (HTTP/1.1 keep-alive; HTTP/2: no open stream for 90 s), 32 s to read
//   HTTP/1.1 request headers.
// An HTTP/2 response that ends before its request body is read (an early 413, a timeout) is
// followed by RST_STREAM with NO_ERROR, so the client stops sending (RFC 9113 §8.1; Go's server
// does the same, and Node's does it by itself); HTTP/1.1 connections follow http1-connection.ts
// (early answers close the connection, parse errors answered in order, unknown methods 405).
//
// Shutdown (`close`) stops accepting, sends GOAWAY to every HTTP/2 session (their open streams
// finish) and closes idle HTTP/1.1 connections; `destroy` cuts what is left.
import { createSecureServer, type Http2ServerRequest, type Http2ServerResponse, type Http2Session, type ServerHttp2Stream } from 'node:http2';
import type { IncomingHttpHeaders, IncomingMessage, ServerResponse } from 'node:http';
import { servedOnStream, StreamRequest, StreamResponse } from './h2-stream-exchange.ts';
import { HTTP1_SERVER_OPTIONS, installHttp1Rules } from './http1-connection.ts';
import { createServer as createHttpsServer } from 'node:https';
import type { Socket } from 'node:net';
import type { Server as TlsServer } from 'node:tls';

/** kube-apiserver's MaxHeaderBytes: 1 MiB (Node's default of 16 KiB refuses long tokens). */
export const MAX_HEADER_BYTES = 1 << 20;
/**
 * Concurrent streams per HTTP/2 connection when --http2-max-streams-per-connection is 0. 100, not
 * 250: since the HTTP/2 rapid-reset fixes (1.25.15, 1.26.10, 1.27.7, 1.28.3 and every release from
 * 1.29), secure_serving.go sets 100, Go's client's initial limit, so that a client can open few
 * streams before it is cut off. The comment above that line in kube's source still speaks of
 * "the default of 250"; the code it describes was changed under it.
 */
export const DEFAULT_HTTP2_MAX_STREAMS = 100;
/** kube-apiserver's resourceBody99Percentile: per-stream receive window and largest frame. */
export const HTTP2_STREAM_WINDOW_BYTES = 256 * 1024;
/** Idle connections are closed after this long (Go's http.DefaultTransport keeps them 90 s too). */
export const IDLE_TIMEOUT_MS = 90_000;
/** HTTP/1.1 request headers must arrive within this (kube-apiserver's ReadHeaderTimeout). */
export const READ_HEADER_TIMEOUT_MS = 32_000;
/** Header lines per request on HTTP/2 (Node's HTTP/1.1 parser allows as many). */
const MAX_HEADER_PAIRS = 2000;

/** The one handler both protocols call, written against node:http's request and response. */
export type RequestHandler = (req: IncomingMessage, res: ServerResponse) => void;

export interface SecureServerOptions {
  certPem: string;
  keyPem: string;
  /** --client-ca-file: request a client certificate (verified by the authenticator, not by TLS). */
  clientCaPem?: string | undefined;
  /** --http2-max-streams-per-connection; 0 means the default. */
  http2MaxStreamsPerConnection: number;
  /** --disable-http2-serving: offer only http/1.1 (kube-apiserver's flag). */
  disableHttp2?: boolean;
  handler: RequestHandler;
}

export interface SecureServer {
  /** An HTTP/2 server with HTTP/1.1 fallback, or an HTTPS server with --disable-http2-serving. */
  readonly server: TlsServer;
  listen(port: number, host: string): Promise<void>;
  /** Open HTTP/2 sessions and HTTP/1.1 connections. */
  readonly connections: { http2: number; http1: number };
  /** Stops accepting, GOAWAY to HTTP/2 sessions, closes idle HTTP/1.1 connections; resolves when every connection is gone. */
  close(): Promise<void>;
  /** Cuts every connection still open. */
  destroy(): void;
}

export function maxConcurrentStreams(flag: number): number {
  return flag > 0 ? flag : DEFAULT_HTTP2_MAX_STREAMS;
}

export function createSecureApiServer(options: SecureServerOptions): SecureServer {
  const streams = maxConcurrentStreams(options.http2MaxStreamsPerConnection);
  const sessions = new Set<Http2Session>();
  const http1 = new Set<Socket>();
  const tlsOptions = {
    // Go's net package turns Nagle's algorithm off on every TCP connection; so does node:http.
    noDelay: true,
    cert: options.certPem,
    key: options.keyPem,
    ...(options.clientCaPem !== undefined ? { ca: options.clientCaPem, requestCert: true, rejectUnauthorized: false } : {}),
  };
  // Node's HTTP/2 server always offers h2 through ALPN; without HTTP/2 it is a plain HTTPS server.
  const server: TlsServer =
    options.disableHttp2 === true
      ? createHttpsServer({ ...HTTP1_SERVER_OPTIONS, ...tlsOptions, ALPNProtocols: ['http/1.1'], maxHeaderSize: MAX_HEADER_BYTES }, options.handler)
      : createSecureServer(
          {
            ...tlsOptions,
            allowHTTP1: true,
            Http1ServerResponse: HTTP1_SERVER_OPTIONS.ServerResponse as unknown as typeof ServerResponse,
            settings: {
              maxConcurrentStreams: streams,
              initialWindowSize: HTTP2_STREAM_WINDOW_BYTES,
              maxFrameSize: HTTP2_STREAM_WINDOW_BYTES,
              maxHeaderListSize: MAX_HEADER_BYTES,
            },
            maxHeaderListPairs: MAX_HEADER_PAIRS,
          },
          options.handler as unknown as (req: Http2ServerRequest, res: Http2ServerResponse) => void,
        );
  // The HTTP/1.1 side reads these as node:http's server does (an HTTP/2 server leaves them unset).
  const h1 = server as unknown as { maxHeaderSize: number; keepAliveTimeout: number; headersTimeout: number; requireHostHeader: boolean };
  h1.maxHeaderSize = MAX_HEADER_BYTES;
  h1.keepAliveTimeout = IDLE_TIMEOUT_MS;
  h1.headersTimeout = READ_HEADER_TIMEOUT_MS;
  h1.requireHostHeader = true;
  installHttp1Rules(server as unknown as Parameters<typeof installHttp1Rules>[0]);
  if (options.disableHttp2 !== true) serveWatchesOnStreams(server, options.handler);

  server.on('session', (session: Http2Session) => {
    sessions.add(session);
    session.setLocalWindowSize(HTTP2_STREAM_WINDOW_BYTES * streams);
    closeWhenIdle(session);
    session.once('close', () => sessions.delete(session));
    // A session error (a peer breaking the protocol) ends that session only.
    session.on('error', () => session.destroy());
  });
  server.on('secureConnection', (socket: Socket & { alpnProtocol?: string | false }) => {
    if (socket.alpnProtocol === 'h2') return;
    http1.add(socket);
    socket.once('close', () => http1.delete(socket));
  });

  return {
    server,
    listen: (port, host) =>
      new Promise((resolve, reject) => {
        const onError = (error: Error) => reject(error);
        server.once('error', onError);
        server.listen(port, host, () => {
          server.off('error', onError);
          resolve();
        });
      }),
    get connections() {
      return { http2: sessions.size, http1: http1.size };
    },
    close: () =>
      new Promise((resolve) => {
        server.close(() => resolve());
        for (const session of sessions) if (!session.closed) session.close();
      }),
    destroy: () => {
      for (const session of sessions) session.destroy();
      for (const socket of http1) socket.destroy();
    },
  };
}

type StreamListener = (stream: ServerHttp2Stream, headers: IncomingHttpHeaders, flags: number, rawHeaders: string[]) => void;

/**
 * Watches skip Node's compatibility layer (h2-stream-exchange.ts): the server's one 'stream'
 * listener, the layer's, is replaced by one that hands watch streams to the handler as a lean
 * request and response and every other stream to the layer as before.
 */
function serveWatchesOnStreams(server: TlsServer, handler: RequestHandler): void {
  const listeners = server.listeners('stream') as StreamListener[];
  if (listeners.length !== 1) throw new Error(`expected Node's HTTP/2 compatibility listener alone, found ${listeners.length} 'stream' listeners`);
  const compatibility = listeners[0]!;
  server.removeListener('stream', compatibility);
  server.on('stream', (stream: ServerHttp2Stream, headers: IncomingHttpHeaders, flags: number, rawHeaders: string[]) => {
    if (!servedOnStream(headers)) {
      compatibility(stream, headers, flags, rawHeaders);
      return;
    }
    handler(new StreamRequest(stream, headers, rawHeaders) as unknown as IncomingMessage, new StreamResponse(stream) as unknown as ServerResponse);
  });
}

/**
 * Go's HTTP/2 IdleTimeout: a session with no open stream for IDLE_TIMEOUT_MS gets a GOAWAY. (Node's
 * own session timeout counts frames, so it would cut a quiet watch.) One timer per session at most,
 * checked when it fires rather than re-armed per request; nothing is allocated per stream.
 */
function closeWhenIdle(session: Http2Session): void {
  let open = 0;
  let idleSinceMs = performance.now();
  let timer: NodeJS.Timeout | undefined;
  const check = () => {
    timer = undefined;
    if (open > 0 || session.closed || session.destroyed) return;
    const idleForMs = performance.now() - idleSinceMs;
    if (idleForMs >= IDLE_TIMEOUT_MS) session.close();
    else arm(IDLE_TIMEOUT_MS - idleForMs);
  };
  const arm = (delayMs: number) => {
    timer = setTimeout(check, delayMs);
    timer.unref();
  };
  const onStreamClose = () => {
    open--;
    if (open > 0) return;
    idleSinceMs = performance.now();
    if (timer === undefined) arm(IDLE_TIMEOUT_MS);
  };
  arm(IDLE_TIMEOUT_MS);
  session.on('stream', (stream: ServerHttp2Stream) => {
    open++;
    stream.on('close', onStreamClose);
  });
  session.once('close', () => clearTimeout(timer));
}
