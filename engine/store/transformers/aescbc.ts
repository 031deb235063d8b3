// aescbc: `k8s:enc:aescbc:v1:<key>:` + IV(16) + AES-CBC(PKCS#7-padded plaintext), as
// kube-apiserver stores it. AES-128/192/256 follows the key length.
//
// CBC has no MAC and no associated data, so it cannot prove integrity: a wrong key or a changed
// byte is caught only when the last block's padding comes out malformed (about 255 times in 256
// for a wrong key; always for a truncation that breaks the block size; for a flipped byte only
// when it lands in the last block or the IV/ciphertext byte that feeds the padding). A flip
// elsewhere decrypts to garbage — the codec then rejects it. Prefer aesgcm or secretbox.

import { createCipheriv, createDecipheriv } from 'node:crypto';
import type { Transformer } from './transformer.ts';
import type { RandomBytes } from './random-bytes.ts';
import { concatBytes } from './prefix-transformer.ts';
import { TransformError } from './transform-error.ts';

export const AESCBC_PREFIX = 'k8s:enc:aescbc:v1:';
const BLOCK_BYTES = 16;

/** The data cipher under one key (no prefix): what one `<key>:` entry stores. */
export function createAesCbcTransformer(key: Uint8Array, random: RandomBytes): Transformer {
  const algorithm = aesAlgorithm('cbc', key);
  return {
    async transformToStorage(data) {
      const iv = random(BLOCK_BYTES);
      const cipher = createCipheriv(algorithm, key, iv);
      return concatBytes(iv, cipher.update(data), cipher.final());
    },
    async transformFromStorage(data) {
      return { data: decryptCbc(algorithm, key, data), stale: false };
    },
  };
}

function decryptCbc(algorithm: string, key: Uint8Array, data: Uint8Array): Uint8Array {
  if (data.length < BLOCK_BYTES) throw new TransformError('malformed', 'the stored data was shorter than the required size');
  const iv = data.subarray(0, BLOCK_BYTES);
  const body = data.subarray(BLOCK_BYTES);
  if (body.length % BLOCK_BYTES !== 0) throw new TransformError('malformed', 'the stored data is not a multiple of the block size');
  if (body.length === 0) throw new TransformError('malformed', 'invalid PKCS7 data (empty or not padded)');
  const decipher = createDecipheriv(algorithm, key, iv);
  // Padding is checked by hand so the error reads as kube-apiserver's, not OpenSSL's "bad decrypt".
  decipher.setAutoPadding(false);
  const padded = concatBytes(decipher.update(body), decipher.final());
  const padding = padded[padded.length - 1]!;
  if (padding === 0 || padding > padded.length) throw new TransformError('decrypt-failed', 'invalid padding on input');
  for (let i = padded.length - padding; i < padded.length; i++) {
    if (padded[i] !== padding) throw new TransformError('decrypt-failed', 'invalid padding on input');
  }
  return padded.subarray(0, padded.length - padding);
}

/** `aes-256-cbc` for a 32-byte key; the key length was validated with the configuration. */
export function aesAlgorithm(mode: 'cbc' | 'gcm', key: Uint8Array): string {
  if (key.length !== 16 && key.length !== 24 && key.length !== 32) throw new Error(`AES key must be 16, 24 or 32 bytes, got ${key.length}`);
  return `aes-${key.length * 8}-${mode}`;
}
