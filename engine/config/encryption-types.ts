// The EncryptionConfiguration types after decoding and defaulting (the internal form kube-apiserver
// validates and builds from), and the resource-name grammar its rules use.

export interface EncryptionKey {
  name: string;
  /** Standard base64, as written in the file. */
  secret: string;
}

export interface KmsConfiguration {
  /** `v1` (the default, behind an explicit opt-in) or `v2`. */
  apiVersion: string;
  name: string;
  /** KMS v1 only: decrypted-DEK cache entries; negative disables the cache. Defaults to 1000 for v1. */
  cachesize?: number;
  /** `unix:///path/to/socket` or `unix:///@abstract-name`. */
  endpoint: string;
  /** Per-call deadline; defaults to 3s. */
  timeoutNanoseconds: bigint;
  timeoutMs: number;
}

export interface ProviderConfiguration {
  aesgcm?: { keys: EncryptionKey[] };
  aescbc?: { keys: EncryptionKey[] };
  secretbox?: { keys: EncryptionKey[] };
  identity?: Record<string, never>;
  kms?: KmsConfiguration;
}

export const PROVIDER_KINDS = ['kms', 'aesgcm', 'aescbc', 'secretbox', 'identity'] as const;

export interface ResourceConfiguration {
  resources: string[];
  providers: ProviderConfiguration[];
}

export interface EncryptionConfiguration {
  resources: ResourceConfiguration[];
}

export interface GroupResource {
  group: string;
  resource: string;
}

/** `schema.ParseGroupResource`: split at the first dot; `*.` is the core group's wildcard. */
export function parseGroupResource(text: string): GroupResource {
  const dot = text.indexOf('.');
  return dot < 0 ? { group: '', resource: text } : { group: text.slice(dot + 1), resource: text.slice(0, dot) };
}

/** How kube-apiserver prints a rule in errors: `*.` for the core wildcard, else `resource.group`. */
export function formatGroupResource({ group, resource }: GroupResource): string {
  if (group === '' && resource === '*') return '*.';
  return group === '' ? resource : `${resource}.${group}`;
}

export interface ProviderRef {
  provider: ProviderConfiguration;
  /** Where it was configured, `resources[i].providers[j]`: distinct KMS instances keep distinct paths. */
  path: string;
}

export interface EncryptionRules {
  /**
   * The providers for a stored resource, in read order (the first one writes): the exact
   * `resource.group` rule, else `*.group`, else `*.*`; undefined when no rule matches (stored as
   * plaintext, refusing to read ciphertext).
   */
  providersFor(target: GroupResource | string): readonly ProviderRef[] | undefined;
  /** Every rule key in configuration order, e.g. `["secrets", "*.", "*.*"]`. */
  readonly ruleKeys: readonly string[];
}
