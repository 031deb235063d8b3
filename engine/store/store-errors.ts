// The store's error registry. Every failure the store reports is a `StoreError` with a stable code
// (`FW_ERR_STORE_*`), a message worded as kube-apiserver words it, and the facts a client may need
// (the object's name, group and resource; causes; when to retry; a fresh continue token). Which HTTP
// status and Status reason a code is sent with is the API edge's decision (api/engine-errors.ts):
// the store knows nothing of HTTP.
//
// Codes are never reused or renamed: clients, docs/errors.md and docs/storage.md match on them. Add
// new codes at the end of STORE_ERROR_CODES.

import type { FieldError } from '../resources/field-errors.ts';
import { fieldErrorBody, formatFieldErrors } from '../resources/field-errors.ts';
import type { StatusCause, StatusDetails } from '../resources/types.ts';

export const STORE_ERROR_CODES = [
  'FW_ERR_STORE_NOT_FOUND',
  'FW_ERR_STORE_ALREADY_EXISTS',
  'FW_ERR_STORE_CONFLICT',
  'FW_ERR_STORE_PRECONDITION_FAILED',
  'FW_ERR_STORE_EXPIRED',
  'FW_ERR_STORE_CONTINUE_EXPIRED',
  'FW_ERR_STORE_TOO_LARGE_RESOURCE_VERSION',
  'FW_ERR_STORE_INVALID_RESOURCE_VERSION',
  'FW_ERR_STORE_INVALID_LIST_OPTIONS',
  'FW_ERR_STORE_BAD_CONTINUE',
  'FW_ERR_STORE_BAD_LABEL_SELECTOR',
  'FW_ERR_STORE_BAD_FIELD_SELECTOR',
  'FW_ERR_STORE_BAD_NAME',
  'FW_ERR_STORE_RESOURCE_VERSION_ON_CREATE',
  'FW_ERR_STORE_NOT_OPEN',
  'FW_ERR_STORE_LOCKED',
  'FW_ERR_STORE_CORRUPT',
  'FW_ERR_STORE_WRITE_FAILED',
  'FW_ERR_STORE_TRANSFORM_FAILED',
  'FW_ERR_STORE_WATCH_TOO_SLOW',
  'FW_ERR_STORE_NOT_SUPPORTED',
  'FW_ERR_STORE_OPEN_FAILED',
  'FW_ERR_STORE_WRITES_UNAVAILABLE',
  /** A value over the store's request limit (etcd's 1.5 MiB by default). */
  'FW_ERR_STORE_REQUEST_TOO_LARGE',
] as const;

export type StoreErrorCode = (typeof STORE_ERROR_CODES)[number];

const BRAND = Symbol.for('fairway.StoreError');

export class StoreError extends Error {
  readonly [BRAND] = true;
  readonly code: StoreErrorCode;
  readonly details: StatusDetails | undefined;
  /** For an expired continue token: a fresh token that continues at the latest resource version. */
  readonly continueToken: string | undefined;

  constructor(code: StoreErrorCode, message: string, extra: { details?: StatusDetails | undefined; continueToken?: string; cause?: unknown } = {}) {
    super(message, extra.cause === undefined ? undefined : { cause: extra.cause });
    this.name = 'StoreError';
    this.code = code;
    this.details = extra.details;
    this.continueToken = extra.continueToken;
  }
}

/** Identifies a StoreError by brand, so it survives module duplication (undici's rule). */
export function isStoreError(error: unknown): error is StoreError {
  return typeof error === 'object' && error !== null && (error as Record<symbol, unknown>)[BRAND] === true;
}

export function isStoreErrorCode(error: unknown, code: StoreErrorCode): error is StoreError {
  return isStoreError(error) && error.code === code;
}

/** What a message needs to name a resource: `prioritylevelconfigurations.flowcontrol.apiserver.k8s.io`. */
export interface ResourceNaming {
  group: string;
  resource: string;
  kind: string;
}

export function qualifiedResource(r: ResourceNaming): string {
  return r.group === '' ? r.resource : `${r.resource}.${r.group}`;
}

function resourceDetails(r: ResourceNaming, name: string): StatusDetails {
  return { name, group: r.group, kind: r.resource };
}

export function notFoundError(r: ResourceNaming, name: string): StoreError {
  return new StoreError('FW_ERR_STORE_NOT_FOUND', `${qualifiedResource(r)} ${JSON.stringify(name)} not found`, {
    details: resourceDetails(r, name),
  });
}

export function alreadyExistsError(r: ResourceNaming, name: string): StoreError {
  return new StoreError('FW_ERR_STORE_ALREADY_EXISTS', `${qualifiedResource(r)} ${JSON.stringify(name)} already exists`, {
    details: resourceDetails(r, name),
  });
}

/** The optimistic-concurrency failure: the object's resourceVersion is not the stored one. */
export function conflictError(r: ResourceNaming, name: string): StoreError {
  return new StoreError(
    'FW_ERR_STORE_CONFLICT',
    `Operation cannot be fulfilled on ${qualifiedResource(r)} ${JSON.stringify(name)}: the object has been modified; please apply your changes to ` +
      'the latest version and try again',
    { details: resourceDetails(r, name) },
  );
}

/** A failed uid / resourceVersion precondition, worded as the storage layer's InvalidObj error. */
export function preconditionError(r: ResourceNaming, name: string, key: string, field: 'UID' | 'ResourceVersion', wanted: string, actual: string): StoreError {
  const inner = `Precondition failed: ${field} in precondition: ${wanted}, ${field} in object meta: ${actual}`;
  return new StoreError(
    'FW_ERR_STORE_PRECONDITION_FAILED',
    `Operation cannot be fulfilled on ${qualifiedResource(r)} ${JSON.stringify(name)}: StorageError: invalid object, Code: 4, Key: ${key}, ` +
      `ResourceVersion: 0, AdditionalErrorMsg: ${inner}`,
    { details: resourceDetails(r, name) },
  );
}

