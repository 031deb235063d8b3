// An HTTP/2 watch served on its raw stream. Node's compatibility layer (Http2ServerRequest and
// Http2ServerResponse) gives every stream a Readable, a Stream, their states, five dictionary-mode
// header, trailer and listener objects and a socket proxy: about 2.4 KB of heap per stream, which
// at 10,000 open watches is as much again as the streams themselves. A watch is a GET that stays
// open for minutes, so it is the request where that cost counts; it gets this lean pair instead,
// with the part of node:http's request and response surface the server uses (headers, status,
// setHeader/getHeader/removeHeader, flushHeaders, write/'drain', end, destroy, 'close'/'finish',
// `writableEnded`/`writableFinished`/`destroyed`, `httpVersion` '2.0'), behaving as the
// compatibility objects do, so the filters and handlers cannot tell the two apart. Every other
// HTTP/2 request still goes through the compatibility layer.
import type { IncomingHttpHeaders, OutgoingHttpHeader, OutgoingHttpHeaders } from 'node:http';
import type { ServerHttp2Stream } from 'node:http2';
import type { Socket } from 'node:net';

/**
 * Whether a stream is served on its raw stream: a GET whose target names a watch, either by the
 * `watch` query parameter or the `/watch/` path segment (anything that reads like one: the request
 * path decides what it really is; a GET that only looks like a watch is served the same either way).
 */
export function servedOnStream(headers: IncomingHttpHeaders): boolean {
  if (headers[':method'] !== 'GET' || headers.expect !== undefined) return false;
  const path = headers[':path'];
  return typeof path === 'string' && path.includes('watch');
}

/** The response each raw stream carries, for the stream listeners shared by every stream. */
const responseOf = new WeakMap<ServerHttp2Stream, StreamResponse>();

function onStreamClose(this: ServerHttp2Stream): void {
  responseOf.get(this)?.streamClosed();
}

function onStreamDrain(this: ServerHttp2Stream): void {
  responseOf.get(this)?.emit('drain');
}

type Listener = (...args: unknown[]) => void;

/** A stream reset by its client errors; the response then closes like any cut stream. */
function ignoreStreamError(): void {}

/** The request side: headers and target, no body (a GET's body, if one was sent, is discarded as Go's server would not read it). */
export class StreamRequest {
  readonly method: string;
  readonly url: string;

  constructor(
    readonly stream: ServerHttp2Stream,
    readonly headers: IncomingHttpHeaders,
    readonly rawHeaders: string[],
  ) {
    this.method = headers[':method'] as string;
    this.url = headers[':path'] as string;
    stream.resume();
  }

  get httpVersion(): string {
    return '2.0';
  }

  /** Whether the request side has ended (END_STREAM received, or the stream is gone). */
  get complete(): boolean {
    return this.stream.readableEnded || this.stream.destroyed;
  }

  /** The connection's socket (compatibility requests hand out a proxy of it). */
  get socket(): Socket | undefined {
    return this.stream.session?.socket as Socket | undefined;
  }

  destroy(error?: Error): this {
    this.stream.destroy(error);
    return this;
  }

  on(event: string, listener: (...args: unknown[]) => void): this {
    this.stream.on(event, listener);
    return this;
  }

  once(event: string, listener: (...args: unknown[]) => void): this {
    this.stream.once(event, listener);
    return this;
  }

  off(event: string, listener: (...args: unknown[]) => void): this {
    this.stream.off(event, listener);
    return this;
  }
}

/**
 * The response side. As with Http2ServerResponse, headers are sent on the first write, end or
 * `flushHeaders`; 'finish' and 'close' are emitted when the stream closes (`writableFinished` from
 * then on), 'drain' when the stream drains. Its listeners ('close', 'drain', 'finish': the server
 * adds one or two) are kept in one flat list rather than an EventEmitter, whose dictionary of
 * listener arrays and `once` wrappers cost an open watch about 0.4 KB.
 */
export class StreamResponse {
  statusCode = 200;
  private fields: Record<string, OutgoingHttpHeader> | undefined = undefined;
  private ended = false;
  private closed = false;
  /** Triples of event name, listener, and whether it is removed once called (`concat` allocates exactly what is needed). */
  private listeners: (string | Listener | boolean)[] | undefined = undefined;

