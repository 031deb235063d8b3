// Why a value could not be encrypted or decrypted, as a value the store can wrap (it reports
// FW_ERR_STORE_TRANSFORM_FAILED with this as `cause`). The message keeps kube-apiserver's wording
// and prefixes the provider and key, so an operator knows which key or plugin to look at.
// Identify with `isTransformError` (a brand), not `instanceof`: copies of this module may differ.

export type TransformErrorReason =
  /** No configured provider or key matches the stored prefix. */
  | 'no-matching-prefix'
  /** The ciphertext is truncated, tampered with, or was written with another key. */
  | 'decrypt-failed'
  /** The stored bytes are not in the provider's format at all (bad envelope, bad lengths). */
  | 'malformed'
  /** The identity provider was asked to return data that carries an encryption prefix. */
  | 'encrypted-data'
  /** The KMS plugin could not be reached or did not answer in time. */
  | 'kms-unavailable'
  /** The KMS plugin answered with an error or an unusable response. */
  | 'kms-failed'
  /** KMS v2: no usable key yet, or the write key expired after the plugin stopped answering. */
  | 'kms-not-ready';

const BRAND = Symbol.for('fairway.TransformError');

export class TransformError extends Error {
  readonly [BRAND] = true;
  readonly reason: TransformErrorReason;
  /** `aescbc key "key1"`, `kms provider "vault"`, or undefined when no provider matched. */
  readonly provider: string | undefined;

  constructor(reason: TransformErrorReason, message: string, options: { provider?: string | undefined; cause?: unknown } = {}) {
    super(options.provider === undefined ? message : `${options.provider}: ${message}`, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = 'TransformError';
    this.reason = reason;
    this.provider = options.provider;
  }
}

export function isTransformError(error: unknown): error is TransformError {
  return typeof error === 'object' && error !== null && (error as Record<symbol, unknown>)[BRAND] === true;
}

/** Adds the provider label to a bare TransformError raised by a data cipher. */
export function withProvider(error: unknown, provider: string): TransformError {
  if (isTransformError(error)) {
    if (error.provider !== undefined) return error;
    return new TransformError(error.reason, error.message, { provider, cause: error.cause });
  }
  const message = error instanceof Error ? error.message : String(error);
  return new TransformError('decrypt-failed', message, { provider, cause: error });
}

/**
 * The KMS plugin could not do its part (down, slow, failing, or no key yet): the data is fine and
 * will read again once the plugin is back, unlike a wrong key or tampered ciphertext.
 */
export function isKmsOutage(error: unknown): boolean {
  return isTransformError(error) && (error.reason === 'kms-unavailable' || error.reason === 'kms-not-ready' || error.reason === 'kms-failed');
}