/** A watch (or a watch-cache read) from before the event window. */
export function tooOldResourceVersionError(requested: number, windowStartRevision: number): StoreError {
  return new StoreError('FW_ERR_STORE_EXPIRED', `too old resource version: ${requested} (${windowStartRevision})`);
}

/** An exact list at a version that has left the event window. */
export function listTooOldError(): StoreError {
  return new StoreError('FW_ERR_STORE_EXPIRED', 'The resourceVersion for the provided list is too old.');
}

export const CONTINUE_EXPIRED_MESSAGE =
  'The provided continue parameter is too old to display a consistent list result. You can start a new list without the continue parameter.';
export const CONTINUE_INCONSISTENT_MESSAGE =
  'The provided continue parameter is too old to display a consistent list result. You can start a new list without the continue parameter, or use ' +
  'the continue token in this response to retrieve the remainder of the results. Continuing with the provided token results in an inconsistent list ' +
  '- objects that were created, modified, or deleted between the time the first chunk was returned and now may show up in the list.';

export function continueExpiredError(freshToken: string | undefined): StoreError {
  if (freshToken === undefined) return new StoreError('FW_ERR_STORE_CONTINUE_EXPIRED', CONTINUE_EXPIRED_MESSAGE);
  return new StoreError('FW_ERR_STORE_CONTINUE_EXPIRED', CONTINUE_INCONSISTENT_MESSAGE, { continueToken: freshToken });
}

export function tooLargeResourceVersionError(requested: number, current: number): StoreError {
  return new StoreError('FW_ERR_STORE_TOO_LARGE_RESOURCE_VERSION', `Timeout: Too large resource version: ${requested}, current: ${current}`, {
    details: { retryAfterSeconds: 1 },
  });
}

/** `ListOptions.meta.k8s.io "" is invalid: …`, as the handler's list-option validation reports it. */
export function invalidListOptionsError(errors: readonly FieldError[], metaGroup = 'meta.k8s.io'): StoreError {
  const causes: StatusCause[] = errors.map((e) => ({
    reason: e.type,
    message: fieldErrorBody(e),
    field: e.field,
  }));
  return new StoreError('FW_ERR_STORE_INVALID_LIST_OPTIONS', `ListOptions.${metaGroup} "" is invalid: ${formatFieldErrors(errors)}`, {
    details: { name: '', group: metaGroup, kind: 'ListOptions', causes },
  });
}

export function badRequestError(
  code: 'FW_ERR_STORE_BAD_CONTINUE' | 'FW_ERR_STORE_BAD_LABEL_SELECTOR' | 'FW_ERR_STORE_BAD_FIELD_SELECTOR' | 'FW_ERR_STORE_BAD_NAME',
  message: string,
): StoreError {
  return new StoreError(code, message);
}

/** `Internal error occurred: …` with the text as the single cause, as apierrors.NewInternalError does. */
export function internalError(
  code:
    | 'FW_ERR_STORE_LOCKED'
    | 'FW_ERR_STORE_CORRUPT'
    | 'FW_ERR_STORE_WRITE_FAILED'
    | 'FW_ERR_STORE_TRANSFORM_FAILED'
    | 'FW_ERR_STORE_OPEN_FAILED'
    | 'FW_ERR_STORE_RESOURCE_VERSION_ON_CREATE',
  text: string,
  cause?: unknown,
): StoreError {
  return new StoreError(code, `Internal error occurred: ${text}`, { details: { causes: [{ message: text }] }, cause });
}

export function notOpenError(state: string): StoreError {
  return new StoreError('FW_ERR_STORE_NOT_OPEN', `storage is not open (state: ${state})`);
}

/** A write refused while the store recovers from a failed one; reads are still served. */
export function writesUnavailableError(cause: StoreError): StoreError {
  const text = cause.message.replace(/^Internal error occurred: /, '');
  return new StoreError('FW_ERR_STORE_WRITES_UNAVAILABLE', `storage is not taking writes until it recovers from a failed write: ${text}`, {
    details: { causes: [{ message: text }], retryAfterSeconds: 1 },
    cause,
  });
}

export function watchTooSlowError(bufferSize: number): StoreError {
  return new StoreError(
    'FW_ERR_STORE_WATCH_TOO_SLOW',
    `watch closed: the client fell ${bufferSize} events behind; watch again from the last resourceVersion it received`,
  );
}

/** Go's strconv.ParseUint text, which kube-apiserver passes through for a bad resourceVersion. */
export function invalidResourceVersionError(value: string, outOfRange: boolean): StoreError {
  const why = outOfRange ? 'value out of range' : 'invalid syntax';
  return new StoreError(
    'FW_ERR_STORE_INVALID_RESOURCE_VERSION',
    `resourceVersion: Invalid value: ${JSON.stringify(value)}: strconv.ParseUint: parsing ${JSON.stringify(value)}: ${why}`,
  );
}

/** etcd's text when a request exceeds its `--max-request-bytes`, which kube-apiserver shows as is. */
export const REQUEST_TOO_LARGE_MESSAGE = 'etcdserver: request is too large';

/** An object whose stored value would exceed the store's request limit (etcd's 1.5 MiB by default). */
export function requestTooLargeError(): StoreError {
  return new StoreError('FW_ERR_STORE_REQUEST_TOO_LARGE', REQUEST_TOO_LARGE_MESSAGE);
}
