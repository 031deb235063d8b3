// `--encryption-provider-config`: the EncryptionConfiguration file that says which resources are
// encrypted at rest, and with which providers. Loading follows kube-apiserver step by step, with
// its error texts: read, refuse an empty file, decode strictly (unknown fields are errors), default
// the KMS fields, validate (encryption-validation.ts), then the checks kube-apiserver makes while
// building transformers (KMS v1 gate, rules masked by an earlier wildcard).
//
// Every failure is a value naming the file; `formatEncryptionConfigError` gives the one line to
// print. The result also carries the resolved rules: which providers, in order, serve a resource.

import { createHash } from 'node:crypto';
import { readConfigFile } from './config-file.ts';
import type { FieldError } from '../resources/field-errors.ts';
import { FieldPath, formatFieldError, formatFieldErrors, invalid } from '../resources/field-errors.ts';
import { apiGroupsFor } from '../resources/api-domain.ts';
import { parseManifests } from './manifests.ts';
import { arrayOf, decodeShape, int32, string, struct } from '../resources/schema-decoder.ts';
import { goDurationToMs, parseGoDuration } from '../go-duration.ts';
import { validateEncryptionConfiguration } from './encryption-validation.ts';
import type { EncryptionConfiguration, EncryptionRules, GroupResource, ProviderConfiguration, ProviderRef } from './encryption-types.ts';
import { formatGroupResource, parseGroupResource } from './encryption-types.ts';
import { append } from '../append.ts';

export type * from './encryption-types.ts';
export { formatGroupResource, parseGroupResource, PROVIDER_KINDS } from './encryption-types.ts';

export const ENCRYPTION_CONFIG_KIND = 'EncryptionConfiguration';
/** `apiVersion: v1` + `kind: EncryptionConfig` still loads: an old docs example used it. */
export const LEGACY_ENCRYPTION_CONFIG = { apiVersion: 'v1', kind: 'EncryptionConfig' } as const;

export const KMS_DEFAULT_TIMEOUT_NANOSECONDS = 3_000_000_000n;
export const KMS_DEFAULT_CACHE_SIZE = 1000;
export const KMS_DEFAULT_API_VERSION = 'v1';

export interface EncryptionConfigOptions {
  /** Names the accepted apiVersion `apiserver.config.<apiDomain>/v1`; default `k8s.io`. */
  apiDomain?: string | undefined;
  /** Automatic reload is on (KMS v1 names must be unique too). */
  reload?: boolean;
  /** `--feature-gates=KMSv1=true`: without it a v1 `kms` provider is refused. */
  kmsV1Enabled?: boolean;
}

export type EncryptionConfigStage = 'read' | 'empty' | 'decode' | 'validate' | 'build';

export interface EncryptionConfigError {
  file: string;
  stage: EncryptionConfigStage;
  /** kube-apiserver's text, wrappers included (`error while parsing file: ...`). */
  message: string;
  /** The individual findings with their field paths (decode, validate and build stages). */
  fieldErrors: FieldError[];
}

export interface LoadedEncryptionConfig {
  file: string;
  config: EncryptionConfiguration;
  /** `sha256:<hex>` of the file's bytes: what automatic reload compares. */
  contentHash: string;
  rules: EncryptionRules;
}

export type EncryptionConfigResult = { ok: true; value: LoadedEncryptionConfig } | { ok: false; error: EncryptionConfigError };

/** `FILE: message`, one line. */
export function formatEncryptionConfigError(error: EncryptionConfigError): string {
  return `${error.file}: ${error.message}`;
}

export async function loadEncryptionConfig(file: string, options: EncryptionConfigOptions = {}): Promise<EncryptionConfigResult> {
  let bytes: Uint8Array;
  try {
    bytes = await readConfigFile(file);
  } catch (error) {
    const why = error instanceof Error ? error.message : String(error);
    return failure(file, 'read', `error while parsing file: error opening encryption provider configuration file ${JSON.stringify(file)}: ${why}`);
  }
  return parseEncryptionConfig(bytes, file, options);
}

/** Everything `loadEncryptionConfig` does after reading the bytes. */
export function parseEncryptionConfig(bytes: Uint8Array, file: string, options: EncryptionConfigOptions = {}): EncryptionConfigResult {
  const parsing = 'error while parsing file: ';
  if (bytes.length === 0) return failure(file, 'empty', `${parsing}encryption provider configuration file ${JSON.stringify(file)} is empty`);
  const decoded = decodeEncryptionConfig(new TextDecoder().decode(bytes), file, options);
  if ('error' in decoded) {
    return failure(
      file,
      'decode',
      `${parsing}error decoding encryption provider configuration file ${JSON.stringify(file)}: ${decoded.error}`,
      decoded.fieldErrors,
    );
  }
  const fieldErrors = validateEncryptionConfiguration(decoded.config, options);
  if (fieldErrors.length > 0) return failure(file, 'validate', `${parsing}${formatFieldErrors(fieldErrors)}`, fieldErrors);
  const built = buildEncryptionRules(decoded.config, options);
  if ('error' in built) return failure(file, 'build', `error while building transformers: ${built.error.detail}`, [built.error]);
  const contentHash = `sha256:${createHash('sha256').update(bytes).digest('hex')}`;
  return { ok: true, value: { file, config: decoded.config, contentHash, rules: built.rules } };
}

