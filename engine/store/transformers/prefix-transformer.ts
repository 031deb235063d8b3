// Choosing a provider by the stored prefix, as kube-apiserver's prefix transformers do. A list of
// (prefix, transformer) pairs is itself a transformer:
//   write: the FIRST entry encrypts, and its prefix is prepended;
//   read:  entries are tried in order; the first whose prefix the value starts with decrypts it
//          (the prefix stripped). A failure is remembered and the next matching entry is tried;
//          an empty-prefix entry (identity) that fails is skipped silently. A value read through
//          any entry but the first is `stale`: the store re-encrypts it on the next update.
// Providers nest: `k8s:enc:aescbc:v1:` holds one entry per key (`key1:`, `key2:`), so the stored
// value is `k8s:enc:aescbc:v1:key1:<ciphertext>` and a value under an older key reads as stale.

import type { Transformer, TransformerContext, TransformFromStorageResult } from './transformer.ts';
import { TransformError, isTransformError } from './transform-error.ts';

export interface PrefixEntry {
  prefix: Uint8Array;
  transformer: Transformer;
}

export const textBytes = (text: string): Uint8Array => new TextEncoder().encode(text);

export function prefixEntry(prefix: string, transformer: Transformer): PrefixEntry {
  return { prefix: textBytes(prefix), transformer };
}

/**
 * `noMatch` is the error when no entry's prefix matches (kube-apiserver: `no matching prefix found`
 * for a resource, `no matching key was found for the provided AES transformer` inside a provider).
 */
export function createPrefixTransformer(entries: readonly PrefixEntry[], noMatch: () => TransformError): Transformer {
  const writer = entries[0];
  if (writer === undefined) throw new Error('createPrefixTransformer needs at least one entry');
  return {
    async transformToStorage(data, context) {
      const encrypted = await writer.transformer.transformToStorage(data, context);
      return concatBytes(writer.prefix, encrypted);
    },
    async transformFromStorage(data, context) {
      const errors: unknown[] = [];
      for (const [i, entry] of entries.entries()) {
        if (!startsWith(data, entry.prefix)) continue;
        let result: TransformFromStorageResult;
        try {
          result = await entry.transformer.transformFromStorage(data.subarray(entry.prefix.length), context);
        } catch (error) {
          // Identity refuses encrypted data; that must not hide a later provider that can read it.
          if (entry.prefix.length > 0) errors.push(error);
          continue;
        }
        return { data: result.data, stale: result.stale || i !== 0 };
      }
      throw reduceErrors(errors) ?? noMatch();
    },
  };
}

/** One error as itself; several as Go's aggregate `[e1, e2]`, each kept as a cause. */
function reduceErrors(errors: unknown[]): Error | undefined {
  if (errors.length === 0) return undefined;
  if (errors.length === 1) return errors[0] instanceof Error ? errors[0] : new Error(String(errors[0]));
  const messages = [...new Set(errors.map((e) => (e instanceof Error ? e.message : String(e))))];
  const reasons = new Set(errors.map((e) => (isTransformError(e) ? e.reason : 'decrypt-failed')));
  const reason = reasons.size === 1 ? [...reasons][0]! : 'decrypt-failed';
  return new TransformError(reason, messages.length === 1 ? messages[0]! : `[${messages.join(', ')}]`, { cause: new AggregateError(errors) });
}

export function startsWith(data: Uint8Array, prefix: Uint8Array): boolean {
  if (data.length < prefix.length) return false;
  for (let i = 0; i < prefix.length; i++) if (data[i] !== prefix[i]) return false;
  return true;
}

export function concatBytes(...parts: readonly Uint8Array[]): Uint8Array {
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let offset = 0;
  for (const part of parts) {
    out.set(part, offset);
    offset += part.length;
  }
  return out;
}

/** The AAD every authenticated provider binds: the storage key's bytes. */
export function authenticatedData(context: TransformerContext): Uint8Array {
  return textBytes(context.key);
}
