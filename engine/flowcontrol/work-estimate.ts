// Work estimation (apf-semantics 7): how many seats a request occupies, and for how long after its
// handler returns. Lists are charged by the objects they will touch, writes by the watch events
// they will fan out. Pure: the object counts and watch counts come in through `deps`.

import type { RequestInfo } from '../request/request-info.ts';
import { effectiveMaxSeats } from './max-seats.ts';
import { goParseInt64 } from '../go-integer.ts';
import { durationMsToNs, durationNsToMs, durationPerSeatNs, seatsTimesDuration } from './seat-seconds.ts';
import { DEFAULT_WORK_ESTIMATOR_CONFIG, type WorkEstimatorConfig } from './work-estimator-config.ts';

export interface WorkEstimate {
  initialSeats: number;
  /** Seats held after the handler returns, while watch events are still being sent. */
  finalSeats: number;
  /** How long `finalSeats` stay held; whole nanoseconds expressed in (possibly fractional) ms. */
  additionalLatencyMs: number;
}

/** Seats the request occupies while it executes. */
export function maxSeatsOf(estimate: WorkEstimate): number {
  return Math.max(estimate.initialSeats, estimate.finalSeats);
}

/** The RequestInfo fields the estimators read (engine/request/request-info.ts `RequestInfo` satisfies it). */
export type EstimatorRequestInfo = Pick<RequestInfo, 'isResourceRequest' | 'verb' | 'apiGroup' | 'resource' | 'subresource' | 'namespace' | 'name' | 'path'>;

/**
 * A request as the estimator sees it: the parsed RequestInfo (absent when the request could not be
 * resolved) and its query string. For a query given as a record, an array value stands for a
 * repeated parameter; as in Go's `url.Values`, only the first value counts.
 */
export interface WorkEstimateRequest {
  requestInfo?: EstimatorRequestInfo | undefined;
  query: URLSearchParams | Readonly<Record<string, string | readonly string[] | undefined>>;
}

/** What the object-count tracker knows about a resource (`resource.group`, no suffix for core). */
export type ObjectCountResult = { count: number } | 'not-found' | 'stale' | 'error';

export interface WorkEstimatorDeps {
  objectCount(groupResource: string): ObjectCountResult;
  /** Registered watches a write to this target would notify (interested-watches.ts). */
  watchCount(requestInfo: EstimatorRequestInfo): number;
  /** The count the mutating estimator used (the watch_count_samples metric). */
  watchCountSampled?(count: number): void;
  /**
   * ConsistentListFromCache enabled *and* the store supports watch-progress requests: then a list
   * at resourceVersion "" is served from the cache. Default false, as in upstream unit tests.
   */
  consistentListFromCache?: boolean;
  /** Feature gate WatchList (Beta, on by default in 1.32): watches are priced like lists. */
  watchListEnabled?: boolean;
  /** The tunables; Kubernetes' defaults when absent (work-estimator-config.ts). */
  config?: WorkEstimatorConfig | undefined;
}

/**
 * Dispatch by verb. `levelMaxSeats` is the maxSeats tracked for the request's priority level
 * (max-seats.ts `maxSeatsForLevel`); absent or 0 (exempt, Reject) means the hard limit of 10.
 */
export function estimateWork(request: WorkEstimateRequest, deps: WorkEstimatorDeps, levelMaxSeats?: number): WorkEstimate {
  const config = deps.config ?? DEFAULT_WORK_ESTIMATOR_CONFIG;
  const info = request.requestInfo;
  if (info === undefined) return seats(config.maximumSeatsLimit);
  switch (info.verb) {
    case 'list':
      return estimateListWork(request, deps, levelMaxSeats);
    case 'watch':
      return deps.watchListEnabled === false ? seats(config.minimumSeats) : estimateListWork(request, deps, levelMaxSeats);
    case 'create':
    case 'update':
    case 'patch':
    case 'delete':
      return estimateMutatingWork(request, deps, levelMaxSeats);
    default:
      return seats(config.minimumSeats);
  }
}

export function estimateListWork(request: WorkEstimateRequest, deps: WorkEstimatorDeps, levelMaxSeats?: number): WorkEstimate {
  const config = deps.config ?? DEFAULT_WORK_ESTIMATOR_CONFIG;
  const minSeats = config.minimumSeats;
  const maxSeats = effectiveMaxSeats(levelMaxSeats, config.maximumSeatsLimit);
  const info = request.requestInfo;
  if (info === undefined) return seats(maxSeats);
  // A list narrowed to one name is executed as a get.
  if (info.name !== '') return seats(minSeats);
  const options = parseListOptions(request.query);
  // Such a request will fail validation anyway; charge it fully, as upstream does.
  if ('error' in options) return seats(maxSeats);
  if (info.verb === 'watch' && options.sendInitialEvents !== true) return seats(minSeats);

  const fromCache = info.verb === 'watch' || !shouldListFromStorage(options, deps.consistentListFromCache ?? false);
  const counted = deps.objectCount(groupResourceKey(info.apiGroup, info.resource));
  // Unknown usually means an aggregated API served elsewhere, so it costs this server little.
  if (counted === 'not-found') return seats(minSeats);
  if (counted === 'stale' || counted === 'error') return seats(maxSeats);
  const numStored = counted.count;

  const limit = options.limit > 0 && options.limit < numStored ? options.limit : numStored;
  let estimatedObjects: number;
  if (fromCache) estimatedObjects = numStored;
  else if (options.fieldSelector !== '' || options.labelSelector !== '') estimatedObjects = numStored + limit;
  else estimatedObjects = 2 * limit;
  const wanted = Math.ceil(estimatedObjects / config.objectsPerSeat);
  return seats(Math.min(maxSeats, Math.max(minSeats, wanted)));
}

