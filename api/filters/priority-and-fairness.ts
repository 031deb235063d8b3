// The API Priority and Fairness filter (kube-apiserver's WithPriorityAndFairness, apf-semantics
// 5.1, 6.6, 7.6 and 9.1-9.2): classify the authenticated request, admit it through the flow
// controller, and either run the rest of the chain while the request holds its seats, or answer
// 429 with an adaptive Retry-After.
//
// Seats are held until the response is completely written (the request has ended, any error
// response included, and the socket has taken the whole body: an end hook, then `whenFlushed`),
// because on Node a handler's work is asynchronous: releasing when the handler *returns* would
// release before the storage I/O and the response streaming (a large LIST to a slow reader) that
// the seats are meant to bound. A watch holds its seats only until it has sent its initial events
// (`watchInitialized`); the stream goes on outside APF, as in Kubernetes.
//
// Shadow mode (`enforce: false`, flag `--apf-enforce=false`) runs every request at once and keeps
// the queue set's books as if it enforced; docs/flow-control.md ("Shadow mode") defines the model.

import type { Clock } from '../../engine/clock.ts';
import type { Classification } from '../../engine/flowcontrol/classifier.ts';
import type { AdmitOutcome, AdmitRequest, FlowController } from '../../engine/flowcontrol/controller.ts';
import type { InterestedWatches } from '../../engine/flowcontrol/interested-watches.ts';
import type { RequestDigest } from '../../engine/flowcontrol/request-digest.ts';
import type { RequestInfo } from '../../engine/request/request-info.ts';
import type { UserInfo } from '../../engine/auth/user-info.ts';
import type { Admission } from '../../engine/flowcontrol/queue-set.ts';
import { TOO_MANY_REQUESTS_TEXT } from '../../engine/status/errors.ts';
import { goQuote } from '../../engine/go-format.ts';
import type { Answered, EndHook, Filter, RequestContext } from '../request/http-context.ts';
import { responseFlushed, whenFlushed } from '../request/response-flushed.ts';
import { addPresetHeaders, PresetHeaders } from '../request/preset-headers.ts';
import type { FlowSchema, PriorityLevelConfiguration } from '../../engine/resources/types.ts';

export const FLOW_SCHEMA_UID_HEADER = 'X-Kubernetes-PF-FlowSchema-UID';
export const PRIORITY_LEVEL_UID_HEADER = 'X-Kubernetes-PF-PriorityLevel-UID';
/** No request waits in a queue longer than this, whatever its deadline. */
export const MAX_QUEUE_WAIT_MS = 60_000;

// kube-apiserver's BasicLongRunningRequestCheck: these never enter APF, except watches.
const LONG_RUNNING_SUBRESOURCES: ReadonlySet<string> = new Set(['attach', 'exec', 'proxy', 'log', 'portforward']);

/** Hooks for the metrics the filter itself produces (the engine's own go through FlowControlObserver). */
export interface PriorityAndFairnessFilterObserver {
  /** A 429 was answered (enforcing mode). */
  rejected?(context: RequestContext, outcome: AdmitOutcome): void;
  /** Shadow mode: the queue set rejected the request's shadow and the request ran anyway. */
  unenforcedRejection?(context: RequestContext, outcome: AdmitOutcome): void;
}

export interface PriorityAndFairnessFilterOptions {
  controller: FlowController;
  /** false: shadow mode, never delay or reject. */
  enforce: boolean;
  /** The clock that stamped `receivedMs` and `deadlineMs`; also the controller's clock. */
  clock: Clock;
  /** Registered watches for the mutating work estimator; the controller's `watchCount` reads it. */
  watchTracker?: InterestedWatches;
  observer?: PriorityAndFairnessFilterObserver | undefined;
}

/** Long-running requests other than watches bypass APF entirely. */
export function isLongRunning(info: RequestInfo): boolean {
  // Two verbs are compared rather than looked up, and most requests have no subresource: every
  // request asks this.
  if (info.verb === 'watch' || info.verb === 'proxy') return true;
  if (info.isResourceRequest) return info.subresource !== '' && LONG_RUNNING_SUBRESOURCES.has(info.subresource);
  return info.path.startsWith('/debug/pprof/');
}

/**
 * How much longer the request may wait in its queue: a quarter of its deadline, or the server's
 * default (request timeout / 4) for a request without one (a watch), at most a minute; counted
 * from arrival (time spent in earlier filters is already used up); never negative.
 */
export function queueWaitLimitMs(receivedMs: number, deadlineMs: number, nowMs: number, defaultWaitLimitMs: number): number {
  const ownMs = Number.isFinite(deadlineMs) ? (deadlineMs - receivedMs) / 4 : defaultWaitLimitMs;
  const limitMs = Math.min(ownMs, MAX_QUEUE_WAIT_MS);
  return Math.max(0, receivedMs + limitMs - nowMs);
}

