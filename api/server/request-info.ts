// RequestInfo from method + path + query, read exactly as kube-apiserver's RequestInfoFactory reads
// it, because FlowSchema rules, the work estimator and authorization all match on these values:
// a request that kube-apiserver calls `list` must be a `list` here too.
//
// `/api/<version>/...` and `/apis/<group>/<version>/...` with a resource are resource requests; the
// verb comes from the method (GET with a name is `get`, without one `list` or `watch`; DELETE
// without a name is `deletecollection`), or from the deprecated `/watch/` path segment. Everything
// else (`/healthz`, `/version`, discovery documents) is a non-resource request whose verb is the
// lower-cased method.
import type { RequestInfo } from '../../engine/flowcontrol/request-digest.ts';
import { exactFieldMatch } from '../../engine/flowcontrol/interested-watches.ts';

const API_PREFIXES = new Set(['api', 'apis']);
const GROUPLESS_PREFIXES = new Set(['api']);
const SPECIAL_VERBS = new Set(['proxy', 'watch']);
const SPECIAL_VERBS_WITHOUT_SUBRESOURCES = new Set(['proxy']);
const NAMESPACE_SUBRESOURCES = new Set(['status', 'finalize']);

const METHOD_VERBS: Readonly<Record<string, string>> = { POST: 'create', GET: 'get', HEAD: 'get', PUT: 'update', PATCH: 'patch', DELETE: 'delete' };

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
  const info: RequestInfo = {
    isResourceRequest: false,
    path,
    verb: method.toLowerCase(),
    apiGroup: '',
    apiVersion: '',
    namespace: '',
    resource: '',
    subresource: '',
    name: '',
  };
  let parts = splitPath(path);
  if (parts.length < 3 || !API_PREFIXES.has(parts[0]!)) return info;
  const apiPrefix = parts[0]!;
  parts = parts.slice(1);
  let apiGroup = '';
  if (!GROUPLESS_PREFIXES.has(apiPrefix)) {
    if (parts.length < 3) return info;
    apiGroup = parts[0]!;
    parts = parts.slice(1);
  }
  info.isResourceRequest = true;
  info.apiPrefix = apiPrefix;
  info.apiGroup = apiGroup;
  info.apiVersion = parts[0]!;
  parts = parts.slice(1);

  if (SPECIAL_VERBS.has(parts[0]!)) {
    info.verb = parts[0]!;
    // kube-apiserver fails such a request ("unable to determine kind and namespace"); with no
    // resource it reaches no handler and is answered 404.
    if (parts.length < 2) return info;
    parts = parts.slice(1);
  } else {
    info.verb = METHOD_VERBS[method.toUpperCase()] ?? '';
  }

  if (parts[0] === 'namespaces') {
    if (parts.length > 1) {
      info.namespace = parts[1]!;
      if (parts.length > 2 && !NAMESPACE_SUBRESOURCES.has(parts[2]!)) parts = parts.slice(2);
    }
  }

  if (parts.length >= 3 && !SPECIAL_VERBS_WITHOUT_SUBRESOURCES.has(info.verb)) info.subresource = parts[2]!;
  if (parts.length >= 2) info.name = parts[1]!;
  if (parts.length >= 1) info.resource = parts[0]!;

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

/** The path's segments without leading and trailing slashes (`/` gives none). */
function splitPath(path: string): string[] {
  let start = 0;
  let end = path.length;
  while (start < end && path.charCodeAt(start) === 47) start++;
  while (end > start && path.charCodeAt(end - 1) === 47) end--;
  return start === end ? [] : path.slice(start, end).split('/');
}
