// The one registry of errors the API layer sends. Every entry has a stable code
// `FW_ERR_<AREA>_<WHAT>`, a message template (Go fmt verbs: %s, %q), the Kubernetes StatusReason and
// the HTTP status. docs/errors.md lists every code; api/errors.test.ts fails if the two drift apart.
// It lives below the API layer, with its Status builders, as apimachinery's errors package does:
// the object semantics beneath the API (engine/patch/, engine/request/decode.ts) word their
// refusals as these Status values too.
//
// CODES ARE NEVER REUSED. A code that is retired stays in RETIRED_ERROR_CODES below, so that logs,
// dashboards and client code that match on it never silently start matching something else.
//
// The builders return `Status` objects shaped byte for byte as kube-apiserver writes them (Go field
// order, `omitempty` where Go has it, `details` present exactly when the Go constructor sets it),
// because kubectl renders some errors from `details` and client code matches on `reason`. The code
// rides along on the Status as a non-enumerable symbol: JSON never shows it, `errorCodeOf` reads it.
// (Over the usual file length on purpose: one table, and one builder per entry, belong together.)
import type { Status, StatusCause, StatusDetails } from '../resources/types.ts';
import { MAX_FIELD_ERRORS_TEXT, formatShownFieldErrors, moreFieldErrors, showFieldErrors, type FieldError } from '../resources/field-errors.ts';
import { goSprintf } from '../go-format.ts';

export type StatusReason =
  | 'NotFound'
  | 'AlreadyExists'
  | 'Conflict'
  | 'Invalid'
  | 'BadRequest'
  | 'Unauthorized'
  | 'Forbidden'
  | 'MethodNotAllowed'
  | 'NotAcceptable'
  | 'UnsupportedMediaType'
  | 'RequestEntityTooLarge'
  | 'Gone'
  | 'Expired'
  | 'TooManyRequests'
  | 'InternalError'
  | 'Timeout'
  | 'ServiceUnavailable'
  /** Go's StatusReasonUnknown: a plain error the server did not classify; `reason` is then omitted. */
  | '';

export interface ErrorEntry {
  readonly reason: StatusReason;
  readonly httpCode: number;
  /** Go fmt template: `%s` prints an argument, `%q` quotes it as Go's `%q` does. */
  readonly message: string;
}

const entry = (reason: StatusReason, httpCode: number, message: string): ErrorEntry => ({ reason, httpCode, message });

