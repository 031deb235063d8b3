// KMS v2 envelope encryption: `k8s:enc:kms:v2:<name>:` + protobuf EncryptedObject
// (encrypted-object.ts). The plugin only ever sees a 32-byte seed (kms-v2-state.ts); the data is
// encrypted locally with a key derived per write (xnonce-gcm.ts). Reading calls the plugin's
// Decrypt once per distinct wrapped seed, then serves from a cache kept for 24 hours.
//
// A value is stale when it was written under another key ID (or another DEK mode) than the
// current one, so a plugin key rotation makes the store re-encrypt objects as they are updated.
// Failures name the provider: `kms provider "vault": failed to decrypt DEK, error: rpc error: ...`.

import type { Clock } from '../../clock.ts';
import type { KmsV2Service } from '../../kms/kms-service.ts';
import { isKmsCallError } from '../../kms/kms-service.ts';
import type { Transformer } from './transformer.ts';
import type { RandomBytes } from './random-bytes.ts';
import { randomUuid } from './random-bytes.ts';
import type { PrefixEntry } from './prefix-transformer.ts';
import { prefixEntry } from './prefix-transformer.ts';
import { TransformError, withProvider } from './transform-error.ts';
import type { EncryptedObject } from './encrypted-object.ts';
import { DEK_SOURCE_HKDF_SHA256_XNONCE_AES_GCM_SEED, decodeEncryptedObject, encodeEncryptedObject } from './encrypted-object.ts';
import type { KmsHealth, KmsV2KeyState } from './kms-v2-state.ts';
import { createKmsV2KeyState, decryptCacheKey, expiryMessage } from './kms-v2-state.ts';
import { createAesGcmKeyReader, createXnonceGcmTransformer } from './xnonce-gcm.ts';

export const KMS_V2_PREFIX = 'k8s:enc:kms:v2:';
export const DECRYPT_CACHE_TTL_MS = 24 * 60 * 60_000;

export interface KmsV2ProviderOptions {
  /** The provider name from the configuration; part of the stored prefix. */
  name: string;
  service: KmsV2Service;
  clock: Clock;
  random: RandomBytes;
}

export interface KmsV2Provider {
  name: string;
  /** `k8s:enc:kms:v2:<name>:` over the envelope transformer. */
  entry: PrefixEntry;
  keyState: KmsV2KeyState;
  health(): Promise<KmsHealth>;
  /** Stops polling and closes the plugin connection. */
  close(): void;
}

/** Builds the provider and waits for its first status probe (a failed probe is not an error). */
export async function startKmsV2Provider(options: KmsV2ProviderOptions): Promise<KmsV2Provider> {
  const keyState = createKmsV2KeyState(options.name, options.service, options.clock, options.random);
  await keyState.start();
  const transformer = createKmsV2Transformer(options, keyState);
  return {
    name: options.name,
    entry: prefixEntry(`${KMS_V2_PREFIX}${options.name}:`, transformer),
    keyState,
    health: () => keyState.health(),
    close() {
      keyState.stop();
      options.service.close();
    },
  };
}

export function createKmsV2Transformer(options: KmsV2ProviderOptions, keyState: KmsV2KeyState): Transformer {
  const { clock, random, service } = options;
  const label = `kms provider ${JSON.stringify(options.name)}`;
  const cache = new Map<string, { transformer: Transformer; expiresAtMs: number }>();
  let sweptAtMs = clock.now();

  const remember = (key: string, transformer: Transformer): void => {
    const nowMs = clock.now();
    // Seeds rotate rarely, so an hourly sweep of expired entries keeps the cache small enough.
    if (nowMs - sweptAtMs > 60 * 60_000) {
      sweptAtMs = nowMs;
      for (const [k, v] of cache) if (v.expiresAtMs <= nowMs) cache.delete(k);
    }
    cache.set(key, { transformer, expiresAtMs: nowMs + DECRYPT_CACHE_TTL_MS });
  };

  const requireState = () => {
    const state = keyState.current();
    if (state === undefined) {
      const why = keyState.lastError();
      throw new TransformError('kms-not-ready', `got unexpected nil transformer: no DEK seed from the plugin yet${why === undefined ? '' : ` (${why})`}`, {
        provider: label,
      });
    }
    return state;
  };

  // Concurrent reads of values under one seed (a LIST after a restart) share one Decrypt call.
  const decrypting = new Map<string, Promise<Transformer>>();
  const readerFor = (envelope: EncryptedObject): Promise<Transformer> => {
    const key = decryptCacheKey(envelope);
    const cached = cache.get(key);
    if (cached !== undefined && cached.expiresAtMs > clock.now()) return Promise.resolve(cached.transformer);
    let pending = decrypting.get(key);
    if (pending === undefined) {
      pending = decryptSeed(key, envelope).finally(() => decrypting.delete(key));
      decrypting.set(key, pending);
    }
    return pending;
  };

  const decryptSeed = async (key: string, envelope: EncryptedObject): Promise<Transformer> => {
    let plaintext: Uint8Array;
    try {
      plaintext = await service.decrypt(randomUuid(random), {
        ciphertext: envelope.encryptedDekSource,
        keyId: envelope.keyId,
        annotations: envelope.annotations,
      });
    } catch (error) {
      const reason = isKmsCallError(error) && error.unavailable ? 'kms-unavailable' : 'kms-failed';
      throw new TransformError(reason, `failed to decrypt DEK, error: ${error instanceof Error ? error.message : String(error)}`, {
        provider: label,
        cause: error,
      });
    }
    const reader =
      envelope.encryptedDekSourceType === DEK_SOURCE_HKDF_SHA256_XNONCE_AES_GCM_SEED
        ? createXnonceGcmTransformer(plaintext, random)
        : createAesGcmKeyReader(plaintext);
    remember(key, reader);
    return reader;
  };

  return {
    async transformToStorage(data, context) {
      const state = requireState();
      const nowMs = clock.now();
      if (nowMs > state.expiresAtMs) throw new TransformError('kms-not-ready', expiryMessage(state, nowMs), { provider: label });
      remember(state.cacheKey, state.transformer);
      try {
        const encryptedData = await state.transformer.transformToStorage(data, context);
        return encodeEncryptedObject({ ...state.template, encryptedData });
      } catch (error) {
        throw withProvider(error, label);
      }
    },
    async transformFromStorage(data, context) {
      let envelope: EncryptedObject;
      try {
        envelope = decodeEncryptedObject(data);
      } catch (error) {
        throw new TransformError('malformed', `invalid EncryptedObject: ${error instanceof Error ? error.message : String(error)}`, { provider: label });
      }
      const state = requireState();
      const reader = await readerFor(envelope);
      let result;
      try {
        result = await reader.transformFromStorage(envelope.encryptedData, context);
      } catch (error) {
        throw withProvider(error, label);
      }
      const stale = result.stale || envelope.keyId !== state.template.keyId || envelope.encryptedDekSourceType !== state.template.encryptedDekSourceType;
      return { data: result.data, stale };
    },
  };
}