  constructor(readonly stream: ServerHttp2Stream) {
    responseOf.set(stream, this);
    stream.on('close', onStreamClose);
    stream.on('drain', onStreamDrain);
    stream.on('error', ignoreStreamError);
  }

  on(event: string, listener: Listener): this {
    this.listeners = (this.listeners ?? []).concat(event, listener, false);
    return this;
  }

  once(event: string, listener: Listener): this {
    this.listeners = (this.listeners ?? []).concat(event, listener, true);
    return this;
  }

  off(event: string, listener: Listener): this {
    const listeners = this.listeners;
    if (listeners === undefined) return this;
    for (let i = listeners.length - 3; i >= 0; i -= 3) {
      if (listeners[i] !== event || listeners[i + 1] !== listener) continue;
      this.listeners = listeners.length === 3 ? undefined : listeners.slice(0, i).concat(listeners.slice(i + 3));
      break;
    }
    return this;
  }

  removeListener(event: string, listener: Listener): this {
    return this.off(event, listener);
  }

  /** Calls the listeners of `event` in the order they were added (a `once` listener is removed first). */
  emit(event: string): boolean {
    const listeners = this.listeners;
    if (listeners === undefined) return false;
    let called = false;
    for (let i = 0; i < listeners.length; i += 3) {
      if (listeners[i] !== event) continue;
      const listener = listeners[i + 1] as Listener;
      if (listeners[i + 2] === true) this.off(event, listener);
      listener.call(this);
      called = true;
    }
    return called;
  }

  get headersSent(): boolean {
    return this.stream.headersSent;
  }

  get writableEnded(): boolean {
    return this.ended;
  }

  get writableFinished(): boolean {
    return this.closed;
  }

  get writableNeedDrain(): boolean {
    return this.stream.writableNeedDrain;
  }

  get destroyed(): boolean {
    return this.stream.destroyed;
  }

  setHeader(name: string, value: OutgoingHttpHeader): this {
    (this.fields ??= Object.create(null) as Record<string, OutgoingHttpHeader>)[name.toLowerCase()] = value;
    return this;
  }

  getHeader(name: string): OutgoingHttpHeader | undefined {
    const fields = this.fields;
    const key = name.toLowerCase();
    return fields !== undefined && Object.hasOwn(fields, key) ? fields[key] : undefined;
  }

  hasHeader(name: string): boolean {
    return this.getHeader(name) !== undefined;
  }

  removeHeader(name: string): void {
    if (this.fields !== undefined) delete this.fields[name.toLowerCase()];
  }

  writeHead(statusCode: number, headers?: OutgoingHttpHeaders): this {
    this.statusCode = statusCode;
    if (headers !== undefined) for (const name of Object.keys(headers)) if (headers[name] !== undefined) this.setHeader(name, headers[name]);
    this.flushHeaders();
    return this;
  }

  flushHeaders(): void {
    const stream = this.stream;
    if (stream.headersSent || stream.destroyed) return;
    const headers: OutgoingHttpHeaders = this.fields ?? (Object.create(null) as OutgoingHttpHeaders);
    headers[':status'] = this.statusCode;
    // The header block is gone once sent; an open watch keeps no copy of it.
    this.fields = undefined;
    stream.respond(headers);
  }

  /** `written` runs once the stream is done with `chunk` (as node:http's), not when the write is refused. */
  write(chunk: Uint8Array | string, written?: (error?: Error | null) => void): boolean {
    if (this.ended || this.stream.destroyed) return false;
    this.flushHeaders();
    return written === undefined ? this.stream.write(chunk) : this.stream.write(chunk, written);
  }

  end(chunk?: Uint8Array | string, written?: () => void): this {
    if (this.ended) return this;
    this.ended = true;
    const stream = this.stream;
    if (stream.destroyed) return this;
    this.flushHeaders();
    if (chunk !== undefined) stream.end(chunk, written);
    else stream.end();
    return this;
  }

  destroy(error?: Error): this {
    if (!this.closed) this.stream.destroy(error);
    return this;
  }

  /** The stream is gone, sent or cut: as the compatibility response, 'finish' then 'close'. */
  streamClosed(): void {
    if (this.closed) return;
    this.closed = true;
    responseOf.delete(this.stream);
    this.emit('finish');
    this.emit('close');
  }
}
