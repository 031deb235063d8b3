// The API server's request path, independent of the socket it listens on: builds each request's
// context (RequestInfo, deadline, abort signal), runs the filter chain (authentication →
// priority and fairness → authorization) and routes to a handler. It also knows every request in
// flight, so shutdown can end watches cleanly and wait for the rest.
//
// Routing, in kube-apiserver's order of precedence: health checks, resource requests of the
// flowcontrol group, describing documents (version, discovery, OpenAPI), extra routes (metrics,
// debug), then 404.
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Clock } from '../engine/clock.ts';
import { goDurationToMs, parseGoDuration } from '../engine/config/go-duration.ts';
import type { RequestInfo } from '../engine/flowcontrol/request-digest.ts';
import { chain, type Filter, type RequestContext } from './http-context.ts';
import { connectionOf } from './connection.ts';
import { ApiError, badRequest, routeNotFound, timeout } from './errors.ts';
import type { Logger } from './log.ts';
import { parseRequestInfo } from './request-info.ts';
import { errorStatus, sendError, sendStatus } from './handlers/respond.ts';
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
const noop = (): void => undefined;

/**
 * An AbortController made only when someone asks for the signal: most requests never do, and
 * creating one per request is a measurable share of a small GET.
 */
class LazyAbort {
  private controller: AbortController | undefined;
  private aborted = false;

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
  const inFlight = new Map<RequestContext, LazyAbort>();
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
      sendStatus(res, badRequest(`invalid request URI: ${JSON.stringify(req.url ?? '')}`));
      return;
    }
    const requestInfo = parseRequestInfo(req.method ?? 'GET', decodePath(url.pathname), url.searchParams);
    let deadlineMs: number;
    try {
      deadlineMs = deadlineFor(url, requestInfo, receivedMs, options.requestTimeoutMs);
    } catch (error) {
      sendStatus(res, errorStatus(error, logger));
      return;
    }
    const abort = new LazyAbort();
    let watchInitialized = INITIALIZED;
    let markWatchInitialized: () => void = noop;
    if (requestInfo.verb === 'watch') watchInitialized = new Promise<void>((resolve) => (markWatchInitialized = () => resolve()));
    const context: RequestContext = {
      req,
      res,
      connection: connectionOf(req),
      url,
      requestInfo,
      receivedMs,
      deadlineMs,
      get signal() {
        return abort.signal;
      },
      user: undefined,
      watchInitialized,
      markWatchInitialized: () => markWatchInitialized(),
    };
    inFlight.set(context, abort);
    const onClose = () => {
      if (!res.writableFinished) abort.abort();
    };
    res.on('close', onClose);
    let cancelTimer: (() => void) | undefined;
    if (Number.isFinite(deadlineMs)) {
      cancelTimer = clock.after(deadlineMs - receivedMs, () => {
        // kube-apiserver's timeout filter: a 504 if nothing was written yet, and the handler's
        // later writes go nowhere.
        if (!res.headersSent) sendStatus(res, timeout());
        abort.abort();
        // A client that stalls mid-body would keep the handler, and its APF seats, waiting for
        // bytes until the socket dies. Go's server fails such reads once the handler has answered;
        // here the connection is closed once the 504 is out, which fails the handler's read.
        if (!req.complete) void responseFlushed(res).then(() => req.destroy());
      });
    }
    run(context)
      .catch((error: unknown) => sendError(context, error, logger))
      .finally(() => {
        cancelTimer?.();
        res.off('close', onClose);
        if (!res.writableEnded) res.end();
      })
      // In flight until the body is on the socket: shutdown's drain must not cut a slow reader's body.
      .then(() => responseFlushed(res))
      .finally(() => {
        inFlight.delete(context);
        options.onDone?.(context);
        if (inFlight.size === 0) idle?.();
      });
  };

  return {
    handle,
    get inFlight() {
      return inFlight.size;
    },
    async drain(timeoutMs) {
      for (const [context, abort] of inFlight) if (context.requestInfo.verb === 'watch') abort.abort();
      if (inFlight.size === 0) return;
      await new Promise<void>((resolve) => {
        const cancel = clock.after(timeoutMs, resolve);
        idle = () => {
          cancel();
          resolve();
        };
      });
      for (const abort of inFlight.values()) abort.abort();
    },
  };
}
