// From a loaded EncryptionConfiguration to one transformer per stored resource, as kube-apiserver
// builds them: each configured provider element becomes one prefix entry (a KMS element one
// plugin connection), each rule's transformer reads through its providers in order and writes
// with the first, and a resource no rule matches is stored as plaintext by the identity
// transformer, which still refuses to return encrypted data as if it were plaintext.
//
// `transformerFor('prioritylevelconfigurations.flowcontrol.apiserver.k8s.io')` is what the store
// asks for each resource it keeps.

import type { Clock } from '../../clock.ts';
import type { EncryptionRules, GroupResource, KmsConfiguration, ProviderConfiguration, ProviderRef } from '../../config/encryption-types.ts';
import type { KmsV1Service, KmsV2Service } from '../../kms/kms-service.ts';
import type { Transformer } from './transformer.ts';
import { ENCRYPTED_VALUE_PREFIX, identityTransformer } from './transformer.ts';
import type { RandomBytes } from './random-bytes.ts';
import { secureRandomBytes } from './random-bytes.ts';
import type { PrefixEntry } from './prefix-transformer.ts';
import { createPrefixTransformer, prefixEntry, startsWith, textBytes } from './prefix-transformer.ts';
import { TransformError, isTransformError } from './transform-error.ts';
import { keyedProviderEntry } from './keyed-provider.ts';
import type { KmsV2Provider } from './kms-v2.ts';
import { startKmsV2Provider } from './kms-v2.ts';
import { createKmsV1Provider } from './kms-v1.ts';
import type { KmsHealth } from './kms-v2-state.ts';

export interface ResourceTransformersDeps {
  clock: Clock;
  /** Default: the OS CSPRNG. Tests pin it to reproduce exact ciphertexts. */
  random?: RandomBytes;
  /** Default: the gRPC client on the provider's unix socket. */
  connectKmsV2?: (kms: KmsConfiguration) => KmsV2Service;
  /** Default: the gRPC v1beta1 client. Only reached when the configuration passed the KMSv1 gate. */
  connectKmsV1?: (kms: KmsConfiguration) => KmsV1Service;
}

export interface KmsProviderHealth {
  name: string;
  /** `resources[i].providers[j]` in the configuration. */
  path: string;
  health: KmsHealth;
}

export interface ResourceTransformers {
  /** `resource.group`, or a parsed group/resource. Always returns a transformer. */
  transformerFor(target: GroupResource | string): Transformer;
  /** Each KMS v2 provider's health (cached answers, as kube-apiserver's health check). */
  health(): Promise<KmsProviderHealth[]>;
  /** Stops KMS polling and closes plugin connections. */
  close(): void;
}

/** Connects KMS providers and waits for their first status probe; a plugin that is down is not an error here. */
export async function createResourceTransformers(loaded: { rules: EncryptionRules }, deps: ResourceTransformersDeps): Promise<ResourceTransformers> {
  const random = deps.random ?? secureRandomBytes;
  const entries = new Map<string, PrefixEntry>();
  const kmsV2: { path: string; provider: KmsV2Provider }[] = [];
  const closers: (() => void)[] = [];
  const chains = new Map<readonly ProviderRef[], Transformer>();

  try {
    for (const key of loaded.rules.ruleKeys) {
      for (const ref of loaded.rules.providersFor(key) ?? []) {
        if (entries.has(ref.path)) continue;
        entries.set(ref.path, await providerEntry(ref, random));
      }
    }
  } catch (error) {
    for (const close of closers) close();
    throw error;
  }

  async function providerEntry({ provider, path }: ProviderRef, random_: RandomBytes): Promise<PrefixEntry> {
    const kind = providerKind(provider);
    if (kind === 'identity') return prefixEntry('', identityTransformer);
    if (kind === 'kms') {
      const kms = provider.kms!;
      if (kms.apiVersion === 'v1') {
        const service =
          deps.connectKmsV1?.(kms) ?? (await grpcClients()).createGrpcKmsV1Client({ endpoint: kms.endpoint, timeoutMs: kms.timeoutMs, clock: deps.clock });
        const v1 = createKmsV1Provider({ name: kms.name, service, cacheSize: kms.cachesize ?? 1000, random: random_ });
        closers.push(v1.close);
        return v1.entry;
      }
      const service =
        deps.connectKmsV2?.(kms) ?? (await grpcClients()).createGrpcKmsV2Client({ endpoint: kms.endpoint, timeoutMs: kms.timeoutMs, clock: deps.clock });
      const v2 = await startKmsV2Provider({ name: kms.name, service, clock: deps.clock, random: random_ });
      closers.push(v2.close);
      kmsV2.push({ path, provider: v2 });
      return v2.entry;
    }
    return keyedProviderEntry(kind, provider[kind]!.keys, random_);
  }

  return {
    transformerFor(target) {
      const refs = loaded.rules.providersFor(target);
      if (refs === undefined) return plaintextOnly;
      let chain = chains.get(refs);
      if (chain === undefined) {
        chain = createPrefixTransformer(
          refs.map((ref) => entries.get(ref.path)!),
          () => new TransformError('no-matching-prefix', 'no matching prefix found'),
        );
        chains.set(refs, withStoredPrefixHint(chain));
        chain = chains.get(refs)!;
      }
      return chain;
    },
    async health() {
      return Promise.all(kmsV2.map(async ({ path, provider }) => ({ name: provider.name, path, health: await provider.health() })));
    },
    close() {
      for (const close of closers) close();
      closers.length = 0;
    },
  };
}

