// The engine's errors at the API edge: the one place where a store, registry or executor failure
// becomes the `Status` kube-apiserver would send (HTTP code, reason, details and causes). The
// engine reports what went wrong (a stable code, its message and facts); which HTTP status that is
// gets decided here, so the engine knows nothing of HTTP. docs/errors.md lists every code with the
// reason and status it is sent with; errors.test.ts holds the two together.
import type { Status } from '../engine/resources/types.ts';
import { isRegistryError, type RegistryError, type RegistryErrorCode } from '../engine/registry/registry-errors.ts';
import { isStoreError, type StoreError, type StoreErrorCode } from '../engine/store/store-errors.ts';
import type { AdmissionAttributes, AdmissionRejection } from '../engine/auth/admission/admission.ts';
import { isExecutorError, type ExecutorErrorCode } from '../workers/executor-errors.ts';
import {
  admissionPolicyDenied,
  admissionRateLimited,
  badRequest,
  internalError,
  invalid,
  isApiError,
  type ApiErrorCode,
  type ErrorEntry,
  type StatusReason,
} from '../engine/status/errors.ts';
import type { Logger } from './log.ts';

type Sent = Pick<ErrorEntry, 'reason' | 'httpCode'>;
const sent = (reason: StatusReason, httpCode: number): Sent => ({ reason, httpCode });

/** How each store code goes out: kube-apiserver's reason and HTTP status for the same storage failure. */
export const STORE_ERROR_STATUS: Readonly<Record<StoreErrorCode, Sent>> = {
  FW_ERR_STORE_NOT_FOUND: sent('NotFound', 404),
  FW_ERR_STORE_ALREADY_EXISTS: sent('AlreadyExists', 409),
  FW_ERR_STORE_CONFLICT: sent('Conflict', 409),
  FW_ERR_STORE_PRECONDITION_FAILED: sent('Conflict', 409),
  FW_ERR_STORE_EXPIRED: sent('Expired', 410),
  FW_ERR_STORE_CONTINUE_EXPIRED: sent('Expired', 410),
  FW_ERR_STORE_TOO_LARGE_RESOURCE_VERSION: sent('Timeout', 504),
  /** kube-apiserver answers an unparseable resourceVersion with a bare 500 (reason Unknown). */
  FW_ERR_STORE_INVALID_RESOURCE_VERSION: sent('', 500),
  FW_ERR_STORE_INVALID_LIST_OPTIONS: sent('Invalid', 422),
  FW_ERR_STORE_BAD_CONTINUE: sent('BadRequest', 400),
  FW_ERR_STORE_BAD_LABEL_SELECTOR: sent('BadRequest', 400),
  FW_ERR_STORE_BAD_FIELD_SELECTOR: sent('BadRequest', 400),
  FW_ERR_STORE_BAD_NAME: sent('BadRequest', 400),
  FW_ERR_STORE_RESOURCE_VERSION_ON_CREATE: sent('InternalError', 500),
  FW_ERR_STORE_NOT_OPEN: sent('ServiceUnavailable', 503),
  FW_ERR_STORE_LOCKED: sent('InternalError', 500),
  FW_ERR_STORE_CORRUPT: sent('InternalError', 500),
  FW_ERR_STORE_WRITE_FAILED: sent('InternalError', 500),
  FW_ERR_STORE_TRANSFORM_FAILED: sent('InternalError', 500),
  FW_ERR_STORE_WATCH_TOO_SLOW: sent('Timeout', 504),
  FW_ERR_STORE_NOT_SUPPORTED: sent('MethodNotAllowed', 405),
  FW_ERR_STORE_OPEN_FAILED: sent('InternalError', 500),
  FW_ERR_STORE_WRITES_UNAVAILABLE: sent('ServiceUnavailable', 503),
  /**
   * kube-apiserver passes etcd's error through as a bare 500; here it is the client's object that
   * is too big, so 413 with etcd's words.
   */
  FW_ERR_STORE_REQUEST_TOO_LARGE: sent('RequestEntityTooLarge', 413),
};

