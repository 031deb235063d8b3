// The transformer chain sits between the codec and the backend: every value is passed through
// `transformToStorage` before it is written and `transformFromStorage` after it is read. It is
// asynchronous because a KMS provider must call out to unwrap keys (Level's encodings and hooks are
// synchronous, which is why this layer is Fairway's own). Encryption providers (aescbc, aesgcm,
// secretbox, kms) implement this same interface in a later issue; a reader picks the provider by the
// stored prefix (`k8s:enc:<provider>:v1:<key name>:`), exactly as kube-apiserver does.

export interface TransformerContext {
  /** The storage key (`/registry/<group>/<resource>/<name>`); providers may bind ciphertext to it. */
  readonly key: string;
}

export interface TransformFromStorageResult {
  readonly data: Uint8Array;
  /**
   * True when the value was written with a provider or key that is no longer the write provider:
   * the store rewrites such objects on their next update even if nothing else changed.
   */
  readonly stale: boolean;
}

export interface Transformer {
  transformToStorage(data: Uint8Array, context: TransformerContext): Promise<Uint8Array>;
  transformFromStorage(data: Uint8Array, context: TransformerContext): Promise<TransformFromStorageResult>;
}

/** The prefix every encrypted value starts with in kube-apiserver's storage format. */
export const ENCRYPTED_VALUE_PREFIX = 'k8s:enc:';
const ENCRYPTED_PREFIX_BYTES = new TextEncoder().encode(ENCRYPTED_VALUE_PREFIX);

export function hasEncryptedPrefix(data: Uint8Array): boolean {
  if (data.length < ENCRYPTED_PREFIX_BYTES.length) return false;
  for (let i = 0; i < ENCRYPTED_PREFIX_BYTES.length; i++) if (data[i] !== ENCRYPTED_PREFIX_BYTES[i]) return false;
  return true;
}

/**
 * Stores values as they are. Like kube-apiserver's identity provider it refuses to hand back a value
 * that carries an encryption prefix: reading ciphertext as plaintext would corrupt silently.
 */
export const identityTransformer: Transformer = {
  transformToStorage: (data) => Promise.resolve(data),
  transformFromStorage(data) {
    if (hasEncryptedPrefix(data)) return Promise.reject(new Error('identity transformer tried to read encrypted data'));
    return Promise.resolve({ data, stale: false });
  },
};
