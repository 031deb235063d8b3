// The API server's request path, independent of the socket it listens on: builds each request's
// context (RequestInfo, deadline, abort signal), runs the filter chain (authentication →
// priority and fairness → authorization) and routes to a handler. It also knows every request in
// flight, so shutdown can end watches cleanly and wait for the rest. Where a request goes after the
// filters is routing.ts's.
import type { IncomingMessage, ServerResponse } from 'node:http';
import { constants as http2Constants, type ServerHttp2Stream } from 'node:http2';
import type { Clock } from '../../engine/clock.ts';
import { goDurationToMs, parseGoDuration } from '../../engine/go-duration.ts';
import type { RequestInfo } from '../../engine/request/request-info.ts';
import type { Answered, RequestContext } from '../request/http-context.ts';
import { connectionOf } from '../request/connection.ts';
import { InFlightRequest, type RequestEnder } from '../request/in-flight-request.ts';
import { ApiError, badRequest, timeout } from '../../engine/status/errors.ts';
import { RequestTargets } from '../request/request-target.ts';
import { sendError, sendStatus, sendStatusNegotiated, statusRepresentation } from '../request/respond.ts';
import { errorStatus } from '../engine-errors.ts';
import { responseFlushed, whenFlushed } from '../request/response-flushed.ts';
import { Deadlines } from '../../engine/deadlines.ts';
import { LinkedList } from '../../engine/linked-list.ts';
import { routingPipeline, type RoutingOptions } from './routing.ts';

const { NGHTTP2_NO_ERROR } = http2Constants;

export interface ApiServerOptions extends RoutingOptions {
  clock: Clock;
  /** --request-timeout: the deadline of every request that is not long-running. */
  requestTimeoutMs: number;
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

// kube-apiserver's timeout filter: a 504 if nothing was written yet, and the handler's later
// writes go nowhere; a body already under way cannot be finished, so the connection is cut, as
// Go's timeout handler aborts it.
function answerDeadline(context: InFlightRequest): void {
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
}

/**
 * Ends every watch, waits (at most `timeoutMs`) for the other requests in `inFlight` to finish, then
 * aborts what is left. `onIdle` is handed what to call when the last request is done.
 */
async function drainRequests(inFlight: LinkedList<InFlightRequest>, clock: Clock, timeoutMs: number, onIdle: (wake: () => void) => void): Promise<void> {
  for (const context of inFlight.toArray()) if (context.requestInfo.verb === 'watch') context.abort();
  if (inFlight.size === 0) return;
  await new Promise<void>((resolve) => {
    const cancel = clock.after(timeoutMs, resolve);
    onIdle(() => {
      cancel();
      resolve();
    });
  });
  for (const context of inFlight.toArray()) context.abort();
}

export function createApiServer(options: ApiServerOptions): ApiServer {
  const { clock, logger } = options;
  // The requests in flight, for drain and shutdown.
  const inFlight = new LinkedList<InFlightRequest>();
  const targets = new RequestTargets();
  let idle: (() => void) | undefined;
  const pipeline = routingPipeline(options);
  const deadlines = new Deadlines<InFlightRequest>(clock, answerDeadline);
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
    drain: (timeoutMs) => drainRequests(inFlight, clock, timeoutMs, (wake) => (idle = wake)),
  };
}
