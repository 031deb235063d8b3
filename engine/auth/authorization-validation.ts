// AuthorizationConfiguration validation, rule by rule and message by message as Kubernetes'
// ValidateAuthorizationConfiguration / ValidateWebhookConfiguration, followed by kube-apiserver's own
// checks (a non-Webhook authorizer must be named after its type; on reload, every non-Webhook type
// present at startup must still be there). Paths start at `authorizers`, and webhook fields hang
// directly off `authorizers[i]` (`authorizers[0].timeout`), as in Kubernetes.
import { statSync } from 'node:fs';
import { isAbsolute } from 'node:path';
import type { FieldError } from '../resources/field-errors.ts';
import { duplicate, FieldPath, invalid, notSupported, required, tooMany } from '../resources/field-errors.ts';
import { isDns1123Subdomain } from '../resources/name-validation.ts';
import { compileMatchConditions, type MatchConditions } from './cel-match-conditions.ts';
import { formatGoDuration } from '../go-duration.ts';
import type { AuthorizationConfiguration, WebhookConfiguration } from './authorization-types.ts';
import { append } from '../append.ts';

/** kube-apiserver's authorizer types (`--authorization-mode` choices). */
export const AUTHORIZER_TYPES = ['ABAC', 'AlwaysAllow', 'AlwaysDeny', 'Node', 'RBAC', 'Webhook'] as const;
const REPEATABLE_TYPES = new Set(['Webhook']);
export const MAX_MATCH_CONDITIONS = 64;
const MAX_TIMEOUT_NANOSECONDS = 30_000_000_000n;

export interface AuthorizationValidationOptions {
  /** File metadata lookup for `kubeConfigFile` (tests substitute it); defaults to fs.statSync. */
  statFile?: (path: string) => { isFile(): boolean };
  /** On reload: the non-Webhook types the running server started with, which must all remain. */
  requiredNonWebhookTypes?: readonly string[];
}

export interface AuthorizationValidation {
  errors: FieldError[];
  matchConditions: Map<number, MatchConditions>;
}

export function validateAuthorizationConfiguration(config: AuthorizationConfiguration, options: AuthorizationValidationOptions = {}): AuthorizationValidation {
  const errors: FieldError[] = [];
  const matchConditions = new Map<number, MatchConditions>();
  const root = FieldPath.root('authorizers');
  if (config.authorizers.length === 0) errors.push(required(root, 'at least one authorization mode must be defined'));
  const seenTypes = new Set<string>();
  const seenNames = new Set<string>();
  for (const [i, authorizer] of config.authorizers.entries()) {
    const path = root.index(i);
    const { type, name } = authorizer;
    if (type === '') {
      errors.push(required(path.child('type')));
      continue;
    }
    if (!(AUTHORIZER_TYPES as readonly string[]).includes(type)) {
      errors.push(notSupported(path.child('type'), type, AUTHORIZER_TYPES));
      continue;
    }
    if (seenTypes.has(type) && !REPEATABLE_TYPES.has(type)) {
      errors.push(duplicate(path.child('type'), type));
      continue;
    }
    seenTypes.add(type);
    if (name === '') errors.push(required(path.child('name')));
    else if (seenNames.has(name)) errors.push(duplicate(path.child('name'), name));
    else {
      const problems = isDns1123Subdomain(name);
      if (problems.length > 0) errors.push(invalid(path.child('name'), name, `authorizer name is invalid: ${problems.join(', ')}`));
    }
    seenNames.add(name);
    if (type === 'Webhook') {
      if (authorizer.webhook === undefined) {
        errors.push(required(path.child('webhook'), 'required when type=Webhook'));
        continue;
      }
      const webhook = validateWebhook(authorizer.webhook, path, options);
      append(errors, webhook.errors);
      if (webhook.conditions !== undefined) matchConditions.set(i, webhook.conditions);
    } else if (authorizer.webhook !== undefined) {
      errors.push(invalid(path.child('webhook'), 'non-null', 'may only be specified when type=Webhook'));
    }
  }
  if (errors.length > 0) return { errors, matchConditions };
  return { errors: kubeApiserverChecks(config, options), matchConditions };
}