export const API_ERRORS = {
  FW_ERR_RESOURCE_NOT_FOUND: entry('NotFound', 404, '%s %q not found'),
  FW_ERR_ROUTE_NOT_FOUND: entry('NotFound', 404, 'the server could not find the requested resource'),
  FW_ERR_RESOURCE_CONFLICT: entry('Conflict', 409, 'Operation cannot be fulfilled on %s %q: %s'),
  FW_ERR_APPLY_CONFLICT: entry('Conflict', 409, '%s'),
  FW_ERR_RESOURCE_INVALID: entry('Invalid', 422, '%s %q is invalid: %s'),
  FW_ERR_REQUEST_BAD: entry('BadRequest', 400, '%s'),
  FW_ERR_REQUEST_NAME_MISMATCH: entry('BadRequest', 400, 'the name of the object (%s) does not match the name on the URL (%s)'),
  FW_ERR_REQUEST_INCLUDE_OBJECT: entry('BadRequest', 400, 'unrecognized includeObject value: %q'),
  FW_ERR_DECODE_STRICT: entry('BadRequest', 400, '%s in version %q cannot be handled as a %s: strict decoding error: %s'),
  FW_ERR_DECODE_MALFORMED: entry('BadRequest', 400, '%s in version %q cannot be handled as a %s: %s'),
  FW_ERR_AUTHN_UNAUTHORIZED: entry('Unauthorized', 401, '%s'),
  FW_ERR_AUTHZ_FORBIDDEN: entry('Forbidden', 403, '%s is forbidden: %s'),
  FW_ERR_AUTHZ_FORBIDDEN_PATH: entry('Forbidden', 403, 'forbidden: %s'),
  FW_ERR_ROUTE_METHOD_NOT_ALLOWED: entry('MethodNotAllowed', 405, 'the server does not allow this method on the requested resource'),
  FW_ERR_NEGOTIATION_NOT_ACCEPTABLE: entry('NotAcceptable', 406, 'only the following media types are accepted: %s'),
  FW_ERR_NEGOTIATION_UNSUPPORTED_MEDIA_TYPE: entry(
    'UnsupportedMediaType',
    415,
    'the body of the request was in an unknown format - accepted media types include: %s',
  ),
  FW_ERR_REQUEST_ENTITY_TOO_LARGE: entry('RequestEntityTooLarge', 413, 'Request entity too large: limit is %s'),
  FW_ERR_REQUEST_NESTING_TOO_DEEP: entry('BadRequest', 400, 'the request body nests objects and lists more than %s levels deep'),
  FW_ERR_PATCH_FAILED: entry('Invalid', 422, '%s'),
  FW_ERR_PATCH_TOO_MANY_OPERATIONS: entry(
    'RequestEntityTooLarge',
    413,
    'Request entity too large: The allowed maximum operations in a JSON patch is %s, got %s',
  ),
  FW_ERR_RESOURCE_GONE: entry('Gone', 410, '%s'),
  FW_ERR_ADMISSION_RATE_LIMITED: entry('TooManyRequests', 429, 'Too many requests: %s'),
  FW_ERR_WATCH_TOO_MANY: entry('TooManyRequests', 429, 'Too many requests: user %q already has %s open watches, the most --max-watches-per-user allows'),
  FW_ERR_ADMISSION_POLICY_INVALID: entry('Invalid', 422, '%s is forbidden: %s'),
  FW_ERR_ADMISSION_POLICY_FORBIDDEN: entry('Forbidden', 403, '%s is forbidden: %s'),
  FW_ERR_ADMISSION_POLICY_UNAUTHORIZED: entry('Unauthorized', 401, '%s is forbidden: %s'),
  FW_ERR_ADMISSION_POLICY_TOO_LARGE: entry('RequestEntityTooLarge', 413, '%s is forbidden: %s'),
  FW_ERR_SERVER_INTERNAL: entry('InternalError', 500, 'Internal error occurred: %s'),
  FW_ERR_REQUEST_TIMEOUT: entry('Timeout', 504, 'Timeout: %s'),
} as const satisfies Record<`FW_ERR_${string}`, ErrorEntry>;

export type ApiErrorCode = keyof typeof API_ERRORS;

/** Codes that were once used and must never be given a new meaning. */
export const RETIRED_ERROR_CODES: readonly string[] = [
  // kube-apiserver answers some patch-library errors with a bare 500; Fairway answers 400 BadRequest
  // (a 500 for client input is a bug here), so this code is no longer sent.
  'FW_ERR_SERVER_UNCLASSIFIED',
  // Registered for the API layer but never sent: the store's own errors (FW_ERR_STORE_*) answer
  // these cases, and no route answers 405 for a verb or 429/503 as a Status.
  'FW_ERR_LIST_CONTINUE_WITH_RESOURCE_VERSION',
  'FW_ERR_REQUEST_METHOD_NOT_SUPPORTED',
  'FW_ERR_WATCH_RESOURCE_VERSION_TOO_OLD',
  'FW_ERR_LIST_RESOURCE_VERSION_TOO_OLD',
  'FW_ERR_LIST_CONTINUE_EXPIRED',
  'FW_ERR_LIST_CONTINUE_EXPIRED_NO_TOKEN',
  'FW_ERR_APF_TOO_MANY_REQUESTS',
  // Sent by an executor wrapper that gave up waiting for a stage; nothing used the wrapper (a
  // request's deadline is the server's, answered while its stage runs on).
  'FW_ERR_EXECUTOR_TIMEOUT',
  'FW_ERR_SERVER_UNAVAILABLE',
  // A taken name is the store's AlreadyExists (FW_ERR_STORE_ALREADY_EXISTS), a dry run's included.
  'FW_ERR_RESOURCE_ALREADY_EXISTS',
];