function failure(file: string, stage: EncryptionConfigStage, message: string, fieldErrors: FieldError[] = []): EncryptionConfigResult {
  return { ok: false, error: { file, stage, message, fieldErrors } };
}

// ---------------------------------------------------------------------------------------------
// Decoding and defaulting

const KEYS = struct({ keys: arrayOf(struct({ name: string, secret: string })) });
const PROVIDER_SHAPE = struct({
  aesgcm: KEYS,
  aescbc: KEYS,
  secretbox: KEYS,
  identity: struct({}),
  kms: struct({ apiVersion: string, name: string, cachesize: int32, endpoint: string, timeout: string }),
});
const CONFIG_SHAPE = struct({
  apiVersion: string,
  kind: string,
  resources: arrayOf(struct({ resources: arrayOf(string), providers: arrayOf(PROVIDER_SHAPE) })),
});

type Decoded = { config: EncryptionConfiguration } | { error: string; fieldErrors: FieldError[] };

/** Text to a defaulted configuration; like kube-apiserver, only the first YAML document counts. */
function decodeEncryptionConfig(text: string, file: string, options: EncryptionConfigOptions): Decoded {
  const manifest = parseManifests(text, file);
  const first = manifest.documents[0];
  const parseError = manifest.errors[0];
  if (first === undefined || (parseError !== undefined && (parseError.index ?? 0) === 0)) {
    return { error: parseError === undefined ? "Object 'Kind' is missing" : parseError.message, fieldErrors: [] };
  }
  return decodeEncryptionObject(first.object, options);
}

/** One parsed document (apiVersion and kind included) to a defaulted configuration. */
export function decodeEncryptionObject(object: Record<string, unknown>, options: EncryptionConfigOptions = {}): Decoded {
  const { apiVersion, kind } = object;
  if (typeof kind !== 'string' || kind === '') return { error: "Object 'Kind' is missing", fieldErrors: [] };
  if (typeof apiVersion !== 'string' || apiVersion === '') return { error: "Object 'apiVersion' is missing", fieldErrors: [] };
  if (!isEncryptionConfigKind(apiVersion, kind, options.apiDomain)) {
    return { error: `no kind ${JSON.stringify(kind)} is registered for version ${JSON.stringify(apiVersion)}`, fieldErrors: [] };
  }
  const decoded = decodeShape(object, CONFIG_SHAPE);
  const value = decoded.value;
  const errors = decoded.errors.map(withoutKeyMaterial);
  if (errors.length > 0) {
    const unknown = errors.filter((e) => e.type === 'FieldValueForbidden');
    const typed = errors.filter((e) => e.type !== 'FieldValueForbidden');
    // Go's decoder stops at the first type mismatch; unknown fields are collected and reported together.
    const message =
      typed.length > 0 ? formatFieldError(typed[0]!) : `strict decoding error: ${unknown.map((e) => `unknown field ${JSON.stringify(e.field)}`).join(', ')}`;
    return { error: message, fieldErrors: errors };
  }
  const raw = value as { resources?: { resources?: string[]; providers?: Record<string, unknown>[] }[] };
  const timeoutErrors: FieldError[] = [];
  const config: EncryptionConfiguration = {
    resources: (raw.resources ?? []).map((entry, i) => ({
      resources: entry.resources ?? [],
      providers: (entry.providers ?? []).map((provider, j) =>
        defaultProvider(provider, FieldPath.root('resources').index(i).child('providers').index(j), timeoutErrors),
      ),
    })),
  };
  if (timeoutErrors.length > 0) return { error: timeoutErrors[0]!.detail, fieldErrors: timeoutErrors };
  return { config };
}

/**
 * Paths whose values hold no key material: the resource names and the KMS settings. Any other value
 * of the document can be, or contain, a key in whatever shape it was written (a `secret:` given as a
 * map, a `keys:` given as a string, a whole provider list given as a map).
 */
const NO_KEY_MATERIAL = /^(?:apiVersion|kind|resources\[\d+\]\.resources(?:\[\d+\])?|resources\[\d+\]\.providers\[\d+\]\.kms(?:\..+)?)$/;

/** A decoding error that never prints a value that may be key material: its type stands for it. */
function withoutKeyMaterial(error: FieldError): FieldError {
  if (error.value === undefined || NO_KEY_MATERIAL.test(error.field)) return error;
  const found = Array.isArray(error.value) ? 'list' : error.value === null ? 'null' : typeof error.value === 'object' ? 'map' : typeof error.value;
  return { ...error, value: 'REDACTED', detail: `${error.detail}, not a ${found}` };
}