function validateWebhook(
  webhook: WebhookConfiguration,
  path: FieldPath,
  options: AuthorizationValidationOptions,
): { errors: FieldError[]; conditions?: MatchConditions } {
  const errors: FieldError[] = [];
  const timeout = webhook.timeoutNanoseconds;
  if (timeout === 0n) errors.push(required(path.child('timeout')));
  else if (timeout < 0n || timeout > MAX_TIMEOUT_NANOSECONDS) errors.push(invalid(path.child('timeout'), formatGoDuration(timeout), 'must be > 0s and <= 30s'));
  for (const [field, value] of [
    ['authorizedTTL', webhook.authorizedTTLNanoseconds],
    ['unauthorizedTTL', webhook.unauthorizedTTLNanoseconds],
  ] as const) {
    if (value === 0n) errors.push(required(path.child(field)));
    else if (value < 0n) errors.push(invalid(path.child(field), formatGoDuration(value), 'must be > 0s'));
  }
  const version = webhook.subjectAccessReviewVersion;
  if (version === '') errors.push(required(path.child('subjectAccessReviewVersion')));
  else if (version !== 'v1' && version !== 'v1beta1') errors.push(notSupported(path.child('subjectAccessReviewVersion'), version, ['v1', 'v1beta1']));
  const conditionVersion = webhook.matchConditionSubjectAccessReviewVersion;
  if (conditionVersion === '') {
    if (webhook.matchConditions.length > 0)
      errors.push(required(path.child('matchConditionSubjectAccessReviewVersion'), 'required if match conditions are specified'));
  } else if (conditionVersion !== 'v1') errors.push(notSupported(path.child('matchConditionSubjectAccessReviewVersion'), conditionVersion, ['v1']));
  const policy = webhook.failurePolicy;
  if (policy === '') errors.push(required(path.child('failurePolicy')));
  else if (policy !== 'NoOpinion' && policy !== 'Deny') errors.push(notSupported(path.child('failurePolicy'), policy, ['NoOpinion', 'Deny']));
  append(errors, validateConnectionInfo(webhook, path.child('connectionInfo'), options));
  const conditions = validateMatchConditions(webhook.matchConditions, path.child('matchConditions'));
  append(errors, conditions.errors);
  return conditions.conditions === undefined ? { errors } : { errors, conditions: conditions.conditions };
}

function validateConnectionInfo(webhook: WebhookConfiguration, path: FieldPath, options: AuthorizationValidationOptions): FieldError[] {
  const { type, kubeConfigFile } = webhook.connectionInfo;
  const filePath = path.child('kubeConfigFile');
  switch (type) {
    case '':
      return [required(path.child('type'))];
    case 'InClusterConfig':
      return kubeConfigFile === undefined ? [] : [invalid(filePath, kubeConfigFile, 'can only be set when type=KubeConfigFile')];
    case 'KubeConfigFile': {
      if (kubeConfigFile === undefined || kubeConfigFile === '') return [required(filePath)];
      if (!isAbsolute(kubeConfigFile)) return [invalid(filePath, kubeConfigFile, 'must be an absolute path')];
      let info: { isFile(): boolean };
      try {
        info = (options.statFile ?? statSync)(kubeConfigFile);
      } catch (error) {
        return [invalid(filePath, kubeConfigFile, `error loading file: ${statErrorText(error, kubeConfigFile)}`)];
      }
      return info.isFile() ? [] : [invalid(filePath, kubeConfigFile, 'must be a regular file')];
    }
    default: {
      // Kubernetes passes the whole internal struct (Go field names, no json tags) as the value.
      const value = { Type: type, KubeConfigFile: kubeConfigFile ?? null };
      return [notSupported(path.child('type'), value, ['InClusterConfig', 'KubeConfigFile'])];
    }
  }
}

function validateMatchConditions(conditions: readonly { expression: string }[], path: FieldPath): { errors: FieldError[]; conditions?: MatchConditions } {
  if (conditions.length === 0) return { errors: [] };
  if (conditions.length > MAX_MATCH_CONDITIONS) return { errors: [tooMany(path, conditions.length, MAX_MATCH_CONDITIONS)] };
  const errors: FieldError[] = [];
  const seen = new Set<string>();
  const toCompile: { index: number; expression: string }[] = [];
  conditions.forEach(({ expression }, index) => {
    const expressionPath = path.index(index).child('expression');
    if (expression.trim() === '') errors.push(required(expressionPath));
    else if (seen.has(expression)) errors.push(duplicate(expressionPath, expression));
    else {
      seen.add(expression);
      toCompile.push({ index, expression });
    }
  });
  const compiled = compileMatchConditions(toCompile.map((c) => c.expression));
  for (const problem of compiled.problems) {
    const original = toCompile[problem.index]!;
    errors.push(invalid(path.index(original.index).child('expression'), original.expression, problem.detail));
  }
  return errors.length > 0 ? { errors } : { errors, conditions: compiled.conditions };
}

function kubeApiserverChecks(config: AuthorizationConfiguration, options: AuthorizationValidationOptions): FieldError[] {
  const errors: FieldError[] = [];
  const seen = new Set<string>();
  for (const [i, { type, name }] of config.authorizers.entries()) {
    if (type === 'Webhook') continue;
    seen.add(type);
    const expected = type.toLowerCase();
    if (name !== expected)
      errors.push(invalid(FieldPath.root('authorizers').index(i).child('name'), name, `expected name ${expected} for authorizer ${type} instead of ${name}`));
  }
  const missing = (options.requiredNonWebhookTypes ?? []).filter((t) => !seen.has(t)).sort();
  if (missing.length > 0) errors.push(invalid(FieldPath.root('authorizers'), missing, `missing required types: [${missing.join(' ')}]`));
  return errors;
}

function statErrorText(error: unknown, path: string): string {
  const code = (error as NodeJS.ErrnoException).code;
  const why =
    code === 'ENOENT'
      ? 'no such file or directory'
      : code === 'EACCES'
        ? 'permission denied'
        : code === 'ENOTDIR'
          ? 'not a directory'
          : (error as Error).message;
  return `stat ${path}: ${why}`;
}
