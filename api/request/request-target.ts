// A request's target (`req.url`) read into its query and RequestInfo. A plain target is split by
// hand; anything else goes through `new URL`, which costs a measurable share of a small GET.
//
// Targets without a query repeat (the same objects are read again and again), and reading one is a
// pure function of the method and the target, so those are kept, per method, in a bounded table:
// a request to a target seen before shares its RequestInfo (frozen) and allocates nothing here.
// Sharing also spares every later reader of the RequestInfo (metric labels, classification) the
// hashing of freshly cut strings, and lets them memoise by the object. Targets with a query are
// read each time: their values (resourceVersion, continue tokens) rarely repeat.
import type { RequestInfo } from '../../engine/request/request-info.ts';
import { BoundedCache } from '../../engine/bounded-cache.ts';
import { internString } from '../../engine/interned-string.ts';
import { parseRequestInfo } from './request-info.ts';

export const URL_BASE = 'https://fairway.invalid';
const EMPTY_QUERY = new URLSearchParams();

/**
 * A request target the URL parser would leave as it is: an absolute path of unreserved and
 * sub-delimiter characters (percent escapes allowed) without dot segments or backslashes, and a
 * query of printable ASCII without characters the parser escapes.
 */
const PLAIN_TARGET = /^\/[A-Za-z0-9\-._~!$&'()*+,;=:@%/]*(\?[A-Za-z0-9\-._~!$&'()*+,;=:@%/?]*)?$/;

/** Targets kept per method; the table starts over when full, so a client's made-up paths cost a bounded amount. */
const TARGETS_PER_METHOD = 4_096;
/** Longer targets are read each time: a few kilobytes of path cannot fill the table with megabytes. */
const MAX_KEPT_TARGET_LENGTH = 512;
/** Only these methods' tables exist (a method is any token a client sends). */
const KEPT_METHODS = ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE'];

export interface ParsedTarget {
  readonly query: URLSearchParams;
  /** Frozen: shared by every request to the same target. */
  readonly requestInfo: RequestInfo;
  /** Set when the URL parser read the target (the request's `url` then needs no second parse). */
  readonly url: URL | undefined;
}

/** The last kept reading on one connection (request-path.ts keeps it on the connection's record). */
export interface LastTarget {
  targets: RequestTargets;
  method: string;
  target: string;
  parsed: ParsedTarget;
}

/** Where a connection keeps its LastTarget. */
export interface TargetMemo {
  lastTarget: LastTarget | undefined;
}

/** One server's reading of request targets. */
export class RequestTargets {
  private readonly byMethod = new Map(KEPT_METHODS.map((method) => [method, new BoundedCache<string, ParsedTarget>(TARGETS_PER_METHOD)]));

  /**
   * The target read for `method`, or undefined when it is not a valid request target. A connection
   * (`memo`) keeps its last kept reading: a client's requests on one connection often repeat their
   * target (polling one object), and comparing a fresh target string with the last one costs less
   * than hashing it for the table.
   */
  parse(method: string, target: string, memo?: TargetMemo): ParsedTarget | undefined {
    const last = memo?.lastTarget;
    if (last !== undefined && last.target === target && last.method === method && last.targets === this) return last.parsed;
    const kept = this.byMethod.get(method);
    let parsed = kept?.peek(target);
    if (parsed === undefined) {
      const read = readTarget(method, target);
      if (read === undefined) return undefined;
      // Only plain targets without a query are kept: their reading shares nothing mutable (no URL).
      const keep = kept !== undefined && read.url === undefined && read.query === EMPTY_QUERY && target.length <= MAX_KEPT_TARGET_LENGTH;
      if (keep) internStrings(read.requestInfo);
      Object.freeze(read.requestInfo);
      if (!keep) return read;
      parsed = read;
      kept.set(target, parsed);
    }
    if (memo !== undefined) remember(memo, this, method, target, parsed);
    return parsed;
  }
}

function remember(memo: TargetMemo, targets: RequestTargets, method: string, target: string, parsed: ParsedTarget): void {
  const last = memo.lastTarget;
  if (last === undefined) {
    memo.lastTarget = { targets, method, target, parsed };
    return;
  }
  last.targets = targets;
  last.method = method;
  last.target = target;
  last.parsed = parsed;
}

/** The target's reading, its RequestInfo not frozen yet. */
function readTarget(method: string, target: string): { query: URLSearchParams; requestInfo: RequestInfo; url: URL | undefined } | undefined {
  let path: string;
  let query: URLSearchParams;
  let url: URL | undefined;
  if (PLAIN_TARGET.test(target) && !target.includes('/.')) {
    const q = target.indexOf('?');
    path = q < 0 ? target : target.slice(0, q);
    query = q < 0 ? EMPTY_QUERY : new URLSearchParams(target.slice(q + 1));
  } else {
    try {
      url = new URL(target, URL_BASE);
    } catch {
      return undefined;
    }
    path = url.pathname;
    query = url.searchParams;
  }
  return { query, requestInfo: parseRequestInfo(method, decodePath(path), query), url };
}

/**
 * Interns a kept RequestInfo's strings (engine/interned-string.ts): every request to the target
 * then compares its verb, group, version and resource with the server's constants, and looks them
 * up, by pointer instead of character by character. Once per kept target, before it is frozen.
 */
function internStrings(info: RequestInfo): void {
  info.path = internString(info.path);
  info.verb = internString(info.verb);
  if (info.apiPrefix !== undefined) info.apiPrefix = internString(info.apiPrefix);
  info.apiGroup = internString(info.apiGroup);
  info.apiVersion = internString(info.apiVersion);
  info.namespace = internString(info.namespace);
  info.resource = internString(info.resource);
  info.subresource = internString(info.subresource);
  info.name = internString(info.name);
}

function decodePath(pathname: string): string {
  if (!pathname.includes('%')) return pathname;
  try {
    return decodeURIComponent(pathname);
  } catch {
    return pathname;
  }
}
