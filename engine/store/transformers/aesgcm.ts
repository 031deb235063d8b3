// aesgcm: `k8s:enc:aesgcm:v1:<key>:` + nonce(12, random) + ciphertext + tag(16), with the storage
// key as additional authenticated data, so a ciphertext copied under another key does not open.
// Random 96-bit nonces bound how many writes one key may take (NIST: 2^32); kube-apiserver's docs
// say to rotate aesgcm keys every 200,000 writes.

import { createCipheriv, createDecipheriv } from 'node:crypto';
import type { CipherGCMTypes } from 'node:crypto';
import type { Transformer } from './transformer.ts';
import type { RandomBytes } from './random-bytes.ts';
import { aesAlgorithm } from './aescbc.ts';
import { authenticatedData, concatBytes } from './prefix-transformer.ts';
import { TransformError } from './transform-error.ts';

export const AESGCM_PREFIX = 'k8s:enc:aesgcm:v1:';
export const GCM_NONCE_BYTES = 12;
export const GCM_TAG_BYTES = 16;

export function createAesGcmTransformer(key: Uint8Array, random: RandomBytes): Transformer {
  return {
    async transformToStorage(data, context) {
      return sealGcm(key, random(GCM_NONCE_BYTES), data, authenticatedData(context));
    },
    async transformFromStorage(data, context) {
      if (data.length < GCM_NONCE_BYTES) throw new TransformError('malformed', 'the stored data was shorter than the required size');
      return { data: openGcm(key, data, authenticatedData(context)), stale: false };
    },
  };
}

/** nonce ‖ ciphertext ‖ tag (Go's `Seal` output after the nonce). */
export function sealGcm(key: Uint8Array, nonce: Uint8Array, plaintext: Uint8Array, aad: Uint8Array): Uint8Array {
  const cipher = createCipheriv(aesAlgorithm('gcm', key) as CipherGCMTypes, key, nonce, { authTagLength: GCM_TAG_BYTES });
  cipher.setAAD(aad);
  const body = concatBytes(cipher.update(plaintext), cipher.final());
  return concatBytes(nonce, body, cipher.getAuthTag());
}

/** Opens nonce ‖ ciphertext ‖ tag; any mismatch is Go's `cipher: message authentication failed`. */
export function openGcm(key: Uint8Array, sealed: Uint8Array, aad: Uint8Array): Uint8Array {
  const failed = (): TransformError => new TransformError('decrypt-failed', 'cipher: message authentication failed');
  if (sealed.length < GCM_NONCE_BYTES + GCM_TAG_BYTES) throw failed();
  const nonce = sealed.subarray(0, GCM_NONCE_BYTES);
  const tag = sealed.subarray(sealed.length - GCM_TAG_BYTES);
  const body = sealed.subarray(GCM_NONCE_BYTES, sealed.length - GCM_TAG_BYTES);
  const decipher = createDecipheriv(aesAlgorithm('gcm', key) as CipherGCMTypes, key, nonce, { authTagLength: GCM_TAG_BYTES });
  decipher.setAAD(aad);
  decipher.setAuthTag(tag);
  try {
    return concatBytes(decipher.update(body), decipher.final());
  } catch {
    throw failed();
  }
}
