// Who makes a write and through which path, as the registry's admission step needs it: the user,
// the resource as addressed, and where admission's warnings go. The API builds one per request
// from what its filters established; the registry never sees the HTTP request itself.
import type { AdmissionAttributes, AdmissionChain, AdmissionOperation } from '../auth/admission/admission.ts';
import type { UserInfo } from '../auth/user-info.ts';
import type { KubeObject } from '../resources/types.ts';
import { RegistryError } from './registry-errors.ts';

export interface Requester {
  user: UserInfo;
  /** The resource as addressed: `{group: 'flowcontrol.apiserver.k8s.io', version: 'v1', resource: 'flowschemas'}`. */
  resource: { group: string; version: string; resource: string };
  subresource: string;
  namespace: string;
  /** The object name from the path; '' for a create (admission then takes the object's name). */
  name: string;
  /** The request asked for a dry run. */
  dryRun: boolean;
  /** Receives admission's warnings (the API sends them as `Warning` headers). */
  warn(warnings: readonly string[]): void;
}

/** What admission plugins see of one write: the requester, the kind, and the objects before and after. */
export function admissionAttributes(
  requester: Requester,
  operation: AdmissionOperation,
  kind: { group: string; version: string; kind: string },
  object: KubeObject | undefined,
  oldObject: KubeObject | undefined,
): AdmissionAttributes {
  const objectName = (object ?? oldObject)?.metadata?.name;
  const attributes: AdmissionAttributes = {
    operation,
    user: requester.user,
    resource: requester.resource,
    subresource: requester.subresource,
    kind,
    namespace: requester.namespace,
    name: requester.name !== '' ? requester.name : typeof objectName === 'string' ? objectName : '',
    dryRun: requester.dryRun,
  };
  if (object !== undefined) attributes.object = object;
  if (oldObject !== undefined) attributes.oldObject = oldObject;
  return attributes;
}

/**
 * Validating admission of one write: the chain's warnings go to the requester, a refusal is thrown
 * as FW_ERR_REGISTRY_ADMISSION_REJECTED (the API edge words it as kube-apiserver does).
 */
export function admitWrite(
  chain: AdmissionChain,
  requester: Requester,
  operation: AdmissionOperation,
  kind: { group: string; version: string; kind: string },
  object: KubeObject | undefined,
  oldObject: KubeObject | undefined,
): void {
  const attributes = admissionAttributes(requester, operation, kind, object, oldObject);
  const result = chain.validate(attributes);
  requester.warn(result.warnings);
  if (!result.allowed) throw new RegistryError({ code: 'FW_ERR_REGISTRY_ADMISSION_REJECTED', rejection: result.rejection, attributes });
}
