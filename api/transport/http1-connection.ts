// HTTP/1.1 connection rules that Node's server lacks and Go's (kube-apiserver's) has. They are
// about HTTP/1.1 framing (one byte stream carrying requests one after another), so they apply to
// HTTP/1.1 connections only; HTTP/2 frames each stream itself and needs none of this.
//
// 1. An early response (a 401 before a chunked upload, a 413, any error sent before the body was
//    read) does not make the server read the rest of the body. Node would read and discard it
//    all to keep the connection (one connection went on to read 147 MB). Like Go's server, at
//    most 256 KiB more are read: a body declared that small is drained and the connection kept;
//    otherwise the response says `Connection: close` and the connection closes once it is out.
// 2. A request Node's parser refuses is answered after the responses to the requests before it
//    on the connection, never ahead of them, and then the connection closes. An unknown method
//    gets kube-apiserver's 405 Status: Go's parser takes any method token and the router refuses
//    it, while llhttp knows a fixed list and fails the parse. Other head errors get Go's plain
//    `400 Bad Request` (431 for headers over the limit).
// 3. Broken framing inside a request body (a bad chunk size) fails that request's body read
//    (`onBodyFramingError`), so its handler answers it, in order, and the connection then closes.
// 4. `Expect: 100-continue` is answered `100 Continue` only when a handler starts reading the body
//    (`beginBodyRead`), as Go does, not as soon as the head arrives, as Node does: a request
//    refused first (401, 403, 413...) never has its body sent at all, and its connection closes.
// 5. A `CONNECT` is answered by the handler, as any method is, and its connection then closes
//    (`answerConnect`).
//
// Use: `createServer({ ...HTTP1_SERVER_OPTIONS, ... }, handler)`, then `installHttp1Rules(server)`.
import { ServerResponse, type IncomingMessage, type Server as HttpServer } from 'node:http';
import type { Server as HttpsServer } from 'node:https';
import type { Socket } from 'node:net';
import { routeMethodNotAllowed } from '../../engine/status/errors.ts';
import { addHook, runHooks, type Hook } from '../request/hook-slots.ts';
import { awaitContinue, failBodyFraming, requestBodyRead, waitsForContinue } from '../request/request-body.ts';
import { RESPONSE_EXTRAS, type PresetLines, type ResponseExtras } from '../request/response-extras.ts';

/** What Go's server reads of a body its handler left unread (`maxPostHandlerReadBytes`). */
export const MAX_POST_HANDLER_READ_BYTES = 256 * 1024;

const pendingResponses = Symbol('fairway.pendingResponses');
const whenIdle = Symbol('fairway.whenIdle');
const parseFailed = Symbol('fairway.parseFailed');
const lastRequest = Symbol('fairway.lastRequest');
const responseSocket = Symbol('fairway.responseSocket');

interface ConnectionState {
  /** Responses created on this connection and not yet closed. */
  [pendingResponses]?: number;
  /** Runs once no response is pending. */
  [whenIdle]?: (() => void) | undefined;
  [parseFailed]?: boolean;
  /** The newest request on the connection. */
  [lastRequest]?: IncomingMessage | undefined;
}
type Connection = Socket & ConnectionState;

/** ServerResponse as Node defines it: its server passes response options (highWaterMark...) on; @types/node 20 declares only `req`. */
const NodeServerResponse = ServerResponse as typeof ServerResponse & (new (req: IncomingMessage, options?: object) => ServerResponse);

/** Node's ServerResponse with the early-response rule, and counted per connection for rule 2. */
export class Http1Response extends NodeServerResponse implements ResponseExtras {
  declare readonly [RESPONSE_EXTRAS]: true;
  private readonly [responseSocket]: Connection;

  constructor(req: IncomingMessage, options?: object) {
    // Two plain arguments: a spread call here would cost an array and an iteration per response.
    super(req, options);
    const socket = req.socket as Connection;
    this[responseSocket] = socket;
    socket[pendingResponses] = (socket[pendingResponses] ?? 0) + 1;
    socket[lastRequest] = req;
    // A response emits 'close' once; `on` spares the wrapper `once` would allocate per response.
    this.on('close', Http1Response.closed);
  }

  /** The one 'close' listener of every response, shared (no closure per response). */
  private static readonly closed = function (this: Http1Response): void {
    connectionResponseClosed(this);
    runHooks(this, this, false);
  };

