// The key-list providers (aescbc, aesgcm, secretbox) as prefix entries: an outer
// `k8s:enc:<kind>:v1:` entry over one `<name>:` entry per key. The first key writes; every key
// reads; a value under any key but the first reads as stale. Errors name the provider and key.

import type { EncryptionKey } from '../../config/encryption-types.ts';
import { decodeStdBase64 } from '../../config/encryption-validation.ts';
import type { Transformer } from './transformer.ts';
import type { RandomBytes } from './random-bytes.ts';
import type { PrefixEntry } from './prefix-transformer.ts';
import { createPrefixTransformer, prefixEntry } from './prefix-transformer.ts';
import { TransformError, withProvider } from './transform-error.ts';
import { AESCBC_PREFIX, createAesCbcTransformer } from './aescbc.ts';
import { AESGCM_PREFIX, createAesGcmTransformer } from './aesgcm.ts';
import { SECRETBOX_PREFIX, createSecretboxTransformer } from './secretbox.ts';

export type KeyedProviderKind = 'aescbc' | 'aesgcm' | 'secretbox';

const KINDS: Record<KeyedProviderKind, { prefix: string; create: (key: Uint8Array, random: RandomBytes) => Transformer; noMatch: string }> = {
  aescbc: { prefix: AESCBC_PREFIX, create: createAesCbcTransformer, noMatch: 'no matching key was found for the provided AES transformer' },
  aesgcm: { prefix: AESGCM_PREFIX, create: createAesGcmTransformer, noMatch: 'no matching key was found for the provided AES transformer' },
  secretbox: { prefix: SECRETBOX_PREFIX, create: createSecretboxTransformer, noMatch: 'no matching key was found for the provided Secretbox transformer' },
};

/** Keys come from a validated configuration: names set, secrets base64 of a valid length. */
export function keyedProviderEntry(kind: KeyedProviderKind, keys: readonly EncryptionKey[], random: RandomBytes): PrefixEntry {
  const { prefix, create, noMatch } = KINDS[kind];
  const entries = keys.map((key) => {
    const secret = decodeStdBase64(key.secret);
    if (secret === undefined) throw new Error(`${kind} key ${JSON.stringify(key.name)}: secret is not base64 (configuration not validated?)`);
    return prefixEntry(`${key.name}:`, labelErrors(create(secret, random), `${kind} key ${JSON.stringify(key.name)}`));
  });
  return prefixEntry(
    prefix,
    createPrefixTransformer(entries, () => new TransformError('no-matching-prefix', noMatch, { provider: kind })),
  );
}

/** Every failure of `transformer` carries `label` (the provider and key) in its message. */
export function labelErrors(transformer: Transformer, label: string): Transformer {
  return {
    async transformToStorage(data, context) {
      try {
        return await transformer.transformToStorage(data, context);
      } catch (error) {
        throw withProvider(error, label);
      }
    },
    async transformFromStorage(data, context) {
      try {
        return await transformer.transformFromStorage(data, context);
      } catch (error) {
        throw withProvider(error, label);
      }
    },
  };
}