export function createPriorityAndFairnessFilter(options: PriorityAndFairnessFilterOptions): Filter {
  const { enforce, clock } = options;
  return (context, next) => {
    const info = context.requestInfo;
    const isWatch = info.verb === 'watch';
    if (!isWatch && isLongRunning(info)) return next();
    const user = context.user;
    if (user === undefined) {
      // A wiring error (authentication must run first), answered the way Go's handleError does.
      plainTextError(context, 500, `Internal Server Error: ${goQuote(requestUri(context))}: no User found in context`);
      return undefined;
    }
    // One reading of the clock serves the wait limit and the controller's arrival time.
    const nowMs = clock.now();
    if (!enforce) {
      const waitLimitMs = queueWaitLimitMs(context.receivedMs, context.deadlineMs, nowMs, options.controller.defaultWaitLimitMs);
      return admitShadow(options, context, next, { digest: { requestInfo: info, user }, query: context.query, waitLimitMs, arrivalMs: nowMs }, isWatch);
    }
    return admitEnforced(options, context, next, new PendingAdmission(context, options.controller.defaultWaitLimitMs, nowMs), isWatch);
  };
}

/**
 * One request's way into the flow controller, and its digest. The controller hands the outcome to
 * one shared callback with this object attached, so admission costs no closure per request; most
 * requests are decided inside `admit()` and never wait. What the request context holds is read
 * from it, and the wait limit is worked out only for a request that waits.
 */
class PendingAdmission implements AdmitRequest, RequestDigest {
  outcome: AdmitOutcome | undefined = undefined;
  /** Set only while a queued request waits. */
  wake: ((outcome: AdmitOutcome) => void) | undefined = undefined;

  constructor(
    private readonly context: RequestContext,
    private readonly defaultWaitLimitMs: number,
    readonly arrivalMs: number,
  ) {}

  get digest(): RequestDigest {
    return this;
  }

  get requestInfo(): RequestInfo {
    return this.context.requestInfo;
  }

  /** Set by authentication (checked before admission) and not changed by the filters after this one. */
  get user(): UserInfo {
    return this.context.user!;
  }

  get query(): URLSearchParams {
    return this.context.query;
  }

  get waitLimitMs(): number {
    return queueWaitLimitMs(this.context.receivedMs, this.context.deadlineMs, this.arrivalMs, this.defaultWaitLimitMs);
  }
}

function deliverOutcome(outcome: AdmitOutcome): void {
  const pending = outcome.admitted as PendingAdmission;
  pending.outcome = outcome;
  pending.wake?.(outcome);
}

function admitEnforced(
  options: PriorityAndFairnessFilterOptions,
  context: RequestContext,
  next: () => Answered,
  pending: PendingAdmission,
  isWatch: boolean,
): Answered {
  const admission = options.controller.admit(pending, deliverOutcome);
  const outcome = pending.outcome;
  if (outcome === undefined) return waitInQueue(options, context, next, pending, admission, isWatch);
  return runAdmitted(options, context, next, outcome, admission, isWatch);
}

async function waitInQueue(
  options: PriorityAndFairnessFilterOptions,
  context: RequestContext,
  next: () => Answered,
  pending: PendingAdmission,
  admission: Admission,
  isWatch: boolean,
): Promise<void> {
  // The client went away (or the server is stopping) while queued: leave the queue. The queue
  // set then decides `time-out`, as Kubernetes counts cancellations.
  const cancel = () => admission.cancel();
  context.signal.addEventListener('abort', cancel, { once: true });
  if (context.signal.aborted) cancel();
  let outcome: AdmitOutcome;
  try {
    outcome = pending.outcome ?? (await new Promise<AdmitOutcome>((resolve) => (pending.wake = resolve)));
  } finally {
    pending.wake = undefined;
    context.signal.removeEventListener('abort', cancel);
  }
  return runAdmitted(options, context, next, outcome, admission, isWatch);
}

function runAdmitted(
  { observer, watchTracker }: PriorityAndFairnessFilterOptions,
  context: RequestContext,
  next: () => Answered,
  outcome: AdmitOutcome,
  admission: Admission,
  isWatch: boolean,
): Answered {
  setPfHeaders(context, outcome.classification);
  if (outcome.decision.kind === 'reject') {
    observer?.rejected?.(context, outcome);
    context.res.setHeader('Retry-After', String(outcome.retryAfterSeconds));
    plainTextError(context, 429, TOO_MANY_REQUESTS_TEXT);
    return undefined;
  }
  if (isWatch) return runWatch(context, next, watchTracker, () => admission.finish());
  return holdSeats(context, next, admission);
}

/**
 * The seats are held until the request has ended (the chain settled; a thrown error answered) and
 * the response is on the socket. An end hook rather than `await next()`: no async frame per request.
 */
function holdSeats(context: RequestContext, next: () => Answered, admission: Admission): Answered {
  context.onEnd(releaseWhenFlushed, admission);
  return next();
}

function releaseWhenFlushed(context: RequestContext, admission: Admission): void {
  whenFlushed(context.res, releaseSeats, admission);
}

function releaseSeats(_res: unknown, admission: Admission): void {
  admission.finish();
}