/** The API registry codes each registry code is sent as (its Status comes from that builder). */
export const REGISTRY_ERROR_SENT_AS: Readonly<Record<RegistryErrorCode, readonly ApiErrorCode[]>> = {
  FW_ERR_REGISTRY_INVALID: ['FW_ERR_RESOURCE_INVALID'],
  FW_ERR_REGISTRY_RESOURCE_VERSION_ON_CREATE: ['FW_ERR_REQUEST_BAD'],
  FW_ERR_REGISTRY_ADMISSION_REJECTED: [
    'FW_ERR_ADMISSION_RATE_LIMITED',
    'FW_ERR_ADMISSION_POLICY_INVALID',
    'FW_ERR_ADMISSION_POLICY_FORBIDDEN',
    'FW_ERR_ADMISSION_POLICY_UNAUTHORIZED',
    'FW_ERR_ADMISSION_POLICY_TOO_LARGE',
  ],
};

/** The execution plane's failures are the server's, never the client's: every one is an internal error. */
export const EXECUTOR_ERROR_SENT_AS: Readonly<Record<ExecutorErrorCode, ApiErrorCode>> = {
  FW_ERR_EXECUTOR_UNKNOWN_STAGE: 'FW_ERR_SERVER_INTERNAL',
  FW_ERR_EXECUTOR_BAD_WORK: 'FW_ERR_SERVER_INTERNAL',
  FW_ERR_EXECUTOR_STAGE_FAILED: 'FW_ERR_SERVER_INTERNAL',
  FW_ERR_EXECUTOR_WORKER_FAILED: 'FW_ERR_SERVER_INTERNAL',
  FW_ERR_EXECUTOR_CLOSED: 'FW_ERR_SERVER_INTERNAL',
};

/** The `Status` kube-apiserver would send for this store error. */
export function storeErrorStatus(error: StoreError): Status {
  const { reason, httpCode } = STORE_ERROR_STATUS[error.code];
  const status: Status = { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', message: error.message };
  if (error.continueToken !== undefined) status.metadata = { continue: error.continueToken };
  if (reason !== '') status.reason = reason;
  if (error.details !== undefined) status.details = error.details;
  status.code = httpCode;
  return status;
}

export function registryErrorStatus(error: RegistryError): Status {
  const facts = error.facts;
  switch (facts.code) {
    case 'FW_ERR_REGISTRY_INVALID':
      return invalid({ group: facts.group, kind: facts.kind }, facts.name, facts.errors);
    case 'FW_ERR_REGISTRY_RESOURCE_VERSION_ON_CREATE':
      return badRequest(error.message);
    case 'FW_ERR_REGISTRY_ADMISSION_REJECTED':
      return admissionRejectionStatus(facts.rejection, facts.attributes);
  }
}

/** A validating admission plugin's refusal, worded as kube-apiserver words it: 429 for the rate limiter, the policy's reason otherwise. */
export function admissionRejectionStatus(rejection: AdmissionRejection, attributes: AdmissionAttributes): Status {
  if (rejection.kind === 'rate-limited') return admissionRateLimited(rejection.message);
  return admissionPolicyDenied({ group: attributes.resource.group, resource: attributes.resource.resource }, attributes.name, rejection);
}

/**
 * The Status for anything a handler threw. Store errors keep kube-apiserver's wording; the two the
 * store words as 500s but that come from the request itself (an unparseable resourceVersion, a
 * resourceVersion on create) are client errors here, so the client is told it was its input.
 * Whatever is not a known error is a server fault: logged, and a 500.
 */
export function errorStatus(error: unknown, logger?: Logger): Status {
  if (isApiError(error)) return error.status;
  if (isRegistryError(error)) return registryErrorStatus(error);
  if (isStoreError(error)) {
    if (error.code === 'FW_ERR_STORE_INVALID_RESOURCE_VERSION' || error.code === 'FW_ERR_STORE_RESOURCE_VERSION_ON_CREATE') {
      return badRequest(error.message.replace(/^Internal error occurred: /, ''));
    }
    const status = storeErrorStatus(error);
    if ((status.code ?? 500) >= 500) logger?.error(`storage error: ${error.message}`);
    return status;
  }
  if (isExecutorError(error)) {
    logger?.error(`execution plane error (${error.code}): ${error.message}`);
    return internalError(error);
  }
  logger?.error(`internal error: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`);
  return internalError(error);
}
