// The API server's request path, independent of the socket it listens on: builds each request's
// context (RequestInfo, deadline, abort signal), runs the filter chain (authentication →
// priority and fairness → authorization) and routes to a handler. It also knows every request in
// flight, so shutdown can end watches cleanly and wait for the rest.
//
// Routing, in kube-apiserver's order of precedence: health checks, resource requests of the
// flowcontrol group, describing documents (version, discovery, OpenAPI), extra routes (metrics,
// debug), then 404.
import type { IncomingMessage, ServerResponse } from 'node:http';
import { constants as http2Constants, type ServerHttp2Stream } from 'node:http2';
import type { Clock } from '../../engine/clock.ts';
import { goDurationToMs, parseGoDuration } from '../../engine/go-duration.ts';
import type { RequestInfo } from '../../engine/request/request-info.ts';
import type { UserInfo } from '../../engine/auth/user-info.ts';
import { ChainRun, type AbortListener, type Answered, type EndHook, type Filter, type Handler, type Pipeline, type RequestContext } from './http-context.ts';
import { connectionOf, type Connection } from './connection.ts';
import { addHook, runHooks, type Hook } from './hook-slots.ts';
import { ApiError, badRequest, routeNotFound, timeout } from '../../engine/status/errors.ts';
import type { Logger } from '../log.ts';
import { RequestTargets, URL_BASE } from './request-target.ts';
import { sendError, sendStatus, sendStatusNegotiated, statusRepresentation } from '../handlers/respond.ts';
import { errorStatus } from '../engine-errors.ts';
import { serveHealth, type HealthChecks } from '../handlers/health.ts';
import { responseFlushed, whenFlushed } from './response-flushed.ts';
import { Deadlines, type Deadline } from '../../engine/deadlines.ts';
import { LinkedList, type ListMember } from '../../engine/linked-list.ts';

export type RouteHandler = Handler;

const { NGHTTP2_NO_ERROR } = http2Constants;

export interface ApiServerOptions {
  clock: Clock;
  logger: Logger;
  /** --request-timeout: the deadline of every request that is not long-running. */
  requestTimeoutMs: number;
  /**
   * The filter chain in order: authentication, impersonation, priority and fairness (unless turned
   * off), request metrics, authorization, admission.
   */
  filters: readonly Filter[];
  health: HealthChecks;
  resources: RouteHandler;
  /** Answers /version, discovery and OpenAPI; resolves false when the path is none of those. */
  describe: (context: RequestContext) => Promise<boolean>;
  /** Exact paths, or prefixes ending in `/`, served after everything else (`/metrics`, `/debug/...`). */
  extraRoutes?: ReadonlyMap<string, RouteHandler>;
  /** Called once per request when its response is completely written or abandoned (the access log). */
  onDone?: (context: RequestContext) => void;
}

export interface ApiServer {
  /** The `request` listener for node:http(s). */
  handle(req: IncomingMessage, res: ServerResponse): void;
  readonly inFlight: number;
  /**
   * Ends every watch cleanly and waits (at most `timeoutMs`) for the other requests to finish.
   * Requests that arrive meanwhile are still served; stop accepting connections first.
   */
  drain(timeoutMs: number): Promise<void>;
}

const INITIALIZED = Promise.resolve();

/**
 * One request in flight, over HTTP/1.1 or HTTP/2 (whose compatibility objects have the same
 * surface), as the filters and handlers see it. The parsed URL and the abort signal are made only
 * when asked for (most requests never ask, and a URL or an AbortController per request is a
 * measurable share of a small GET). A class without per-request closures: an open watch keeps this
 * alive for as long as it lasts, so its size is the server's memory per watch.
 */
class InFlightRequest extends ChainRun implements RequestContext, Deadline, ListMember<InFlightRequest> {
  user: UserInfo | undefined = undefined;
  impersonator: UserInfo | undefined = undefined;
  watchInitialized: Promise<void> = INITIALIZED;
  detached = false;
  private resolveInitialized: (() => void) | undefined = undefined;
  private parsedUrl: URL | undefined;
  private controller: AbortController | undefined = undefined;
  private abortListener: AbortListener | undefined = undefined;
  /** The end hooks (hook-slots.ts): every request has some (APF, request metrics). */
  hook1: Hook<RequestContext> | undefined = undefined;
  hook2: Hook<RequestContext> | undefined = undefined;
  hookArg1: unknown = undefined;
  hookArg2: unknown = undefined;
  moreHooks: [Hook<RequestContext>, unknown][] | undefined = undefined;
  private hearsClose = false;
  private aborted = false;
  /** Links of the server's list of requests in flight. */
  listed = false;
  listPrevious: InFlightRequest | undefined = undefined;
  listNext: InFlightRequest | undefined = undefined;
  /** Kept by the server's request deadlines. */
  deadlineSlot = -1;
  deadlineSeq = 0;

