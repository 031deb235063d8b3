// RequestInfo from method + path + query, read exactly as kube-apiserver's RequestInfoFactory reads
// it, because FlowSchema rules, the work estimator and authorization all match on these values:
// a request that kube-apiserver calls `list` must be a `list` here too.
//
// `/api/<version>/...` and `/apis/<group>/<version>/...` with a resource are resource requests; the
// verb comes from the method (GET with a name is `get`, without one `list` or `watch`; DELETE
// without a name is `deletecollection`), or from the deprecated `/watch/` path segment. Everything
// else (`/healthz`, `/version`, discovery documents) is a non-resource request whose verb is the
// lower-cased method.
import { nonResourceInfo, type RequestInfo } from '../../engine/request/request-info.ts';
import { exactFieldMatch } from '../../engine/flowcontrol/interested-watches.ts';

const METHOD_VERBS: ReadonlyMap<string, string> = new Map([
  ['POST', 'create'],
  ['GET', 'get'],
  ['HEAD', 'get'],
  ['PUT', 'update'],
  ['PATCH', 'patch'],
  ['DELETE', 'delete'],
]);
/** Lower-cased methods, so the common ones cost no new string per request. */
const LOWER_METHODS: ReadonlyMap<string, string> = new Map(['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS'].map((m) => [m, m.toLowerCase()]));

/**
 * A boolean query parameter as apimachinery's parameter codec reads it (Convert_Slice_string_To_bool):
 * only "0" and "false" (any case) are false; anything else, the empty string included, is true.
 * It never fails.
 */
export function queryBool(text: string): boolean {
  return !(text === '0' || text.toLowerCase() === 'false');
}

/** What `path.IsValidPathSegmentName` accepts: a name usable as one URL path segment. */
function isValidPathSegmentName(name: string): boolean {
  return name !== '.' && name !== '..' && !name.includes('/') && !name.includes('%');
}

export function parseRequestInfo(method: string, path: string, query: URLSearchParams): RequestInfo {
  const info = nonResourceInfo(path, LOWER_METHODS.get(method) ?? method.toLowerCase());
  // Segments are read through a cursor `i` rather than by slicing the array at each step.
  const parts = splitPath(path);
  const n = parts.length;
  if (n < 3) return info;
  const apiPrefix = parts[0]!;
  if (apiPrefix !== 'api' && apiPrefix !== 'apis') return info;
  let i = 1;
  let apiGroup = '';
  // `api` is the one prefix without a group segment.
  if (apiPrefix !== 'api') {
    if (n - i < 3) return info;
    apiGroup = parts[i++]!;
  }
  info.isResourceRequest = true;
  info.apiPrefix = apiPrefix;
  info.apiGroup = apiGroup;
  info.apiVersion = parts[i++]!;

  const special = parts[i];
  if (special === 'proxy' || special === 'watch') {
    info.verb = special;
    // kube-apiserver fails such a request ("unable to determine kind and namespace"); with no
    // resource it reaches no handler and is answered 404.
    if (n - i < 2) return info;
    i++;
  } else {
    info.verb = METHOD_VERBS.get(method) ?? METHOD_VERBS.get(method.toUpperCase()) ?? '';
  }

  if (parts[i] === 'namespaces') {
    if (n - i > 1) {
      info.namespace = parts[i + 1]!;
      const next = parts[i + 2];
      if (n - i > 2 && next !== 'status' && next !== 'finalize') i += 2;
    }
  }

  const rest = n - i;
  // `proxy` takes no subresource.
  if (rest >= 3 && info.verb !== 'proxy') info.subresource = parts[i + 2]!;
  if (rest >= 2) info.name = parts[i + 1]!;
  if (rest >= 1) info.resource = parts[i]!;

  if (info.name === '' && info.verb === 'get') {
    info.verb = listWantsWatch(query) ? 'watch' : 'list';
    const fieldSelector = query.get('fieldSelector');
    if (fieldSelector !== null) {
      const name = exactFieldMatch(fieldSelector, 'metadata.name');
      if (name !== undefined && isValidPathSegmentName(name)) info.name = name;
    }
  }
  if (info.name === '' && info.verb === 'delete') info.verb = 'deletecollection';
  return info;
}

/**
 * Whether a collection GET is a watch. kube-apiserver decodes the whole ListOptions; when any
 * parameter fails to decode it falls back to looking at `watch` alone. Both read `watch` the same
 * lenient way, so only `watch` is read.
 */
function listWantsWatch(query: URLSearchParams): boolean {
  const first = query.get('watch');
  return first !== null && queryBool(first);
}

/** The path's segments without leading and trailing slashes (`/` gives none); inner empty segments stay. */
export function splitPath(path: string): string[] {
  let start = 0;
  let end = path.length;
  while (start < end && path.charCodeAt(start) === 47) start++;
  while (end > start && path.charCodeAt(end - 1) === 47) end--;
  const parts: string[] = [];
  if (start === end) return parts;
  // indexOf and slice stay in optimized code; String#split calls into the runtime each time.
  let from = start;
  for (;;) {
    const slash = path.indexOf('/', from);
    if (slash < 0 || slash >= end) {
      parts.push(path.slice(from, end));
      return parts;
    }
    parts.push(path.slice(from, slash));
    from = slash + 1;
  }
}
