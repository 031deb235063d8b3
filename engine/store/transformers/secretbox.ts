// secretbox: `k8s:enc:secretbox:v1:<key>:` + nonce(24, random) + NaCl secretbox (Poly1305 tag(16)
// ‖ XSalsa20 ciphertext), 32-byte keys. Authenticated, but without associated data: like
// kube-apiserver, the storage key is not bound. Node's OpenSSL has no XSalsa20, hence tweetnacl.

import nacl from 'tweetnacl';
import type { Transformer } from './transformer.ts';
import type { RandomBytes } from './random-bytes.ts';
import { concatBytes } from './prefix-transformer.ts';
import { TransformError } from './transform-error.ts';

export const SECRETBOX_PREFIX = 'k8s:enc:secretbox:v1:';
const NONCE_BYTES = nacl.secretbox.nonceLength;
const OVERHEAD_BYTES = nacl.secretbox.overheadLength;

export function createSecretboxTransformer(key: Uint8Array, random: RandomBytes): Transformer {
  if (key.length !== nacl.secretbox.keyLength) throw new Error(`secretbox key must be ${nacl.secretbox.keyLength} bytes, got ${key.length}`);
  return {
    async transformToStorage(data) {
      const nonce = random(NONCE_BYTES);
      return concatBytes(nonce, nacl.secretbox(data, nonce, key));
    },
    async transformFromStorage(data) {
      if (data.length < NONCE_BYTES + OVERHEAD_BYTES) throw new TransformError('malformed', 'the stored data was shorter than the required size');
      const opened = nacl.secretbox.open(data.subarray(NONCE_BYTES), data.subarray(0, NONCE_BYTES), key);
      // kube-apiserver's wording for an authentication failure, odd as it reads.
      if (opened === null) throw new TransformError('decrypt-failed', 'output array was not large enough for encryption');
      return { data: opened, stale: false };
    },
  };
}