// ---------------------------------------------------------------------------------------------
// Constants other layers quote

/** The storage layer's text for a stale resourceVersion on update or delete. */
const OPTIMISTIC_LOCK_MESSAGE = 'the object has been modified; please apply your changes to the latest version and try again';
/** kube-apiserver's request body cap (3 MiB). */
export const MAX_REQUEST_BODY_BYTES = 3 * 1024 * 1024;
/** A JSON patch may carry at most this many operations. */
export const MAX_JSON_PATCH_OPERATIONS = 10000;
/**
 * The APF and max-in-flight filters do not send a Status: they write this plain text (Go's
 * `http.Error`, `text/plain; charset=utf-8`) with a `Retry-After` header.
 */
export const TOO_MANY_REQUESTS_TEXT = 'Too many requests, please try again later.';
/** The request-timeout filter's detail text; `timeout()` prefixes it with `Timeout: `. */
const REQUEST_TIMEOUT_DETAIL = 'request did not complete within requested timeout - context deadline exceeded';

// ---------------------------------------------------------------------------------------------
// Identifying errors

const kErrorCode = Symbol('fairway.errorCode');

/** The registry code a builder stamped on this Status, if any. */
export function errorCodeOf(status: Status): ApiErrorCode | undefined {
  return (status as unknown as Record<symbol, ApiErrorCode | undefined>)[kErrorCode];
}

/** A Status carried as a thrown value; `cause` chains the underlying error. */
export class ApiError extends Error {
  readonly code: ApiErrorCode;
  readonly status: Status;

  constructor(status: Status, options?: { cause?: unknown }) {
    super(status.message ?? status.reason ?? 'unknown error', options);
    this.name = 'ApiError';
    this.status = status;
    this.code = errorCodeOf(status) ?? 'FW_ERR_SERVER_INTERNAL';
  }
}

/** True for an ApiError, judged by its code and status rather than by `instanceof` alone. */
export function isApiError(value: unknown): value is ApiError {
  if (typeof value !== 'object' || value === null) return false;
  const { code, status } = value as { code?: unknown; status?: unknown };
  return typeof code === 'string' && Object.hasOwn(API_ERRORS, code) && typeof status === 'object' && status !== null;
}

// ---------------------------------------------------------------------------------------------
// Builders

export interface GroupResource {
  group: string;
  resource: string;
}

export interface GroupKind {
  group: string;
  kind: string;
}

/** `schema.GroupResource.String()`: `prioritylevelconfigurations.flowcontrol.apiserver.k8s.io`. */
export function qualifiedResource(gr: GroupResource): string {
  return gr.group === '' ? gr.resource : `${gr.resource}.${gr.group}`;
}

/** `schema.GroupKind.String()`: `PriorityLevelConfiguration.flowcontrol.apiserver.k8s.io`. */
function qualifiedKind(gk: GroupKind): string {
  return gk.group === '' ? gk.kind : `${gk.kind}.${gk.group}`;
}

/** StatusDetails with Go's omitempty applied and Go's field order kept. */
function details(fields: StatusDetails): StatusDetails {
  const out: StatusDetails = {};
  if (fields.name) out.name = fields.name;
  if (fields.group) out.group = fields.group;
  if (fields.kind) out.kind = fields.kind;
  if (fields.uid) out.uid = fields.uid;
  if (fields.causes && fields.causes.length > 0) out.causes = fields.causes;
  if (fields.retryAfterSeconds) out.retryAfterSeconds = fields.retryAfterSeconds;
  return out;
}