/**
 * One transformer for a whole store, routing each storage key to its resource's transformer. Keys
 * are `/registry/<group>/<resource>/...` (core group: `/registry/<resource>/...`, the layout of
 * engine/store's `resourcePrefix`); `resources` lists what the store keeps, so a group without a
 * dot is not mistaken for a core resource.
 */
export function routeByStorageKey(transformers: Pick<ResourceTransformers, 'transformerFor'>, resources: readonly GroupResource[]): Transformer {
  const known = resources.map((gr) => ({ prefix: gr.group === '' ? `/registry/${gr.resource}/` : `/registry/${gr.group}/${gr.resource}/`, gr }));
  const resolve = (key: string): Transformer => {
    const match = known.find((k) => key.startsWith(k.prefix));
    if (match !== undefined) return transformers.transformerFor(match.gr);
    const [first = '', second = ''] = key.replace(/^\/registry\//, '').split('/');
    return transformers.transformerFor(first.includes('.') ? { group: first, resource: second } : { group: '', resource: first });
  };
  return {
    transformToStorage: (data, context) => resolve(context.key).transformToStorage(data, context),
    transformFromStorage: (data, context) => resolve(context.key).transformFromStorage(data, context),
  };
}

/** gRPC is loaded only when a configuration uses KMS without a connector of its own. */
const grpcClients = () => import('../../kms/grpc-kms-client.ts');

function providerKind(provider: ProviderConfiguration): 'identity' | 'kms' | 'aesgcm' | 'aescbc' | 'secretbox' {
  if (provider.kms !== undefined) return 'kms';
  if (provider.aesgcm !== undefined) return 'aesgcm';
  if (provider.aescbc !== undefined) return 'aescbc';
  if (provider.secretbox !== undefined) return 'secretbox';
  return 'identity';
}

/**
 * For resources no rule covers: stored as plaintext, and a value carrying an encryption prefix is
 * refused (an error saying which prefix) rather than handed back as if it were plaintext.
 */
const plaintextOnly: Transformer = {
  transformToStorage: (data, context) => identityTransformer.transformToStorage(data, context),
  async transformFromStorage(data, context) {
    try {
      return await identityTransformer.transformFromStorage(data, context);
    } catch (error) {
      const message =
        `identity transformer tried to read encrypted data (the stored value starts with ${JSON.stringify(storedPrefix(data))}; no encryption rule ` +
        'covers this resource)';
      throw new TransformError('encrypted-data', message, { cause: error });
    }
  },
};

/** The provider prefix of an encrypted value, `k8s:enc:<kind>:<version>:<key or plugin>:`. */
function storedPrefix(data: Uint8Array): string {
  return `${new TextDecoder().decode(data.subarray(0, 96)).split(':').slice(0, 5).join(':')}:`;
}

/** `no matching prefix/key found` gains the stored value's provider prefix, which says what to configure. */
function withStoredPrefixHint(transformer: Transformer): Transformer {
  const encrypted = textBytes(ENCRYPTED_VALUE_PREFIX);
  return {
    transformToStorage: (data, context) => transformer.transformToStorage(data, context),
    async transformFromStorage(data, context) {
      try {
        return await transformer.transformFromStorage(data, context);
      } catch (error) {
        if (isTransformError(error) && error.reason === 'no-matching-prefix' && startsWith(data, encrypted)) {
          // A provider that knows the prefix but not the key (`aescbc: no matching key ...`) gets the key name too.
          const label = error.provider === undefined ? '' : `${error.provider}: `;
          const message = `${error.message.slice(label.length)} (the stored value starts with ${JSON.stringify(storedPrefix(data))})`;
          throw new TransformError('no-matching-prefix', message, { cause: error, provider: error.provider });
        }
        throw error;
      }
    },
  };
}
