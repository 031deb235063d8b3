// `--authorization-config`: the AuthorizationConfiguration file (apiserver.config.k8s.io v1, and the
// v1beta1/v1alpha1 spellings that still load). Loading follows kube-apiserver: read, decode
// strictly (unknown fields are errors, durations parse as Go durations), default the webhook
// block (TTLs 5m / 30s, both cache flags true), validate (authorization-validation.ts, which also
// compiles the CEL matchConditions), then the kube-apiserver-only checks. Every failure is a value
// naming the file with field errors; the result keeps the compiled match conditions for building.
import { createHash } from 'node:crypto';
import type { FieldError } from '../resources/field-errors.ts';
import { FieldPath, formatFieldError, formatFieldErrors, invalid } from '../resources/field-errors.ts';
import { apiGroupsFor } from '../resources/api-domain.ts';
import type { MatchConditions } from './cel-match-conditions.ts';
import { parseManifests } from '../config/manifests.ts';
import { arrayOf, boolean, decodeShape, string, struct } from '../resources/schema-decoder.ts';
import { parseGoDuration } from '../go-duration.ts';
import { validateAuthorizationConfiguration, type AuthorizationValidationOptions } from './authorization-validation.ts';
import type { AuthorizationConfiguration, AuthorizerConfiguration, WebhookConfiguration, WebhookConnectionInfo } from './authorization-types.ts';

export const AUTHORIZATION_CONFIG_KIND = 'AuthorizationConfiguration';
export const DEFAULT_AUTHORIZED_TTL_NANOSECONDS = 300_000_000_000n;
export const DEFAULT_UNAUTHORIZED_TTL_NANOSECONDS = 30_000_000_000n;

export interface LoadedAuthorizationConfig {
  file: string;
  config: AuthorizationConfiguration;
  /** `sha256:<hex>` of the file's bytes. */
  contentHash: string;
  /** Compiled matchConditions by authorizer index (webhooks with conditions only). */
  matchConditions: ReadonlyMap<number, MatchConditions>;
}

export interface AuthorizationConfigError {
  file: string;
  /** kube-apiserver's text, e.g. `failed to load AuthorizationConfiguration from file: ...`. */
  message: string;
  fieldErrors: FieldError[];
}

export type AuthorizationConfigResult = { ok: true; value: LoadedAuthorizationConfig } | { ok: false; error: AuthorizationConfigError };

export interface AuthorizationConfigOptions extends AuthorizationValidationOptions {
  /** Names the accepted apiVersions `apiserver.config.<apiDomain>/...`; default `k8s.io`. */
  apiDomain?: string | undefined;
}

/** `FILE: message`. */
export function formatAuthorizationConfigError(error: AuthorizationConfigError): string {
  return `${error.file}: ${error.message}`;
}

export function parseAuthorizationConfig(bytes: Uint8Array, file: string, options: AuthorizationConfigOptions = {}): AuthorizationConfigResult {
  const contentHash = `sha256:${createHash('sha256').update(bytes).digest('hex')}`;
  let object: Record<string, unknown>;
  if (bytes.length === 0) {
    object = { apiVersion: `${apiGroupsFor(options.apiDomain).apiserverConfig}/v1`, kind: AUTHORIZATION_CONFIG_KIND };
  } else {
    const manifest = parseManifests(new TextDecoder().decode(bytes), file);
    const first = manifest.documents[0];
    const parseError = manifest.errors[0];
    if (first === undefined || (parseError !== undefined && (parseError.index ?? 0) === 0)) {
      return failure(file, `failed to load AuthorizationConfiguration from file: ${parseError?.message ?? "Object 'Kind' is missing"}`);
    }
    object = first.object;
  }
  const decoded = decodeAuthorizationObject(object, options.apiDomain);
  if ('error' in decoded) return failure(file, `failed to load AuthorizationConfiguration from file: ${decoded.error}`, decoded.fieldErrors);
  const validated = validateAuthorizationConfiguration(decoded.config, options);
  if (validated.errors.length > 0) return failure(file, formatFieldErrors(validated.errors), validated.errors);
  return { ok: true, value: { file, config: decoded.config, contentHash, matchConditions: validated.matchConditions } };
}

function failure(file: string, message: string, fieldErrors: FieldError[] = []): AuthorizationConfigResult {
  return { ok: false, error: { file, message, fieldErrors } };
}

// ---------------------------------------------------------------------------------------------
// Decoding and defaulting

const WEBHOOK_SHAPE = struct({
  authorizedTTL: string,
  cacheAuthorizedRequests: boolean,
  unauthorizedTTL: string,
  cacheUnauthorizedRequests: boolean,
  timeout: string,
  subjectAccessReviewVersion: string,
  matchConditionSubjectAccessReviewVersion: string,
  failurePolicy: string,
  connectionInfo: struct({ type: string, kubeConfigFile: string }),
  matchConditions: arrayOf(struct({ expression: string })),
});

