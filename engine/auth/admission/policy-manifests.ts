// Reading ValidatingAdmissionPolicy / ValidatingAdmissionPolicyBinding objects from a static
// manifests directory (the 1.36 `staticManifestsDir` shape): every `.yaml`, `.yml` and `.json`
// file directly in the directory, multi-document YAML split, Lists expanded. Names must end in
// `.static.k8s.io` and be unique across the directory; objects are decoded strictly, defaulted and
// validated, and their CEL compiled, so a bad policy is a startup (or `fairway config check`)
// error naming the file and field, never a surprise at request time.
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import type { FieldError } from '../../resources/field-errors.ts';
import { formatFieldError } from '../../resources/field-errors.ts';
import { checkManifests, createManifestRegistry, formatManifestError, parseManifests, type ManifestFile, type ManifestKind } from '../../config/manifests.ts';
import type { ValidatingAdmissionPolicy, ValidatingAdmissionPolicyBinding } from './policy-types.ts';
import { STATIC_NAME_SUFFIX } from './policy-types.ts';
import { decodeBinding, decodePolicy } from './policy-decode.ts';
import { compilePolicy, type CompiledPolicy } from './policy-compile.ts';
import { readConfigFileSync } from '../../config/config-file.ts';

export interface PolicyManifests {
  policies: CompiledPolicy[];
  bindings: ValidatingAdmissionPolicyBinding[];
  /** One line per problem: `FILE: message` or `FILE: KIND/NAME: field: error`. */
  errors: string[];
}

export const POLICY_FILE_EXTENSIONS = ['.yaml', '.yml', '.json'];

/** The two kinds as manifest kinds (decode + validate + compile), for the reader and `config check`. */
export function policyManifestKinds(apiDomain = 'k8s.io'): ManifestKind[] {
  const apiVersion = `admissionregistration.${apiDomain}/v1`;
  return [
    { apiVersion, kind: 'ValidatingAdmissionPolicy', check: (document, file) => checkPolicy(document, file) },
    { apiVersion, kind: 'ValidatingAdmissionPolicyBinding', check: (document, file) => decodeBinding(document, file).errors },
  ];
}

function checkPolicy(document: Record<string, unknown>, file: string): FieldError[] {
  const decoded = decodePolicy(document, file);
  if (decoded.policy === undefined) return decoded.errors;
  return compilePolicy(decoded.policy).errors;
}

/**
 * Loads the directory; a missing directory is an error line, not an exception. Synchronous, as it
 * runs once at startup and inside `fairway config check`'s synchronous kind checks.
 */
export function loadPolicyManifests(dir: string, apiDomain = 'k8s.io'): PolicyManifests {
  const result: PolicyManifests = { policies: [], bindings: [], errors: [] };
  let names: string[];
  try {
    names = readdirSync(dir, { withFileTypes: true })
      .filter((e) => e.isFile() && POLICY_FILE_EXTENSIONS.some((x) => e.name.endsWith(x)))
      .map((e) => e.name);
  } catch (error) {
    result.errors.push(`${dir}: cannot read static manifests directory: ${(error as Error).message}`);
    return result;
  }
  const registry = createManifestRegistry(policyManifestKinds(apiDomain));
  const seen = new Map<string, string>();
  for (const name of names.sort()) {
    const file = join(dir, name);
    const manifest = readManifest(file);
    const { checked, errors } = checkManifests(manifest, registry);
    for (const error of [...manifest.errors, ...errors]) result.errors.push(formatManifestError(error));
    for (const { document, kind, name: objectName, errors: fieldErrors } of checked) {
      if (objectName === '') {
        result.errors.push(`resource in file ${JSON.stringify(file)} must have a name`);
        continue;
      }
      if (!objectName.endsWith(STATIC_NAME_SUFFIX)) {
        result.errors.push(`${JSON.stringify(objectName)} in file ${JSON.stringify(file)} must have a name ending with ${JSON.stringify(STATIC_NAME_SUFFIX)}`);
        continue;
      }
      const previous = seen.get(`${kind.kind}/${objectName}`);
      if (previous !== undefined) {
        result.errors.push(
          `duplicate name ${JSON.stringify(objectName)} found in file ${JSON.stringify(file)} (previously seen in ${JSON.stringify(previous)})`,
        );
        continue;
      }
      seen.set(`${kind.kind}/${objectName}`, file);
      if (fieldErrors.length > 0) {
        for (const error of fieldErrors) result.errors.push(`${file}: ${kind.kind}/${objectName}: ${formatFieldError(error)}`);
        continue;
      }
      if (kind.kind === 'ValidatingAdmissionPolicy') {
        const policy = decodePolicy(document.object, file).policy as ValidatingAdmissionPolicy;
        result.policies.push(compilePolicy(policy).compiled!);
      } else {
        result.bindings.push(decodeBinding(document.object, file).binding!);
      }
    }
  }
  return result;
}

function readManifest(file: string): ManifestFile {
  try {
    return parseManifests(readConfigFileSync(file).toString('utf8'), file);
  } catch (error) {
    return { file, documents: [], errors: [{ file, problem: 'unreadable', message: `cannot read: ${(error as Error).message}` }] };
  }
}