  /**
   * The close hooks (hook-slots.ts), run by the one 'close' listener above in the order added: a
   * second listener would cost the response a listener array.
   */
  hook1: Hook<Http1Response> | undefined = undefined;
  hook2: Hook<Http1Response> | undefined = undefined;
  hookArg1: unknown = undefined;
  hookArg2: unknown = undefined;
  moreHooks: [Hook<Http1Response>, unknown][] | undefined = undefined;

  /** Runs `hook(response, arg)` when the response closes, as a 'close' listener added now would. */
  onClose<A>(hook: Hook<Http1Response, A>, arg: A): void {
    addHook(this, hook, arg);
  }

  /** Header lines already validated and serialized (preset-headers.ts), sent right after the status line. */
  private headerLines = '';
  private presets: PresetLines[] | undefined;

  addHeaderLines(preset: PresetLines): void {
    this.headerLines += preset.lines;
    // Exactly as long as needed: a pushed-to empty array reserves 17 slots, per response.
    this.presets = this.presets === undefined ? [preset] : this.presets.concat(preset);
  }

  /** Preset headers never reach Node's dictionary, so they are read from the presets. */
  override getHeader(name: string): ReturnType<ServerResponse['getHeader']> {
    const value = super.getHeader(name);
    if (value !== undefined || this.presets === undefined) return value;
    for (const preset of this.presets) {
      const found = preset.value(name);
      if (found !== undefined) return found;
    }
    return undefined;
  }

  /**
   * Node's own step that serializes the head (status line, then the headers set): the preset lines
   * go in as part of the status line's text, so Node neither validates nor stores them again.
   */
  _storeHeader(firstLine: string, headers: unknown): void {
    (ServerResponse.prototype as unknown as Http1Internals)._storeHeader.call(
      this,
      this.headerLines === '' ? firstLine : firstLine + this.headerLines,
      headers,
    );
  }

  // Explicit parameters rather than a rest array: this runs for every response.
  override writeHead(statusCode: number, reason?: unknown, headers?: unknown): this {
    if (!this.headersSent) limitUnreadBody(this);
    return (ServerResponse.prototype.writeHead as (code: number, a?: unknown, b?: unknown) => this).call(this, statusCode, reason, headers);
  }
}

/** The one internal of node:http's ServerResponse this file builds on (stable since Node 0.x; not in @types/node). */
interface Http1Internals {
  _storeHeader(this: ServerResponse, firstLine: string, headers: unknown): void;
}

function connectionResponseClosed(res: Http1Response): void {
  const socket = res[responseSocket];
  const pending = (socket[pendingResponses] ?? 1) - 1;
  socket[pendingResponses] = pending;
  if (socket[lastRequest] === res.req) socket[lastRequest] = undefined;
  const idle = socket[whenIdle];
  if (pending === 0 && idle !== undefined) {
    socket[whenIdle] = undefined;
    idle();
  }
}

/** Rule 1, decided as the response's head goes out. */
function limitUnreadBody(res: Http1Response): void {
  const req = res.req;
  if (requestBodyRead(req)) return;
  const length = req.headers['content-length'];
  // A small declared remainder: Node reads and discards it after the response, keeping the
  // connection; unless the client still waits for `100 Continue` and may never send it.
  if (!waitsForContinue(req) && req.headers['transfer-encoding'] === undefined && Number(length) <= MAX_POST_HANDLER_READ_BYTES) return;
  res.setHeader('Connection', 'close');
  (req.socket as Connection).destroySoon = lingeringClose;
  res.once('finish', stopBody);
}

/**
 * Runs after Node's own end-of-response step, which resumed a body nobody read so as to discard
 * it until the socket closes. Paused again, the body takes at most its buffer (16 KiB) and then
 * stops the socket from being read.
 */
function stopBody(this: Http1Response): void {
  this.req.pause();
}

/**
 * How long a connection closed under an unread body stays half-open: the client gets time to
 * read the response before the close turns into a reset that would discard it (Go's
 * rstAvoidanceDelay, and its closeWriteAndWait does the same).
 */
export const RST_AVOIDANCE_DELAY_MS = 500;

/** Replaces Node's `destroySoon` (end, then destroy once written) on a connection closed early. */
function lingeringClose(this: Connection): void {
  if (this.writable) this.end();
  const timer = setTimeout(() => this.destroy(), RST_AVOIDANCE_DELAY_MS);
  this.once('close', () => clearTimeout(timer));
}

/** The options every HTTP/1.1 server of Fairway's takes (`http.createServer` / `https.createServer`). */
export const HTTP1_SERVER_OPTIONS = { ServerResponse: Http1Response } as const;