/**
 * Shadow mode: the request runs now; its shadow goes through the queue set with the request's real
 * arrival, and, once the queue set dispatches it, holds its seats for as long as the real request
 * took (measured to the same end point: response done, or watch initialised). A shadow the queue
 * set rejects is a would-be rejection.
 */
async function admitShadow(
  { controller, observer, watchTracker, clock }: PriorityAndFairnessFilterOptions,
  context: RequestContext,
  next: () => Answered,
  request: AdmitRequest,
  isWatch: boolean,
): Promise<void> {
  const startMs = request.arrivalMs ?? clock.now();
  let endMs: number | undefined;
  let dispatchMs: number | undefined;
  let finishShadow: (() => void) | undefined;
  const finishWhenBothKnown = () => {
    if (endMs === undefined || dispatchMs === undefined || finishShadow === undefined) return;
    const finishAtMs = dispatchMs + (endMs - startMs);
    const delayMs = finishAtMs - clock.now();
    if (delayMs <= 0) finishShadow();
    else clock.after(delayMs, finishShadow);
  };
  const admission = controller.admit({ ...request, onClassified: (classification) => setPfHeaders(context, classification) }, (outcome) => {
    if (outcome.decision.kind === 'reject') {
      observer?.unenforcedRejection?.(context, outcome);
      return;
    }
    dispatchMs = clock.now();
    finishWhenBothKnown();
  });
  finishShadow = () => admission.finish();
  const realRequestDone = () => {
    if (endMs !== undefined) return;
    endMs = clock.now();
    finishWhenBothKnown();
  };
  if (isWatch) return runWatch(context, next, watchTracker, realRequestDone);
  try {
    await next();
    await responseFlushed(context.res);
  } finally {
    realRequestDone();
  }
}

/** A watch releases at initialisation or when its handler ends, whichever comes first. */
async function runWatch(context: RequestContext, next: () => Answered, tracker: InterestedWatches | undefined, release: () => void): Promise<void> {
  tracker?.register(context.requestInfo, context.query.get('fieldSelector') ?? '');
  let released = false;
  const releaseOnce = () => {
    if (released) return;
    released = true;
    release();
  };
  void context.watchInitialized.then(releaseOnce, releaseOnce);
  try {
    await next();
  } finally {
    releaseOnce();
    if (tracker !== undefined) {
      // A detached watch stays registered until it ends.
      if (context.detached) context.onEnd(forgetWatch(tracker));
      else forgetWatch(tracker)(context, undefined);
    }
  }
}

const forgetters = new WeakMap<InterestedWatches, EndHook>();

/** Undoes runWatch's registration; one function per tracker, shared by its watches. */
function forgetWatch(tracker: InterestedWatches): EndHook {
  let forget = forgetters.get(tracker);
  if (forget === undefined) {
    forget = (context) => tracker.unregister(context.requestInfo, context.query.get('fieldSelector') ?? '');
    forgetters.set(tracker, forget);
  }
  return forget;
}

/** The two headers of each (FlowSchema, priority level) pair, made once per pair of stored objects. */
const pfHeaders = new WeakMap<FlowSchema, { priorityLevel: PriorityLevelConfiguration; headers: PresetHeaders }>();
/** The classification whose headers were sent last: consecutive requests mostly share one, and then need no lookup. */
let lastClassified: Classification | undefined;
let lastHeaders: PresetHeaders | undefined;

/** UIDs, never names; an imagined mandatory object has none and the header is sent empty. */
function setPfHeaders(context: RequestContext, classification: Classification): void {
  const res = context.res;
  if (res.headersSent) return;
  if (classification !== lastClassified) {
    lastHeaders = pfHeadersOf(classification);
    lastClassified = classification;
  }
  addPresetHeaders(res, lastHeaders!);
  context.priorityLevelUid = classification.priorityLevel.metadata?.uid ?? '';
}

function pfHeadersOf({ flowSchema, priorityLevel }: Classification): PresetHeaders {
  let entry = pfHeaders.get(flowSchema);
  if (entry === undefined || entry.priorityLevel !== priorityLevel) {
    entry = {
      priorityLevel,
      headers: new PresetHeaders([
        [FLOW_SCHEMA_UID_HEADER, flowSchema.metadata?.uid ?? ''],
        [PRIORITY_LEVEL_UID_HEADER, priorityLevel.metadata?.uid ?? ''],
      ]),
    };
    pfHeaders.set(flowSchema, entry);
  }
  return entry.headers;
}

/** Go's http.Error: plain text plus a newline, nosniff. */
function plainTextError(context: RequestContext, statusCode: number, text: string): void {
  const res = context.res;
  // A client that went away while queued gets nothing; writing to its socket would only fail.
  if (res.headersSent || res.writableEnded || res.destroyed) return;
  res.removeHeader('Content-Length');
  res.statusCode = statusCode;
  res.setHeader('Content-Type', 'text/plain; charset=utf-8');
  res.setHeader('X-Content-Type-Options', 'nosniff');
  res.end(`${text}\n`);
}

function requestUri(context: RequestContext): string {
  return context.req.url ?? `${context.url.pathname}${context.url.search}`;
}
