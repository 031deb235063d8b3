// KMS v1 envelope encryption (deprecated upstream; only with the explicit KMSv1 opt-in):
// `k8s:enc:kms:v1:<name>:` + uint16 big-endian length of the encrypted DEK + encrypted DEK +
// AES-256-GCM(nonce ‖ ciphertext ‖ tag, AAD = storage key). Every write draws a new DEK and calls
// the plugin's Encrypt; reads call Decrypt once per DEK and keep the result in an LRU cache of
// `cachesize` entries (negative: no cache). Reads fall back to AES-CBC under the DEK, which old
// kube-apiservers wrote; such a value is stale.

import type { KmsV1Service } from '../../kms/kms-service.ts';
import { isKmsCallError } from '../../kms/kms-service.ts';
import type { Transformer } from './transformer.ts';
import type { RandomBytes } from './random-bytes.ts';
import type { PrefixEntry } from './prefix-transformer.ts';
import { concatBytes, prefixEntry } from './prefix-transformer.ts';
import { TransformError, withProvider } from './transform-error.ts';
import { createAesGcmTransformer } from './aesgcm.ts';
import { createAesCbcTransformer } from './aescbc.ts';
import { LruCache } from './lru-cache.ts';

export const KMS_V1_PREFIX = 'k8s:enc:kms:v1:';
const DEK_BYTES = 32;

export interface KmsV1ProviderOptions {
  name: string;
  service: KmsV1Service;
  /** Decrypted DEKs kept; negative disables the cache (default 1000 comes from the configuration). */
  cacheSize: number;
  random: RandomBytes;
}

export interface KmsV1Provider {
  name: string;
  entry: PrefixEntry;
  close(): void;
}

export function createKmsV1Provider(options: KmsV1ProviderOptions): KmsV1Provider {
  return {
    name: options.name,
    entry: prefixEntry(`${KMS_V1_PREFIX}${options.name}:`, createKmsV1Transformer(options)),
    close: () => options.service.close(),
  };
}

export function createKmsV1Transformer({ name, service, cacheSize, random }: KmsV1ProviderOptions): Transformer {
  const label = `kms provider ${JSON.stringify(name)}`;
  const cache = cacheSize > 0 ? new LruCache<string, Transformer>(cacheSize) : undefined;
  const dekTransformer = (dek: Uint8Array): Transformer => unionTransformer([createAesGcmTransformer(dek, random), createAesCbcTransformer(dek, random)]);
  const callFailed = (what: string, error: unknown): TransformError =>
    new TransformError(
      isKmsCallError(error) && error.unavailable ? 'kms-unavailable' : 'kms-failed',
      `${what}: ${error instanceof Error ? error.message : String(error)}`,
      {
        provider: label,
        cause: error,
      },
    );

  return {
    async transformToStorage(data, context) {
      const dek = random(DEK_BYTES);
      let encryptedDek: Uint8Array;
      try {
        encryptedDek = await service.encrypt(dek);
      } catch (error) {
        throw callFailed('failed to encrypt DEK', error);
      }
      if (encryptedDek.length === 0 || encryptedDek.length > 0xffff) {
        throw new TransformError('kms-failed', `the plugin returned an encrypted DEK of ${encryptedDek.length} bytes`, { provider: label });
      }
      const transformer = dekTransformer(dek);
      cache?.set(Buffer.from(encryptedDek).toString('base64'), transformer);
      const body = await transformer.transformToStorage(data, context);
      return concatBytes(Uint8Array.of(encryptedDek.length >>> 8, encryptedDek.length & 0xff), encryptedDek, body);
    },
    async transformFromStorage(data, context) {
      const length = data.length >= 2 ? (data[0]! << 8) | data[1]! : -1;
      if (length < 0 || data.length < 2 + length) {
        throw new TransformError('malformed', 'invalid data encountered by envelope transformer: failed to read uint16 length prefixed data', {
          provider: label,
        });
      }
      const encryptedDek = data.subarray(2, 2 + length);
      const cacheKey = Buffer.from(encryptedDek).toString('base64');
      let transformer = cache?.get(cacheKey);
      if (transformer === undefined) {
        let dek: Uint8Array;
        try {
          dek = await service.decrypt(encryptedDek);
        } catch (error) {
          throw callFailed('failed to decrypt DEK', error);
        }
        if (dek.length !== 16 && dek.length !== 24 && dek.length !== 32)
          throw new TransformError('kms-failed', `crypto/aes: invalid key size ${dek.length}`, { provider: label });
        transformer = dekTransformer(dek);
        cache?.set(cacheKey, transformer);
      }
      try {
        return await transformer.transformFromStorage(data.subarray(2 + length), context);
      } catch (error) {
        throw withProvider(error, label);
      }
    },
  };
}

/**
 * Writes with the first transformer; reads with the first that succeeds (stale unless it is the
 * first). All failing gives every reason, `[e1, e2]`. Note the CBC fallback is unauthenticated:
 * a tampered GCM value of a suitable length opens as CBC about once in 256 tries.
 */
function unionTransformer(transformers: readonly Transformer[]): Transformer {
  return {
    transformToStorage: (data, context) => transformers[0]!.transformToStorage(data, context),
    async transformFromStorage(data, context) {
      const messages: string[] = [];
      for (const [i, transformer] of transformers.entries()) {
        try {
          const result = await transformer.transformFromStorage(data, context);
          return { data: result.data, stale: result.stale || i !== 0 };
        } catch (error) {
          messages.push(error instanceof Error ? error.message : String(error));
        }
      }
      const unique = [...new Set(messages)];
      throw new TransformError('decrypt-failed', unique.length === 1 ? unique[0]! : `[${unique.join(', ')}]`);
    },
  };
}
