// The API server's request path, independent of the socket it listens on: builds each request's
// context (RequestInfo, deadline, abort signal), runs the filter chain (authentication →
// priority and fairness → authorization) and routes to a handler. It also knows every request in
// flight, so shutdown can end watches cleanly and wait for the rest.
//
// Routing, in kube-apiserver's order of precedence: health checks, resource requests of the
// flowcontrol group, describing documents (version, discovery, OpenAPI), extra routes (metrics,
// debug), then 404.
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Cancel, Clock } from '../engine/clock.ts';
import { goDurationToMs, parseGoDuration } from '../engine/config/go-duration.ts';
import type { RequestInfo, UserInfo } from '../engine/flowcontrol/request-digest.ts';
import { chain, type Filter, type RequestContext } from './http-context.ts';
import { connectionOf, type Connection } from './connection.ts';
import { ApiError, badRequest, routeNotFound, timeout } from './errors.ts';
import type { Logger } from './log.ts';
import { parseRequestInfo } from './request-info.ts';
import { errorStatus, sendError, sendStatus, sendStatusNegotiated, statusRepresentation } from './handlers/respond.ts';
import { serveHealth, type HealthChecks } from './handlers/health.ts';
import { responseFlushed } from './response-flushed.ts';

export type RouteHandler = (context: RequestContext) => Promise<void>;

export interface ApiServerOptions {
  clock: Clock;
  logger: Logger;
  /** --request-timeout: the deadline of every request that is not long-running. */
  requestTimeoutMs: number;
  /**
   * The filter chain in order: authentication, priority and fairness (unless turned off), request
   * metrics, authorization (a slot that passes everything until authorizers exist, issue 7).
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
 * One request in flight: its context for the filters and handlers, its lazily made abort signal
 * (most requests never ask, and an AbortController per request is a measurable share of a small
 * GET), its deadline timer, and, for a watch, the promise of its initial events. A class rather
 * than an object literal with closures: an open watch keeps this alive for as long as it lasts, so
 * its size is the server's memory per watch.
 */
class InFlightRequest implements RequestContext {
  user: UserInfo | undefined = undefined;
  impersonator: UserInfo | undefined = undefined;
  readonly watchInitialized: Promise<void> = INITIALIZED;
  cancelTimer: Cancel | undefined = undefined;
  private controller: AbortController | undefined = undefined;
  private aborted = false;
  private resolveInitialized: (() => void) | undefined = undefined;

  constructor(
    readonly req: IncomingMessage,
    readonly res: ServerResponse,
    readonly connection: Connection,
    readonly url: URL,
    readonly requestInfo: RequestInfo,
    readonly receivedMs: number,
    readonly deadlineMs: number,
  ) {
    if (requestInfo.verb === 'watch') this.watchInitialized = new Promise<void>((resolve) => (this.resolveInitialized = resolve));
  }

  get signal(): AbortSignal {
    if (this.controller === undefined) {
      this.controller = new AbortController();
      if (this.aborted) this.controller.abort();
    }
    return this.controller.signal;
  }

  abort(): void {
    this.aborted = true;
    this.controller?.abort();
  }

  markWatchInitialized(): void {
    this.resolveInitialized?.();
  }
}

/** Which request each response belongs to, for the one shared 'close' listener. */
const requestOfResponse = new WeakMap<object, InFlightRequest>();

/** A response that closes before it finished: its client went away, so the request is aborted. */
function onResponseClose(this: ServerResponse): void {
  if (!this.writableFinished) requestOfResponse.get(this)?.abort();
}

/** The authorization slot's filter until authorizers exist (issue 7): every request passes. */
export const allowAllAuthorization: Filter = (_context, next) => next();

function decodePath(pathname: string): string {
  try {
    return decodeURIComponent(pathname);
  } catch {
    return pathname;
  }
}

/** The request's own deadline (`?timeout=`), capped by the server's; long-running requests have none. */
function deadlineFor(url: URL, info: RequestInfo, receivedMs: number, requestTimeoutMs: number): number {
  if (info.verb === 'watch') return Number.POSITIVE_INFINITY;
  const text = url.searchParams.get('timeout');
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
  const inFlight = new Set<InFlightRequest>();
  let idle: (() => void) | undefined;

  const route = async (context: RequestContext): Promise<void> => {
    if (serveHealth(context, options.health)) return;
    if (context.requestInfo.isResourceRequest) return options.resources(context);
    if (await options.describe(context)) return;
    const path = context.requestInfo.path;
    for (const [key, handler] of extraRoutes) {
      if (key.endsWith('/') ? path.startsWith(key) || path === key.slice(0, -1) : path === key) return handler(context);
    }
    throw new ApiError(routeNotFound());
  };
  const run = chain(filters, async (context) => {
    try {
      await route(context);
    } catch (error) {
      sendError(context, error, logger);
    }
  });

  const handle = (req: IncomingMessage, res: ServerResponse): void => {
    const receivedMs = clock.now();
    let url: URL;
    try {
      url = new URL(req.url ?? '/', 'https://fairway.invalid');
    } catch {
      sendStatus(res, badRequest(`invalid request URI: ${JSON.stringify(req.url ?? '')}`), statusRepresentation(req));
      return;
    }
    const requestInfo = parseRequestInfo(req.method ?? 'GET', decodePath(url.pathname), url.searchParams);
    let deadlineMs: number;
    try {
      deadlineMs = deadlineFor(url, requestInfo, receivedMs, options.requestTimeoutMs);
    } catch (error) {
      sendStatus(res, errorStatus(error, logger), statusRepresentation(req, url));
      return;
    }
    const request = new InFlightRequest(req, res, connectionOf(req), url, requestInfo, receivedMs, deadlineMs);
    inFlight.add(request);
    requestOfResponse.set(res, request);
    res.on('close', onResponseClose);
    if (Number.isFinite(deadlineMs)) {
      request.cancelTimer = clock.after(deadlineMs - receivedMs, () => {
        // kube-apiserver's timeout filter: a 504 if nothing was written yet, and the handler's
        // later writes go nowhere.
        if (!res.headersSent) sendStatusNegotiated(request, timeout());
        request.abort();
        // A client that stalls mid-body would keep the handler, and its APF seats, waiting for
        // bytes until the socket dies. Go's server fails such reads once the handler has answered;
        // here the connection is closed once the 504 is out, which fails the handler's read.
        if (!req.complete) void responseFlushed(res).then(() => req.destroy());
      });
    }
    void serve(request);
  };

  const serve = async (request: InFlightRequest): Promise<void> => {
    const { res } = request;
    try {
      try {
        await run(request);
      } catch (error) {
        sendError(request, error, logger);
      }
    } finally {
      request.cancelTimer?.();
      res.off('close', onResponseClose);
      if (!res.writableEnded) res.end();
    }
    try {
      // In flight until the body is on the socket: shutdown's drain must not cut a slow reader's body.
      await responseFlushed(res);
    } finally {
      inFlight.delete(request);
      options.onDone?.(request);
      if (inFlight.size === 0) idle?.();
    }
  };

  return {
    handle,
    get inFlight() {
      return inFlight.size;
    },
    async drain(timeoutMs) {
      for (const request of inFlight) if (request.requestInfo.verb === 'watch') request.abort();
      if (inFlight.size === 0) return;
      await new Promise<void>((resolve) => {
        const cancel = clock.after(timeoutMs, resolve);
        idle = () => {
          cancel();
          resolve();
        };
      });
      for (const request of inFlight) request.abort();
    },
  };
}
