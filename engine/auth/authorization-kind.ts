// AuthorizationConfiguration as a manifest kind for `fairway config check`: the decode, default and
// validate steps the server runs at startup (CEL matchConditions compiled, kubeconfig paths
// stat'ed), plus loading each webhook's kubeconfig the way building the chain would, so a file that
// checks clean is one the server starts with. Findings print as `FILE: KIND/(document N): FIELD: ...`.
import type { FieldError } from '../resources/field-errors.ts';
import { FieldPath, invalid } from '../resources/field-errors.ts';
import { apiGroupsFor } from '../resources/api-domain.ts';
import { loadWebhookKubeconfig } from './webhook-kubeconfig.ts';
import type { ManifestKind } from '../config/manifests.ts';
import { AUTHORIZATION_CONFIG_KIND, decodeAuthorizationObject } from './authorization-config.ts';
import { validateAuthorizationConfiguration, type AuthorizationValidationOptions } from './authorization-validation.ts';

/** The three apiVersions that load: v1, and the v1beta1 / v1alpha1 spellings. */
export function authorizationManifestKinds(apiDomain?: string, options: AuthorizationValidationOptions = {}): ManifestKind[] {
  const group = apiGroupsFor(apiDomain).apiserverConfig;
  const check = (document: Record<string, unknown>): FieldError[] => checkAuthorizationDocument(document, apiDomain, options);
  return ['v1', 'v1beta1', 'v1alpha1'].map((version) => ({ apiVersion: `${group}/${version}`, kind: AUTHORIZATION_CONFIG_KIND, check }));
}

export function checkAuthorizationDocument(document: Record<string, unknown>, apiDomain?: string, options: AuthorizationValidationOptions = {}): FieldError[] {
  const decoded = decodeAuthorizationObject(document, apiDomain);
  if ('error' in decoded) return decoded.fieldErrors.length > 0 ? decoded.fieldErrors : [invalid('kind', document.kind, decoded.error)];
  const validated = validateAuthorizationConfiguration(decoded.config, options);
  if (validated.errors.length > 0) return validated.errors;
  const errors: FieldError[] = [];
  decoded.config.authorizers.forEach((authorizer, i) => {
    const file = authorizer.webhook?.connectionInfo.kubeConfigFile;
    if (authorizer.webhook?.connectionInfo.type !== 'KubeConfigFile' || file === undefined) return;
    const loaded = loadWebhookKubeconfig(file);
    if (!loaded.ok) errors.push(invalid(FieldPath.root('authorizers').index(i).child('connectionInfo').child('kubeConfigFile'), file, loaded.error));
  });
  return errors;
}
