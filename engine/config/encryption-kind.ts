// EncryptionConfiguration as a manifest kind for `fairway config check`: the same decode, default,
// validate and build checks the server runs at startup, reported as field errors so each finding
// prints as `FILE: EncryptionConfiguration/(document 1): resources[0]...: ...`.

import type { FieldError } from '../resources/field-errors.ts';
import { invalid } from '../resources/field-errors.ts';
import { apiGroupsFor } from '../resources/api-domain.ts';
import type { ManifestKind } from './manifests.ts';
import type { EncryptionConfigOptions } from './encryption-config.ts';
import { buildEncryptionRules, decodeEncryptionObject, ENCRYPTION_CONFIG_KIND, LEGACY_ENCRYPTION_CONFIG } from './encryption-config.ts';
import { validateEncryptionConfiguration } from './encryption-validation.ts';

/** Both spellings kube-apiserver accepts: `apiserver.config.<domain>/v1` and the legacy `v1 EncryptionConfig`. */
export function encryptionManifestKinds(apiDomain?: string, options: Omit<EncryptionConfigOptions, 'apiDomain'> = {}): ManifestKind[] {
  const check = (document: Record<string, unknown>): FieldError[] => checkEncryptionDocument(document, { ...options, apiDomain });
  return [
    { apiVersion: `${apiGroupsFor(apiDomain).apiserverConfig}/v1`, kind: ENCRYPTION_CONFIG_KIND, check },
    { apiVersion: LEGACY_ENCRYPTION_CONFIG.apiVersion, kind: LEGACY_ENCRYPTION_CONFIG.kind, check },
  ];
}

export function checkEncryptionDocument(document: Record<string, unknown>, options: EncryptionConfigOptions = {}): FieldError[] {
  const decoded = decodeEncryptionObject(document, options);
  if ('error' in decoded) {
    // A decode failure without a field (wrong kind) only happens when called outside the registry.
    return decoded.fieldErrors.length > 0 ? decoded.fieldErrors : [invalid('kind', document.kind, decoded.error)];
  }
  const errors = validateEncryptionConfiguration(decoded.config, options);
  if (errors.length > 0) return errors;
  const built = buildEncryptionRules(decoded.config, options);
  return 'error' in built ? [built.error] : [];
}
