// The server's own request context: one request in flight, as the filters and handlers see it
// (http-context.ts), with what the server keeps of it — its end hooks, its place in the list of
// requests in flight and in the deadlines — and what aborts it (the client leaving, the deadline,
// shutdown).
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Deadline } from '../../engine/deadlines.ts';
import type { ListMember } from '../../engine/linked-list.ts';
import type { RequestInfo } from '../../engine/request/request-info.ts';
import type { UserInfo } from '../../engine/auth/user-info.ts';
import type { Connection } from './connection.ts';
import { addHook, runHooks, type Hook } from './hook-slots.ts';
import { ChainRun, type AbortListener, type EndHook, type Pipeline, type RequestContext } from './http-context.ts';
import { URL_BASE } from './request-target.ts';

/** A settled promise: the chain's answer when there is nothing to wait for. */
export const INITIALIZED = Promise.resolve();

/**
 * One request in flight, over HTTP/1.1 or HTTP/2 (whose compatibility objects have the same
 * surface), as the filters and handlers see it. The parsed URL and the abort signal are made only
 * when asked for (most requests never ask, and a URL or an AbortController per request is a
 * measurable share of a small GET). A class without per-request closures: an open watch keeps this
 * alive for as long as it lasts, so its size is the server's memory per watch.
 */
export class InFlightRequest extends ChainRun implements RequestContext, Deadline, ListMember<InFlightRequest> {
  user: UserInfo | undefined = undefined;
  impersonator: UserInfo | undefined = undefined;
  priorityLevelUid = '';
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
export interface RequestEnder {
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