export function isEncryptionConfigKind(apiVersion: string, kind: string, apiDomain?: string): boolean {
  if (apiVersion === `${apiGroupsFor(apiDomain).apiserverConfig}/v1` && kind === ENCRYPTION_CONFIG_KIND) return true;
  return apiVersion === LEGACY_ENCRYPTION_CONFIG.apiVersion && kind === LEGACY_ENCRYPTION_CONFIG.kind;
}

function defaultProvider(raw: Record<string, unknown>, path: FieldPath, errors: FieldError[]): ProviderConfiguration {
  const provider: ProviderConfiguration = {};
  for (const kind of ['aesgcm', 'aescbc', 'secretbox'] as const) {
    const value = raw[kind] as { keys?: { name?: string; secret?: string }[] } | undefined;
    if (value !== undefined) provider[kind] = { keys: (value.keys ?? []).map((k) => ({ name: k.name ?? '', secret: k.secret ?? '' })) };
  }
  if (raw.identity !== undefined) provider.identity = {};
  const kms = raw.kms as { apiVersion?: string; name?: string; cachesize?: number; endpoint?: string; timeout?: string } | undefined;
  if (kms !== undefined) {
    // metav1.Duration decodes with time.ParseDuration: a bad duration fails decoding, not validation.
    let timeoutNanoseconds = KMS_DEFAULT_TIMEOUT_NANOSECONDS;
    if (kms.timeout !== undefined) {
      const parsed = parseGoDuration(kms.timeout);
      if (parsed.ok) timeoutNanoseconds = parsed.nanoseconds;
      else errors.push(invalid(path.child('kms').child('timeout'), kms.timeout, parsed.error));
    }
    const apiVersion = kms.apiVersion === undefined || kms.apiVersion === '' ? KMS_DEFAULT_API_VERSION : kms.apiVersion;
    provider.kms = {
      apiVersion,
      name: kms.name ?? '',
      endpoint: kms.endpoint ?? '',
      timeoutNanoseconds,
      timeoutMs: goDurationToMs(timeoutNanoseconds),
      ...(kms.cachesize !== undefined ? { cachesize: kms.cachesize } : apiVersion === 'v1' ? { cachesize: KMS_DEFAULT_CACHE_SIZE } : {}),
    };
  }
  return provider;
}

// ---------------------------------------------------------------------------------------------
// Rules: resource → providers

type BuiltRules = { rules: EncryptionRules } | { error: FieldError };

/**
 * The checks kube-apiserver makes while building transformers, in its order: entry by entry, its
 * providers (KMS v1 gate), then its resources (masked by an earlier `*.group` or `*.*`). The same
 * exact resource in two entries is allowed: its provider lists are concatenated.
 */
export function buildEncryptionRules(config: EncryptionConfiguration, options: EncryptionConfigOptions = {}): BuiltRules {
  const byKey = new Map<string, ProviderRef[]>();
  const keyOf = (gr: GroupResource): string => `${gr.group}\u0000${gr.resource}`;
  const order: string[] = [];
  for (const [i, entry] of config.resources.entries()) {
    const entryPath = FieldPath.root('resources').index(i);
    const refs: ProviderRef[] = [];
    for (const [j, provider] of entry.providers.entries()) {
      const path = entryPath.child('providers').index(j);
      if (provider.kms?.apiVersion === 'v1' && options.kmsV1Enabled !== true) {
        return {
          error: invalid(
            path.child('kms').child('apiVersion'),
            'v1',
            'KMSv1 is deprecated and will only receive security updates going forward. Use KMSv2 instead.  Set --feature-gates=KMSv1=true to use the ' +
              'deprecated KMSv1 feature.',
          ),
        };
      }
      refs.push({ provider, path: path.toString() });
    }
    for (const [k, text] of entry.resources.entries()) {
      const gr = parseGroupResource(text);
      for (const masking of [
        { group: gr.group, resource: '*' },
        { group: '*', resource: '*' },
      ]) {
        if (byKey.has(keyOf(masking))) {
          const detail = `resource ${JSON.stringify(formatGroupResource(gr))} is masked by earlier rule ${JSON.stringify(formatGroupResource(masking))}`;
          return { error: invalid(entryPath.child('resources').index(k), text, detail) };
        }
      }
      const existing = byKey.get(keyOf(gr));
      if (existing === undefined) {
        byKey.set(keyOf(gr), [...refs]);
        order.push(formatGroupResource(gr));
      } else append(existing, refs);
    }
  }
  const rules: EncryptionRules = {
    ruleKeys: order,
    providersFor(target) {
      const gr = typeof target === 'string' ? parseGroupResource(target) : target;
      return byKey.get(keyOf(gr)) ?? byKey.get(keyOf({ group: gr.group, resource: '*' })) ?? byKey.get(keyOf({ group: '*', resource: '*' }));
    },
  };
  return { rules };
}