export function estimateMutatingWork(request: WorkEstimateRequest, deps: WorkEstimatorDeps, levelMaxSeats?: number): WorkEstimate {
  const config = deps.config ?? DEFAULT_WORK_ESTIMATOR_CONFIG;
  const minSeats = config.minimumSeats;
  const maxSeats = effectiveMaxSeats(levelMaxSeats, config.maximumSeatsLimit);
  if (!config.mutatingEnabled) return seats(minSeats);
  const info = request.requestInfo;
  const eventNs = durationMsToNs(config.eventAdditionalDurationMs);
  if (info === undefined) {
    return {
      initialSeats: minSeats,
      finalSeats: maxSeats,
      additionalLatencyMs: durationNsToMs(eventNs),
    };
  }
  // Minting a token writes nothing watchable, however many watch service accounts.
  if (info.resource === 'serviceaccounts' && info.subresource === 'token') return seats(minSeats);

  const watchCount = deps.watchCount(info);
  deps.watchCountSampled?.(watchCount);
  // Go compares with int(WatchesPerSeat), truncating a fractional setting.
  if (!(watchCount >= Math.trunc(config.watchesPerSeat))) return seats(1);
  // Each watcher is assumed to take 1/10 seat for 5 ms; the rectangle is then reshaped to at
  // most maxSeats wide, keeping its area (the work) unchanged.
  let finalSeats = Math.ceil(watchCount / config.watchesPerSeat);
  const finalWork = seatsTimesDuration(finalSeats, eventNs);
  finalSeats = Math.min(finalSeats, maxSeats);
  return {
    initialSeats: 1,
    finalSeats,
    additionalLatencyMs: durationNsToMs(durationPerSeatNs(finalWork, finalSeats)),
  };
}

/** Most requests take one seat; they share one (frozen) estimate. */
const ONE_SEAT: WorkEstimate = Object.freeze({ initialSeats: 1, finalSeats: 0, additionalLatencyMs: 0 });

function seats(initialSeats: number): WorkEstimate {
  return initialSeats === 1 ? ONE_SEAT : { initialSeats, finalSeats: 0, additionalLatencyMs: 0 };
}

/** `schema.GroupResource.String()`: `resource.group`, or just `resource` for the core group. */
export function groupResourceKey(apiGroup: string, resource: string): string {
  return apiGroup === '' ? resource : `${resource}.${apiGroup}`;
}

/** The ListOptions fields that matter for estimation. */
export interface ListOptionsView {
  resourceVersion: string;
  resourceVersionMatch: string;
  continue: string;
  labelSelector: string;
  fieldSelector: string;
  /** Parsed int64; a value beyond 2^53 loses precision but keeps its order against counts. */
  limit: number;
  sendInitialEvents: boolean | undefined;
}

/**
 * `Convert_url_Values_To_v1_ListOptions`, reduced: only the int64 parameters (`limit`,
 * `timeoutSeconds`) can fail; booleans follow the lenient apimachinery rule (only "0" and
 * "false", any case, are false).
 */
export function parseListOptions(query: WorkEstimateRequest['query']): ListOptionsView | { error: string } {
  const limitText = firstQueryValue(query, 'limit');
  const limit = limitText === undefined ? 0n : parseGoInt64(limitText);
  if (limit === undefined) return { error: `limit: invalid int64 ${JSON.stringify(limitText)}` };
  const timeoutText = firstQueryValue(query, 'timeoutSeconds');
  if (timeoutText !== undefined && parseGoInt64(timeoutText) === undefined) {
    return { error: `timeoutSeconds: invalid int64 ${JSON.stringify(timeoutText)}` };
  }
  const sendText = firstQueryValue(query, 'sendInitialEvents');
  return {
    resourceVersion: firstQueryValue(query, 'resourceVersion') ?? '',
    resourceVersionMatch: firstQueryValue(query, 'resourceVersionMatch') ?? '',
    continue: firstQueryValue(query, 'continue') ?? '',
    labelSelector: firstQueryValue(query, 'labelSelector') ?? '',
    fieldSelector: firstQueryValue(query, 'fieldSelector') ?? '',
    limit: Number(limit),
    sendInitialEvents: sendText === undefined ? undefined : !(sendText === '0' || sendText.toLowerCase() === 'false'),
  };
}

/**
 * Whether a list bypasses the watch cache (the v1.32 cacher rule): a consistent read the cache
 * cannot serve, a continuation, a match other than NotOlderThan, or the legacy exact-match form
 * (a limit with an explicit non-zero resourceVersion and no match).
 */
export function shouldListFromStorage(options: ListOptionsView, consistentListFromCache: boolean): boolean {
  const rv = options.resourceVersion;
  const match = options.resourceVersionMatch;
  const consistentReadFromStorage = rv === '' && !consistentListFromCache;
  const hasContinuation = options.continue !== '';
  const unsupportedMatch = match !== '' && match !== 'NotOlderThan';
  const legacyExactMatch = options.limit > 0 && match === '' && rv !== '' && rv !== '0';
  return consistentReadFromStorage || hasContinuation || unsupportedMatch || legacyExactMatch;
}

function firstQueryValue(query: WorkEstimateRequest['query'], key: string): string | undefined {
  if (query instanceof URLSearchParams) return query.get(key) ?? undefined;
  if (!Object.hasOwn(query, key)) return undefined;
  const value = query[key];
  if (value === undefined) return undefined;
  return typeof value === 'string' ? value : value[0];
}

/** Go `strconv.ParseInt(s, 10, 64)`: optional sign, decimal digits only, in int64 range. */
export function parseGoInt64(text: string): bigint | undefined {
  const value = goParseInt64(text);
  return typeof value === 'bigint' ? value : undefined;
}