  constructor(
    pipeline: Pipeline,
    private readonly server: RequestEnder,
    readonly req: IncomingMessage,
    readonly res: ServerResponse,
    readonly connection: Connection,
    readonly requestInfo: RequestInfo,
    readonly receivedMs: number,
    readonly deadlineMs: number,
    readonly query: URLSearchParams,
    private readonly target: string,
    parsedUrl: URL | undefined,
  ) {
    super(pipeline);
    this.parsedUrl = parsedUrl;
    if (requestInfo.verb === 'watch') this.watchInitialized = new Promise<void>((resolve) => (this.resolveInitialized = resolve));
  }

  protected get chainContext(): RequestContext {
    return this;
  }

  get url(): URL {
    this.parsedUrl ??= new URL(this.target, URL_BASE);
    return this.parsedUrl;
  }

  /** Aborted when the client goes away, the deadline passes or the server shuts down. */
  get signal(): AbortSignal {
    if (this.controller === undefined) {
      this.controller = new AbortController();
      if (this.aborted) this.controller.abort();
      else this.hearClose();
    }
    return this.controller.signal;
  }

  setAbortListener(listener: AbortListener | undefined): void {
    this.abortListener = listener;
    if (listener === undefined) return;
    if (this.aborted) listener.requestAborted();
    else this.hearClose();
  }

  markWatchInitialized(): void {
    const resolve = this.resolveInitialized;
    if (resolve === undefined) return;
    this.resolveInitialized = undefined;
    // Settled: an open watch keeps the shared resolved promise, not its own.
    this.watchInitialized = INITIALIZED;
    resolve();
  }

  onEnd<A>(hook: EndHook<A>, arg?: A): void {
    addHook(this, hook, arg as A);
  }

  detach(): void {
    this.detached = true;
  }

  end(): void {
    if (this.detached) this.server.endRequest(this);
  }

  /** The end hooks, last registered first; each runs once. */
  runEndHooks(): void {
    runHooks<RequestContext>(this, this, true);
  }

  abort(): void {
    if (this.aborted) return;
    this.aborted = true;
    this.controller?.abort();
    this.abortListener?.requestAborted();
  }

  /** Only a request that listens for aborts needs to hear of the client leaving. */
  private hearClose(): void {
    if (this.hearsClose) return;
    this.hearsClose = true;
    if (responseCut(this.res)) {
      this.abort();
      return;
    }
    requestOfResponse.set(this.res, this);
    this.res.once('close', onResponseClose);
  }
}

/** How a detached request reaches the server's end-of-request steps. */
interface RequestEnder {
  endRequest(context: InFlightRequest): void;
}

/** Which request each response belongs to, for the one shared 'close' listener. */
const requestOfResponse = new WeakMap<object, InFlightRequest>();

/**
 * A response that closes before it finished: its client went away, so the request is aborted. Both
 * ended and finished, because an HTTP/2 compatibility response reports `writableFinished` once its
 * stream is closed, ended or not.
 */
function onResponseClose(this: ServerResponse): void {
  if (!(this.writableEnded && this.writableFinished)) requestOfResponse.get(this)?.abort();
}

/** Whether the response's connection (HTTP/1.1) or stream (HTTP/2) is already gone unfinished. */
function responseCut(res: ServerResponse): boolean {
  if (res.writableFinished) return false;
  const stream = (res as { stream?: { destroyed: boolean } }).stream;
  return stream !== undefined ? stream.destroyed : res.destroyed;
}

/** The request's own deadline (`?timeout=`), capped by the server's; long-running requests have none. */
function deadlineFor(query: URLSearchParams, info: RequestInfo, receivedMs: number, requestTimeoutMs: number): number {
  if (info.verb === 'watch') return Number.POSITIVE_INFINITY;
  const text = query.get('timeout');
  let timeoutMs = requestTimeoutMs;
  if (text !== null && text !== '') {
    const parsed = parseGoDuration(text);
    if (!parsed.ok) throw new ApiError(badRequest(`invalid timeout specified in the request URL - ${parsed.error}`));
    const askedMs = goDurationToMs(parsed.nanoseconds);
    if (askedMs > 0 && askedMs < requestTimeoutMs) timeoutMs = askedMs;
  }
  return timeoutMs > 0 ? receivedMs + timeoutMs : Number.POSITIVE_INFINITY;
}

