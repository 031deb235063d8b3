// The KMS v2 data ciphers, chosen by the envelope's encryptedDEKSourceType:
//
// * HKDF_SHA256_XNONCE_AES_GCM_SEED (what Fairway writes, kube-apiserver's default since 1.29):
//   the plugin wraps a 32-byte seed; every write draws 32 random bytes of `info` and derives its
//   own AES-256 key, DEK = HKDF-SHA256-Expand(PRK = seed, info, 32). kube-apiserver skips HKDF's
//   Extract step, so DEK = HMAC-SHA256(seed, info ‖ 0x01) — node's hkdfSync would extract first and
//   get a different key. Stored: info(32) ‖ nonce(12) ‖ ciphertext ‖ tag(16), AAD = storage key.
//   A fresh key per write lifts GCM's random-nonce limit, so one seed can serve any number of writes.
// * AES_GCM_KEY (read-only here): the plugin wraps the AES key itself; stored nonce ‖ ct ‖ tag.

import { createHmac } from 'node:crypto';
import type { Transformer } from './transformer.ts';
import type { RandomBytes } from './random-bytes.ts';
import { GCM_NONCE_BYTES, openGcm, sealGcm } from './aesgcm.ts';
import { authenticatedData, concatBytes } from './prefix-transformer.ts';
import { TransformError } from './transform-error.ts';

export const XNONCE_INFO_BYTES = 32;
export const SEED_MIN_BYTES = 32;

/** HKDF-SHA256 expand-only for one 32-byte output block. */
export function deriveXnonceKey(seed: Uint8Array, info: Uint8Array): Uint8Array {
  return new Uint8Array(createHmac('sha256', seed).update(info).update(Uint8Array.of(1)).digest());
}

export function createXnonceGcmTransformer(seed: Uint8Array, random: RandomBytes): Transformer {
  if (seed.length < SEED_MIN_BYTES) throw new TransformError('kms-failed', `invalid seed length ${seed.length} used for key generation`);
  return {
    async transformToStorage(data, context) {
      const info = random(XNONCE_INFO_BYTES);
      const sealed = sealGcm(deriveXnonceKey(seed, info), random(GCM_NONCE_BYTES), data, authenticatedData(context));
      return concatBytes(info, sealed);
    },
    async transformFromStorage(data, context) {
      if (data.length < XNONCE_INFO_BYTES) throw new TransformError('malformed', 'the stored data was shorter than the required size');
      const info = data.subarray(0, XNONCE_INFO_BYTES);
      return { data: openGcm(deriveXnonceKey(seed, info), data.subarray(XNONCE_INFO_BYTES), authenticatedData(context)), stale: false };
    },
  };
}

/** Reads values written under a plugin-wrapped AES key (the pre-1.29 KMS v2 mode). */
export function createAesGcmKeyReader(key: Uint8Array): Transformer {
  if (key.length !== 16 && key.length !== 24 && key.length !== 32) throw new TransformError('kms-failed', `crypto/aes: invalid key size ${key.length}`);
  return {
    transformToStorage() {
      return Promise.reject(new Error('AES_GCM_KEY mode is read-only in Fairway: writes use a KDF seed'));
    },
    async transformFromStorage(data, context) {
      if (data.length < GCM_NONCE_BYTES) throw new TransformError('malformed', 'the stored data was shorter than the required size');
      return { data: openGcm(key, data, authenticatedData(context)), stale: false };
    },
  };
}
