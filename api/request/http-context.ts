// The request as the server's filter chain sees it. Filters run in order (authentication →
// impersonation → priority and fairness → authorization → handler, as in kube-apiserver; admission is no filter, the kinds' registries run it
// on writes) and each decides whether to call `next()`; a filter that answers the request
// itself does not.

import type { Hook } from './hook-slots.ts';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { RequestInfo } from '../../engine/request/request-info.ts';
import type { UserInfo } from '../../engine/auth/user-info.ts';
import type { Connection } from './connection.ts';

export interface RequestContext {
  readonly req: IncomingMessage;
  readonly res: ServerResponse;
  /** The connection the request came on (its client address and certificate chain); set by the server. */
  readonly connection?: Connection;
  /** The request target, parsed when first asked for (most requests only need `query`). */
  readonly url: URL;
  /** The query parameters. */
  readonly query: URLSearchParams;
  /** Parsed from method + path before any filter runs (request-info.ts). */
  readonly requestInfo: RequestInfo;
  /** Set by authentication (and replaced by impersonation); undefined before it. */
  user: UserInfo | undefined;
  /** Set by impersonation: the authenticated user acting as `user`. */
  impersonator?: UserInfo | undefined;
  /**
   * Set by priority and fairness: the UID of the priority level the request was put in (what its
   * `X-Kubernetes-PF-PriorityLevel-UID` header says), '' before that or without APF. A streaming
   * body is written under this key, so that bodies share the main thread by priority level.
   */
  priorityLevelUid: string;
  /** Real-clock milliseconds at arrival. */
  readonly receivedMs: number;
  /** The request's deadline in real-clock milliseconds (from `?timeout=` or `--request-timeout`). */
  readonly deadlineMs: number;
  /** Aborted when the client goes away or the server shuts down. */
  readonly signal: AbortSignal;
  /**
   * Resolves when a watch has sent its initial events (or at once for any other request). APF
   * releases a watch's seats then, as kube-apiserver does; the stream goes on outside APF.
   */
  readonly watchInitialized: Promise<void>;
  /** Called by the watch handler once its initial events are written. */
  markWatchInitialized(): void;
  /**
   * Runs `hook` when the request ends: the chain has settled (a thrown error already answered) and
   * the response is ended, or, for a detached watch, when the watch ends. Filters with work at the
   * end of a request register it here instead of awaiting `next()`: no async frame per request,
   * and an open watch keeps none of their frames. Hooks run last registered first. `arg` is handed
   * to the hook: a hook shared by every request finds its request's state there, not in a property
   * added to Node's request or response (a shape change per request).
   */
  onEnd<A>(hook: EndHook<A>, arg: A): void;
  onEnd(hook: EndHook): void;
  /**
   * Told when the request is aborted (client gone, deadline, shutdown), without the cost of an
   * AbortSignal; one listener at a time, `undefined` removes it.
   */
  setAbortListener(listener: AbortListener | undefined): void;
  /**
   * Called by a watch handler whose initial events are out: the chain's promise then resolves
   * while the watch goes on, held only by its own small state, and the handler calls `end()`
   * when the watch is over.
   */
  detach(): void;
  readonly detached: boolean;
  /** Ends a detached request: runs the end hooks, ends the response, and so on as for any request. */
  end(): void;
}

/** End-of-request work; one function per filter, shared by all requests (the context and `arg` say which). */
export type EndHook<A = undefined> = Hook<RequestContext, A>;

export interface AbortListener {
  requestAborted(): void;
}

/**
 * What a filter or handler returns: a promise that resolves when the response is completely
 * written (or abandoned), or undefined when it already is (a GET answered from the watch cache
 * costs no promise on its way back through the chain).
 */
export type Answered = Promise<void> | undefined;

/** The end of the chain (and any route handler). */
export type Handler = (context: RequestContext) => Answered;

/** One stage of the chain. A filter calls `next()` at most once, and returns what it returned or its own promise. */
export type Filter = (context: RequestContext, next: () => Answered) => Answered;

/** The filters and the handler every request goes through, in order; shared by all requests. */
export interface Pipeline {
  readonly filters: readonly Filter[];
  readonly handler: Handler;
}

/**
 * One request's way through a pipeline: `next` is made once per request (not once per filter) and
 * moves a cursor. The server's request context is a ChainRun itself, so a request costs no object
 * of its own for its way through the chain, only `next`, a bound `step` (an arrow capturing `this`
 * measured 350 bytes more per request, and slower).
 */
export abstract class ChainRun {
  private stage = 0;
  readonly next: () => Answered = this.step.bind(this);

  constructor(private readonly pipeline: Pipeline) {}

  /** What the filters and the handler are given. */
  protected abstract get chainContext(): RequestContext;

  /** Runs the next filter (the handler after the last). */
  step(): Answered {
    const stage = this.stage++;
    const { filters } = this.pipeline;
    return stage < filters.length ? filters[stage]!(this.chainContext, this.next) : this.pipeline.handler(this.chainContext);
  }
}

/** A chain run for a context that is not one itself (tests of single filters). */
class ContextRun extends ChainRun {
  constructor(
    pipeline: Pipeline,
    private readonly context: RequestContext,
  ) {
    super(pipeline);
  }

  protected get chainContext(): RequestContext {
    return this.context;
  }
}

/** Runs `filters` in order, then `handler`. */
export function chain(filters: readonly Filter[], handler: Handler): Handler {
  const pipeline: Pipeline = { filters, handler };
  return (context) => new ContextRun(pipeline, context).step();
}