export function createApiServer(options: ApiServerOptions): ApiServer {
  const { clock, logger } = options;
  const filters = options.filters;
  const extraRoutes = [...(options.extraRoutes ?? new Map<string, RouteHandler>()).entries()];
  // The requests in flight, for drain and shutdown.
  const inFlight = new LinkedList<InFlightRequest>();
  const targets = new RequestTargets();
  let idle: (() => void) | undefined;

  const routeOther = async (context: RequestContext): Promise<void> => {
    try {
      if (await options.describe(context)) return;
      const path = context.requestInfo.path;
      for (const [key, handler] of extraRoutes) {
        if (key.endsWith('/') ? path.startsWith(key) || path === key.slice(0, -1) : path === key) return await handler(context);
      }
      throw new ApiError(routeNotFound());
    } catch (error) {
      sendError(context, error, logger);
    }
  };
  // Resource requests go straight to their handler, which answers every failure itself.
  const pipeline: Pipeline = {
    filters,
    handler: (context) => {
      // Health paths are never resource paths: resource requests skip the health check.
      if (context.requestInfo.isResourceRequest) return options.resources(context);
      if (serveHealth(context, options.health)) return INITIALIZED;
      return routeOther(context);
    },
  };

  // kube-apiserver's timeout filter: a 504 if nothing was written yet, and the handler's later
  // writes go nowhere; a body already under way cannot be finished, so the connection is cut, as
  // Go's timeout handler aborts it.
  const onDeadline = (context: InFlightRequest): void => {
    const { req, res } = context;
    if (!res.headersSent) sendStatusNegotiated(context, timeout());
    else if (!res.writableEnded) res.destroy();
    context.abort();
    // A client that stalls mid-body would keep the handler, and its APF seats, waiting for bytes
    // until the socket dies. Go's server fails such reads once the handler has answered; here the
    // connection is closed once the 504 is out, which fails the handler's read. An HTTP/2 stream
    // the client keeps open never closes by itself (its response's 'close' waits for the client's
    // END_STREAM): it is reset with NO_ERROR once the 504 is out, as Go's server resets a stream
    // whose handler is done before its body.
    if (!req.complete) {
      const stream = (res as { stream?: ServerHttp2Stream }).stream;
      // Node sends a NO_ERROR reset once what the stream has to write (the 504) is written.
      if (stream !== undefined) stream.close(NGHTTP2_NO_ERROR);
      else void responseFlushed(res).then(() => req.destroy());
    }
  };

  const deadlines = new Deadlines<InFlightRequest>(clock, onDeadline);
  // The request's one wait for its chain: a reaction with two small closures rather than an async
  // frame and its await, a measurable share of a small GET's allocation; none at all when the chain
  // answered before returning. Its deadline is kept only while it is still going on after that: no
  // timer can fire during the chain's synchronous part, and a request answered within it would
  // only arm and disarm the deadlines' timer.
  const serve = (context: InFlightRequest): void => {
    let chainDone: Answered;
    try {
      chainDone = context.step();
    } catch (error) {
      chainDone = Promise.reject(error);
    }
    if (chainDone === undefined) {
      chainSettled(context);
      return;
    }
    if (Number.isFinite(context.deadlineMs)) deadlines.add(context);
    chainDone.then(
      () => chainSettled(context),
      (error: unknown) => chainFailed(context, error),
    );
  };
  const chainFailed = (context: InFlightRequest, error: unknown): void => {
    try {
      sendError(context, error, logger);
    } catch (sendFailure) {
      deadlines.delete(context);
      throw sendFailure;
    }
    chainSettled(context);
  };
  const chainSettled = (context: InFlightRequest): void => {
    deadlines.delete(context);
    // A detached watch goes on; it ends the request itself (`context.end()`).
    if (!context.detached) endRequest(context);
  };

  // The end of every request: end hooks, the response ended, and, once its body is on the socket,
  // out of the in-flight set (shutdown's drain must not cut a slow reader's body) and logged.
  const endRequest = (context: InFlightRequest): void => {
    const res = context.res;
    try {
      context.markWatchInitialized();
      context.runEndHooks();
    } finally {
      if (!res.writableEnded) res.end();
    }
    whenFlushed(res, requestFlushed, context);
  };
  // One listener for every response of this server, told which request it ends.
  const requestFlushed = (_res: unknown, context: InFlightRequest): void => {
    inFlight.delete(context);
    options.onDone?.(context);
    if (inFlight.size === 0) idle?.();
  };
  const ender: RequestEnder = { endRequest };

  const handle = (req: IncomingMessage, res: ServerResponse): void => {
    const receivedMs = clock.now();
    const target = req.url ?? '/';
    const connection = connectionOf(req);
    const parsed = targets.parse(req.method ?? 'GET', target, connection);
    if (parsed === undefined) {
      sendStatus(res, badRequest(`invalid request URI: ${JSON.stringify(target)}`), statusRepresentation(req));
      return;
    }
    const { query, requestInfo, url } = parsed;
    let deadlineMs: number;
    try {
      deadlineMs = deadlineFor(query, requestInfo, receivedMs, options.requestTimeoutMs);
    } catch (error) {
      sendStatus(res, errorStatus(error, logger), statusRepresentation(req, query));
      return;
    }
    const context = new InFlightRequest(pipeline, ender, req, res, connection, requestInfo, receivedMs, deadlineMs, query, target, url);
    inFlight.add(context);
    serve(context);
  };

  return {
    handle,
    get inFlight() {
      return inFlight.size;
    },
    async drain(timeoutMs) {
      for (const context of inFlight.toArray()) if (context.requestInfo.verb === 'watch') context.abort();
      if (inFlight.size === 0) return;
      await new Promise<void>((resolve) => {
        const cancel = clock.after(timeoutMs, resolve);
        idle = () => {
          cancel();
          resolve();
        };
      });
      for (const context of inFlight.toArray()) context.abort();
    },
  };
}