const CONFIG_SHAPE = struct({
  apiVersion: string,
  kind: string,
  authorizers: arrayOf(struct({ type: string, name: string, webhook: WEBHOOK_SHAPE })),
});

type Decoded = { config: AuthorizationConfiguration } | { error: string; fieldErrors: FieldError[] };

export function isAuthorizationConfigKind(apiVersion: unknown, kind: unknown, apiDomain?: string): boolean {
  const group = apiGroupsFor(apiDomain).apiserverConfig;
  return kind === AUTHORIZATION_CONFIG_KIND && [`${group}/v1`, `${group}/v1beta1`, `${group}/v1alpha1`].includes(String(apiVersion));
}

/** One parsed document (apiVersion and kind included) to a defaulted configuration. */
export function decodeAuthorizationObject(object: Record<string, unknown>, apiDomain?: string): Decoded {
  const { apiVersion, kind } = object;
  if (typeof kind !== 'string' || kind === '') return { error: "Object 'Kind' is missing", fieldErrors: [] };
  if (typeof apiVersion !== 'string' || apiVersion === '') return { error: "Object 'apiVersion' is missing", fieldErrors: [] };
  if (!isAuthorizationConfigKind(apiVersion, kind, apiDomain)) {
    return { error: `no kind ${JSON.stringify(kind)} is registered for version ${JSON.stringify(apiVersion)}`, fieldErrors: [] };
  }
  const { value, errors } = decodeShape(object, CONFIG_SHAPE);
  if (errors.length > 0) return { error: decodeErrorText(errors), fieldErrors: errors };
  const raw = value as { authorizers?: { type?: string; name?: string; webhook?: Record<string, unknown> }[] };
  const durationErrors: FieldError[] = [];
  const authorizers = (raw.authorizers ?? []).map((entry, i): AuthorizerConfiguration => {
    const authorizer: AuthorizerConfiguration = { type: entry.type ?? '', name: entry.name ?? '' };
    if (entry.webhook !== undefined)
      authorizer.webhook = defaultWebhook(entry.webhook, FieldPath.root('authorizers').index(i).child('webhook'), durationErrors);
    return authorizer;
  });
  if (durationErrors.length > 0) return { error: durationErrors[0]!.detail, fieldErrors: durationErrors };
  return { config: { authorizers } };
}

/** Go's decoder stops at the first type mismatch; unknown fields are reported together. */
function decodeErrorText(errors: FieldError[]): string {
  const typed = errors.filter((e) => e.type !== 'FieldValueForbidden');
  if (typed.length > 0) return formatFieldError(typed[0]!);
  return `strict decoding error: ${errors.map((e) => `unknown field ${JSON.stringify(e.field)}`).join(', ')}`;
}

function defaultWebhook(raw: Record<string, unknown>, path: FieldPath, errors: FieldError[]): WebhookConfiguration {
  const duration = (field: string): bigint => {
    const text = raw[field];
    if (typeof text !== 'string') return 0n;
    const parsed = parseGoDuration(text);
    if (parsed.ok) return parsed.nanoseconds;
    errors.push(invalid(path.child(field), text, parsed.error));
    return 0n;
  };
  const authorizedTTL = duration('authorizedTTL');
  const unauthorizedTTL = duration('unauthorizedTTL');
  const connection = (raw.connectionInfo ?? {}) as { type?: string; kubeConfigFile?: string };
  const connectionInfo: WebhookConnectionInfo = { type: connection.type ?? '' };
  if (connection.kubeConfigFile !== undefined) connectionInfo.kubeConfigFile = connection.kubeConfigFile;
  return {
    authorizedTTLNanoseconds: authorizedTTL === 0n ? DEFAULT_AUTHORIZED_TTL_NANOSECONDS : authorizedTTL,
    cacheAuthorizedRequests: raw.cacheAuthorizedRequests !== false,
    unauthorizedTTLNanoseconds: unauthorizedTTL === 0n ? DEFAULT_UNAUTHORIZED_TTL_NANOSECONDS : unauthorizedTTL,
    cacheUnauthorizedRequests: raw.cacheUnauthorizedRequests !== false,
    timeoutNanoseconds: duration('timeout'),
    subjectAccessReviewVersion: (raw.subjectAccessReviewVersion as string | undefined) ?? '',
    matchConditionSubjectAccessReviewVersion: (raw.matchConditionSubjectAccessReviewVersion as string | undefined) ?? '',
    failurePolicy: (raw.failurePolicy as string | undefined) ?? '',
    connectionInfo,
    matchConditions: ((raw.matchConditions as { expression?: string }[] | undefined) ?? []).map((c) => ({ expression: c.expression ?? '' })),
  };
}
