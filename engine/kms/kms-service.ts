// What the envelope transformers need from a KMS plugin, independent of the transport. The gRPC
// clients (grpc-kms-client.ts) implement these over a unix socket; tests may use in-memory fakes.
// Every method rejects with a KmsCallError on failure (unreachable, deadline, plugin error).

/** `v2.KeyManagementService` (kube-apiserver ≥ 1.27 default). */
export interface KmsV2Service {
  status(): Promise<KmsV2StatusResponse>;
  encrypt(uid: string, plaintext: Uint8Array): Promise<KmsV2EncryptResponse>;
  decrypt(uid: string, request: KmsV2DecryptRequest): Promise<Uint8Array>;
  /** Releases the connection; later calls reject. */
  close(): void;
}

export interface KmsV2StatusResponse {
  /** `v2` (or the older `v2beta1`). */
  version: string;
  /** `ok` when healthy; anything else is reported as the failure. */
  healthz: string;
  /** The key the plugin encrypts with now; a change rotates the DEK seed. */
  keyId: string;
}

export interface KmsV2EncryptResponse {
  ciphertext: Uint8Array;
  keyId: string;
  annotations: ReadonlyMap<string, Uint8Array>;
}

export interface KmsV2DecryptRequest {
  ciphertext: Uint8Array;
  keyId: string;
  annotations: ReadonlyMap<string, Uint8Array>;
}

/** `v1beta1.KeyManagementService` (deprecated; behind the KMSv1 opt-in). */
export interface KmsV1Service {
  encrypt(plaintext: Uint8Array): Promise<Uint8Array>;
  decrypt(ciphertext: Uint8Array): Promise<Uint8Array>;
  close(): void;
}

/** gRPC status names as Go prints them in `rpc error: code = <Code> desc = <text>`. */
export type KmsCallCode =
  | 'Canceled'
  | 'Unknown'
  | 'InvalidArgument'
  | 'DeadlineExceeded'
  | 'NotFound'
  | 'AlreadyExists'
  | 'PermissionDenied'
  | 'ResourceExhausted'
  | 'FailedPrecondition'
  | 'Aborted'
  | 'OutOfRange'
  | 'Unimplemented'
  | 'Internal'
  | 'Unavailable'
  | 'DataLoss'
  | 'Unauthenticated';

const BRAND = Symbol.for('fairway.KmsCallError');

export class KmsCallError extends Error {
  readonly [BRAND] = true;
  readonly code: KmsCallCode;

  constructor(code: KmsCallCode, description: string, options: { cause?: unknown } = {}) {
    super(`rpc error: code = ${code} desc = ${description}`, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = 'KmsCallError';
    this.code = code;
  }

  /** The plugin could not be reached or did not answer in time (as opposed to answering "no"). */
  get unavailable(): boolean {
    return this.code === 'Unavailable' || this.code === 'DeadlineExceeded' || this.code === 'Canceled';
  }
}

export function isKmsCallError(error: unknown): error is KmsCallError {
  return typeof error === 'object' && error !== null && (error as Record<symbol, unknown>)[BRAND] === true;
}
