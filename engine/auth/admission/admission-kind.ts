// AdmissionConfiguration as a manifest kind for `fairway config check`. The file itself only routes
// configuration to plugins, so the check follows each entry for a plugin Fairway has
// (EventRateLimit, ValidatingAdmissionPolicy): the inline configuration, or the file at `path`
// (relative to this file), decoded and validated as the plugin would at startup, and for
// ValidatingAdmissionPolicy every manifest in its static manifests directory. Entries for plugins
// Fairway does not have are ignored, as kube-apiserver ignores entries for plugins not enabled.
import type { FieldError } from '../../resources/field-errors.ts';
import { FieldPath, invalid } from '../../resources/field-errors.ts';
import { apiGroupsFor } from '../../resources/api-domain.ts';
import type { ManifestKind } from '../../config/manifests.ts';
import { parseManifests } from '../../config/manifests.ts';
import { readConfigFileSync } from '../../config/config-file.ts';
import { ADMISSION_CONFIG_KIND, decodeAdmissionObject, LEGACY_ADMISSION_API_VERSION } from '../../config/admission-config.ts';
import { decodeEventRateLimit, decodePolicyConfig } from './build-admission.ts';
import { EVENT_RATE_LIMIT_PLUGIN } from './event-rate-limit.ts';
import { VALIDATING_ADMISSION_POLICY_PLUGIN } from './validating-admission-policy.ts';
import { loadPolicyManifests } from './policy-manifests.ts';
import { append } from '../../append.ts';

export function admissionManifestKinds(apiDomain?: string): ManifestKind[] {
  const check = (document: Record<string, unknown>, file: string): FieldError[] => checkAdmissionDocument(document, file, apiDomain);
  return [
    { apiVersion: `${apiGroupsFor(apiDomain).apiserverConfig}/v1`, kind: ADMISSION_CONFIG_KIND, check },
    { apiVersion: LEGACY_ADMISSION_API_VERSION, kind: ADMISSION_CONFIG_KIND, check },
  ];
}

export function checkAdmissionDocument(document: Record<string, unknown>, file: string, apiDomain?: string): FieldError[] {
  const decoded = decodeAdmissionObject(document, file, apiDomain);
  if (!decoded.ok) return decoded.fieldErrors.length > 0 ? decoded.fieldErrors : [invalid('kind', document.kind, decoded.error)];
  const errors: FieldError[] = [];
  const seen = new Set<string>();
  decoded.config.plugins.forEach((entry, i) => {
    if (seen.has(entry.name)) return; // later entries of a name are never read
    seen.add(entry.name);
    if (entry.name !== EVENT_RATE_LIMIT_PLUGIN && entry.name !== VALIDATING_ADMISSION_POLICY_PLUGIN) return;
    const path = FieldPath.root('plugins').index(i);
    let object = entry.configuration;
    let at = path.child('configuration');
    if (object === undefined && entry.path !== undefined) {
      at = path.child('path');
      try {
        const first = parseManifests(readConfigFileSync(entry.path).toString('utf8'), entry.path).documents[0];
        if (first === undefined) {
          errors.push(invalid(at, entry.path, 'no configuration object in the file'));
          return;
        }
        object = first.object;
      } catch (error) {
        errors.push(invalid(at, entry.path, `Couldn't open admission plugin configuration ${entry.path}: ${(error as Error).message}`));
        return;
      }
    }
    if (object === undefined) return;
    const prefix = (e: FieldError): FieldError => ({ ...e, field: e.field === '' ? at.toString() : `${at.toString()}.${e.field}` });
    if (entry.name === EVENT_RATE_LIMIT_PLUGIN) {
      const limits = decodeEventRateLimit(object);
      if ('errors' in limits) append(errors, limits.errors.map(prefix));
      return;
    }
    const dir = decodePolicyConfig(object, apiDomain);
    if (typeof dir === 'object') append(errors, dir.errors.map(prefix));
    else if (dir !== undefined) {
      for (const problem of loadPolicyManifests(dir, apiDomain).errors) errors.push(invalid(at.child('staticManifestsDir'), dir, problem));
    }
  });
  return errors;
}
