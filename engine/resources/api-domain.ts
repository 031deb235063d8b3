// One setting, `apiDomain`, names every API group Fairway serves or reads. The default `k8s.io`
// is what kubectl and client-node expect; another domain lets Fairway run beside a real cluster's
// types without being mistaken for them.

export const DEFAULT_API_DOMAIN = 'k8s.io';

export interface ApiGroups {
  readonly apiDomain: string;
  /** `flowcontrol.apiserver.<domain>`: PriorityLevelConfiguration and FlowSchema. */
  readonly flowcontrol: string;
  /** `apiserver.config.<domain>`: AdmissionConfiguration, AuthorizationConfiguration, EncryptionConfiguration. */
  readonly apiserverConfig: string;
  /** `meta.<domain>`: Table, PartialObjectMetadata. */
  readonly meta: string;
  /** `authorization.<domain>`: SubjectAccessReview and friends. */
  readonly authorization: string;
  /** `authentication.<domain>`: SelfSubjectReview. */
  readonly authentication: string;
  /** `apidiscovery.<domain>`: aggregated discovery. */
  readonly apidiscovery: string;
}

export function apiGroupsFor(apiDomain: string = DEFAULT_API_DOMAIN): ApiGroups {
  return {
    apiDomain,
    flowcontrol: `flowcontrol.apiserver.${apiDomain}`,
    apiserverConfig: `apiserver.config.${apiDomain}`,
    meta: `meta.${apiDomain}`,
    authorization: `authorization.${apiDomain}`,
    authentication: `authentication.${apiDomain}`,
    apidiscovery: `apidiscovery.${apiDomain}`,
  };
}

export const FLOWCONTROL_VERSION = 'v1';

/** `flowcontrol.apiserver.<domain>/v1`, the apiVersion of both flowcontrol kinds. */
export function flowcontrolApiVersion(apiDomain: string = DEFAULT_API_DOMAIN): string {
  return `${apiGroupsFor(apiDomain).flowcontrol}/${FLOWCONTROL_VERSION}`;
}