/** Rules 2 to 4: parse errors answered in order, then the close; `100 Continue` left to `beginBodyRead`. */
export function installHttp1Rules(server: HttpServer | HttpsServer | HttpServer<typeof IncomingMessage, typeof Http1Response>): void {
  const http = server as HttpServer;
  http.on('clientError', onClientError as (error: Error, socket: Socket) => void);
  // With a listener here Node leaves `100 Continue` to the server (rule 4).
  http.on('checkContinue', (req: IncomingMessage, res: ServerResponse) => {
    awaitContinue(req, res);
    http.emit('request', req, res);
  });
  http.on('connect', (req: IncomingMessage, socket: Socket) => answerConnect(http, req, socket));
}

/**
 * Rule 5. Go's server hands a CONNECT to the handler like any other method, and kube-apiserver
 * answers it (401, 404, 405... as for any request it does not serve). Node gives it to a 'connect'
 * listener with the bare socket, and without one destroys the connection without a word. Here it
 * goes to the handler with a response on that socket, and the connection closes once the response
 * is out: Node's parser has let go of the socket, so no request can follow on it.
 */
function answerConnect(http: HttpServer, req: IncomingMessage, socket: Socket): void {
  // Node took its own error listener off with the parser.
  socket.on('error', () => socket.destroy());
  const res = new Http1Response(req);
  res.shouldKeepAlive = false;
  res.assignSocket(socket);
  res.once('finish', () => socket.destroySoon());
  http.emit('request', req, res);
}

function onClientError(error: Error & { code?: string }, socket: Connection): void {
  const head = errorResponse(error);
  if (head === undefined || socket.destroyed || !socket.writable) {
    // Not a parse error (a reset, a TLS failure): nothing to answer.
    socket.destroy();
    return;
  }
  // llhttp reports the same failure again for every later read; the first one is answered.
  if (socket[parseFailed] === true) return;
  socket[parseFailed] = true;
  const request = socket[lastRequest];
  if (request !== undefined && !request.complete) {
    if (error.code === 'ERR_HTTP_REQUEST_TIMEOUT') {
      // Node's own request timeout in the middle of a body; Fairway's deadline (a 504) comes first.
      socket.destroy();
      return;
    }
    // The error is in this request's body: its own handler answers it (rule 3).
    failBodyFraming(request, framingFailure(error));
    stopReading(socket);
    return;
  }
  const answer = () => {
    if (socket.destroyed || !socket.writable) return;
    socket.end(head, () => socket.destroy());
  };
  if ((socket[pendingResponses] ?? 0) > 0) {
    stopReading(socket);
    socket[whenIdle] = answer;
  } else {
    answer();
  }
}

/** Nothing after a parse error can be a request; the bytes stay unread. */
function stopReading(socket: Connection): void {
  socket.pause();
}

function plain(code: number, text: string): string {
  const body = `${code} ${text}`;
  return `HTTP/1.1 ${code} ${text}\r\nContent-Type: text/plain; charset=utf-8\r\nContent-Length: ${body.length}\r\nConnection: close\r\n\r\n${body}`;
}

const BAD_REQUEST = plain(400, 'Bad Request');
const HEADERS_TOO_LARGE = plain(431, 'Request Header Fields Too Large');
const REQUEST_TIMEOUT = plain(408, 'Request Timeout');
const METHOD_NOT_ALLOWED = (() => {
  const body = `${JSON.stringify(routeMethodNotAllowed())}\n`;
  return `HTTP/1.1 405 Method Not Allowed\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`;
})();

/** The raw response to a parse error, or undefined when the error is not one. */
function errorResponse(error: Error & { code?: string }): string | undefined {
  const code = error.code ?? '';
  if (code === 'HPE_INVALID_METHOD') return METHOD_NOT_ALLOWED;
  if (code === 'HPE_HEADER_OVERFLOW') return HEADERS_TOO_LARGE;
  if (code === 'ERR_HTTP_REQUEST_TIMEOUT') return REQUEST_TIMEOUT;
  return code.startsWith('HPE_') ? BAD_REQUEST : undefined;
}

/** Go's words for a body whose framing is broken. */
function framingFailure(error: Error & { code?: string }): Error {
  const text = error.code === 'HPE_INVALID_CHUNK_SIZE' ? 'invalid byte in chunk length' : 'malformed chunked encoding';
  return new Error(text);
}

// The mark responseExtras() reads, on the prototype: no response carries a field for it.
Object.defineProperty(Http1Response.prototype, RESPONSE_EXTRAS, { value: true });