function build(code: ApiErrorCode, message: string, statusDetails?: StatusDetails): Status {
  const { reason, httpCode } = API_ERRORS[code];
  const status: Status = { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', message };
  if (reason !== '') status.reason = reason;
  if (statusDetails !== undefined) status.details = statusDetails;
  status.code = httpCode;
  Object.defineProperty(status, kErrorCode, { value: code, enumerable: false });
  return status;
}

function format(code: ApiErrorCode, ...args: unknown[]): string {
  return goSprintf(API_ERRORS[code].message, ...args);
}

const resourceDetails = (gr: GroupResource, name: string): StatusDetails => details({ name, group: gr.group, kind: gr.resource });

/** 404 for a named object. */
export function notFound(gr: GroupResource, name: string): Status {
  return build('FW_ERR_RESOURCE_NOT_FOUND', format('FW_ERR_RESOURCE_NOT_FOUND', qualifiedResource(gr), name), resourceDetails(gr, name));
}

/** 404 for a path no route serves (kube-apiserver's not-found handler: empty details). */
export function routeNotFound(): Status {
  return build('FW_ERR_ROUTE_NOT_FOUND', format('FW_ERR_ROUTE_NOT_FOUND'), {});
}

/** 409 for a failed precondition; `detail` defaults to the stale-resourceVersion text. */
export function conflict(gr: GroupResource, name: string, detail: string = OPTIMISTIC_LOCK_MESSAGE): Status {
  return build('FW_ERR_RESOURCE_CONFLICT', format('FW_ERR_RESOURCE_CONFLICT', qualifiedResource(gr), name, detail), resourceDetails(gr, name));
}

/** 409 from server-side apply; the caller words the message, causes have reason FieldManagerConflict. */
export function applyConflict(message: string, causes: StatusCause[]): Status {
  return build('FW_ERR_APPLY_CONFLICT', format('FW_ERR_APPLY_CONFLICT', message), details({ causes }));
}

/**
 * 422 from validation: one cause per error shown, and the message lists each distinct one once. The
 * errors shown are those whose text fits in MAX_FIELD_ERRORS_TEXT (about 8 KiB, so 16 KiB in causes
 * and message together); the message then says how many it left out.
 */
export function invalid(gk: GroupKind, name: string, errors: readonly FieldError[]): Status {
  const shown = showFieldErrors(errors);
  const causes: StatusCause[] = shown.shown.map(({ error, body }) => {
    const cause: StatusCause = { reason: error.type };
    if (body) cause.message = body;
    if (error.field) cause.field = error.field;
    return cause;
  });
  const message =
    errors.length === 0
      ? goSprintf('%s %q is invalid', qualifiedKind(gk), name)
      : format('FW_ERR_RESOURCE_INVALID', qualifiedKind(gk), name, formatShownFieldErrors(shown));
  return build('FW_ERR_RESOURCE_INVALID', message, details({ name, group: gk.group, kind: gk.kind, causes }));
}

export function badRequest(message: string): Status {
  return build('FW_ERR_REQUEST_BAD', format('FW_ERR_REQUEST_BAD', message));
}

export function nameMismatch(bodyName: string, urlName: string): Status {
  return build('FW_ERR_REQUEST_NAME_MISMATCH', format('FW_ERR_REQUEST_NAME_MISMATCH', bodyName, urlName));
}

export function unrecognizedIncludeObject(value: string): Status {
  return build('FW_ERR_REQUEST_INCLUDE_OBJECT', format('FW_ERR_REQUEST_INCLUDE_OBJECT', value));
}

/** `fieldValidation=Strict` problems, e.g. [`unknown field "spec.bogus"`]. */
export function strictDecoding(kind: string, version: string, problems: readonly string[]): Status {
  return build('FW_ERR_DECODE_STRICT', format('FW_ERR_DECODE_STRICT', kind, version, kind, joinWithin(problems)));
}

/**
 * `a, b, c`, as far as MAX_FIELD_ERRORS_TEXT characters go (the first always), then how many were
 * left out: kube lists every unknown field, and 5,000 of them made a 179 KB Status.
 */
function joinWithin(problems: readonly string[]): string {
  const shown: string[] = [];
  let used = 0;
  for (const problem of problems) {
    if (shown.length > 0 && used + problem.length + 2 > MAX_FIELD_ERRORS_TEXT) break;
    // One name alone can be megabytes long: cut it too.
    shown.push(problem.length > MAX_FIELD_ERRORS_TEXT ? `${problem.slice(0, MAX_FIELD_ERRORS_TEXT)}...` : problem);
    used += problem.length + 2;
  }
  const left = problems.length - shown.length;
  return left === 0 ? shown.join(', ') : `${shown.join(', ')}, ${moreFieldErrors(left)}`;
}

/** A body that is not a decodable object of the kind (bad JSON, wrong kind/apiVersion...). */
export function malformedBody(kind: string, version: string, detail: string): Status {
  return build('FW_ERR_DECODE_MALFORMED', format('FW_ERR_DECODE_MALFORMED', kind, version, kind, detail));
}

/** 401; the authentication filter's message is `Unauthorized`. */
export function unauthorized(message = 'Unauthorized'): Status {
  return build('FW_ERR_AUTHN_UNAUTHORIZED', format('FW_ERR_AUTHN_UNAUTHORIZED', message));
}

/** What the authorizer was asked; the same shape as Kubernetes' authorizer.Attributes. */
export interface ForbiddenAttributes {
  user: string;
  verb: string;
  /** Resource requests. */
  group?: string;
  resource?: string;
  subresource?: string;
  name?: string;
  namespace?: string;
  /** Non-resource requests (`/healthz`, `/metrics`...); set instead of resource. */
  path?: string;
  /** The authorizer's reason, appended after `: ` when present. */
  reason?: string;
}

/** 403 worded as kube-apiserver's authorization filter words it. */
export function forbidden(attributes: ForbiddenAttributes): Status {
  const { user, verb, group = '', resource = '', subresource = '', name = '', namespace = '', reason = '' } = attributes;
  let why: string;
  if (attributes.path !== undefined && resource === '') {
    why = goSprintf('User %q cannot %s path %q', user, verb, attributes.path);
  } else {
    const fullResource = subresource === '' ? resource : `${resource}/${subresource}`;
    why =
      namespace === ''
        ? goSprintf('User %q cannot %s resource %q in API group %q at the cluster scope', user, verb, fullResource, group)
        : goSprintf('User %q cannot %s resource %q in API group %q in the namespace %q', user, verb, fullResource, group, namespace);
  }
  // kube-apiserver HTML-escapes its own text (user, verb, names), not the authorizer's reason.
  why = why.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
  if (reason !== '') why += `: ${reason}`;
  if (group === '' && resource === '') return build('FW_ERR_AUTHZ_FORBIDDEN_PATH', format('FW_ERR_AUTHZ_FORBIDDEN_PATH', why), {});
  const gr = { group, resource };
  const subject = name === '' ? qualifiedResource(gr) : goSprintf('%s %q', qualifiedResource(gr), name);
  return build('FW_ERR_AUTHZ_FORBIDDEN', format('FW_ERR_AUTHZ_FORBIDDEN', subject, why), resourceDetails(gr, name));
}

/** 405 for an HTTP method no route accepts on this path. */
export function routeMethodNotAllowed(): Status {
  return build('FW_ERR_ROUTE_METHOD_NOT_ALLOWED', format('FW_ERR_ROUTE_METHOD_NOT_ALLOWED'), {});
}

export function notAcceptable(acceptedMediaTypes: readonly string[]): Status {
  return build('FW_ERR_NEGOTIATION_NOT_ACCEPTABLE', format('FW_ERR_NEGOTIATION_NOT_ACCEPTABLE', acceptedMediaTypes.join(', ')));
}

export function unsupportedMediaType(acceptedMediaTypes: readonly string[]): Status {
  return build('FW_ERR_NEGOTIATION_UNSUPPORTED_MEDIA_TYPE', format('FW_ERR_NEGOTIATION_UNSUPPORTED_MEDIA_TYPE', acceptedMediaTypes.join(', ')));
}

export function requestEntityTooLarge(limitBytes: number = MAX_REQUEST_BODY_BYTES): Status {
  return build('FW_ERR_REQUEST_ENTITY_TOO_LARGE', format('FW_ERR_REQUEST_ENTITY_TOO_LARGE', limitBytes));
}

/** 400 for a body nested deeper than the decoders may recurse (handlers/nesting-depth.ts). */
export function nestingTooDeep(limitLevels: number): Status {
  return build('FW_ERR_REQUEST_NESTING_TOO_DEEP', format('FW_ERR_REQUEST_NESTING_TOO_DEEP', limitLevels));
}

/** 429 for a watch beyond --max-watches-per-user; the client retries after `retryAfterSeconds`. */
export function tooManyWatches(user: string, openWatches: number, retryAfterSeconds: number): Status {
  return build('FW_ERR_WATCH_TOO_MANY', format('FW_ERR_WATCH_TOO_MANY', user, openWatches), details({ retryAfterSeconds }));
}

export function tooManyPatchOperations(operations: number, maxOperations: number = MAX_JSON_PATCH_OPERATIONS): Status {
  return build('FW_ERR_PATCH_TOO_MANY_OPERATIONS', format('FW_ERR_PATCH_TOO_MANY_OPERATIONS', maxOperations, operations));
}

export function gone(message: string): Status {
  return build('FW_ERR_RESOURCE_GONE', format('FW_ERR_RESOURCE_GONE', message));
}

/**
 * 422 from applying a patch (a failed JSON-patch operation, a strategic merge patch the merge
 * rejects): `NewGenericServerResponse`, so the text is the patch library's and details are empty.
 */
export function patchFailed(message: string): Status {
  return build('FW_ERR_PATCH_FAILED', format('FW_ERR_PATCH_FAILED', message), {});
}

/**
 * 429 from the EventRateLimit admission plugin: `NewTooManyRequestsError`, so no details and no
 * Retry-After (the detail already reads `Too many requests: limit reached on type ...`).
 */
export function admissionRateLimited(detail: string): Status {
  return build('FW_ERR_ADMISSION_RATE_LIMITED', format('FW_ERR_ADMISSION_RATE_LIMITED', detail));
}

const POLICY_DENIAL_CODES = {
  Invalid: 'FW_ERR_ADMISSION_POLICY_INVALID',
  Forbidden: 'FW_ERR_ADMISSION_POLICY_FORBIDDEN',
  Unauthorized: 'FW_ERR_ADMISSION_POLICY_UNAUTHORIZED',
  RequestEntityTooLarge: 'FW_ERR_ADMISSION_POLICY_TOO_LARGE',
} as const satisfies Record<string, ApiErrorCode>;

/**
 * A ValidatingAdmissionPolicy denial: kube-apiserver builds `NewForbidden(resource, name, ...)`,
 * then replaces reason and code with the validation's reason (Invalid unless it says otherwise)
 * and adds the text as a cause.
 */
export function admissionPolicyDenied(
  gr: GroupResource,
  name: string,
  denial: { policy: string; binding: string; message: string; reason: keyof typeof POLICY_DENIAL_CODES },
): Status {
  const code = POLICY_DENIAL_CODES[denial.reason];
  const why = `ValidatingAdmissionPolicy '${denial.policy}' with binding '${denial.binding}' denied request: ${denial.message}`;
  const subject = name === '' ? qualifiedResource(gr) : goSprintf('%s %q', qualifiedResource(gr), name);
  return build(code, format(code, subject, why), details({ name, group: gr.group, kind: gr.resource, causes: [{ message: why }] }));
}

/** 500; the cause's text goes into the message and into the single cause. */
export function internalError(cause: unknown): Status {
  const text = cause instanceof Error ? cause.message : String(cause);
  return build('FW_ERR_SERVER_INTERNAL', format('FW_ERR_SERVER_INTERNAL', text), details({ causes: [{ message: text }] }));
}

/** 504; Go always sets details here, so a zero retry still serialises as `"details":{}`. */
export function timeout(message: string = REQUEST_TIMEOUT_DETAIL, retryAfterSeconds = 0): Status {
  return build('FW_ERR_REQUEST_TIMEOUT', format('FW_ERR_REQUEST_TIMEOUT', message), details({ retryAfterSeconds }));
}
